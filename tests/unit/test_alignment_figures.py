"""The shared alignment grid, checked without Streamlit."""

from __future__ import annotations

import pytest

from components.figures.alignment import Cell, alignment_grid, cell_counts
from explorer.alignment import Alignment, Edit, EditKind

TEXT = ["the", "old", "dog", "barked", "loudly"]
HYP = ["a", "dog", "made", "noise"]


def _predicted() -> Alignment:
    edits = (
        Edit(EditKind.SUB, (0, 1), (0, 1), score=0.5, features=(("sim", 0.4),)),
        Edit(EditKind.DEL, (1, 2), None),
        Edit(EditKind.EQ, (2, 3), (1, 2), score=2.0),
        Edit(EditKind.SUB, (3, 5), (2, 4), score=1.0),
        )
    return Alignment.from_edits(len(TEXT), len(HYP), edits)


def test_grid_without_gold_colours_cells_by_edit_kind() -> None:
    counts = cell_counts(alignment_grid(_predicted(), TEXT, HYP))
    assert counts[Cell.EQ] == 1
    assert counts[Cell.SUB] == 1 + 4  # the 1x1 article pair and the 2x2 block
    assert counts[Cell.EMPTY] == len(TEXT) * len(HYP) - 6


def test_gold_overlay_separates_correct_missed_spurious_and_possible() -> None:
    gold = Alignment.from_links(
        len(TEXT), len(HYP), sure={(2, 1), (3, 2), (1, 1)}, possible={(0, 0), (4, 3)},
    )
    counts = cell_counts(alignment_grid(_predicted(), TEXT, HYP, gold=gold))
    assert counts[Cell.CORRECT] == 2  # dog-dog, barked-made
    assert counts[Cell.POSSIBLE_HIT] == 2  # the-a, loudly-noise
    assert counts[Cell.SPURIOUS] == 2  # barked-noise, loudly-made
    assert counts[Cell.MISSED] == 1  # old-dog


def test_multi_token_edits_are_outlined_and_hover_names_the_edit() -> None:
    figure = alignment_grid(_predicted(), TEXT, HYP)
    assert len(figure.layout.shapes) == 1
    shape = figure.layout.shapes[0]
    assert (shape.x0, shape.x1, shape.y0, shape.y1) == (2.5, 4.5, 1.5, 3.5)
    hover = figure.data[0].customdata[0][0]
    assert "SUB" in hover and "sim = 0.4" in hover


def test_duplicate_tokens_keep_their_own_columns() -> None:
    text = ["a", "a", "b"]
    alignment = Alignment.from_links(3, 1, sure={(1, 0)})
    figure = alignment_grid(alignment, text, ["a"])
    assert list(figure.layout.xaxis.ticktext) == text
    assert list(figure.data[0].z[0]) == [0, int(Cell.LINK), 0]


def test_length_mismatch_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="2 text"):
        alignment_grid(_predicted(), TEXT[:2], HYP)


def test_empty_alignment_draws_an_empty_grid() -> None:
    figure = alignment_grid(Alignment(0, 0), [], [])
    assert cell_counts(figure) == {}


def test_clicked_cells_toggle_links() -> None:
    from components.figures.alignment import clickable_grid, clicked_links
    from components.sections.alignment_editor import toggle

    points = [{"x": 1, "y": 0, "curve_number": 1}, {"x": 1.0, "y": 0.0, "curve_number": 0},
              {"x": 9, "y": 0}, {"z": 3}]
    assert clicked_links(points, 3, 2) == {(1, 0)}
    assert toggle(frozenset({(0, 0), (1, 0)}), {(1, 0), (2, 1)}) == frozenset({(0, 0), (2, 1)})
    figure = clickable_grid(Alignment.from_links(3, 2, {(0, 0)}), ["a", "b", "c"], ["x", "y"], gold=None)
    cells = figure.data[-1]
    assert len(cells.x) == 6 and set(zip(cells.x, cells.y, strict=True)) == {(p, h) for p in range(3) for h in range(2)}


def test_a_files_tokens_are_labels_never_tags() -> None:
    # Tokens given by a file (MSR, Edinburgh++) are split on white space only: "<b>x</b>"
    # can be one, and Plotly would draw it bold in the tick and hover labels.
    figure = alignment_grid(Alignment.from_links(2, 1, {(0, 0)}), ["<b>x</b>", "&y"], ["<i>z"])
    assert list(figure.layout.xaxis.ticktext) == ["&lt;b&gt;x&lt;/b&gt;", "&amp;y"]
    assert "<i>" not in str(figure.data[0].customdata)


def test_a_grid_past_the_cell_limit_is_refused_before_it_is_built() -> None:
    import numpy as np

    from components.figures.alignment import MAX_GRID_CELLS
    from components.figures.similarity import similarity_heatmap

    h_len = 50
    p_len = MAX_GRID_CELLS // h_len + 1
    text, hyp = ["w"] * p_len, ["w"] * h_len
    links = Alignment.from_links(p_len, h_len, [(j, j) for j in range(h_len)])
    with pytest.raises(ValueError, match=f"{p_len * h_len:,} cells"):
        alignment_grid(links, text, hyp)
    with pytest.raises(ValueError, match=f"past the {MAX_GRID_CELLS:,} cells"):
        similarity_heatmap(np.zeros((p_len, h_len)), [["same word"] * h_len] * p_len, text, hyp)
    assert alignment_grid(Alignment.from_links(p_len - 1, h_len, []), text[1:], hyp) is not None  # at the limit
