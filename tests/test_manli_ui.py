"""MANLI in the app: the pure edit-list and contribution builders, the Pair-page panel
and the Aligners page under AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from components.manli_figures import contribution_figure, edit_label, edit_rows
from components.method_panels import PANELS
from explorer.alignment import Edit, EditKind
from tests.conftest import ROOT

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


def _panel_script() -> None:
    from components.manli_panel import render_manli_panel
    from explorer.alignment import Alignment
    from explorer.pairs import Pair
    from explorer.preprocess import analyze_pair

    gold = Alignment.from_links(5, 3, {(0, 0), (1, 1), (4, 2)})
    pair = Pair(id="g", text="Kim bought two red bikes", hypothesis="Kim purchased bikes",
                text_tokens=("Kim", "bought", "two", "red", "bikes"), hypothesis_tokens=("Kim", "purchased", "bikes"),
                gold_alignment=gold)
    render_manli_panel(analyze_pair(pair))


def test_panel_draws_grid_edits_and_contributions() -> None:
    at = AppTest.from_function(_panel_script, default_timeout=120).run()
    assert not at.exception, at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["manli_grid", "manli_contributions"]
    assert at.metric[0].label == "Alignment score"
    edits = at.dataframe[0].value
    total = float(at.metric[0].value)
    assert edits["score"].sum() == pytest.approx(total, abs=2e-3)
    aligned = edits[edits["edit"].isin(["EQ", "SUB"])]
    assert {"Kim", "bikes"} <= set(aligned["text"])


APP = str(ROOT / "app.py")


def _table(at: AppTest, *, has: str, lacks: str = "") -> object:
    """The first table with column ``has`` (and without ``lacks``)."""
    for df in at.dataframe:
        columns = list(df.value.columns)
        if has in columns and (not lacks or lacks not in columns):
            return df.value
    raise AssertionError(f"no table with {has!r}: {[list(d.value.columns) for d in at.dataframe]}")


def test_aligners_page_offers_gold_then_compares_aligners_worst_first() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception, at.exception
    at.switch_page("components/pages/aligners.py").run()
    assert not at.exception, at.exception
    # The app opens on a sample without gold alignments: the page says so, shows the
    # paper's table and offers gold files.
    assert any("no gold alignments" in i.value for i in at.info)
    paper = _table(at, has="exact %", lacks="problems")
    assert paper.set_index("aligner").loc["MANLI", "F1"] == pytest.approx(85.3)  # type: ignore[attr-defined]
    at.selectbox(key="aligners_gold").select_index(0)
    at.button(key="aligners_load").click().run()
    assert not at.exception, at.exception
    summary = _table(at, has="problems")
    assert set(summary["aligner"]) == {"Bag of words", "MANLI"}
    assert (summary["problems"] == 6).all()
    assert summary["F1"].between(0, 100).all()
    worst = _table(at, has="hypothesis")
    assert list(worst["F1"]) == sorted(worst["F1"])
    # Opening a problem switches to the Pair page with that pair.
    at.selectbox(key="aligners_pick").select(str(worst["id"].iloc[0]))
    at.button(key="aligners_open").click().run()
    assert not at.exception, at.exception
    assert at.query_params.get("pair") in (str(worst["id"].iloc[0]), [str(worst["id"].iloc[0])])
    assert np.isfinite(summary["median ms"]).all()


def test_aligners_page_says_when_manli_is_scored_on_its_own_training_problems() -> None:
    from components.data import load_uploaded
    from components.state import DATASET

    one_problem = (ROOT / "sample_data" / "typical_align.txt").read_text().split("# sentence pair 9")[0]
    at = AppTest.from_file(APP, default_timeout=180).run()
    for name, warned in (("RTE2_dev_A.align.txt", True), ("typical_align.txt", False)):
        at.session_state[DATASET] = load_uploaded(one_problem.encode(), name)
        at.switch_page("components/pages/aligners.py").run()
        assert not at.exception, at.exception
        assert any("training-set figures" in w.value for w in at.warning) is warned, name
