"""The Compare page's pure pieces: who is right under two runs, the score scatter and its
selection, and two aligners' (or annotators') agreement on gold problems."""

from __future__ import annotations

import pytest

from components.figures.compare import BOTH_RIGHT, NO_GOLD, agreement, score_scatter, selected_ids
from explorer.alignment import Alignment


@pytest.mark.parametrize(
    ("x_ok", "y_ok", "expected"),
    [
        pytest.param(True, True, BOTH_RIGHT, id="both-right"),
        pytest.param(False, False, "both wrong", id="both-wrong"),
        pytest.param(True, False, "only A correct", id="only-x"),
        pytest.param(False, True, "only B correct", id="only-y"),
        pytest.param(None, True, NO_GOLD, id="unlabelled"),
    ],
)
def test_agreement_groups(x_ok: bool | None, y_ok: bool | None, expected: str) -> None:
    assert agreement(x_ok, y_ok, x_name="A", y_name="B") == expected


def test_score_scatter_has_one_trace_per_group_and_positions_as_customdata() -> None:
    figure = score_scatter(["1", "2", "<a href='x'>3</a>"], [0.1, 0.5, 0.9], [0.2, 0.4, 0.8],
                           [BOTH_RIGHT, "only A correct", BOTH_RIGHT], x_name="A", y_name="B",
                           x_cutoff=0.3, y_cutoff=0.5)
    assert [t.name for t in figure.data] == [BOTH_RIGHT, "only A correct"]
    assert list(figure.data[0].customdata) == [0, 2]
    assert list(figure.data[0].text) == ["1", "&lt;a href='x'&gt;3&lt;/a&gt;"]  # no tag in the hover, the quotes as typed
    # A drag zooms; selecting is a click (or the modebar's box and lasso), never the default drag.
    assert figure.layout.dragmode == "zoom" and "select" in figure.layout.clickmode
    with pytest.raises(ValueError, match="same length"):
        score_scatter(["1"], [0.1, 0.2], [0.3], ["x"], x_name="A", y_name="B")


def test_selected_ids_reads_streamlit_selection_points() -> None:
    points = [{"customdata": [2]}, {"customdata": 0}, {"customdata": [2]}, {"x": 1}, {"customdata": 9}]
    assert selected_ids(points, ["a", "b", "c"]) == ["c", "a"]


def test_f1_differences_and_annotator_agreement() -> None:
    from explorer.aligners.comparison import agreement, f1_differences

    gold = {"1": Alignment.from_links(2, 2, {(0, 0), (1, 1)}), "2": Alignment.from_links(1, 1, {(0, 0)})}
    first = {"1": Alignment.from_links(2, 2, {(0, 0)}), "2": Alignment.from_links(1, 1, {(0, 0)})}
    second = {"1": Alignment.from_links(2, 2, {(0, 0), (1, 1)}), "2": Alignment(1, 1),
              "3": Alignment(1, 1)}
    rows = f1_differences(first, second, gold)
    assert [r["pair_id"] for r in rows] == ["2", "1"]  # |-1| before |+1/3|
    assert rows[0]["difference"] == pytest.approx(-1.0)
    assert rows[1]["f1_first"] == pytest.approx(2 / 3) and rows[1]["f1_second"] == pytest.approx(1.0)

    a = {"1": Alignment.from_links(2, 2, {(0, 0), (1, 1)}), "2": Alignment.from_links(1, 1, {(0, 0)})}
    b = {"1": Alignment.from_links(2, 2, {(0, 0)}), "2": Alignment.from_links(1, 1, {(0, 0)})}
    c = {"1": Alignment.from_links(3, 2, {(2, 1)})}  # other tokens: not comparable
    (ab, ac, bc) = agreement({"A": a, "B": b, "C": c})
    assert (ab.first, ab.second, ab.problems) == ("A", "B", 2)
    assert ab.dice == pytest.approx(2 * 2 / (3 + 2)) and ab.exact == pytest.approx(0.5)
    assert ac.problems == 0 and bc.problems == 0
