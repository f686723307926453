"""Benchmark: what the background cutoff job (``runtime/cutoff_jobs.py``) costs on one dataset.

Runs the job's child on ``DATA`` as the app starts it (its limits: ``EXPLORER_CUTOFF_JOB_MB``,
``EXPLORER_CUTOFF_JOB_CPU_S``, niceness, one math thread), or without any (``--no-limits``,
plain ``python -m runtime.cutoff_jobs``), in an empty cutoff cache, reading its ``/proc``
status every 0.2 s; prints its peak resident memory, peak data memory (what the memory
limit counts), processor and wall seconds, niceness, how it ended, and the load average::

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_cutoff_job DATA [--scorer all] [--no-limits]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import time

from runtime import cutoff_jobs
from runtime.processes import Child, Limits

_FIELDS = ("VmHWM", "VmData", "VmPeak")


def _status(pid: int) -> dict[str, int]:
    found = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in _FIELDS:
                    found[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--scorer", default="all")
    parser.add_argument("--no-limits", action="store_true", help="the job as it ran before its limits")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="cutoff-job-bench-")
    os.environ["EXPLORER_CUTOFF_CACHE"] = folder
    limits = None if args.no_limits else cutoff_jobs.job_limits()
    load_before = os.getloadavg()
    started = time.monotonic()
    child = Child.module("runtime.cutoff_jobs", args.data, "--scorer", args.scorer, "--progress",
                         os.path.join(folder, "progress.json"), stderr=subprocess.PIPE, limits=limits)
    assert child.pid is not None
    peak = dict.fromkeys(_FIELDS, 0)
    nice = None
    while child.alive:
        for key, value in _status(child.pid).items():
            peak[key] = max(peak[key], value)
        try:  # the last seen: the child lowers its priority once it has started
            nice = os.getpriority(os.PRIO_PROCESS, child.pid)
        except OSError:
            pass
        time.sleep(0.2)
    _, err = child.communicate()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    ended = (limits or Limits()).reason(child.exitcode, err) or f"exit {child.exitcode}"
    mb = 2**20
    print(f"{os.path.basename(args.data)} ({'no limits' if limits is None else limits}): {ended}; "
          f"peak RSS {usage.ru_maxrss / 1024:,.0f} MB (sampled {peak['VmHWM'] / mb:,.0f}), peak data "
          f"{peak['VmData'] / mb:,.0f} MB, peak address space {peak['VmPeak'] / mb:,.0f} MB; "
          f"{usage.ru_utime + usage.ru_stime:,.0f} CPU s in {time.monotonic() - started:,.0f} s wall; nice {nice}; "
          f"load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")
    if err.strip() and child.exitcode:
        print(err.decode(errors="replace").strip().splitlines()[-1])


if __name__ == "__main__":
    main()
