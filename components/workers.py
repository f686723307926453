"""The server's worker pool (:mod:`runtime.pool`) as pages use it.

One pool per server process, started by the first visit (:func:`pool`): ``EXPLORER_WORKERS``
processes for short jobs (default: the cores this process may use) and half as many, at a
lower priority, for long ones, each a fork of one warm process. ``EXPLORER_WORKERS=0`` runs
every job in the page's own thread instead (the tests' AppTests do).

:func:`run` sends one job under the browser session's id (so the session's next request
supersedes it) and waits for it with a status line on the page: where the job stands
(queued behind others, running, how long of its budget) or, on a fresh server, which
warm-up step the workers are on. Redrawing that line every quarter second is also what lets
Streamlit stop the wait when the user has already changed the page: the rerun arrives as
an exception there, and the job is cancelled on the way out.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import streamlit as st

from components.text import plain
from runtime import run_slots, warmup
from runtime.pool import (
    JobStatus,
    Pool,
    PoolError,
    Superseded,
    Ticket,
    configured_budget,
    configured_long_workers,
    configured_recycle_mb,
    configured_workers,
    emitting,
)

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

T = TypeVar("T")
#: Seconds between two redraws of a waiting job's status line.
POLL = 0.25
#: A job that answers within this many seconds shows no status line at all.
QUIET = 0.15

#: When this process imported the module (a status file older than that is another process's).
_STARTED = time.time()
_POOL: Pool | None = None
_DISABLED = False
_LOCK = threading.Lock()


def pool() -> Pool | None:
    """The server's pool, started on the first call (its workers warm up in the
    background); None when ``EXPLORER_WORKERS=0``.

    Raises:
        runtime.pool.PoolError: a pool variable that is not a valid number.
    """
    global _POOL, _DISABLED
    with _LOCK:
        if _POOL is None and not _DISABLED:
            workers = configured_workers()
            if workers == 0:
                _DISABLED = True
                return None
            _forget_stale_status()
            _POOL = Pool(workers, long_workers=configured_long_workers(workers), budget=configured_budget(),
                         recycle_mb=configured_recycle_mb()).start()  # closed at exit by the pool itself
        return _POOL


def reset() -> None:
    """Close the pool (if any) and forget the setting: the next :func:`pool` reads the
    environment again (tests switch between in-process and the pool)."""
    global _POOL, _DISABLED
    with _LOCK:
        if _POOL is not None:
            _POOL.close()
        _POOL, _DISABLED = None, False


def current() -> Pool | None:
    """The pool if it has been started (never starts one)."""
    return _POOL


def _forget_stale_status() -> None:
    """Remove a status file an earlier process of the same id left (older than this one)."""
    path = warmup.status_path(os.getpid())
    try:
        if path.stat().st_mtime < _STARTED:
            path.unlink()
    except OSError:
        pass


def start_early() -> None:
    """Start the pool now, if it can be (a bad setting is reported when a page first
    scores, not here): the app calls this before importing its pages, so the workers' warm-up
    runs on another core while this process loads its modules."""
    try:
        pool()
    except PoolError:
        pass


def warm_status() -> warmup.WarmupStatus | None:
    """How far the workers' warm-up has come (None without a pool, or before it starts)."""
    return warmup.read_status(warmup.status_path(os.getpid())) if _POOL is not None else None


def session_id() -> str | None:
    """The browser session of the running script (None outside one, e.g. a download's callback)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


def describe(status: JobStatus, what: str, workers: int) -> str:
    """One status line for a job being waited for."""
    if status.state == "queued":
        ahead = f"{status.ahead} request{'s' if status.ahead != 1 else ''} ahead of it" if status.ahead else "next in line"
        lane = "the workers for long pairs" if status.long else f"one of this server's {workers} workers"
        return f"{what}: waiting for {lane} ({ahead}, {status.seconds:.1f} s)…"
    return f"{what}: running on a worker ({status.seconds:.1f} s of a {status.budget:g} s budget)…"


def _show(place: DeltaGenerator, ticket: Ticket[object], what: str, workers: Pool) -> None:
    status = ticket.status()
    if status.workers == 0:  # a fresh server: the workers are still warming up
        warm = warm_status()
        if warm is not None and warm.total:
            doing = f": {plain(warm.current)}" if warm.current else ""
            place.progress(warm.share, text=f"Warming up the methods once for this server ({warm.done} of "
                                            f"{warm.total} steps{doing}, {warm.seconds:.0f} s)…")
            return
        place.progress(0.0, text="Starting this server's workers…")
        return
    place.caption(plain(describe(status, what, workers.sizes["short"])))


def run(fn: Callable[..., T], *args: object, what: str, long: bool = False, slot: DeltaGenerator | None = None,
        on_partial: Callable[[Any], None] | None = None, session: str | None = None, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` on a worker (or here, without a pool), waited for with a
    status line in ``slot`` (an ``st.empty()``; a new one when None).

    ``fn`` must be importable by name (a module-level function of :mod:`runtime.pool.tasks`
    or the library) and its arguments must pickle. ``what`` names the job on the page;
    ``long`` sends it to the long lane; ``on_partial`` receives each item it emits;
    ``session`` replaces the browser session's id (a job run off the page's thread, such as
    a download's, names the session it belongs to).

    Raises:
        The job's own error; :class:`runtime.pool.BudgetExceeded` past the budget;
        :class:`runtime.pool.WorkerLost` when its worker died. A job superseded by this
        session's newer request ends the run (``st.stop``): the newer one draws the page.
    """
    workers = pool()
    if workers is None:
        with emitting(on_partial or (lambda item: None)):
            return fn(*args, **kwargs)
    ticket = workers.submit(session or session_id(), fn, *args, long=long, label=what, on_partial=on_partial,
                            **kwargs)
    try:
        _wait(ticket, what, slot, workers)
    except BaseException:  # a rerun, a stop, a closed tab: nobody wants the result any more
        ticket.cancel()
        raise
    try:
        return ticket.result()
    except Superseded:
        st.stop()
        raise  # st.stop raises; this line only satisfies the type checker


def _wait(ticket: Ticket[object], what: str, slot: DeltaGenerator | None, workers: Pool) -> None:
    if session_id() is None:  # not a page's run: nothing to draw on, nobody to interrupt it
        ticket.wait()
        return
    with run_slots.released():  # the job runs on a worker: another page may run meanwhile
        if ticket.wait(QUIET):
            return
    place = slot if slot is not None else st.empty()
    try:
        while True:
            with run_slots.released():
                if ticket.wait(POLL):
                    break
            _show(place, ticket, what, workers)
    finally:
        place.empty()
