"""The app's pages under Streamlit's AppTest: each loads without an exception, shows its
key widgets, reports bad input as a message, and a pair picked on the Dataset page opens
on the Pair page."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from components import panels, state
from components.data import SAMPLES, load_uploaded
from explorer.api import ScorerInfo, caps
from explorer.datasets import DatasetError
from explorer.pairs import Pair
from explorer.preprocess import MAX_CHARS, AnalyzedPair
from explorer.scorers import SCORERS, get_scorer
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAIR = "components/pages/pair.py"
DATASET = "components/pages/dataset.py"
EVALUATE = "components/pages/evaluate.py"
ALIGNERS = "components/pages/aligners.py"
MT_METRICS = "components/pages/mtmetrics.py"
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)
#: Scorers that decide at their own cutoff (trained classifiers): no cutoff is chosen for them.
OWN_CUTOFF = {n for n in SCORERS if SCORERS[n].cutoff is not None}


def tuned(scores):  # type: ignore[no-untyped-def]
    """The scores table without the scorers that keep their own cutoff."""
    return scores[~scores["name"].isin(OWN_CUTOFF)]


def start(params: dict[str, str] | None = None, *, timeout: float = TIMEOUT) -> AppTest:
    """A new session: the app opened afresh, or by a link with the query ``params``."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params.update(params or {})
    at.run()
    assert not at.exception, at.exception
    return at


def param(at: AppTest, name: str) -> str | None:
    """The URL's value for ``name`` (the first, where it holds a list)."""
    value = at.query_params.get(name)
    if isinstance(value, list):
        return value[0] if value else None
    return value


def page(at: AppTest, path: str) -> AppTest:
    at.switch_page(path).run()
    assert not at.exception, at.exception
    return at


def uploaded(at: AppTest, content: bytes, name: str, path: str) -> AppTest:
    """Load ``content`` as if uploaded under ``name``, then open the page at ``path``."""
    at.session_state[state.DATASET.key] = load_uploaded(content, name)
    return page(at, path)


def charts(at: AppTest) -> list[object]:
    return list(at.get("plotly_chart"))


def page_charts(at: AppTest) -> int:
    """Charts the Pair page draws itself: all charts minus those in method-panel tabs
    (the only tabs on that page), so registering a panel does not change the count."""
    return len(charts(at)) - sum(len(list(tab.get("plotly_chart"))) for tab in at.tabs)


def frame(at: AppTest, column: str, *, lacks: str = ""):  # type: ignore[no-untyped-def]
    """The first table on the page (interactive or static) that has this column (and not
    the ``lacks`` one)."""
    tables = [*at.dataframe, *at.table]
    for df in tables:
        if column in df.value.columns and not (lacks and lacks in df.value.columns):
            return df.value
    raise AssertionError(f"no table with a {column!r} column; tables: {[list(d.value.columns) for d in tables]}")


def test_app_opens_on_the_pair_page_with_the_sample() -> None:
    at = start()
    assert at.title[0].value == "Pair"
    assert not at.error
    text, hypothesis = at.text_area
    assert text.value and hypothesis.value  # prefilled from the sample's first pair
    scores = frame(at, "decision")
    assert set(scores["name"]) >= {"bleu", "mbleu", "bleu_pa"}
    # A short pair gets the slow methods at once, and every cutoff is a real one: nothing
    # is cached for the dataset yet, so all are the shipped RTE-dev defaults.
    assert set(scores["name"]) >= {"manli", "itg", "pfsm", "ppda"}
    assert (tuned(scores)["cutoff from"].str.startswith("shipped default: best on rte1_dev.xml")).all()
    strip = at.html[0].value  # the verdict strip, first on the page
    assert "gold: entailment" in strip and SCORERS["manli"].label in strip and "…" not in strip
    assert any(c.value.startswith(f"Cutoffs: {len(tuned(scores))} shipped defaults") for c in at.caption)
    breakdown = frame(at, "brevity penalty")
    assert "1-grams" in breakdown.columns and "4-grams" in breakdown.columns
    # Orders in order, value last, and a dash (never "None") where a scorer has no such cell.
    assert list(breakdown.columns)[-2:] == ["brevity penalty", "value"]
    assert list(breakdown.columns)[1:6] == [f"{n}-grams" for n in range(1, 6)]
    assert not breakdown.isna().any().any() and "None" not in breakdown.to_string()
    assert (breakdown.set_index("scorer").loc["NIST-1", ["2-grams", "brevity penalty"]] == "–").all()
    assert at.slider, "the cutoff slider is missing"
    assert page_charts(at) == 1  # the n-gram grid
    assert "typical.xml" in " ".join(c.value for c in at.sidebar.caption)


def test_pair_page_scores_a_typed_pair() -> None:
    at = start()
    at.text_area(key="pair_text").set_value("The cat sat on the mat.")
    at.text_area(key="pair_hypothesis").set_value("The cat sat on the mat.").run()
    assert not at.exception and not at.error
    scores = frame(at, "decision").set_index("name")
    assert scores.loc["mbleu", "value"] == pytest.approx(1.0)
    assert scores.loc["bleu", "value"] == pytest.approx(1.0)
    assert any("Your own pair" in c.value for c in at.caption)


@pytest.mark.parametrize(
    ("text", "hypothesis", "message"),
    [
        ("A dog barked.", "   ", "hypothesis is empty"),
        ("", "A dog barked.", "text is empty"),
        ("word " * (MAX_CHARS // 4), "A dog barked.", "limit is"),
    ],
    ids=["empty-hypothesis", "empty-text", "huge-text"],
)
def test_pair_page_bad_input_is_a_message_not_an_exception(text: str, hypothesis: str, message: str) -> None:
    at = start()
    at.text_area(key="pair_text").set_value(text)
    at.text_area(key="pair_hypothesis").set_value(hypothesis).run()
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert not charts(at)


def test_a_pair_over_the_token_limit_is_one_warning_and_runs_nothing() -> None:
    """A hostile pair ("h " x 9999 in both boxes): one refusal naming the limit,
    before tagging, instead of every method failing in turn."""
    at = start()
    at.text_area(key="pair_text").set_value("h " * 9999)
    at.text_area(key="pair_hypothesis").set_value("h " * 9999).run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    (warning,) = [w.value for w in at.warning if "max_tokens" in w.value]
    assert "9,999" in warning and "2,000" in warning


def test_pair_page_picks_a_pair_from_the_dataset() -> None:
    at = start()
    picker = at.selectbox[0]
    picker.set_value("20").run()
    assert not at.exception
    assert at.text_area(key="pair_hypothesis").value == LOWMEAD
    assert at.query_params.get("pair") == "20"


def test_pair_page_opens_the_pair_named_in_the_query() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["pair"] = "20"
    at.run()
    assert not at.exception
    assert at.text_area(key="pair_hypothesis").value == LOWMEAD


def test_decision_follows_the_cutoff_slider() -> None:
    at = start()
    at.text_area(key="pair_text").set_value("The cat sat on the mat.")
    at.text_area(key="pair_hypothesis").set_value("A dog sat on the mat.").run()
    slider = at.slider[0]
    slider.set_value(slider.min).run()
    assert any("entails" in s.value and "does not" not in s.value for s in at.info)
    slider.set_value(slider.max).run()
    assert any("does not entail" in s.value for s in at.info)


def broken_panel(pair: object, *, key: str) -> None:
    raise RuntimeError("deliberately broken")


@pytest.fixture
def broken_panel_registered() -> Iterator[None]:
    panels.PANELS["broken"] = panels.Panel("broken", "Broken method", "tests.app.test_app", "broken_panel")
    try:
        yield
    finally:
        del panels.PANELS["broken"]


def test_a_failing_method_panel_is_reported_in_its_tab(broken_panel_registered: None) -> None:
    at = start()
    assert [t.label for t in at.tabs][-1] == "Broken method"
    broken = next(t for t in at.tabs if t.label == "Broken method")
    # Every tab is drawn (switching stays in the browser): the broken one says so in its tab.
    assert any("deliberately broken" in e.value for e in broken.error)
    assert page_charts(at) == 1  # the rest of the page is still drawn
    others = [t for t in at.tabs if t.label in {p.label for n, p in panels.PANELS.items() if n != "broken"}]
    assert others and all(len(list(t.get("plotly_chart"))) + len(t.markdown) > 0 for t in others)


def test_guard_turns_an_error_into_a_message() -> None:
    def script() -> None:
        from components.guard import guarded

        def body() -> None:
            raise ZeroDivisionError("boom")

        guarded(body, what="the test page")

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert "the test page" in at.error[0].value and "boom" in at.error[0].value


#: The hypothesis of pair 20 of sample_data/typical.xml, the only pair naming Lowmead.
LOWMEAD = "The Lowmead farm cooperative produced a record honey harvest."


def test_dataset_page_table_filters_and_opens_a_pair() -> None:
    at = page(start(), DATASET)
    assert at.title[0].value == "Dataset"
    assert at.radio(key="dataset_source").value == "Built-in sample"
    table = frame(at, "correct")
    assert len(table) == 56
    assert {"id", "task", "gold", "text", "hypothesis", "score", "decision"} <= set(table.columns)
    at.multiselect(key="filter_task").set_value(["QA"]).run()
    assert set(frame(at, "correct")["task"]) == {"QA"}
    at.radio(key="filter_outcome").set_value("incorrect").run()
    wrong = frame(at, "correct")
    assert len(wrong) < 10 and not wrong["correct"].any()
    at.multiselect(key="filter_task").set_value([]).run()
    at.radio(key="filter_outcome").set_value("all").run()
    at.text_input(key="filter_search").set_value("Lowmead").run()
    found = frame(at, "correct")
    assert set(found["id"]) == {"20"}
    at.selectbox(key="dataset_pick").set_value("20")
    at.button(key="dataset_open").click().run()
    assert not at.exception
    assert at.title[0].value == "Pair"
    assert at.text_area(key="pair_hypothesis").value == LOWMEAD
    assert at.query_params.get("pair") == "20"  # the URL names the pair, so it can be shared
    # Back on the Dataset page, the filters are as they were left (kept for the session).
    page(at, DATASET)
    assert at.text_input(key="filter_search").value == "Lowmead"
    assert set(frame(at, "correct")["id"]) == {"20"}


def test_dataset_page_row_selection_opens_the_pair() -> None:
    at = page(start(), DATASET)
    table = frame(at, "correct")
    row = int(table.index[table["id"] == "20"][0])
    at.session_state[state.DATASET_TABLE.key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    assert at.title[0].value == "Pair"
    assert at.text_area(key="pair_hypothesis").value == LOWMEAD


def test_dataset_page_search_with_no_hit_says_so() -> None:
    at = page(start(), DATASET)
    at.text_input(key="filter_search").set_value("(no such [text").run()
    assert not at.exception
    assert any("No pair passes" in i.value for i in at.info)


def test_dataset_page_switches_to_the_csv_sample() -> None:
    at = page(start(), DATASET)
    at.selectbox(key="dataset_sample").set_value("CSV sample (18 pairs, 3-way labels)").run()
    assert not at.exception
    assert set(frame(at, "correct")["gold"]) >= {"entailment", "neutral", "contradiction"}
    page(at, PAIR)
    assert "pairs.csv" in at.selectbox[0].label


def test_a_malformed_upload_is_refused_whole() -> None:
    with pytest.raises(DatasetError, match="broken.xml"):
        load_uploaded(b"<entailment-corpus><pair id='1' value='TRUE'><t>A</t></pair>", "broken.xml")
    with pytest.raises(DatasetError, match="not a dataset format"):
        load_uploaded(b"just some words\n", "notes.txt")


def test_evaluate_page_on_the_sample() -> None:
    at = page(start(), EVALUATE)
    assert at.title[0].value == "Evaluate"
    summary = frame(at, "cutoff source")
    assert set(summary["scorer"]) >= {"BLEU", "Modified BLEU"}
    assert summary["cutoff source"].str.startswith("self").all()
    assert {"accuracy", "CWS", "AP", "cutoff", "published"} <= set(summary.columns)
    assert len(charts(at)) == 3  # curves, histograms, per task
    assert {"task", "n"} <= set(frame(at, "task").columns)
    assert any("itself" in c.value for c in at.caption)


def test_evaluate_page_chooses_the_cutoff_on_a_dev_set() -> None:
    at = page(start(), EVALUATE)
    at.selectbox(key="evaluate_dev").set_value("sample: pairs.csv").run()
    assert not at.exception and not at.error
    summary = frame(at, "cutoff source")
    assert (summary["cutoff source"] == "pairs.csv").all()
    assert any("development set" in c.value for c in at.caption)
    assert len(charts(at)) == 4  # the development set's own curves as well


def test_evaluate_page_shows_the_cutoff_transfer_from_the_dev_set() -> None:
    at = page(start(), EVALUATE)
    at.selectbox(key="evaluate_dev").set_value("sample: pairs.csv").run()
    table = frame(at, "lost by transfer")
    assert set(table["scorer"]) >= {"BLEU", "Modified BLEU"}
    assert {"cutoff", "accuracy on pairs.csv", "best possible on typical.xml", "AP on typical.xml"} <= set(table.columns)
    midpoint = list(table["cutoff"])
    at.selectbox(key="evaluate_rule").set_value("prior").run()
    assert not at.exception
    assert list(frame(at, "lost by transfer")["cutoff"]) != midpoint


def test_evaluate_page_with_no_scorer_asks_for_one() -> None:
    at = page(start(), EVALUATE)
    at.multiselect(key="evaluate_scorers").set_value([]).run()
    assert not at.exception
    assert any("at least one scorer" in i.value for i in at.info)


def test_rte1_dev_on_the_evaluate_page_beside_the_paper(shared_file: Callable[..., Path]) -> None:
    path: Path = shared_file("nltk_data", "corpora", "rte", "rte1_dev.xml")
    at = page(start(), DATASET)
    at.radio(key="dataset_source").set_value("NLTK RTE corpus").run()
    at.selectbox(key="dataset_nltk").set_value(path.name).run()
    assert not at.exception
    # 567 pairs: the table sends the first page of 500 rows, the pager names the second.
    assert len(frame(at, "correct")) == 500
    assert [n.label for n in at.number_input if n.label.startswith("Page of")] == ["Page of 500 rows (of 2)"]
    page(at, EVALUATE)
    summary = frame(at, "cutoff source").set_index("scorer")
    assert summary.loc["Modified BLEU", "published"] == "57.80%"
    accuracy = float(summary.loc["Modified BLEU", "accuracy"].rstrip("%"))
    assert 57.0 <= accuracy <= 59.0


STS_LINES = (
    "4.8\tA man is playing a guitar on the stage.\tA man plays a guitar on stage.\n"
    "0.4\tThe river froze early this winter.\tShe ordered tea with lemon.\n"
    "2.5\tThree children ran across the park.\tTwo children walked across the park.\n"
    "3.6\tThe shop closes at nine on weekdays.\tOn weekdays the shop closes at nine.\n"
)


def test_graded_data_gets_correlations_and_no_decisions() -> None:

    at = uploaded(start(), STS_LINES.encode(), "tiny_sts.tsv", EVALUATE)
    summary = frame(at, "Pearson")
    assert {"Pearson", "Spearman"} <= set(summary.columns) and "accuracy" not in summary.columns
    pearson = summary.set_index("scorer").loc["Modified BLEU", "Pearson"]
    assert float(pearson) > 0.5  # overlap tracks similarity on these hand-made pairs
    assert len(charts(at)) == 1
    page(at, DATASET)
    table = frame(at, "score")
    assert len(table) == 4 and "correct" not in table.columns
    page(at, PAIR)
    assert not at.error
    assert tuned(frame(at, "decision"))["cutoff from"].str.startswith("shipped default").all()


def test_dataset_page_upload_good_and_malformed_files() -> None:
    at = page(start(), DATASET)
    at.radio(key="dataset_source").set_value("Upload a file").run()
    assert not at.exception
    at.file_uploader(key="dataset_upload").set_value(
        ("broken.xml", b"<entailment-corpus><pair id='1' value='TRUE'><t>A</t></pair>", "text/xml")
    ).run()
    assert not at.exception
    assert any("broken.xml" in e.value and "unchanged" in e.value for e in at.error), [e.value for e in at.error]
    assert len(frame(at, "correct")) == 56  # still the sample: nothing partial was loaded
    good = b"text,hypothesis,label\nThe cat sat on the mat.,A cat sat.,entailment\nIt rained all day.,It was dry.,contradiction\n"
    at.file_uploader(key="dataset_upload").set_value(("two.csv", good, "text/csv")).run()
    assert not at.exception and not at.error
    assert len(frame(at, "correct")) == 2
    assert "two.csv" in " ".join(c.value for c in at.sidebar.caption)
    # The URL names the upload by its content hash; a reload (a fresh session) reopens it.
    ref = at.query_params.get("dataset")
    ref = ref[0] if isinstance(ref, list) else ref
    assert ref is not None and ref.startswith("upload:") and "two.csv" not in ref
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params.update({"dataset": ref, "pair": "2"})
    again.run()
    assert not again.exception and not again.toast
    assert again.text_area(key="pair_hypothesis").value == "It was dry."
    assert "two.csv" in " ".join(c.value for c in again.sidebar.caption)
    # A reference that is not a content hash opens nothing (and never a path).
    for bad in ("upload:../../etc/passwd", "upload:ZZZZ"):
        other = AppTest.from_file(APP, default_timeout=TIMEOUT)
        other.query_params["dataset"] = bad
        other.run()
        assert any(f"names the dataset `{bad}`" in w.value for w in other.warning)
        assert other.query_params.get("dataset") in (bad, [bad])  # the link is left as it was


@dataclass(frozen=True)
class LengthRatio:
    """A stand-in slow scorer: hypothesis length over text length."""

    value: float


class SlowLengthScorer:
    name = "slow_length"

    def score(self, pair: AnalyzedPair) -> LengthRatio:
        return LengthRatio(len(pair.hypothesis) / max(1, len(pair.text)))


@pytest.fixture
def register_scorer() -> Iterator[Callable[[ScorerInfo], None]]:
    """Register stand-in scorers for one test; they are gone (and unbuilt) afterwards."""
    added: list[str] = []

    def register(info: ScorerInfo) -> None:
        SCORERS[info.name] = info
        added.append(info.name)

    try:
        yield register
    finally:
        for name in added:
            del SCORERS[name]
        SCORERS.clear_cache()


@pytest.fixture
def slow_scorer_registered(register_scorer: Callable[[ScorerInfo], None]) -> None:
    register_scorer(ScorerInfo("slow_length", "Slow length ratio", "test stand-in", SlowLengthScorer,
                               caps(interactive=False)))


LONG_TEXT = " ".join(f"Clause {i} of the long text names the harbour at Kettering." for i in range(12))


def test_slow_methods_run_at_once_on_short_pairs_and_on_request_on_long_ones(slow_scorer_registered: None) -> None:
    at = start()
    scores = frame(at, "decision").set_index("name")
    # No shipped cutoff for a scorer registered after the defaults were built: says so.
    assert scores.loc["slow_length", "cutoff from"].startswith("no cutoff known")
    assert "run_slow" not in [b.key for b in at.button]
    # Once the Evaluate page has scored the dataset with it, its cutoff is the dataset's.
    page(at, EVALUATE)
    at.multiselect(key="evaluate_scorers").set_value(["mbleu", "slow_length"]).run()
    assert not at.exception
    assert "Slow length ratio" in set(frame(at, "cutoff source")["scorer"])
    page(at, PAIR)
    scores = frame(at, "decision").set_index("name")
    assert scores.loc["slow_length", "cutoff from"].startswith("this dataset: best on typical.xml")
    # A long pair (over AUTO_SLOW_MAX_TOKENS) runs them only on the button.
    at.text_area(key="pair_text").set_value(LONG_TEXT)
    at.text_area(key="pair_hypothesis").set_value("The harbour is at Kettering.").run()
    assert "slow_length" not in set(frame(at, "decision")["name"])
    assert "… Slow length ratio" in at.html[0].value  # shown as not run yet
    button = at.button(key="run_slow")
    assert "Slow length ratio" in button.label
    button.click().run()
    assert not at.exception and not at.error
    scores = frame(at, "decision").set_index("name")
    assert "slow_length" in scores.index and "…" not in at.html[0].value
    assert "run_slow" not in [b.key for b in at.button]  # they ran: no button to run them again


def test_dataset_cutoffs_are_chosen_in_the_background_and_typed_pairs_keep_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from components.data import default_dataset, fingerprint_of
    from explorer.decision import cutoffs, pair_scores
    from runtime import cutoff_jobs

    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path))  # other tests expect none cached
    monkeypatch.setenv("EXPLORER_BACKGROUND_CUTOFFS", "1")
    at = start()
    # Drawn at once with the cutoffs at hand (shipped ones, or the dataset's for scorers an
    # earlier test's Evaluate page scored in this process); the rest are being chosen.
    sources = tuned(frame(at, "decision"))["cutoff from"]
    assert sources.str.startswith("shipped default").sum() >= 10
    (bar,) = at.get("progress")
    assert "Choosing the cutoffs of typical.xml in the background" in bar.proto.text
    assert "methods done" in bar.proto.text or "waiting" in bar.proto.text
    fp = fingerprint_of(default_dataset())
    assert fp is not None
    status = cutoff_jobs.jobs().wait(fp, timeout=2 * DEADLINE)
    assert status is not None and status.state == cutoff_jobs.DONE, status
    # Every scorer without the dataset's own cutoff, and every scorer whose per-pair scores
    # are not stored yet (the job keeps them too, explorer.decision.pair_scores).
    assert status.finished == len(status.scorers) >= sources.str.startswith("shipped default").sum()
    assert all(pair_scores.has(fp, name, cutoffs.DATASET) for name in SCORERS)
    at.run()  # what the fragment's rerun does when it sees the job has ended
    assert not at.exception and not at.error
    scores = tuned(frame(at, "decision"))
    assert scores["cutoff from"].str.startswith("this dataset: best on typical.xml (56 pairs").all()
    assert not at.get("progress")  # nothing left to choose
    assert any(c.value.startswith(f"Cutoffs: {len(scores)} from this dataset") for c in at.caption)
    # A fresh session finds them on disk at once, and starts no second job.
    assert tuned(frame(start(), "decision"))["cutoff from"].str.startswith("this dataset").all()
    assert cutoff_jobs.jobs().status(fp) == status
    # A typed pair is not from the dataset: it is judged with the shipped defaults.
    at.text_area(key="pair_text").set_value("The cat sat on the mat.")
    at.text_area(key="pair_hypothesis").set_value("A cat sat.").run()
    assert tuned(frame(at, "decision"))["cutoff from"].str.startswith("shipped default").all()
    assert "no gold label" in at.html[0].value


def test_a_pair_of_a_dataset_whose_job_has_run_shows_the_stored_verdicts_without_scoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The slow methods' verdicts come from the scores the cutoff job stored, equal to what
    scoring the pair gives, and the page says so; nothing slow is scored for the strip (the
    method tabs, drawn in the run after it, compute their breakdowns)."""
    from components import analysis
    from components.data import LoadedDataset
    from components.sections import verdicts
    from explorer.datasets import Dataset, load
    from explorer.decision import cutoffs
    from explorer.preprocess import analyze_pair
    from runtime.pool import tasks

    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path))
    typical = load(Path(APP).parent / "sample_data" / "typical.xml")
    small = Dataset("six.xml", typical.format, typical.pairs[:6])
    slow = SCORERS.names(interactive=False)
    cutoffs.compute(small, list(SCORERS))  # what the background job runs
    pair = small.pairs[4]
    live = {n: float(get_scorer(n).score(analyze_pair(pair)).value) for n in slow}
    analysis.RESULTS.clear()  # a server that has not scored this pair
    scored: list[str] = []
    real = tasks.score_pair  # the job every scorer of the strip runs in (here, in-process)

    def spy(pair: Pair, names: Sequence[str]) -> None:
        scored.extend(names)
        real(pair, names)

    monkeypatch.setattr(tasks, "score_pair", spy)
    real_strip = verdicts.render_strip

    def strip_spy(*args: object, **kwargs: object) -> None:
        scored.append("(strip)")
        real_strip(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verdicts, "render_strip", strip_spy)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[state.DATASET.key] = LoadedDataset(small, "six-test", "test")
    at.session_state[state.PAIR_ID.key] = pair.id
    at.run()
    assert not at.exception and not at.error
    strip = at.html[0].value
    assert f"{len(slow)} from scores stored by this dataset&#x27;s background cutoff job" in strip
    assert 'data-pending="0"' in strip
    table = frame(at, "score from").set_index("name")
    for name in slow:
        assert table.loc[name, "score from"] == "stored by this dataset's background cutoff job"
        assert table.loc[name, "value"] == round(live[name], 4)
    assert (table.drop(index=slow)["score from"] == "this page").all()
    before_strip = scored[: scored.index("(strip)")]
    assert not set(before_strip) & set(slow), scored  # no slow method was scored for the strip
    assert set(before_strip) == set(SCORERS) - set(slow)  # the fast ones were (they carry the breakdown)


def test_a_pair_with_a_gold_alignment_shows_it() -> None:
    from components.data import LoadedDataset
    from explorer.alignment import Alignment
    from explorer.datasets import Dataset
    from explorer.pairs import Pair

    text, hypothesis = ("Ann", "saw", "a", "red", "kite", "."), ("Ann", "saw", "a", "kite", ".")
    gold_alignment = Alignment.from_links(len(text), len(hypothesis), {(0, 0), (1, 1), (2, 2), (4, 3), (5, 4)}, {(3, 3)})
    pair = Pair(
        "a1", " ".join(text), " ".join(hypothesis), label="entailment", source="test",
        text_tokens=text, hypothesis_tokens=hypothesis, gold_alignment=gold_alignment,
    )
    at = start()
    at.session_state[state.DATASET.key] = LoadedDataset(Dataset("aligned", "test", (pair,)), "aligned-test", "test")
    at.run()
    assert not at.exception and not at.error
    assert page_charts(at) == 2  # the n-gram grid and the gold alignment
    assert any("Gold alignment" in e.label for e in at.expander)


def test_missing_nltk_resources_are_named_in_the_sidebar(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import resources

    wordnet = next(r for r in resources.RESOURCES if r.nltk_id == "wordnet")
    monkeypatch.setattr(resources, "missing", lambda: [wordnet])
    at = start()
    assert not at.sidebar.warning  # one line, not a 550-pixel box
    (note,) = [c.value for c in at.sidebar.caption if "degraded" in c.value]
    assert "1 NLTK resource missing (wordnet)" in note and "make resources" in note
    assert any(e.label == "NLTK resources (1 missing)" for e in at.sidebar.expander)


def test_no_warning_when_every_resource_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import resources

    monkeypatch.setattr(resources, "missing", lambda: [])
    at = start()
    assert not at.sidebar.warning
    assert not [c for c in at.sidebar.caption if "degraded" in c.value]


class BrokenScorer:
    name = "broken"

    def score(self, pair: AnalyzedPair) -> LengthRatio:
        raise RuntimeError("deliberately broken scorer")


@pytest.fixture
def broken_scorer_registered(register_scorer: Callable[[ScorerInfo], None]) -> None:
    register_scorer(ScorerInfo("broken", "Broken scorer", "test stand-in", BrokenScorer))


def test_a_failing_scorer_is_reported_and_the_others_still_shown(broken_scorer_registered: None) -> None:
    at = start()
    assert any("Broken scorer failed" in e.value for e in at.error)
    assert {"bleu", "mbleu"} <= set(frame(at, "decision")["name"])
    page(at, EVALUATE)
    at.multiselect(key="evaluate_scorers").set_value(["bleu", "mbleu", "broken"]).run()
    assert any("Broken scorer failed on typical.xml" in e.value for e in at.error)
    assert "Broken scorer" not in set(frame(at, "cutoff source")["scorer"])
    assert len(charts(at)) == 3
    page(at, DATASET)
    at.selectbox(key="dataset_scorer").set_value("broken").run()
    assert not at.exception
    assert any("Broken scorer failed on typical.xml" in e.value for e in at.error)


def test_evaluate_opens_on_the_bleu_family() -> None:
    at = start()
    page(at, EVALUATE)
    assert list(at.multiselect(key="evaluate_scorers").value) == ["bleu", "mbleu", "bleu_pa"]


def test_aligners_page_offers_gold_then_compares_aligners_worst_first() -> None:
    at = page(start(), ALIGNERS)
    # The app opens on a sample without gold alignments: the page says so, shows the
    # paper's table and offers gold files.
    assert any("no gold alignments" in i.value for i in at.info)
    paper = frame(at, "exact %", lacks="problems")
    assert paper.loc["MANLI", "F1"] == "85.3"
    # A figure the paper has but we do not cite is a dash, never "None" or an empty cell.
    assert paper.loc["GIZA++"].tolist() == ["–", "–", "74.8", "–"]
    at.selectbox(key="aligners_gold").select_index(0)
    at.button(key="aligners_load").click().run()
    assert not at.exception, at.exception
    summary = frame(at, "problems")
    assert set(summary["aligner"]) == {"Bag of words", "MANLI (MSR RTE2 dev)"}
    assert any("MANLI model in use: `explorer/models/manli_rte2dev.json`" in c.value for c in at.caption)
    assert (summary["problems"] == 6).all()
    assert summary["F1"].between(0, 100).all()
    worst = frame(at, "hypothesis")
    assert list(worst["F1"]) == sorted(worst["F1"])
    # Opening a problem switches to the Pair page with that pair.
    at.selectbox(key="aligners_pick").select(str(worst["id"].iloc[0]))
    at.button(key="aligners_open").click().run()
    assert not at.exception, at.exception
    assert at.query_params.get("pair") in (str(worst["id"].iloc[0]), [str(worst["id"].iloc[0])])
    assert np.isfinite(summary["median ms"]).all()


def test_mt_metrics_page_shows_table_1_and_runs_the_experiment() -> None:
    at = page(start(), MT_METRICS)
    assert not at.error
    assert at.title[0].value == "MT metrics"
    stats = at.dataframe[0].value
    assert stats["group"].iloc[0] == "all" and stats["pairs"].iloc[0] == 56  # the built-in typical sample
    at.multiselect(key="mtmetrics_sets").set_value(["per"]).run()
    at.number_input(key="mtmetrics_folds").set_value(3).run()
    at.button(key="mtmetrics_run").click().run()
    assert not at.exception and not at.error
    results = [df.value for df in at.dataframe if "features" in df.value.columns]
    assert len(results) == 1 and list(results[0]["features"]) == ["per"]


PARTLY_LABELLED = (
    "id,text,hypothesis,label\n"
    "1,The ferry left Arnsby at noon.,The ferry left Arnsby.,entailment\n"
    "2,The ferry left Arnsby at noon.,The ferry sank.,non-entailment\n"
    "3,Rain closed the Dunmore road.,The Dunmore road was closed.,\n"
    "4,Rain closed the Dunmore road.,Snow fell in Dunmore.,non-entailment\n"
    "5,The mill in Hetherley burned down.,A mill burned down.,\n"
)


def test_partly_labelled_data_is_evaluated_on_its_labelled_pairs() -> None:
    at = uploaded(start(), PARTLY_LABELLED.encode(), "partly.csv", EVALUATE)
    assert not at.error
    assert any("3 of 5 pairs have an entailment label" in i.value and "2 unlabelled" in i.value for i in at.info)
    assert (frame(at, "cutoff source")["n"] == 3).all()
    page(at, DATASET)
    table = frame(at, "correct").set_index("id")
    assert table.loc["3", "correct"] is pd.NA and table.loc["1", "correct"] in (True, False)
    assert any("3 labelled pairs (2 unlabelled left out)" in c.value for c in at.caption)
    at.radio(key="filter_outcome").set_value("correct").run()  # 100% here: all 3 labelled
    assert not at.exception and set(frame(at, "correct")["id"]) == {"1", "2", "4"}
    page(at, "components/pages/compare.py")
    assert not at.exception and not at.error
    assert any("the 3 labelled pairs of partly.csv (2 unlabelled left out)" in c.value for c in at.caption)


def test_the_url_names_dataset_pair_and_method_so_a_reload_keeps_the_view() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"dataset": "sample:blind_spots.xml", "pair": "13", "method": "bow"})
    at.run()
    assert not at.exception and not at.error
    assert at.text_area(key="pair_hypothesis").value == "The Arlow Foxes defeated the Pemberly Hawks in the final on Sunday."
    assert any("What this pair shows" in i.value and "winner and loser exchanged" in i.value for i in at.info)
    assert any("Expect the methods to fail here" in c.value for c in at.caption)  # what the set is for
    assert at.selectbox(key="decision_scorer").value == "bow"
    # Choosing another dataset puts it in the URL (and forgets the old pair).
    page(at, DATASET)
    at.selectbox(key="dataset_sample").set_value(next(n for n in SAMPLES if n.startswith("Typical"))).run()
    assert at.query_params.get("dataset") in ("sample:typical.xml", ["sample:typical.xml"])
    assert "pair" not in at.query_params


def test_a_link_to_a_dataset_that_is_not_here_falls_back_to_the_sample() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["dataset"] = "sample:../../etc/passwd"
    at.run()
    assert not at.exception
    assert any("not available here" in w.value for w in at.warning)
    assert "typical.xml" in " ".join(c.value for c in at.sidebar.caption)


def test_a_typed_pair_uses_the_development_set_chosen_on_evaluate() -> None:
    at = page(start(), EVALUATE)
    at.selectbox(key="evaluate_dev").set_value("sample: blind_spots.xml").run()
    assert not at.exception and not at.error
    page(at, PAIR)
    at.text_area(key="pair_text").set_value("The cat sat on the mat.")
    at.text_area(key="pair_hypothesis").set_value("A cat sat.").run()
    source = frame(at, "decision").set_index("name")["cutoff from"]
    assert source[["bleu", "mbleu", "bleu_pa"]].str.startswith("development set: midpoint on blind_spots.xml (28 pairs").all()
    assert source.drop(["bleu", "mbleu", "bleu_pa", *OWN_CUTOFF]).str.startswith("shipped default").all()


def test_slow_method_tabs_give_their_verdict_and_identical_figures_do_not_clash() -> None:
    at = start()
    # pFSM and pPDA take the same path on this pair: their figures used to collide.
    at.text_area(key="pair_text").set_value("Oskar bought a new car last week.")
    at.text_area(key="pair_hypothesis").set_value("Last week, Oskar purchased a new automobile.").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    verdicts = [m.value for tab in at.tabs for m in tab.markdown if m.value.startswith("**Verdict:")]
    assert len(verdicts) >= 4  # MANLI, ITG, pFSM, pPDA (every tab is drawn)
    assert all("shipped default" in v and "rte1_dev.xml + rte2_dev.xml + rte3_dev.xml" in v for v in verdicts)


def test_aligners_page_says_when_manli_is_scored_on_its_own_training_problems(repo_root: Path) -> None:
    one_problem = (repo_root / "sample_data" / "typical_align.txt").read_text().split("# sentence pair 9")[0]
    at = start()
    for name, warned in (("RTE2_dev_A.align.txt", True), ("typical_align.txt", False)):
        uploaded(at, one_problem.encode(), name, ALIGNERS)
        assert any("training-set figures" in w.value for w in at.warning) is warned, name


@pytest.fixture
def slow_failing_warmup() -> Iterator[list[str]]:
    """A stand-in warm-up: a step that takes a second, then one that fails."""
    import time

    from runtime import warmup

    log: list[str] = []

    def slow() -> None:
        time.sleep(1.0)
        log.append("slow step done")

    def broken() -> None:
        raise RuntimeError("model file unreadable")

    fake = warmup.Warmup(lambda: [warmup.Step("slow step", slow), warmup.Step("broken step", broken)])
    previous = warmup.replace_for_tests(fake)
    try:
        yield log
    finally:
        fake.wait(DEADLINE)
        warmup.replace_for_tests(previous)


def test_pages_wait_for_the_warm_up_and_the_sidebar_names_failed_steps(slow_failing_warmup: list[str]) -> None:
    from runtime import warmup

    at = start()
    # The page scored the pair only after the warm-up had finished (it waited, showing progress).
    assert slow_failing_warmup == ["slow step done"]
    assert warmup.current() is not None and warmup.current().finished  # type: ignore[union-attr]
    assert 'data-pending="0"' in at.html[0].value  # and then every method's verdict
    (note,) = [c.value for c in at.sidebar.caption if "Warm-up" in c.value]
    assert "1 of 2 steps failed (broken step)" in note
    assert any(c.value.startswith("Methods warmed up at start-up in") for c in at.sidebar.caption)
    page(at, DATASET)  # other pages go through the finished warm-up at once
    assert not at.exception and not at.error


def test_a_warm_up_step_without_its_nltk_data_is_skipped_not_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import resources
    from runtime import warmup

    monkeypatch.setattr(resources, "is_available", lambda nltk_id: nltk_id != "brown")
    fake = warmup.Warmup(lambda: [warmup.Step("Brown table", lambda: 1 / 0, needs=("brown",)),
                                  warmup.Step("tokenizer", lambda: None)])
    previous = warmup.replace_for_tests(fake)
    try:
        at = page(start(), DATASET)
    finally:
        fake.wait(DEADLINE)
        warmup.replace_for_tests(previous)
    assert not at.exception and not at.error
    assert not [c for c in at.sidebar.caption if "Warm-up" in c.value]  # missing data is not a failure
    (done,) = [c.value for c in at.sidebar.caption if c.value.startswith("Methods warmed up at start-up in")]
    assert "(2 steps; 1 skipped: they need NLTK data that is missing (brown))" in done


def test_a_large_dataset_gets_a_pair_number_instead_of_a_list() -> None:
    rows = ["id,text,hypothesis,label"] + [
        f"p{i},The ferry number {i} left Kettleby at noon.,Ferry {i} left.,{'entailment' if i % 2 else 'non-entailment'}"
        for i in range(1200)
    ]
    loaded = load_uploaded(("\n".join(rows) + "\n").encode(), "ferries.csv")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[state.DATASET.key] = loaded
    at.run()
    assert not at.exception and not at.error
    assert not [s for s in at.selectbox if s.label.startswith("Pair from")]  # no 1,200-caption list
    box = at.number_input(key=state.pair_number(loaded.key).key)
    assert box.value == 1 and "1 to 1,200" in box.label
    box.set_value(734).run()
    assert not at.exception and not at.error
    assert at.text_area(key="pair_hypothesis").value == "Ferry 733 left."
    assert at.query_params.get("pair") in ("p733", ["p733"])


def test_aligners_page_lets_the_user_choose_the_manli_model(repo_root: Path) -> None:
    # An Edinburgh++-style file named like the training split: training data for the
    # combined model only. One tiny hand-written record.
    record = [{"id": "x", "source": "A dog barked loudly .", "target": "The dog barked .",
               "sureAlign": "1-1 2-2 4-3", "possibleAlign": ""}]
    at = uploaded(start(), json.dumps(record).encode(), "gold.train.sure.json", ALIGNERS)
    assert not any("training-set figures" in w.value for w in at.warning)
    at.selectbox(key="aligners_manli_model").set_value("msr_edi").run()
    assert not at.exception, at.exception
    assert any("`explorer/models/manli_msr_edi.json`" in c.value and "Edinburgh++" in c.value for c in at.caption)
    assert any("training-set figures" in w.value for w in at.warning)
    summary = frame(at, "problems")
    assert "MANLI (MSR RTE2 dev + Edinburgh++ train) - training-set figures" in set(summary["aligner"])


def test_evaluate_curves_on_mixed_scales_get_a_panel_each() -> None:
    at = page(start(), EVALUATE)
    assert at.radio(key="evaluate_axes_alike").value == "shared"  # the BLEU family: one scale
    at.multiselect(key="evaluate_scorers").set_value(["mbleu", "nist5"]).run()
    assert not at.exception and not at.error
    assert at.radio(key="evaluate_axes_mixed").value == "separate"
    at.radio(key="evaluate_axes_mixed").set_value("shared").run()
    assert any("different scales" in c.value for c in at.caption)  # the note on squashed curves
    at.radio(key="evaluate_axes_mixed").set_value("normalised").run()
    assert not at.exception and any("share of the dataset's pairs" in c.value for c in at.caption)
