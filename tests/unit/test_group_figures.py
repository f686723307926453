"""The Groups page's pure figures: slice accuracies with whiskers, and a rewrite's flipped verdicts."""

from __future__ import annotations

import pytest

from components.figures.groups import SliceMark, flip_figure, slice_accuracy_figure


def _mark(slice_name: str, scorer: str, accuracy: float, low: float, high: float, whole: float) -> SliceMark:
    return SliceMark(slice_name, scorer, 20, accuracy, low, high, whole, significant=not low <= whole <= high)


MARKS = [
    _mark("negation", "bleu", 0.30, 0.15, 0.50, 0.60),
    _mark("negation", "bow", 0.55, 0.35, 0.74, 0.62),
    _mark("<b>odd</b>", "bleu", 0.70, 0.48, 0.85, 0.60),
    _mark("<b>odd</b>", "bow", 0.65, 0.43, 0.82, 0.62),
]


def test_whiskers_reach_the_interval_and_filled_markers_mark_real_differences() -> None:
    figure = slice_accuracy_figure(MARKS, title="typical.xml")
    filled = [t for t in figure.data if t.marker.color != "white"]
    hollow = [t for t in figure.data if t.marker.color == "white"]
    assert [len(t.x) for t in filled] == [1]  # only bleu on "negation" misses its whole-set line
    assert filled[0].x[0] == pytest.approx(0.30)
    assert filled[0].error_x.arrayminus[0] == pytest.approx(0.15)
    assert filled[0].error_x.array[0] == pytest.approx(0.20)
    assert sum(len(t.x) for t in hollow) == 3
    # One dotted line per method at its whole-set accuracy.
    assert sorted(shape.x0 for shape in figure.layout.shapes) == pytest.approx([0.60, 0.62])


def test_slices_top_to_bottom_in_order_and_labels_are_inert() -> None:
    figure = slice_accuracy_figure(MARKS)
    ticks = dict(zip(figure.layout.yaxis.ticktext, figure.layout.yaxis.tickvals, strict=True))
    assert ticks["negation"] > ticks["&lt;b&gt;odd&lt;/b&gt;"]
    assert all("<b>odd" not in t.text[0] for t in figure.data)


def test_a_slice_with_no_scored_pair_draws_no_marker() -> None:
    empty = SliceMark("empty", "bleu", 0, None, None, None, 0.6, significant=False)
    figure = slice_accuracy_figure([*MARKS, empty])
    assert sum(len(t.x) for t in figure.data) == 4
    assert "empty" in figure.layout.yaxis.ticktext


def test_flip_figure_counts_out_of_the_rewritten_pairs() -> None:
    figure = flip_figure(["bleu", "bow"], [3, 0], 12, rule="drop_negation")
    assert list(figure.data[0].x) == pytest.approx([0.25, 0.0])
    assert list(figure.data[0].text) == ["3 of 12", "0 of 12"]
    with pytest.raises(ValueError, match="one flipped count"):
        flip_figure(["bleu"], [1, 2], 3, rule="x")
