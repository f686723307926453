"""A batch result in the app: the Dataset, Evaluate and Compare pages browse it through
the query layer, and a pair opened from its table shows on the Pair page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from components import state
from components.figures.batch import binned_histograms
from explorer.batch.runner import prepare, write_chunk
from explorer.batch.schema import arrow_schema
from explorer.batch.worker import compact_pair, score_chunk
from explorer.datasets import load
from tests.deadline import DEADLINE
from tests.unit.test_batch import ROWS, write_csv

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SCORERS = ["mbleu", "bleu", "wer"]


def build_result(data_path: Path, out: Path, chunk_size: int = 5) -> Path:
    """A batch result written chunk by chunk in this process (the Dask path is tested in
    test_batch.py; the pages only read the files)."""
    data = load(data_path)
    manifest = prepare(data, SCORERS, out, chunk_size=chunk_size)
    schema = arrow_schema(SCORERS)
    for index in range(manifest.n_chunks):
        start = index * chunk_size
        pairs = data.pairs[start : start + manifest.chunk_rows(index)]
        write_chunk(out, index, pairs, start, score_chunk([compact_pair(p) for p in pairs], SCORERS), schema)
    from explorer.batch.runner import refusals
    from explorer.batch.schema import write_manifest

    manifest.complete = True
    manifest.refused = refusals(out, manifest)
    write_manifest(out, manifest)
    return out


@pytest.fixture(scope="module")
def result_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("batchview")
    return build_result(write_csv(folder / "small.csv", ROWS), folder / "out")


def opened(result_dir: Path, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=DEADLINE)
    at.session_state[state.BATCH_DIR.key] = str(result_dir)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def table_with(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    for df in [*at.dataframe, *at.table]:  # interactive or static (the Pair page's scores)
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with {column!r}")


def test_dataset_page_pages_filters_and_opens_a_batch_pair(result_dir: Path) -> None:
    at = opened(result_dir, "components/pages/dataset.py")
    table = table_with(at, "decision")
    assert len(table) == len(ROWS)
    assert list(table["mbleu"]) == sorted(table["mbleu"], reverse=True)  # sorted by score, descending
    # The table opens a pair from the row's box only (a click elsewhere selects a cell): said so.
    assert any("Tick a row's box" in c.value for c in at.caption)
    assert not any("Click a row" in c.value for c in at.caption)
    at.multiselect(key="batch_filter_task").set_value(["nature"]).run()
    assert set(table_with(at, "decision")["task"]) == {"nature"}
    at.multiselect(key="batch_filter_task").set_value([]).run()
    at.radio(key="batch_filter_outcome").set_value("incorrect").run()
    wrong = table_with(at, "decision")
    assert 0 < len(wrong) < len(ROWS)
    assert all((row.decision == "entails") != (row.label == "entailment") for row in wrong.itertuples())
    at.radio(key="batch_filter_outcome").set_value("all").run()
    at.text_input(key="batch_filter_search").set_value("glacier").run()
    found = table_with(at, "decision")
    assert list(found["id"]) == ["p7"]
    at.session_state[state.BATCH_TABLE.key] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Pair"
    assert at.text_area(key="pair_hypothesis").value == "Scientists dislike glaciers."
    # the cutoff comes from the whole result, not from the page the pair was on
    scores = table_with(at, "cutoff from")
    assert any("whole batch result" in str(v) for v in scores["cutoff from"])


def test_evaluate_page_draws_curves_reports_and_tasks_from_stored_scores(result_dir: Path) -> None:
    at = opened(result_dir, "components/pages/evaluate.py")
    assert at.title[0].value == "Evaluate"
    summary = table_with(at, "accuracy")
    assert len(summary) == 3 and set(summary["refused"]) == {0}
    assert len(list(at.get("plotly_chart"))) == 3  # curves, histograms, per task


def test_compare_page_scatters_a_sample(result_dir: Path) -> None:
    at = opened(result_dir, "components/pages/compare.py")
    assert at.title[0].value == "Compare"
    assert len(list(at.get("plotly_chart"))) == 1
    assert len(table_with(at, "agreement")) == len(ROWS)


def test_a_folder_without_a_result_is_a_message(tmp_path: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=DEADLINE).run()
    at.switch_page("components/pages/dataset.py").run()
    at.text_input(key="batch_folder").set_value(str(tmp_path)).run()
    at.button(key="batch_open").click().run()
    assert not at.exception
    assert any("no batch result here" in e.value for e in at.error)
    assert at.radio(key="dataset_source").value == "Built-in sample"  # the page carries on


def test_a_folder_outside_the_roots_is_refused_and_its_path_never_shown(
        result_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "allowed"
    root.mkdir()
    monkeypatch.setenv("EXPLORER_BATCH_ROOTS", str(root))
    at = AppTest.from_file(APP, default_timeout=DEADLINE).run()
    at.switch_page("components/pages/dataset.py").run()
    at.text_input(key="batch_folder").set_value(str(Path.home())).run()  # the server's home
    at.button(key="batch_open").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any(f"only batch results under {root}" in e for e in errors), errors
    assert not any(str(Path.home()) + "/" in e or str(result_dir) in e for e in errors)
    at.text_input(key="batch_folder").set_value(str(result_dir)).run()
    at.button(key="batch_open").click().run()
    assert any(f"only batch results under {root}" in e.value for e in at.error)
    assert at.radio(key="dataset_source").value == "Built-in sample"  # nothing opened


def test_binned_histograms_draw_one_bar_trace_per_group_and_check_shapes() -> None:
    edges = np.linspace(0, 1, 5)
    fig = binned_histograms({"A": {"entailment": (edges, np.array([1, 2, 3, 4])),
                                   "not entailment": (edges, np.array([4, 3, 2, 1]))}}, cutoffs={"A": 0.5})
    assert [t.name for t in fig.data] == ["entailment", "not entailment"]
    assert list(fig.data[0].y) == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="edges"):
        binned_histograms({"A": {"entailment": (edges, np.array([1, 2]))}})


def test_errors_page_uses_the_registered_batch_runs(tmp_path: Path) -> None:
    from explorer.batch.register import register
    from explorer.store import Store, default_path

    data_path = write_csv(tmp_path / "errors.csv", ROWS)
    out = build_result(data_path, tmp_path / "out")
    store = Store(default_path())  # the app's store (a temporary one in tests)
    runs = register(out, load(data_path), store)
    dataset_id = read_dataset_id(out)
    store.tag_pairs(dataset_id, ["p3"], ["negation"], author="tester")
    at = opened(out, "components/pages/errors.py")
    assert any("errors.csv" in c.value for c in at.caption)
    assert at.selectbox(key="errors_scorer").options[1:] == [SCORERS_LABELS[s] for s in SCORERS]
    assert any(f"Run #{runs['mbleu']}" in c.value for c in at.caption)
    pivot = table_with(at, "tag")
    assert "negation" in set(pivot["tag"])


SCORERS_LABELS = {"mbleu": "Modified BLEU", "bleu": "BLEU", "wer": "1 - WER"}


def read_dataset_id(out: Path) -> int:
    from explorer.batch.schema import read_manifest

    dataset_id = read_manifest(out).store_dataset_id
    assert dataset_id is not None
    return dataset_id


def test_compare_and_evaluate_pages_take_unlabelled_pairs(tmp_path: Path) -> None:
    rows = [*ROWS, ("A heron stood still in the shallow pond.", "A bird stood in a pond.", "", "nature")]
    out = build_result(write_csv(tmp_path / "mixed.csv", rows), tmp_path / "out")
    at = opened(out, "components/pages/dataset.py")
    at.multiselect(key="batch_filter_label").set_value(["(none)"]).run()
    assert list(table_with(at, "decision")["id"]) == [f"p{len(rows)}"]
    at.switch_page("components/pages/compare.py").run()
    table = table_with(at, "agreement")
    assert "no gold label" in set(table["agreement"])
    at.switch_page("components/pages/evaluate.py").run()
    assert not at.exception, at.exception
    assert list(table_with(at, "accuracy")["n"]) == [len(ROWS)] * 3  # accuracy over the labelled pairs
