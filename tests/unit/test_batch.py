"""Batch scoring on a real Dask cluster, its resumable Parquet output, the DuckDB query
layer over it, the store registration and the ``batch`` command."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from explorer.batch.query import CORRECT, INCORRECT, REFUSED, BatchResult, Filters
from explorer.batch.runner import run_batch
from explorer.batch.schema import CHUNK_DIR, BatchError, chunk_name, finished_chunks, read_manifest
from explorer.batch.worker import score_chunk
from explorer.datasets import load
from explorer.decision.evaluation import evaluate
from explorer.decision.measures import sweep
from explorer.lexical.embedding import is_available as embeddings_available
from explorer.pairs import Pair

#: Scorers cheap enough for a test, covering the batch paths (BLEU family, BLEU-n,
#: WER) and the generic one (PER).
SCORERS = ["bleu", "mbleu", "bleu_pa", "bleu2", "wer", "per"]

#: Written for this test.
ROWS = [
    ("The orchestra rehearsed the new symphony twice before the premiere.", "The orchestra rehearsed twice.", "entailment", "music"),
    ("A ferry carried forty cars across the bay every morning.", "The ferry carried cars.", "entailment", "travel"),
    ("The bakery on Mill Street closed after thirty years of trade.", "The bakery opened last week.", "contradiction", "shops"),
    ("Volunteers planted two hundred oak saplings along the river.", "Volunteers planted trees by the river.", "entailment", "nature"),
    ("The museum extended its opening hours during the summer festival.", "The museum was closed all summer.", "contradiction", "culture"),
    ("Rain delayed the final match of the tennis tournament by two hours.", "The final was delayed.", "entailment", "sport"),
    ("A small drone photographed the glacier from above.", "Scientists dislike glaciers.", "neutral", "nature"),
    ("The library lends laptops to students for a week at a time.", "Students can borrow laptops.", "entailment", "culture"),
    ("Two chefs competed to cook the best soup in an hour.", "The chefs cooked soup.", "entailment", "food"),
    ("The council voted to repair the old stone bridge next spring.", "The bridge will be demolished.", "contradiction", "travel"),
    ("A stray cat slept on the warm roof of the garage.", "A cat slept on a roof.", "entailment", "nature"),
    ("The newspaper printed a correction about the election results.", "The newspaper made an error.", "neutral", "news"),
    ("Heavy snow closed the mountain pass for three days.", "The pass was closed.", "entailment", "travel"),
]


def write_csv(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "hypothesis", "label", "task"])
        for i, (text, hypothesis, label, task) in enumerate(rows, 1):
            writer.writerow([f"p{i}", text, hypothesis, label, task])
    return path


@pytest.fixture(scope="module")
def cluster():
    """A real dask.distributed cluster: two worker processes, one thread each."""
    import socket
    import warnings

    from explorer.batch.runner import local_cluster

    # Dask's default dashboard port taken (by another cluster on the machine): no warning
    with socket.socket() as taken, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            taken.bind(("127.0.0.1", 8787))
        except OSError:
            pass  # taken already
        local = local_cluster(2)
    assert not [w for w in caught if "8787" in str(w.message)], [str(w.message) for w in caught]
    with local:
        assert len(local.workers) == 2
        yield local


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_csv(tmp_path_factory.mktemp("data") / "small.csv", ROWS)


@pytest.fixture(scope="module")
def finished(cluster, small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("batch") / "out"
    summary = run_batch(load(small), SCORERS, out, chunk_size=4, scheduler=cluster.scheduler_address)
    assert summary.workers == 2
    assert summary.chunks_run == 4
    return out


def read_all(out: Path) -> pd.DataFrame:
    tables = [pq.read_table(p).to_pandas() for _, p in sorted(finished_chunks(out).items())]
    return pd.concat(tables, ignore_index=True)


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_parquet_output_equals_evaluate_on_a_two_worker_cluster(finished: Path, small: Path) -> None:
    data = load(small)
    table = read_all(finished)
    assert list(table["id"]) == [p.id for p in data.pairs]
    assert list(table["position"]) == list(range(len(data)))
    assert list(table["label"]) == [p.label for p in data.pairs]
    assert list(table["entails"]) == [p.entails for p in data.pairs]
    assert list(table["task"]) == [p.task for p in data.pairs]
    for result in evaluate(data, SCORERS):
        np.testing.assert_allclose(table[result.scorer].to_numpy(), np.array(result.scores), rtol=0, atol=1e-12,
                                   err_msg=result.scorer)
        assert table[f"{result.scorer}__error"].isna().all()
    manifest = read_manifest(finished)
    assert manifest.complete and manifest.refused == dict.fromkeys(SCORERS, 0)
    # breakdown columns hold the result's own fields
    assert (table["bleu__p1"] >= table["bleu__p2"]).all()
    assert (table["wer__hypothesis_length"] > 0).all()


def test_a_refused_pair_gets_a_null_and_a_reason_and_the_chunk_goes_on() -> None:
    too_long = Pair(id="long", text="word " * 4500, hypothesis="A word.")
    fine = Pair(id="ok", text="A cat sat on the mat.", hypothesis="A cat sat.")
    columns = score_chunk([fine, too_long, fine], ["mbleu", "per"])
    assert columns["mbleu"][1] is None and columns["per"][1] is None
    assert "longer than" in columns["mbleu__error"][1]
    assert columns["mbleu"][0] == columns["mbleu"][2] is not None
    assert columns["mbleu__error"][0] is None


@pytest.mark.skipif(not embeddings_available(), reason="the wordllama package (its shipped table) is not installed")
def test_the_embedding_scorer_scores_a_chunk_like_the_registered_scorer_and_refuses_past_its_limits() -> None:
    from explorer.limits import using
    from explorer.preprocess import analyze_pair
    from explorer.scorers import get_scorer

    pairs = [Pair(id="a", text="The firm bought a car.", hypothesis="A company purchased an automobile."),
             Pair(id="b", text="A cat sat.", hypothesis="Stocks fell.")]
    columns = score_chunk(pairs, ["bow", "embed"])
    for name in ("bow", "embed"):
        expected = [get_scorer(name).score(analyze_pair(p)).value for p in pairs]
        np.testing.assert_allclose(columns[name], expected, rtol=0, atol=1e-12)
        assert columns[f"{name}__error"] == [None, None]
    with using(max_tokens=3):
        refused = score_chunk(pairs[:1], ["embed"])
    assert refused["embed"] == [None] and "max_tokens" in refused["embed__error"][0]


def test_a_scorer_that_raises_on_one_pair_refuses_only_that_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import scorers

    real = scorers.get_scorer("mbleu")

    class Flaky:  # its batch path and its pair path both refuse the bad pair
        name = "mbleu"

        def score(self, a):  # type: ignore[no-untyped-def]
            if a.pair.id == "bad":
                raise ValueError("pair over the method's limit of 3 tokens")
            return real.score(a)

        def score_many(self, pairs):  # type: ignore[no-untyped-def]
            return [self.score(a) for a in pairs]

    monkeypatch.setattr(scorers, "get_scorer", lambda name: Flaky())
    pairs = [Pair(id=i, text="A dog ran home.", hypothesis="A dog ran.") for i in ("a", "bad", "c")]
    columns = score_chunk(pairs, ["mbleu"])
    assert columns["mbleu"][0] is not None and columns["mbleu"][2] is not None
    assert columns["mbleu__p1"][0] == pytest.approx(1.0) and columns["mbleu__p1"][1] is None
    assert columns["mbleu"][1] is None
    assert columns["mbleu__error"][1] == "ValueError: pair over the method's limit of 3 tokens"


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_resume_skips_finished_chunks_and_ignores_a_partial_temporary_file(cluster, small: Path, tmp_path: Path, finished: Path) -> None:
    out = tmp_path / "out"
    data = load(small)
    first = run_batch(data, SCORERS, out, chunk_size=4, scheduler=cluster.scheduler_address, max_chunks=1)
    assert first.chunks_run == 1 and not read_manifest(out).complete
    done = finished_chunks(out)
    assert list(done) == [0]
    before = done[0].stat().st_mtime_ns
    # a killed run's half-written chunk: garbage under the temporary name of a dead process
    partial = out / CHUNK_DIR / f".{chunk_name(1)}.tmp-999999999"
    partial.write_bytes(b"PAR1 half a file")
    assert BatchResult.open(out).count() == 4  # readers see only finished chunks
    seen = []
    second = run_batch(data, SCORERS, out, chunk_size=4, scheduler=cluster.scheduler_address, progress=seen.append)
    assert second.chunks_skipped == 1 and second.chunks_run == 3
    assert seen[0].pairs_skipped == 4 and seen[-1].pairs_done == len(data) - 4
    assert finished_chunks(out)[0].stat().st_mtime_ns == before
    assert not partial.exists()
    pd.testing.assert_frame_equal(read_all(out), read_all(finished))
    assert read_manifest(out).complete


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_workers_reading_their_own_ranges_write_the_same_result(cluster, small: Path, tmp_path: Path,
                                                                finished: Path) -> None:
    out = tmp_path / "ranged"
    chunks = []
    summary = run_batch(small, SCORERS, out, chunk_size=4, scheduler=cluster.scheduler_address,
                        chunk_done=chunks.append)
    assert summary.shared_files and summary.chunks_run == 4
    assert all(c.table is None and c.rows == 4 - 3 * (c.index == 3) for c in chunks)  # the workers wrote them
    pd.testing.assert_frame_equal(read_all(out), read_all(finished))
    ranged, whole = read_manifest(out), read_manifest(finished)
    assert ranged.complete and ranged.records == len(ROWS) and ranged.n_pairs == len(ROWS)
    assert (ranged.kind, ranged.tasks, ranged.refused) == (whole.kind, whole.tasks, whole.refused)
    # registered from the result alone, it is the dataset the app finds when it loads the file
    from explorer.batch.register import register
    from explorer.store import Store

    store = Store(tmp_path / "store.sqlite3")
    runs = register(out, None, store)
    dataset_id = read_manifest(out).store_dataset_id
    assert dataset_id is not None and store.add_dataset(load(small)) == dataset_id
    assert store.run_scores(runs["wer"]) == dict(zip(read_all(out)["id"], read_all(out)["wer"], strict=True))


@pytest.mark.slow  # an in-process Dask cluster
def test_a_malformed_record_past_the_first_chunk_stops_the_run_naming_its_line(small: Path, tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    from explorer.batch import runner

    bad = tmp_path / "bad.csv"
    lines = small.read_text(encoding="utf-8").splitlines()
    lines[9] = 'p9,"an unclosed quote,hypothesis,entailment,x'
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs=runner.QUIET_SCHEDULER) as local, Client(local) as client:
        with pytest.raises(BatchError, match=r"chunk 2 cannot be read: bad.csv: line 10: .*new --out"):
            run_batch(bad, ["mbleu"], tmp_path / "out", chunk_size=4, client=client)
    kept = finished_chunks(tmp_path / "out")
    assert 0 in kept and 1 in kept and 2 not in kept  # finished chunks are kept (3 may have been in flight)

    # an id in two chunks: each chunk is fine, the whole is not
    twice = tmp_path / "twice.csv"
    twice.write_text(small.read_text(encoding="utf-8").replace("p12,", "p1,"), encoding="utf-8")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs=runner.QUIET_SCHEDULER) as local, Client(local) as client:
        with pytest.raises(BatchError, match="pair id 'p1' occurs more than once"):
            run_batch(twice, ["mbleu"], tmp_path / "twice", chunk_size=4, client=client)
    assert len(finished_chunks(tmp_path / "twice")) == 4 and not read_manifest(tmp_path / "twice").complete


@pytest.mark.slow  # an in-process Dask cluster
def test_workers_that_cannot_see_the_files_are_sent_bytes_and_send_tables(small: Path, tmp_path: Path,
                                                                          finished: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import Client, LocalCluster

    from explorer.batch import runner

    monkeypatch.setattr(runner, "can_share", lambda path, size, out: False)
    chunks = []
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs=runner.QUIET_SCHEDULER) as local, \
            Client(local) as client:
        summary = run_batch(small, SCORERS, tmp_path / "out", chunk_size=4, client=client, chunk_done=chunks.append)
    assert not summary.shared_files
    assert all(c.table is not None for c in chunks)
    pd.testing.assert_frame_equal(read_all(tmp_path / "out"), read_all(finished))


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_a_folder_of_another_batch_is_refused(small: Path, finished: Path) -> None:
    with pytest.raises(BatchError, match="other scorers"):
        run_batch(load(small), ["bleu"], finished, chunk_size=4)
    with pytest.raises(BatchError, match="chunk size"):
        run_batch(load(small), SCORERS, finished, chunk_size=5)


# ------------------------------------------------------------------- queries

@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_filters_sort_and_paging_match_pandas(finished: Path) -> None:
    result = BatchResult.open(finished)
    table = read_all(finished)
    cutoff = 0.3
    cases = [
        (Filters(), table),
        (Filters(labels=("entailment",)), table[table["label"] == "entailment"]),
        (Filters(tasks=("nature", "travel")), table[table["task"].isin(["nature", "travel"])]),
        (Filters(scorer="mbleu", cutoff=cutoff, outcome=CORRECT), table[(table["mbleu"] > cutoff) == table["entails"]]),
        (Filters(scorer="mbleu", cutoff=cutoff, outcome=INCORRECT), table[(table["mbleu"] > cutoff) != table["entails"]]),
        (Filters(scorer="mbleu", score_range=(0.2, 0.5)), table[table["mbleu"].between(0.2, 0.5)]),
        (Filters(search="RIVER"), table[table["text"].str.lower().str.contains("river") | table["hypothesis"].str.lower().str.contains("river")]),
        (Filters(scorer="mbleu", outcome=REFUSED), table[table["mbleu"].isna()]),
    ]
    for filters, expected in cases:
        assert result.count(filters) == len(expected), filters
    page = result.page(Filters(labels=("entailment",)), sort="mbleu", descending=True, offset=2, limit=3,
                       columns=["id", "mbleu"])
    want = table[table["label"] == "entailment"].sort_values(["mbleu", "position"], ascending=[False, True])
    assert list(page.rows["id"]) == list(want["id"][2:5])
    assert page.total == len(want)
    assert result.distinct("task") == sorted(set(table["task"]))
    assert result.pair("p3")["hypothesis"] == table.loc[2, "hypothesis"]
    assert result.pair("nope") is None


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_identifiers_are_checked_and_values_bound(finished: Path) -> None:
    result = BatchResult.open(finished)
    with pytest.raises(BatchError, match="no column"):
        result.page(sort="position; DROP TABLE x")
    with pytest.raises(BatchError, match="not in this result"):
        result.count(Filters(scorer="manli", outcome=REFUSED))
    assert result.count(Filters(search="' OR 1=1 --")) == 0
    assert result.count(Filters(labels=("entailment') OR ('1'='1",))) == 0


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_curves_reports_and_samples_come_from_the_stored_scores(finished: Path, small: Path) -> None:
    result = BatchResult.open(finished)
    data = load(small)
    (evaluation,) = evaluate(data, ["mbleu"])
    gold = [bool(p.entails) for p in data.pairs]
    cutoffs, accuracies = result.sweep("mbleu")
    want_cutoffs, want_accuracies = sweep(list(evaluation.scores), gold)
    np.testing.assert_allclose(cutoffs, want_cutoffs)
    np.testing.assert_allclose(accuracies, want_accuracies)
    report = result.report("mbleu")
    body = evaluation.to_json()
    for key in ("cutoff", "accuracy", "cws", "average_precision"):
        assert report[key] == pytest.approx(body[key]), key
    assert set(report["by_task"]) == set(body["by_task"])
    for task, figures in body["by_task"].items():
        assert report["by_task"][task]["accuracy"] == pytest.approx(figures["accuracy"])
    thin_cutoffs, thin_accuracies = result.curve("mbleu", points=4)
    assert len(thin_cutoffs) <= 5 and thin_accuracies.max() == accuracies.max()
    sample = result.sample(["mbleu", "wer"], n=5, seed=3)
    assert len(sample) == 5 and set(sample["id"]) <= {p.id for p in data.pairs}
    pd.testing.assert_frame_equal(sample, result.sample(["mbleu", "wer"], n=5, seed=3))
    histogram = result.histogram("mbleu", bins=4)
    assert sum(int(c.sum()) for _, c in histogram.values()) == len(data)


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_the_first_figures_are_kept_in_the_folder_and_follow_the_chunks(finished: Path, tmp_path: Path) -> None:
    import shutil

    from explorer.batch.query import FIGURES, first_page_columns

    kept, bare = tmp_path / "kept", tmp_path / "bare"
    shutil.copytree(finished, kept)
    shutil.copytree(finished, bare)
    assert (kept / FIGURES).exists()  # written when the batch completed
    (bare / FIGURES).unlink()
    fresh, computed = BatchResult.open(kept), BatchResult.open(bare)

    def no_query(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a figure kept in the folder was queried again")

    fresh.query = no_query  # type: ignore[method-assign]
    fresh._connection = no_query  # type: ignore[method-assign]
    for ask in (lambda r: r.count(), lambda r: r.distinct("task"), lambda r: r.distinct("label"),
                lambda r: r.value_range("mbleu"), lambda r: r.best_cutoff("wer"), lambda r: r.report("mbleu"),
                lambda r: r.count(Filters(scorer="mbleu"))):
        assert ask(fresh) == ask(computed)
    for scorer in ("mbleu", "wer"):  # the Dataset page's first table
        kept_page = fresh.page(sort=scorer, descending=True, columns=first_page_columns(scorer))
        pd.testing.assert_frame_equal(kept_page.rows, computed.page(sort=scorer, descending=True,
                                                                    columns=first_page_columns(scorer)).rows)
        assert kept_page.total == len(ROWS)
    for ask in (lambda r: r.curve("bleu"), lambda r: r.histogram("per")["entailment"]):
        for a, b in zip(ask(fresh), ask(computed), strict=True):
            np.testing.assert_array_equal(a, b)
    # the bare copy saves what it computed; a chunk that goes away makes both stale
    assert computed.save_figures() and (bare / FIGURES).exists()
    finished_chunks(kept)[3].unlink()
    assert BatchResult.open(kept).count() == 12


# --------------------------------------------------------------- store, CLI

@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_registering_a_finished_batch_stores_one_run_per_scorer(finished: Path, small: Path, tmp_path: Path) -> None:
    from explorer.batch.register import register
    from explorer.store import Store

    store = Store(tmp_path / "store.sqlite3")
    data = load(small)
    runs = register(finished, data, store)
    assert set(runs) == set(SCORERS)
    table = read_all(finished)
    stored = store.run_scores(runs["mbleu"])
    assert stored == dict(zip(table["id"], table["mbleu"], strict=True))
    assert store.run(runs["mbleu"]).cutoff == pytest.approx(BatchResult.open(finished).best_cutoff("mbleu")[0])
    assert register(finished, data, store) == runs  # idempotent
    assert read_manifest(finished).runs == runs


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_a_registered_batch_and_the_store_exports_decide_at_the_resolver_cutoff(
    finished: Path, small: Path, tmp_path: Path,
) -> None:
    """One verdict: a batch result's report, its registered runs and the store's exports
    (the cross-tab and the per-pair annotations) judge each pair at the cutoff
    resolve_cutoff gives, with or without a development set."""
    import csv as csv_module
    import io

    from explorer.batch.register import register
    from explorer.decision.resolve import Scored, resolve_cutoff
    from explorer.store import Store
    from explorer.store.crosstab import CORRECT, INCORRECT, annotated_pairs, crosstab
    from explorer.store.exports import annotations_to_csv

    data = load(small)
    gold = {p.id: bool(p.entails) for p in data.pairs}
    table = read_all(finished).set_index("id")
    result = BatchResult.open(finished)
    store = Store(tmp_path / "store.sqlite3")
    runs = register(finished, data, store)
    dataset_id = store.run(runs["mbleu"]).dataset_id
    store.tag_pairs(dataset_id, list(gold), ["negation"], author="tester")
    # a development set written here, on which the cutoffs differ from the data's own
    dev = Scored.of("dev", [0.05, 0.2, 0.6, 0.9], [False, False, True, True])
    for scorer in ("mbleu", "wer"):
        values = np.array([table.loc[i, scorer] for i in gold], dtype=float)
        own = resolve_cutoff(scorer, own=Scored.of("small", values, list(gold.values())))
        on_dev = resolve_cutoff(scorer, dev=dev, own=own)
        assert on_dev.value != pytest.approx(own.value)
        assert store.run(runs[scorer]).cutoff == pytest.approx(own.value)
        assert result.report(scorer)["cutoff"] == pytest.approx(own.value)
        assert result.cutoff(scorer, dev=dev).value == pytest.approx(on_dev.value)
        for cut, stored in ((own.value, None), (on_dev.value, on_dev.value)):
            want = {i: CORRECT if (table.loc[i, scorer] > cut) == g else INCORRECT for i, g in gold.items()}
            exported = annotations_to_csv(annotated_pairs(store, dataset_id, runs[scorer], cutoff=stored))
            assert {r["pair_id"]: r["outcome"] for r in csv_module.DictReader(io.StringIO(exported))} == want
            counts = crosstab(store, dataset_id, runs[scorer], cutoff=stored).to_records()
            for outcome in (CORRECT, INCORRECT):
                assert sum(int(r["count"]) for r in counts if r["outcome"] == outcome) == list(want.values()).count(outcome)
            assert result.count(Filters(scorer=scorer, cutoff=cut, outcome=CORRECT)) == list(want.values()).count(CORRECT)


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_batch_command_on_an_existing_scheduler(cluster, small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    out = tmp_path / "cli-out"
    code = main(["batch", str(small), "--scorer", "mbleu,per", "--out", str(out), "--chunk-size", "5",
                 "--scheduler", cluster.scheduler_address, "--store", str(tmp_path / "s.sqlite3"), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    body = json.loads(captured.out)
    assert body["complete"] and body["chunks"] == 3 and body["chunks_run"] == 3
    assert set(body["runs"]) == {"mbleu", "per"}
    assert f"{len(ROWS)}/{len(ROWS)} pairs" in captured.err
    # a second run finds everything done
    assert main(["batch", str(small), "--scorer", "mbleu,per", "--out", str(out), "--chunk-size", "5",
                 "--scheduler", cluster.scheduler_address, "--no-register", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chunks_skipped"] == 3


def test_a_chunk_is_scored_under_the_clients_limits() -> None:
    """The worker applies the limits the task carries, not its own defaults."""
    from explorer.batch.worker import ChunkDone, ChunkTask, run_chunk
    from explorer.limits import Limits

    pairs = (Pair(id="a", text="A cat sat on the warm mat all day.", hypothesis="A cat sat."),)
    for limits, refused in ((None, False), (Limits(max_tokens=5), True)):
        done = run_chunk(ChunkTask(0, 0, ("mbleu",), "t.csv", pairs=pairs, limits=limits))
        assert isinstance(done, ChunkDone)
        row = done.table.to_pylist()[0]
        assert (row["mbleu"] is None) is refused
        assert ("max_tokens" in (row["mbleu__error"] or "")) is refused


@pytest.mark.slow  # a real local Dask cluster (seconds to start)
def test_batch_command_passes_its_limits_to_the_workers(cluster, small: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    code = main(["batch", str(small), "--scorer", "mbleu", "--out", str(tmp_path / "limited"), "--chunk-size", "5",
                 "--scheduler", cluster.scheduler_address, "--no-register", "--json", "--max-tokens", "5"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["refused"] == {"mbleu": len(ROWS)}  # every pair has a side over 5 tokens


def test_batch_command_errors_are_one_line(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    assert main(["batch", str(small), "--scorer", "nonsense", "--out", str(tmp_path / "x")]) == 2
    assert "unknown scorer" in capsys.readouterr().err
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["batch", str(small), "--out", str(tmp_path / "busy")]) == 2
    err = capsys.readouterr().err
    assert "not a batch folder" in err and "Traceback" not in err
    assert main(["batch", str(small), "--out", str(tmp_path / "y"), "--chunk-size", "0"]) == 2
    assert "--chunk-size: 0 is outside" in capsys.readouterr().err
    assert main(["batch", str(small), "--out", str(tmp_path / "y"), "--workers", "0"]) == 2
    assert "--workers: 0 is outside" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()
    assert os.listdir(tmp_path / "busy") == ["notes.txt"]


@pytest.mark.slow  # an in-process Dask cluster
def test_a_chunk_that_fails_on_the_cluster_stops_the_run_resumably(small: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import Client, LocalCluster

    from explorer.batch import runner, worker

    calls = []

    def dies_on_chunk_two(pairs, scorers):  # type: ignore[no-untyped-def]
        calls.append(pairs[0].id)
        if pairs[0].id == "p9":
            raise MemoryError("worker out of memory")
        return score_chunk(pairs, scorers)

    monkeypatch.setattr(worker, "score_chunk", dies_on_chunk_two)
    out = tmp_path / "out"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs=runner.QUIET_SCHEDULER) as local, \
            Client(local) as client:
        with pytest.raises(BatchError, match="chunk 2 failed on the cluster .*run the same command again"):
            run_batch(load(small), ["mbleu"], out, chunk_size=4, client=client)
    assert not read_manifest(out).complete
    assert 2 not in finished_chunks(out)
