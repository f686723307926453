"""A batch result has the fast phenomena as ``ph_`` columns (explorer.batch with
explorer.groups.phenomena); a result written before them still opens and resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from explorer.batch.query import BatchResult
from explorer.batch.runner import prepare, run_batch, write_chunk
from explorer.batch.schema import MANIFEST, finished_chunks, phenomenon_column, read_manifest
from explorer.batch.worker import ChunkDone, ChunkTask, chunk_table, run_chunk, score_chunk, write_table
from explorer.datasets import Dataset
from explorer.groups.phenomena import FAST, PHENOMENA, phenomenon_values
from explorer.pairs import Pair

#: Written for this test: a negation only in the hypothesis, a number the text lacks, a
#: quantifier on one side, a name the text lacks.
PAIRS = [
    Pair("a1", "The ferry left the harbour at noon.", "The ferry did not leave the harbour.", "non-entailment", task="IE"),
    Pair("a2", "The museum sold 300 tickets on Friday.", "The museum sold 500 tickets.", "non-entailment", task="QA"),
    Pair("a3", "Most guests enjoyed the long dinner.", "All guests enjoyed the dinner.", "non-entailment", task="QA"),
    Pair("a4", "The new library opened in the old station.", "Mayor Okafor opened the library.", "non-entailment"),
    Pair("a5", "Two boys played chess in the park.", "Two boys played chess.", "entailment", task="IE"),
]
SCORERS = ("per",)


def expected(column: str) -> list[object]:
    name = column.removeprefix("ph_")
    return [phenomenon_values(p, [name])[name] for p in PAIRS]


def test_a_chunk_has_every_fast_phenomenon_as_a_typed_column() -> None:
    done = run_chunk(ChunkTask(0, 0, SCORERS, "written", pairs=tuple(PAIRS), phenomena=FAST))
    assert isinstance(done, ChunkDone) and done.table is not None
    table = done.table.to_pandas()
    assert [c for c in table.columns if c.startswith("ph_")] == [phenomenon_column(n) for n in FAST]
    for name in FAST:
        assert table[phenomenon_column(name)].tolist() == expected(name), name
    assert table["ph_negation_only_in_h"].tolist() == [True, False, False, False, False]
    assert table["ph_number_mismatch"].tolist() == [False, True, False, False, False]
    assert table["ph_quantifier_one_side"].tolist() == [False, False, True, False, False]
    assert table["ph_name_absent"].tolist() == [False, False, False, True, False]
    assert table["ph_task"].tolist() == ["IE", "QA", "QA", "", "IE"]
    kinds = {f.name: str(f.type) for f in done.table.schema}
    assert kinds["ph_negation_only_in_h"] == "bool" and kinds["ph_overlap"] == "double"
    assert kinds["ph_task"] == "string"
    assert "phenomena" in done.timings


def test_a_pair_that_cannot_be_analysed_has_null_phenomena() -> None:
    too_long = Pair(id="long", text="word " * 4500, hypothesis="A word.")
    done = run_chunk(ChunkTask(0, 0, SCORERS, "written", pairs=(PAIRS[0], too_long), phenomena=("overlap",)))
    assert isinstance(done, ChunkDone) and done.table is not None
    assert done.table.column("ph_overlap").to_pylist()[1] is None
    assert done.table.column("ph_overlap").to_pylist()[0] is not None


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_a_batch_run_writes_the_columns_and_the_query_layer_reads_them(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_batch(Dataset("written", "csv", tuple(PAIRS)), SCORERS, out, chunk_size=2, workers=1)
    manifest = read_manifest(out)
    assert manifest.format_version == 2 and manifest.phenomena == list(FAST)
    result = BatchResult.open(out)
    assert {"ph_negation_only_in_h", "ph_overlap", "ph_task"} <= set(result.columns)
    rows = result.query('SELECT id, "ph_number_mismatch", "ph_overlap" FROM {source} ORDER BY position').fetchall()
    assert [r[0] for r in rows] == [p.id for p in PAIRS]
    assert [r[1] for r in rows] == expected("number_mismatch")
    assert [r[2] for r in rows] == pytest.approx(expected("overlap"))
    assert manifest.phenomenon_columns["overlap"] == "ph_overlap"


def test_write_chunk_adds_the_phenomena_its_manifest_names(tmp_path: Path) -> None:
    out = tmp_path / "out"
    prepare(Dataset("written", "csv", tuple(PAIRS)), SCORERS, out, chunk_size=100, phenomena=["negation_only_in_h"])
    write_chunk(out, 0, PAIRS, 0, score_chunk(PAIRS, SCORERS))
    table = pq.read_table(finished_chunks(out)[0])
    assert table.column("ph_negation_only_in_h").to_pylist() == [True, False, False, False, False]


def test_a_result_written_before_the_phenomena_columns_opens_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    data = Dataset("written", "csv", tuple(PAIRS))
    prepare(data, SCORERS, out, chunk_size=100)
    # what an explorer of format 1 wrote: no phenomena in the manifest, none in the chunks
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["format_version"] = 1
    del manifest["phenomena"]
    (out / MANIFEST).write_text(json.dumps(manifest))
    write_table(out, 0, chunk_table(PAIRS, 0, score_chunk(PAIRS, SCORERS), SCORERS))
    old = read_manifest(out)
    assert old.phenomena == [] and old.format_version == 1
    result = BatchResult.open(out)
    assert result.count() == len(PAIRS)
    assert not [c for c in result.columns if c.startswith("ph_")]
    # resuming keeps the old layout: a chunk written now has no phenomena either
    assert prepare(data, SCORERS, out, chunk_size=100).phenomena == []
    write_chunk(out, 0, PAIRS, 0, score_chunk(PAIRS, SCORERS))
    assert not [n for n in pq.read_table(finished_chunks(out)[0]).column_names if n.startswith("ph_")]


def test_every_fast_phenomenon_has_a_column_type() -> None:
    from explorer.batch.schema import arrow_schema

    schema = arrow_schema(SCORERS, FAST)
    assert all(phenomenon_column(n) in schema.names for n in FAST)
    assert all(not PHENOMENA[n].slow for n in FAST)


@pytest.mark.parametrize(("flag", "phenomena"), [([], None), (["--no-phenomena"], [])])
def test_the_batch_command_leaves_the_phenomena_out_when_told(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                              flag: list[str], phenomena: list[str] | None) -> None:
    """``batch --no-phenomena`` asks the runner for no ``ph_`` columns; without it, every fast one."""
    import explorer.batch.runner as runner
    from explorer.batch.schema import BatchError
    from explorer.cli import main

    asked: dict[str, object] = {}

    def stop_before_scoring(data: object, scorers: object, out: object, **options: object) -> None:
        asked.update(options)
        raise BatchError("stopped before scoring")

    monkeypatch.setattr(runner, "run_batch", stop_before_scoring)
    data = tmp_path / "pairs.csv"
    data.write_text("id,text,hypothesis,label\n" + "".join(f"{p.id},{p.text},{p.hypothesis},{p.label}\n" for p in PAIRS))
    assert main(["batch", str(data), "--scorer", "per", "--out", str(tmp_path / "out"), "--no-register", *flag]) == 2
    assert asked["phenomena"] == phenomena
