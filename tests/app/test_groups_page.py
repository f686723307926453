"""The Groups page: ready slices with intervals, a typed slice kept in the URL, a hostile
slice refused in one line, the figures agreeing with the library's slice table, and a slice
opened on the Dataset page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.datasets import load
from explorer.groups.frame import group_frame
from explorer.groups.stats import slice_results
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGE = "components/pages/groups.py"
DATA = ROOT / "sample_data" / "typical.xml"  # the dataset the app opens on


def _open(scorers: list[str], typed: str = "") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=DEADLINE).run()
    assert not at.exception, at.exception
    at.switch_page(PAGE)
    if typed:
        at.query_params["slice"] = typed
    at.run()
    assert not at.exception, at.exception
    at.multiselect(key="groups_scorers").set_value(scorers).run()
    at.multiselect(key="groups_aligners").set_value([]).run()
    assert not at.exception, at.exception
    return at


def _results(at: AppTest):  # type: ignore[no-untyped-def]
    for df in at.dataframe:
        if "slice" in df.value.columns:
            return df.value
    raise AssertionError("no slice table on the page")


TYPED = 'task == "QA" or negation_only_in_h'


@pytest.fixture(scope="module")
def typed_page() -> AppTest:
    """The Groups page with a typed slice, shared by the tests that only read it."""
    return _open(["bleu", "bow"], typed=TYPED)


@pytest.fixture
def own_typed_page() -> AppTest:
    """The same page for a test that moves on from it (to the Dataset or the Pair page): its
    own, so no other test reads a page it left, whatever the order."""
    return _open(["bleu", "bow"], typed=TYPED)


def test_ready_slices_come_with_intervals_and_the_typed_one_first(typed_page: AppTest) -> None:
    table = _results(typed_page)
    assert table["slice"].iloc[0] == "your slice"
    assert "negation_only_in_h" in set(table["slice"])
    assert {"bleu", "bow"} <= set(table.columns)
    cell = table.loc[table["slice"] == "your slice", "bow"].iloc[0]
    assert "%" in cell and "[" in cell  # accuracy with its interval
    assert typed_page.query_params["slice"] in ('task == "QA" or negation_only_in_h',
                                               ['task == "QA" or negation_only_in_h'])


def test_the_page_counts_what_the_library_counts(typed_page: AppTest) -> None:
    """With no development set the page's verdicts (page_cutoff) and the library's group
    frame (evaluate's cutoff) are the same, so are the slice's size and every accuracy."""
    table = _results(typed_page)
    row = table.loc[table["slice"] == "your slice"].iloc[0]
    frame = group_frame(load(DATA), ["bleu", "bow"], phenomena=["negation_only_in_h"])
    [expected] = slice_results(frame, {"your slice": 'task == "QA" or negation_only_in_h'})
    assert row["pairs"] == expected.n
    for result in expected.results:
        assert row[result.scorer].startswith(f"{result.accuracy:.1%} [{result.ci_low:.0%}, {result.ci_high:.0%}]")


def test_a_hostile_slice_is_refused_in_one_line_and_nothing_runs() -> None:
    at = _open(["bleu"], typed='__import__("os").system("touch /tmp/groups-hostile")')
    errors = [e.value for e in at.error]
    assert any("cannot be read" in e for e in errors), errors
    assert all("\n" not in e for e in errors)
    assert not Path("/tmp/groups-hostile").exists()
    assert "your slice" not in set(_results(at)["slice"])


def test_a_slice_opens_its_pairs_on_the_dataset_page(own_typed_page: AppTest) -> None:
    at = own_typed_page
    at.selectbox(key="groups_open_pick").set_value("your slice").run()
    at.button(key="groups_open").click().run()
    assert not at.exception, at.exception
    shown = next(df.value for df in at.dataframe if "hypothesis" in df.value.columns)
    n = int(_results_before(at))
    assert len(shown) == n
    assert any("Showing the slice" in i.value for i in at.info)


def _results_before(at: AppTest) -> int:
    from components import state  # noqa: F401

    opened = at.session_state["explorer_dataset_slice"]
    return len(opened[2])


def test_a_rewrite_of_a_slice_shows_the_flips_and_opens_a_rewritten_pair(own_typed_page: AppTest) -> None:
    at = own_typed_page
    at.selectbox(key="groups_rule").set_value("antonym").run()
    at.selectbox(key="groups_rewrite_slice").set_value("your slice").run()
    at.button(key="groups_rewrite_run").click().run()
    assert not at.exception, at.exception
    summary = next(df.value for df in at.dataframe if "flipped" in df.value.columns)
    assert len(summary) == 2 and all(" of " in cell for cell in summary["flipped"])
    pairs = next(df.value for df in at.dataframe if "hypothesis after" in df.value.columns)
    assert len(pairs) >= 1 and all("→" in cell for cell in pairs["bleu"])
    first = str(at.selectbox(key="groups_rewrite_pick").value)
    at.button(key="groups_rewrite_open").click().run()
    assert not at.exception, at.exception
    rewritten = pairs.loc[pairs["id"] == first.split("~")[0], "hypothesis after"].iloc[0]
    assert at.text_area(key="pair_hypothesis").value == rewritten


def test_a_ten_thousand_character_slice_in_the_url_is_refused_by_its_limit() -> None:
    at = _open(["bleu"], typed="overlap < 0.5 and " * 560 + "true")
    errors = [e.value for e in at.error]
    assert any("cannot be read" in e and "1,000" in e.replace("1000", "1,000") for e in errors), errors
