"""The app's process within its bounds: a background cutoff job the kernel stops at its
memory limit leaves the Pair page one line saying so, and the page decides with the cutoffs
it falls back to (runtime/cutoff_jobs.py, components/sections/verdicts.py); the app starts
its memory budget's watcher once (runtime/memory_budget.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.app.test_app import frame, start, tuned
from tests.deadline import DEADLINE


@pytest.mark.slow  # the app, and a child process
def test_a_job_past_its_memory_limit_is_one_line_on_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from components.data import default_dataset, fingerprint_of
    from runtime import cutoff_jobs

    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path))
    monkeypatch.setenv("EXPLORER_BACKGROUND_CUTOFFS", "1")
    monkeypatch.setenv(cutoff_jobs.MEMORY_ENV, "40")  # too little for the libraries the job loads
    at = start()
    fp = fingerprint_of(default_dataset())
    assert fp is not None
    status = cutoff_jobs.jobs().wait(fp, timeout=2 * DEADLINE)
    assert status is not None and status.state == cutoff_jobs.FAILED, status
    at.run()  # what the progress fragment's rerun does when it sees the job has ended
    assert not at.exception and not at.error and not at.get("progress")
    (line,) = [c.value for c in at.caption if "could not be chosen" in c.value]
    assert "the background job needed more than its memory limit of 40 MB" in line
    assert line.endswith("The cutoffs above are used.")
    assert not tuned(frame(at, "decision"))["cutoff from"].str.startswith("this dataset: best on typical").any()


def test_the_app_starts_one_budget_watcher_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime import memory_budget

    memory_budget.unwatch()  # whatever an earlier test's app started
    monkeypatch.setenv(memory_budget.WATCH_ENV, "3600")  # started, but no check within this test
    start()
    watcher = memory_budget._WATCHING[os.getpid()][0]
    assert watcher.is_alive() and watcher.daemon
    start()  # another run, from another tab: the same thread
    assert memory_budget._WATCHING[os.getpid()][0] is watcher
    memory_budget.unwatch()
