"""Choosing a dataset's cutoffs in the background, once per dataset fingerprint.

Scoring a whole dataset with every scorer takes from seconds (the 56-pair sample) to many
minutes (a 20,000-pair upload), so no page may wait for it. :class:`CutoffJobs` runs
:func:`explorer.decision.cutoffs.compute` in a separate, lower-priority process (``python -m
runtime.cutoff_jobs``): the server's own threads keep the CPU they need to draw pages,
and a job never holds the server's interpreter lock. Each finished scorer's cutoff lands in
the on-disk cutoff cache at once (:func:`explorer.decision.cutoffs.lookup` finds it); the job writes
its progress (scorer, methods done, pairs done) to a small JSON file that
:meth:`CutoffJobs.status` reads.

Bounds, checked before a job starts:

- one job per fingerprint (asking again returns the running or finished job);
- one job runs at a time; at most :data:`MAX_QUEUED` wait; past that a request is refused
  with a reason the page shows;
- ``EXPLORER_BACKGROUND_CUTOFFS=0`` switches jobs off (the test suite does, so a job
  finishing mid-test cannot change what a page shows); :func:`enabled` says so;
- slow (non-interactive) scorers only on datasets of at most :data:`SLOW_MAX_PAIRS`
  labelled pairs (a slow method over 20,000 pairs would hold a core for tens of minutes);
  larger datasets keep the development-set or shipped cutoffs for them, and say so.

The child is a :class:`runtime.processes.Child`: stopped with the server's interpreter (the
jobs are registered with :func:`runtime.processes.stop_at_exit`), and exiting by itself
when the server that started it goes away without stopping it. The kernel holds it to
:func:`job_limits` (:class:`runtime.processes.Limits`): :data:`NICENESS` below the server, one
thread for its math libraries, ``EXPLORER_CUTOFF_JOB_MB`` of data memory (default
:data:`DEFAULT_MEMORY_MB`) and ``EXPLORER_CUTOFF_JOB_CPU_S`` seconds of processor time (default :data:`DEFAULT_CPU_SECONDS`).
A job past a limit fails with one line naming it (the page shows it; the server's log gets
it too) and the dataset keeps the cutoffs the resolver falls back to.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from explorer.cache import cutoff_dir, private_dir, write_private
from explorer.decision import cutoffs
from explorer.errors import command_status
from runtime.processes import STOP_GRACE, Child, Limits, exit_with_parent, stop_at_exit, wait_until

#: Waiting jobs at most (beyond the running one).
MAX_QUEUED = 8
#: Slow scorers join a job only on datasets with at most this many labelled pairs.
SLOW_MAX_PAIRS = 2000
#: How often the child rewrites its progress file (seconds).
PROGRESS_EVERY = 0.5
#: The child's niceness increment: pages drawn by the server go first.
NICENESS = 10
MEMORY_ENV, CPU_ENV = "EXPLORER_CUTOFF_JOB_MB", "EXPLORER_CUTOFF_JOB_CPU_S"
#: The child's data memory in MB (``RLIMIT_DATA``; 0: no limit): every method on RTE2 dev peaked
#: at 0.7 GB of data (0.7 GB resident), on a 2,000-pair upload at 0.6 GB: twice that, with
#: room for the datasets of larger uploads (``bench/bench_cutoff_job.py``, docs/BENCHMARKS.md).
DEFAULT_MEMORY_MB = 1536
#: The child's processor seconds (``RLIMIT_CPU``; 0: no limit): RTE2 dev took 77 s, a 2,000-pair
#: upload about 150 s; a larger upload's fast methods stop here, each finished one kept.
DEFAULT_CPU_SECONDS = 1800
_LOG = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED, REFUSED = "queued", "running", "done", "failed", "refused"


def job_limits() -> Limits:
    """The limits of the next job: :data:`MEMORY_ENV` and :data:`CPU_ENV` when they are
    whole numbers (0: that limit off), else the defaults."""
    return Limits(memory_mb=_whole(MEMORY_ENV, DEFAULT_MEMORY_MB), cpu_seconds=_whole(CPU_ENV, DEFAULT_CPU_SECONDS),
                  nice=NICENESS, threads=1)


def _whole(name: str, default: int) -> int:
    try:
        return max(0, int(os.environ.get(name, "").strip() or default))
    except ValueError:
        return default


def enabled() -> bool:
    """Whether background jobs may start (``EXPLORER_BACKGROUND_CUTOFFS`` is not ``0``)."""
    return os.environ.get("EXPLORER_BACKGROUND_CUTOFFS", "1").strip() != "0"


@dataclass(frozen=True)
class JobStatus:
    """Where a background job stands.

    Attributes:
        fingerprint: the dataset's (:func:`explorer.decision.cutoffs.fingerprint`).
        name: the dataset's name, for display.
        state: ``queued``, ``running``, ``done``, ``failed`` or ``refused``.
        scorers: the scorers the job chooses cutoffs for, in order.
        finished: how many of them are done (cached on disk).
        scorer: the one being scored now ("" when none).
        pairs_done, pairs: progress of that scorer over the labelled pairs.
        left_out: slow scorers left out by :data:`SLOW_MAX_PAIRS`.
        error: why the job failed or was refused.
        seconds: time since it started running (0 while queued).
    """

    fingerprint: str
    name: str
    state: str
    scorers: tuple[str, ...]
    finished: int = 0
    scorer: str = ""
    pairs_done: int = 0
    pairs: int = 0
    left_out: tuple[str, ...] = ()
    error: str = ""
    seconds: float = 0.0

    @property
    def active(self) -> bool:
        return self.state in (QUEUED, RUNNING)

    @property
    def share(self) -> float:
        """Overall progress in [0, 1] (methods done plus the share of the current one)."""
        if not self.scorers:
            return 1.0
        current = self.pairs_done / self.pairs if self.pairs else 0.0
        return min(1.0, (self.finished + (current if self.state == RUNNING else 0.0)) / len(self.scorers))

    def describe(self, label: Callable[[str], str] = str) -> str:
        """One line for a page ("3 of 16 methods; BLEU-2: 12,000 / 20,000 pairs")."""
        if self.state == QUEUED:
            return f"waiting for another dataset's job to finish ({len(self.scorers)} methods to do)"
        if self.state == RUNNING:
            # No "0 / 0 pairs" while a scorer starts (its count comes with its first progress).
            now = (f"; {label(self.scorer)}: " + (f"{self.pairs_done:,} / {self.pairs:,} pairs" if self.pairs
                                                  else "starting")) if self.scorer else ""
            return f"{self.finished} of {len(self.scorers)} methods done{now} ({self.seconds:.0f} s)"
        if self.state == DONE:
            return f"all {len(self.scorers)} methods done in {self.seconds:.0f} s"
        return self.error


@dataclass
class _Job:
    fingerprint: str
    name: str
    scorers: tuple[str, ...]
    data_path: Path
    progress_path: Path
    left_out: tuple[str, ...]
    state: str = QUEUED
    error: str = ""
    started: float = 0.0
    ended: float = 0.0
    process: Child | None = field(default=None, repr=False)
    limits: Limits = field(default_factory=Limits)


def split_scorers(scorers: Sequence[str], n_labelled: int) -> tuple[list[str], list[str]]:
    """(the scorers a job runs, the slow ones left out by :data:`SLOW_MAX_PAIRS`); fast
    scorers first, so their cutoffs arrive soonest."""
    from explorer.scorers import SCORERS

    fast = [n for n in scorers if n in SCORERS and SCORERS[n].capabilities.interactive]
    slow = [n for n in scorers if n in SCORERS and not SCORERS[n].capabilities.interactive]
    if n_labelled > SLOW_MAX_PAIRS:
        return fast, slow
    return fast + slow, []


class CutoffJobs:
    """The server's background cutoff jobs (one instance per server: :func:`jobs`)."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root
        self._jobs: dict[str, _Job] = {}
        self._queue: list[str] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._runner: threading.Thread | None = None

    @property
    def root(self) -> Path:
        return self._root or cutoff_dir() / "jobs"

    def request(self, fingerprint: str, data: bytes, file_name: str, name: str, scorers: Sequence[str],
                n_labelled: int) -> JobStatus:
        """Start (or queue) choosing ``scorers``' cutoffs for the dataset whose file content is
        ``data``; a job already known for this fingerprint is returned as it is."""
        key = self._key(fingerprint)
        with self._lock:
            job = self._jobs.get(key)
            if job is not None:
                return self._status(job)
            todo, left_out = split_scorers(scorers, n_labelled)
            folder = self.root / fingerprint
            job = _Job(fingerprint, name, tuple(todo), folder / Path(file_name).name, folder / "progress.json",
                       tuple(left_out))
            if not todo:
                job.state, job.error = DONE, ""
            elif len(self._queue) >= MAX_QUEUED:
                job.state = REFUSED
                job.error = (f"{MAX_QUEUED} other datasets are waiting for their cutoffs; the shipped ones "
                             "are used until the server has time (reload later)")
                return self._status(job)  # not kept: a later request may find room
            else:
                try:
                    private_dir(folder)  # a copy of what someone uploaded: theirs and the server's only
                    write_private(job.data_path, data)
                except OSError as err:
                    job.state, job.error = FAILED, f"cannot write the dataset for the job: {err.strerror}"
                else:
                    self._queue.append(key)
                    self._start_runner()
                    self._wake.notify_all()
            self._jobs[key] = job
            return self._status(job)

    def status(self, fingerprint: str) -> JobStatus | None:
        with self._lock:
            job = self._jobs.get(self._key(fingerprint))
            return None if job is None else self._status(job)

    def wait(self, fingerprint: str, timeout: float) -> JobStatus | None:
        """Block until the job is no longer active, or ``timeout`` seconds (for tests and
        scripts; pages poll :meth:`status`)."""
        def settled() -> bool:
            found = self.status(fingerprint)
            return found is None or not found.active

        wait_until(settled, timeout, every=0.1)
        return self.status(fingerprint)

    def stop(self, timeout: float = STOP_GRACE) -> None:
        """Forget the queue and stop the running child (SIGTERM, SIGKILL past ``timeout``):
        tests, and a server shutting down (:func:`runtime.processes.stop_at_exit`)."""
        with self._lock:
            self._queue.clear()
            running = [job.process for job in self._jobs.values() if job.process is not None and job.process.alive]
        for child in running:
            child.stop(timeout)

    # -- internals ------------------------------------------------------------------------

    def _key(self, fingerprint: str) -> str:
        # Per cache directory: a job's results are only found in the directory it wrote to.
        return f"{self.root}|{fingerprint}"

    def _status(self, job: _Job) -> JobStatus:
        base = JobStatus(job.fingerprint, job.name, job.state, job.scorers, left_out=job.left_out, error=job.error)
        if job.state == DONE:
            return replace(base, finished=len(job.scorers), seconds=job.ended - job.started)
        if job.state != RUNNING:
            return base
        seconds = time.monotonic() - job.started
        try:
            progress = json.loads(job.progress_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return replace(base, seconds=seconds)
        return replace(base, finished=int(progress.get("finished", 0)), scorer=str(progress.get("scorer", "")),
                       pairs_done=int(progress.get("pairs_done", 0)), pairs=int(progress.get("pairs", 0)),
                       seconds=seconds)

    def _start_runner(self) -> None:
        if self._runner is None or not self._runner.is_alive():
            self._runner = threading.Thread(target=self._run, name="cutoff-jobs", daemon=True)
            self._runner.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    if not self._wake.wait(timeout=60):
                        self._runner = None
                        return
                job = self._jobs[self._queue.pop(0)]
                job.state, job.started, job.limits = RUNNING, time.monotonic(), job_limits()
                try:
                    job.process = _spawn(job)
                except OSError as err:
                    job.state, job.error, job.ended = FAILED, f"cannot start the job: {err.strerror}", time.monotonic()
                    continue
            process = job.process
            _, err_text = process.communicate()
            with self._lock:
                job.ended = time.monotonic()
                if process.exitcode == 0:
                    job.state = DONE
                else:
                    job.state, job.error = FAILED, _failure(job, process.exitcode, err_text)
                    _LOG.warning("cutoff job for %s (%s) failed: %s", job.name, job.fingerprint, job.error)
                try:
                    job.data_path.unlink()
                except OSError:
                    pass


def _spawn(job: _Job) -> Child:
    return Child.module("runtime.cutoff_jobs", str(job.data_path), "--scorer", ",".join(job.scorers),
                        "--progress", str(job.progress_path), "--parent", str(os.getpid()),
                        "--fingerprint", job.fingerprint, stderr=subprocess.PIPE, limits=job.limits)


def _failure(job: _Job, exitcode: int | None, err_text: bytes) -> str:
    """Why a job failed, in one line: the limit that ended it, else its last line on stderr."""
    reason = job.limits.reason(exitcode, err_text)
    if reason is not None:
        return f"the background job {reason} (limits set by {MEMORY_ENV} and {CPU_ENV})"
    last = err_text.decode(errors="replace").strip().splitlines()
    return (last[-1] if last else f"the job exited with {exitcode}")[:300]


def run_child(path: Path, scorers: Sequence[str], progress_path: Path, parent: int | None,
              expect: str | None = None) -> None:
    """The child's side (``python -m runtime.cutoff_jobs``, :func:`main`; its limits and lower
    priority were set before it started): follow its parent, compute every scorer's cutoff
    on the dataset's labelled pairs (each cached as it finishes) and keep the progress file
    current."""
    from explorer.datasets import load

    if parent is not None:
        exit_with_parent(parent)
    dataset = load(path)
    found = cutoffs.fingerprint(cutoffs.labelled(dataset.pairs))
    if expect is not None and found != expect:
        # Cached under another fingerprint, the page would never find the cutoffs.
        raise cutoffs.CutoffError(f"{path.name} read back as other pairs (fingerprint {found}, expected {expect})")
    state = {"finished": 0, "scorer": "", "pairs_done": 0, "pairs": 0}
    last = [0.0]

    def write(force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        try:
            fd, tmp = tempfile.mkstemp(dir=progress_path.parent, prefix=".progress.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(state, handle)
            os.replace(tmp, progress_path)
        except OSError:
            pass

    for i, scorer in enumerate(scorers):
        state.update(finished=i, scorer=scorer, pairs_done=0)
        write(force=True)

        def report(_: str, done: int, total: int) -> None:
            state.update(pairs_done=done, pairs=total)
            write()

        cutoffs.compute(dataset, [scorer], source=cutoffs.DATASET, progress=report)
    state.update(finished=len(scorers), scorer="", pairs_done=0)
    write(force=True)


_JOBS: CutoffJobs | None = None
_JOBS_LOCK = threading.Lock()


def jobs() -> CutoffJobs:
    """The process's job manager (created on first use)."""
    global _JOBS
    with _JOBS_LOCK:
        if _JOBS is None:
            _JOBS = CutoffJobs()
            stop_at_exit(_JOBS)
        return _JOBS


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m runtime.cutoff_jobs DATA --progress FILE [--scorer a,b] [--parent PID]
    [--fingerprint FP]``: the background job's child process (:func:`run_child`)."""
    import argparse

    from explorer.scorers import parse_scorer_names

    parser = argparse.ArgumentParser(prog="python -m runtime.cutoff_jobs",
                                     description="choose a dataset's cutoffs into the cache (the app's background job)")
    parser.add_argument("data")
    parser.add_argument("--scorer", default="all")
    parser.add_argument("--progress", type=Path, required=True, help="JSON file kept current with the progress")
    parser.add_argument("--parent", type=int, help="exit when this process is no longer the parent")
    parser.add_argument("--fingerprint", help="refuse a file whose labelled pairs have another fingerprint")
    args = parser.parse_args(argv)
    return command_status(lambda: run_child(Path(args.data), parse_scorer_names(args.scorer), args.progress,
                                            args.parent, args.fingerprint))


if __name__ == "__main__":
    raise SystemExit(main())
