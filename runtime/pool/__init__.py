"""Work off the server's thread: a pool of warm worker processes, fair by session.

The app's scoring, alignment and teaching traces run here instead of in the Streamlit
process (whose one interpreter lock would otherwise serialise a whole class on one core):

- :mod:`runtime.pool.scheduler`: :class:`Pool`, two lanes (short and long jobs) of worker
  processes forked from a warm fork server, one job in flight per session (a newer request
  supersedes the older), a time budget per job, crashed or stopped workers replaced;
- :mod:`runtime.pool.worker`: the worker's loop and :func:`emit` (partial results);
- :mod:`runtime.pool.zygote`: the fork server's preload, which warms every method once;
- :mod:`runtime.pool.tasks`: the jobs the app sends (a pair's scores, an alignment, an
  ITG parse, a dataset chunk, ...; the Teach page sends
  :func:`components.teach_methods.lesson_of`, the report :func:`components.report.pair_report`);
- :mod:`runtime.pool.cost`: whether a job is long (the long lane, lower priority) from the
  methods' cost models.

``EXPLORER_WORKERS`` sets the number of short-lane workers (default: the cores this process
may use); ``0`` runs every job in the calling process instead (:func:`configured_workers`).
``EXPLORER_WORKER_RSS_MB`` is the resident memory past which a worker is replaced by a fresh
fork after its job (default :data:`DEFAULT_RECYCLE_MB`; 0: never).
"""

from __future__ import annotations

import os

from runtime.pool.scheduler import (
    BudgetExceeded,
    JobStatus,
    Pool,
    PoolClosed,
    PoolError,
    Superseded,
    Ticket,
    WorkerLost,
    default_long_workers,
)
from runtime.pool.worker import RemoteError, emit, emitting

#: Environment variables the pool reads.
WORKERS_ENV, LONG_WORKERS_ENV, BUDGET_ENV = "EXPLORER_WORKERS", "EXPLORER_LONG_WORKERS", "EXPLORER_JOB_SECONDS"
#: Seconds a job may run on a worker unless ``EXPLORER_JOB_SECONDS`` says otherwise.
DEFAULT_BUDGET = 30.0
RECYCLE_ENV = "EXPLORER_WORKER_RSS_MB"
#: A warm worker is about 400 MB resident (most of it shared with the fork server); one that
#: ran a large job can keep a gigabyte more (its caches, freed heap not given back).
DEFAULT_RECYCLE_MB = 1024.0


def _number(name: str, default: float, *, minimum: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise PoolError(f"{name}={raw!r} is not a number") from None
    if value < minimum or value != value:
        raise PoolError(f"{name}={raw!r} must be at least {minimum:g}")
    return value


def _whole(name: str, default: int, *, minimum: int) -> int:
    value = _number(name, float(default), minimum=minimum)
    if not value.is_integer():
        raise PoolError(f"{name}={value:g} must be a whole number")
    return int(value)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def configured_workers() -> int:
    """``EXPLORER_WORKERS`` (0: no pool, jobs run in the calling process), else the
    usable cores.

    Raises:
        PoolError: the variable is not a whole number of at least 0.
    """
    return _whole(WORKERS_ENV, usable_cores(), minimum=0)


def configured_long_workers(workers: int) -> int:
    """``EXPLORER_LONG_WORKERS``, else half the short-lane workers (at least 1).

    Raises:
        PoolError: the variable is not a whole number of at least 1.
    """
    return _whole(LONG_WORKERS_ENV, default_long_workers(workers), minimum=1)


def configured_recycle_mb() -> float:
    """``EXPLORER_WORKER_RSS_MB``, else :data:`DEFAULT_RECYCLE_MB` (0: never recycle).

    Raises:
        PoolError: the variable is not a number of at least 0.
    """
    return _number(RECYCLE_ENV, DEFAULT_RECYCLE_MB, minimum=0)


def configured_budget() -> float:
    """``EXPLORER_JOB_SECONDS``, else :data:`DEFAULT_BUDGET`."""
    return _number(BUDGET_ENV, DEFAULT_BUDGET, minimum=0.01)


__all__ = [
    "BUDGET_ENV", "DEFAULT_BUDGET", "DEFAULT_RECYCLE_MB", "LONG_WORKERS_ENV", "RECYCLE_ENV", "WORKERS_ENV",
    "BudgetExceeded", "JobStatus", "Pool", "PoolClosed", "PoolError", "RemoteError", "Superseded", "Ticket",
    "WorkerLost", "configured_budget", "configured_long_workers", "configured_recycle_mb", "configured_workers",
    "default_long_workers", "emit", "emitting", "usable_cores",
]
