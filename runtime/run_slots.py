"""At most a few page runs of one server process execute at once; the rest wait their turn.

Streamlit runs each browser tab's page script on a thread of its own, and every thread of a
process shares one interpreter lock. Twenty tabs running at once do not finish sooner than
twenty in turn: they take turns at the lock every few milliseconds, and the switching costs
CPU of its own (a busy class measured about twice the CPU per page run of the same runs made
one after another). It also starves the thread that sends finished pages to the browsers. So
a page run first takes one of :func:`limit` slots and gives it back when it ends; a run
waiting for a slot holds no lock and costs nothing.

A run that waits (for its job on a scoring worker, for the server's warm-up) gives its
slot back for the wait (:func:`released`), so a slot is a licence to run Python, and a page
waiting on a worker never holds up another visitor's page. Three slots rather than one:
a run also waits in places nobody marked (a file, the store), and the interpreter then
goes to another.

``EXPLORER_PAGE_RUNS`` sets the number (0: no limit), else :data:`DEFAULT_SLOTS`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DEFAULT_SLOTS", "SLOTS_ENV", "limit", "released", "slot"]

SLOTS_ENV = "EXPLORER_PAGE_RUNS"
DEFAULT_SLOTS = 3

_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None
_held = threading.local()  # .semaphore: the one this thread holds a slot of, if any


def limit() -> int:
    """The number of page runs that may execute at once (0: no limit)."""
    raw = os.environ.get(SLOTS_ENV, "").strip()
    try:
        value = int(raw) if raw else DEFAULT_SLOTS
    except ValueError:
        return DEFAULT_SLOTS
    return max(0, value)


def _semaphore(size: int) -> threading.BoundedSemaphore:
    global _slots
    with _lock:
        if _slots is None or _slots[0] != size:
            _slots = (size, threading.BoundedSemaphore(size))
        return _slots[1]


@contextmanager
def slot() -> Iterator[None]:
    """Hold one of the process's page-run slots for the block (waits for a free one)."""
    size = limit()
    if size == 0:
        yield
        return
    semaphore = _semaphore(size)
    semaphore.acquire()
    _held.semaphore = semaphore
    try:
        yield
    finally:
        _held.semaphore = None
        semaphore.release()


@contextmanager
def released() -> Iterator[None]:
    """Give this thread's slot back for the block (a wait that runs no Python) and take one
    again after it; nothing happens on a thread that holds none."""
    semaphore = getattr(_held, "semaphore", None)
    if semaphore is None:
        yield
        return
    _held.semaphore = None
    semaphore.release()
    try:
        yield
    finally:
        semaphore.acquire()
        _held.semaphore = semaphore
