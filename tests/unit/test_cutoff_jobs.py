"""Background cutoff jobs (runtime/cutoff_jobs.py): a real child process chooses the
cutoffs of a small hand-written dataset into the cache, once per fingerprint, within its
bounds; a failing job says why."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from explorer.datasets import load_bytes
from explorer.decision import cutoffs
from runtime import cutoff_jobs
from tests.deadline import DEADLINE

#: Invented pairs (no corpus text) as the CSV file the loader reads: half restate the text,
#: half change a fact.
SIX_PAIRS = (
    b"id,text,hypothesis,label\n"
    b"1,The ferry from Kettleby left at noon with forty passengers.,The ferry left at noon.,entailment\n"
    b"2,Marisol Vey opened a bakery on the harbour road in May.,Marisol Vey opened a bakery.,entailment\n"
    b"3,The council of Arlen voted to repair the old bridge.,The council voted to sell the bridge.,non-entailment\n"
    b"4,Heavy snow closed the mountain pass for three days.,The pass was closed by snow.,entailment\n"
    b"5,The museum in Dunmore bought two paintings last year.,The museum in Dunmore sold its paintings.,non-entailment\n"
    b"6,Oskar Brandt won the chess tournament in Fenwick.,Oskar Brandt lost in Fenwick.,non-entailment\n"
)


@pytest.fixture
def manager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path / "cutoffs"))
    jobs = cutoff_jobs.CutoffJobs()
    yield jobs
    jobs.stop()


def fingerprint_of(data: bytes) -> str:
    return cutoffs.fingerprint(cutoffs.labelled(load_bytes(data, "six.csv").pairs))


@pytest.mark.slow  # a child process scores a dataset
def test_a_job_chooses_the_cutoffs_in_a_child_process_once_per_fingerprint(
    manager: cutoff_jobs.CutoffJobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[str] = []
    real_spawn = cutoff_jobs._spawn

    def counting(job):  # type: ignore[no-untyped-def]
        spawned.append(job.fingerprint)
        return real_spawn(job)

    monkeypatch.setattr(cutoff_jobs, "_spawn", counting)
    data = SIX_PAIRS
    fp = fingerprint_of(data)
    first = manager.request(fp, data, "six.csv", "six.csv", ["bleu", "mbleu"], n_labelled=6)
    assert first.state in (cutoff_jobs.QUEUED, cutoff_jobs.RUNNING)
    assert first.active and first.scorers == ("bleu", "mbleu")
    # Asked again (another session, a rerun): the same job, no second process.
    again = manager.request(fp, data, "six.csv", "six.csv", ["bleu", "mbleu"], n_labelled=6)
    assert again.fingerprint == fp and again.scorers == first.scorers
    done = manager.wait(fp, timeout=DEADLINE)
    assert done is not None and done.state == cutoff_jobs.DONE, done
    assert done.finished == 2 and done.share == 1.0 and "all 2 methods done" in done.describe()
    assert spawned == [fp]
    # The child's cutoffs are the ones computed here directly, and land in the cache.
    direct = cutoffs.compute(load_bytes(data, "six.csv"), ["bleu", "mbleu"], use_cache=False)
    for scorer in ("bleu", "mbleu"):
        cached = cutoffs.lookup(fp, scorer)
        assert cached is not None
        assert cached.value == pytest.approx(direct[scorer].value)
        assert cached.detail.startswith("best on six.csv (6 pairs")
    assert manager.request(fp, data, "six.csv", "six.csv", ["bleu"], n_labelled=6).state == cutoff_jobs.DONE
    assert spawned == [fp]
    # The dataset file the child read is gone; only the progress file is left.
    assert [p.name for p in (manager.root / fp).iterdir()] == ["progress.json"]


@pytest.mark.slow  # a child process
def test_a_file_that_reads_back_as_other_pairs_fails_with_the_reason(manager: cutoff_jobs.CutoffJobs) -> None:
    data = SIX_PAIRS
    status = manager.request("0" * 24, data, "six.csv", "six.csv", ["bleu"], n_labelled=6)
    assert status.active
    done = manager.wait("0" * 24, timeout=DEADLINE)
    assert done is not None and done.state == cutoff_jobs.FAILED
    assert "read back as other pairs" in done.error and done.describe() == done.error
    assert cutoffs.lookup("0" * 24, "bleu") is None


@pytest.mark.slow  # a child process
def test_a_job_past_its_memory_limit_fails_cleanly_says_so_and_logs_one_line(
    manager: cutoff_jobs.CutoffJobs, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(cutoff_jobs.MEMORY_ENV, "40")  # too little for the libraries it loads
    data = SIX_PAIRS
    fp = fingerprint_of(data)
    with caplog.at_level(logging.WARNING, logger="runtime.cutoff_jobs"):
        manager.request(fp, data, "six.csv", "six.csv", ["bleu"], n_labelled=6)
        done = manager.wait(fp, timeout=DEADLINE)
    assert done is not None and done.state == cutoff_jobs.FAILED
    assert done.error.startswith("the background job needed more than its memory limit of 40 MB")
    assert cutoff_jobs.MEMORY_ENV in done.error and "\n" not in done.error and "Traceback" not in done.error
    assert [r.getMessage() for r in caplog.records] == [f"cutoff job for six.csv ({fp}) failed: {done.error}"]
    assert cutoffs.lookup(fp, "bleu") is None  # the page keeps the cutoffs it falls back to


def test_the_job_limits_come_from_the_environment_with_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cutoff_jobs.MEMORY_ENV, raising=False)
    monkeypatch.delenv(cutoff_jobs.CPU_ENV, raising=False)
    limits = cutoff_jobs.job_limits()
    assert (limits.memory_mb, limits.cpu_seconds) == (cutoff_jobs.DEFAULT_MEMORY_MB, cutoff_jobs.DEFAULT_CPU_SECONDS)
    assert limits.nice == cutoff_jobs.NICENESS > 0 and limits.threads == 1  # below the server, on one core
    monkeypatch.setenv(cutoff_jobs.MEMORY_ENV, "512")
    monkeypatch.setenv(cutoff_jobs.CPU_ENV, "0")  # 0: that limit off
    assert (cutoff_jobs.job_limits().memory_mb, cutoff_jobs.job_limits().cpu_seconds) == (512, 0)
    monkeypatch.setenv(cutoff_jobs.MEMORY_ENV, "lots")
    assert cutoff_jobs.job_limits().memory_mb == cutoff_jobs.DEFAULT_MEMORY_MB


def test_slow_scorers_are_left_out_past_the_bound_and_fast_ones_go_first() -> None:
    names = ["manli", "bleu", "itg", "mbleu"]
    assert cutoff_jobs.split_scorers(names, 800) == (["bleu", "mbleu", "manli", "itg"], [])
    assert cutoff_jobs.split_scorers(names, cutoff_jobs.SLOW_MAX_PAIRS + 1) == (["bleu", "mbleu"], ["manli", "itg"])


def test_a_full_queue_refuses_and_says_why(manager: cutoff_jobs.CutoffJobs, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cutoff_jobs, "MAX_QUEUED", 0)
    data = SIX_PAIRS
    status = manager.request(fingerprint_of(data), data, "six.csv", "six.csv", ["bleu"], n_labelled=6)
    assert status.state == cutoff_jobs.REFUSED and not status.active
    assert "waiting for their cutoffs" in status.error
    assert manager.status(status.fingerprint) is None  # not kept: a later request may find room


def test_progress_is_described_with_counts() -> None:
    running = cutoff_jobs.JobStatus("f", "big.csv", cutoff_jobs.RUNNING, ("bleu", "mbleu", "wer", "per"),
                                    finished=1, scorer="mbleu", pairs_done=5000, pairs=20000, seconds=12)
    assert running.share == pytest.approx((1 + 0.25) / 4)
    assert running.describe() == "1 of 4 methods done; mbleu: 5,000 / 20,000 pairs (12 s)"
    assert "waiting" in cutoff_jobs.JobStatus("f", "x", cutoff_jobs.QUEUED, ("bleu",)).describe()
    # A scorer that has just started has no count yet: no "0 / 0 pairs".
    starting = cutoff_jobs.JobStatus("f", "x", cutoff_jobs.RUNNING, ("bleu", "wer"), finished=1, scorer="wer")
    assert starting.describe() == "1 of 2 methods done; wer: starting (0 s)"


def test_jobs_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_BACKGROUND_CUTOFFS", "0")
    assert not cutoff_jobs.enabled()
    monkeypatch.setenv("EXPLORER_BACKGROUND_CUTOFFS", "1")
    assert cutoff_jobs.enabled()
