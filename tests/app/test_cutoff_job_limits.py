"""A background cutoff job the kernel stops at its memory limit leaves the Pair page one
line saying so, and the page decides with the cutoffs it falls back to
(runtime/cutoff_jobs.py, components/sections/verdicts.py)."""

from __future__ import annotations

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
