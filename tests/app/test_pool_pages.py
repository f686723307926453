"""The pages with the worker pool on (as a served app runs it), under AppTest: the strip
and every method tab come from the workers, equal to scoring in-process, and this process
(the server) builds no scorer or aligner at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import analysis, workers
from components.panels import PANELS
from explorer.aligners import ALIGNERS
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAIR = ("John bought a new car last week in Kettleby.", "Last week, John purchased a new automobile.")


@pytest.fixture
def pool_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("EXPLORER_WORKERS", "1")
    monkeypatch.setenv("EXPLORER_LONG_WORKERS", "1")
    workers.reset()
    analysis.RESULTS.clear()
    try:
        yield
    finally:
        workers.reset()  # back to in-process for the other tests
        analysis.RESULTS.clear()


@pytest.mark.slow
def test_the_pair_page_scores_and_draws_every_tab_on_the_workers(pool_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = {n: float(get_scorer(n).score(analyze_pair(make_pair(*PAIR))).value) for n in SCORERS}

    def refuse(name: str) -> object:
        raise AssertionError(f"{name} was built in the server's process")

    for registry in (SCORERS, ALIGNERS):
        monkeypatch.setattr(registry, "build", refuse)
    at = AppTest.from_file(APP, default_timeout=2 * DEADLINE).run()
    at.text_area(key="pair_text").set_value(PAIR[0])
    at.text_area(key="pair_hypothesis").set_value(PAIR[1]).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    strip = at.html[0].value
    assert 'data-pending="0"' in strip and f'data-methods="{len(SCORERS)}"' in strip
    table = next(df.value for df in at.table if "name" in df.value.columns).set_index("name")
    for name, value in expected.items():
        assert table.loc[name, "value"] == round(value, 4), name
    assert workers.current() is not None and workers.current().stats()["completed"] >= 1
    # Every tab is drawn (switching stays in the browser), each from the workers' results.
    tabs = {tab.label: tab for tab in at.tabs}
    for panel in PANELS.values():
        drawn = tabs[panel.label]
        assert not drawn.error, (panel.name, [e.value for e in drawn.error])
        assert len(list(drawn.get("plotly_chart"))) + len(drawn.markdown) > 0, panel.name


@pytest.mark.slow
def test_a_pair_past_the_time_budget_is_refused_naming_the_budget_and_what_to_do(
        pool_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_JOB_SECONDS", "0.05")  # no pair's strip is that quick
    workers.reset()
    words = "the harbour master of Kettleby said the new ferry would start its crossings in spring".split()
    at = AppTest.from_file(APP, default_timeout=2 * DEADLINE).run()
    at.text_area(key="pair_text").set_value(" ".join(words * 3))
    at.text_area(key="pair_hypothesis").set_value(" ".join(words[:10]) + " soon").run()
    assert not at.exception, at.exception
    refusals = [e.value for e in at.error if "budget of 0.05 s" in e.value]
    assert refusals and "command line" in refusals[0] and "python -m explorer score" in refusals[0]
    assert workers.current() is not None and workers.current().stats()["budget"] >= 1


@pytest.mark.slow
def test_evaluate_the_counterfactual_and_the_alignment_editor_run_on_the_workers(
        pool_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> object:
        raise AssertionError(f"{name} was built in the server's process")

    for registry in (SCORERS, ALIGNERS):
        monkeypatch.setattr(registry, "build", refuse)
    at = AppTest.from_file(APP, default_timeout=2 * DEADLINE).run()
    # The counterfactual: every interactive scorer on both pairs, one job.
    next(t for t in at.toggle if t.label == "Edit a copy of this pair").set_value(True).run()
    area = next(t for t in at.text_area if t.label == "Edited hypothesis")
    area.input(area.value + " not").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    changes = next(d.value for d in at.dataframe if "change" in d.value.columns)
    assert len(changes) >= 3 and changes["edited"].notna().all()
    # The alignment editor, started from MANLI's alignment; MANLI scores the edited one.
    next(t for t in at.toggle if t.label == "Edit this pair's alignment").set_value(True).run()
    next(s for s in at.selectbox if s.label == "Start from").set_value("manli").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("MANLI on this alignment" in m.value for m in at.markdown)
    # Evaluate: the dataset's scores in chunk jobs.
    at.switch_page("components/pages/evaluate.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == 3
    assert workers.current() is not None and workers.current().stats()["completed"] >= 4


@pytest.mark.slow
def test_the_teach_lesson_is_built_on_a_worker(pool_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from components import teach_methods
    from components.pages.teach import EXAMPLE

    # The lesson as the worker builds it (opening, shaped steps, verdict), built here first.
    expected = [s["sentence"] for s in teach_methods.lesson_of("itg", None, make_pair(*EXAMPLE), large=False)]

    def refuse(*args: object) -> object:
        raise AssertionError("a lesson was traced in the server's process")

    monkeypatch.setattr(teach_methods, "trace_of", refuse)
    at = AppTest.from_file(APP, default_timeout=2 * DEADLINE).run()
    at.switch_page("components/pages/teach.py").run()
    at.radio(key="teach_method").set_value("itg").run()
    assert not at.exception and not at.warning, (at.exception, [w.value for w in at.warning])
    steps = json.loads(at.get("bidi_component")[0].proto.json)["steps"]
    assert [s["sentence"] for s in steps] == expected
    assert workers.current() is not None and workers.current().stats()["completed"] >= 1
