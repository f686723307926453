"""MANLI's pure figure builders (edit list, contribution waterfall) and its panel's
registration; the panel itself runs in tests/app/test_panels.py."""

from __future__ import annotations

import pytest

from components.figures.manli import contribution_figure, edit_label, edit_rows
from components.panels import PANELS
from explorer.alignment import Edit, EditKind

TEXT = ("Kim", "bought", "two", "red", "bikes")
HYP = ("Kim", "purchased", "bikes")
EDITS = (
    Edit(EditKind.EQ, (0, 1), (0, 1), 0.5, (("sub:bias", 1.0), ("sub:eq", 1.0))),
    Edit(EditKind.SUB, (1, 2), (1, 2), 0.25, (("sub:bias", 1.0),)),
    Edit(EditKind.DEL, (2, 3), None, -0.1, (("del:bias", 1.0),)),
    Edit(EditKind.DEL, (3, 4), None, -0.1, (("del:bias", 1.0),)),
    Edit(EditKind.EQ, (4, 5), (2, 3), 0.5, (("sub:bias", 1.0), ("sub:eq", 1.0))),
)
WEIGHTS = {"sub:bias": 0.25, "sub:eq": 0.25, "del:bias": -0.1}


def test_registered() -> None:
    assert PANELS["manli"].function == "render_manli_panel"


def test_edit_labels() -> None:
    assert edit_label(EDITS[1], TEXT, HYP) == "SUB bought \u2192 purchased"
    assert edit_label(EDITS[2], TEXT, HYP) == "DEL two"


def test_edit_rows_list_aligned_edits_first_with_their_main_features() -> None:
    rows = edit_rows(EDITS, TEXT, HYP, WEIGHTS)
    assert [r["edit"] for r in rows] == ["EQ", "SUB", "EQ", "DEL", "DEL"]
    assert rows[0]["main features"] == "sub:bias +0.250, sub:eq +0.250"
    assert sum(r["score"] for r in rows) == pytest.approx(sum(e.score for e in EDITS))


def test_contribution_waterfall_adds_up_to_the_total() -> None:
    figure = contribution_figure(EDITS, TEXT, HYP)
    bars = figure.data[0]
    assert list(bars.measure)[-1] == "total"
    assert bars.y[-1] == pytest.approx(1.05)
    assert sum(bars.y[:-1]) == pytest.approx(bars.y[-1])
    # The two DEL edits keep distinct labels.
    assert len(set(bars.x)) == len(bars.x)


