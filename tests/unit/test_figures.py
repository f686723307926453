"""The pure Plotly figure builders of the backbone pages (components/figures/)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from components.figures import evaluation as figures
from components.figures import ngram_grid as grids
from explorer.decision.measures import sweep
from explorer.metrics.bleu import NgramMatch, ngram_matches


def test_match_matrix_marks_runs_with_their_longest_order() -> None:
    text = ("x", "a", "b", "c", "a")
    hypothesis = ("a", "b", "c")
    grid = grids.match_matrix(ngram_matches(hypothesis, text, 4), len(hypothesis), len(text))
    # "a b c" is a trigram starting at text position 1: a diagonal run of 3s.
    assert grid[0, 1] == grid[1, 2] == grid[2, 3] == 3
    # The second "a" in the text matches only as a unigram.
    assert grid[0, 4] == 1
    # "x" matches nothing.
    assert not grid[:, 0].any()
    assert grid.shape == (3, 5)


def test_match_matrix_ignores_positions_outside_the_grid() -> None:
    grid = grids.match_matrix([NgramMatch(2, 1, (3,))], 2, 4)
    assert grid.tolist() == [[0, 0, 0, 0], [0, 0, 0, 2]]


def test_ngram_grid_has_one_heatmap_with_unique_token_labels() -> None:
    text = ("the", "cat", "saw", "the", "dog")
    hypothesis = ("the", "dog")
    fig = grids.ngram_grid(ngram_matches(hypothesis, text, 4), text, hypothesis, title="t")
    assert isinstance(fig, go.Figure)
    (heatmap,) = fig.data
    assert heatmap.type == "heatmap"
    z = np.asarray(heatmap.z)
    assert z.shape == (2, 5)
    assert len(set(heatmap.x)) == 5  # the repeated "the" still gets its own column
    assert z[1, 4] == 2 and z[0, 3] == 2  # "the dog" at text position 3
    assert z[0, 0] == 1
    assert "longest matched n-gram: 2" in heatmap.text[1][4]


def test_ngram_grid_caps_long_orders_at_the_top_colour() -> None:
    tokens = tuple("abcdef")
    fig = grids.ngram_grid(ngram_matches(tokens, tokens, 6), tokens, tokens)
    assert np.asarray(fig.data[0].z).max() == 4


def test_accuracy_curves_one_step_line_and_one_dotted_cutoff_per_scorer() -> None:
    gold = [True, False, True, False]
    curves = {
        "BLEU": sweep([0.1, 0.2, 0.3, 0.0], gold),
        "Modified BLEU": sweep([0.5, 0.1, 0.4, 0.2], gold),
    }
    fig = figures.accuracy_curves(curves, {"BLEU": 0.1, "Modified BLEU": 0.2})
    assert [t.name for t in fig.data] == ["BLEU (cutoff 0.100)", "Modified BLEU (cutoff 0.200)"]
    assert all(t.line.shape == "hv" for t in fig.data)
    # Accuracy is drawn in percent: the modified BLEU separates these pairs perfectly.
    assert max(fig.data[1].y) == pytest.approx(100.0)
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert sorted(s.x0 for s in lines) == [0.1, 0.2]
    assert all(s.line.dash == "dot" for s in lines)


def test_score_histograms_split_by_gold_label() -> None:
    scores = {"A": [0.1, 0.9, 0.8], "B": [0.0, 0.5, 1.0]}
    fig = figures.score_histograms(scores, [False, True, True], cutoffs={"A": 0.5})
    assert len(fig.data) == 4
    entails = [t for t in fig.data if t.name == "entails"]
    assert sorted(entails[0].x) == [0.8, 0.9]
    assert len([s for s in fig.layout.shapes if s.type == "line"]) == 1


def test_score_histograms_refuse_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="2 scores for 3 gold labels"):
        figures.score_histograms({"A": [0.1, 0.2]}, [True, False, True])
    with pytest.raises(ValueError, match="no scores"):
        figures.score_histograms({}, [])


def test_task_accuracy_bars_in_percent() -> None:
    fig = figures.task_accuracy({"BLEU": {"CD": 0.75, "QA": 0.5}, "Modified BLEU": {"CD": 0.8, "QA": 0.4}})
    assert [t.type for t in fig.data] == ["bar", "bar"]
    assert list(fig.data[0].x) == ["CD", "QA"]
    assert list(fig.data[1].y) == pytest.approx([80.0, 40.0])


def test_graded_scatter_checks_lengths() -> None:
    fig = figures.graded_scatter({"A": [0.1, 0.4]}, [1.0, 4.5])
    assert list(fig.data[0].y) == [1.0, 4.5]
    with pytest.raises(ValueError, match="1 scores for 2 gold scores"):
        figures.graded_scatter({"A": [0.1]}, [1.0, 2.0])


def test_accuracy_curves_on_mixed_scales_get_their_own_axes_or_a_normalised_one() -> None:
    gold = [True, False, True, False]
    bleu, nist = [0.1, 0.2, 0.3, 0.0], [1.0, 6.0, 9.0, 2.0]
    curves = {"BLEU": sweep(bleu, gold), "NIST": sweep(nist, gold)}
    assert figures.mixed_scales(curves)
    assert not figures.mixed_scales({"BLEU": sweep(bleu, gold), "B2": sweep([0.2, 0.1, 0.4, 0.3], gold)})
    cutoffs = {"BLEU": 0.1, "NIST": 2.0}
    separate = figures.accuracy_curves(curves, cutoffs, axes="separate")
    assert {t.xaxis for t in separate.data} == {"x", "x2"}  # each scorer on its own x axis
    normalised = figures.accuracy_curves(curves, cutoffs, axes="normalised", scores={"BLEU": bleu, "NIST": nist})
    for trace in normalised.data:
        assert 0.0 <= min(trace.x) and max(trace.x) <= 1.0
    # BLEU's cutoff 0.1 leaves two of four pairs at or below it: 0.5 on the shared scale.
    assert sorted(s.x0 for s in normalised.layout.shapes) == [0.5, 0.5]
    with pytest.raises(ValueError, match="need every scorer's scores"):
        figures.accuracy_curves(curves, cutoffs, axes="normalised")
    with pytest.raises(ValueError, match="choose one of"):
        figures.accuracy_curves(curves, cutoffs, axes="log")
