"""A process over its memory budget sheds its caches before anything is killed.

Every cache a server process keeps is bounded on its own, but their bounds add up, and a
busy class fills them all at once. :func:`check` (the app calls it at the start of each
page run, at most once a second; a pool worker after each job, before it would be recycled)
and :func:`watch` (a daemon thread the app starts once per process: a process that grew and
then went idle, with no page run to check it, still sheds) measure the process's resident memory and, past the budget, clears the caches largest
first until the process is back under it (each clear is followed by a garbage collection
and ``malloc_trim``, so the freed memory leaves the process), and logs one line saying what
it shed. Nothing is lost but time: every cache is refilled on demand.

The budget: ``EXPLORER_PROCESS_BUDGET_MB`` (0: no budget), else :data:`DEFAULT_BUDGET_MB`.

The caches: the ones registered with :func:`register` (the app's byte-bounded LRUs, which
know their size; Streamlit's ``st.cache_resource`` functions, registered ``last``: their
size is not known, and they are cleared only after every other cache), the embedding table's word caches, and the library's memoised functions
(``functools.lru_cache``: their bytes are estimated from their entry counts, by
:data:`LRU_FUNCTIONS`); a module not imported in this process holds nothing and is skipped.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from runtime.processes import resident_bytes

BUDGET_ENV = "EXPLORER_PROCESS_BUDGET_MB"
#: A Streamlit process of the class server holds about 0.4-0.7 GB with warm caches; past
#: this the caches go first (a worker's budget is its recycling mark instead).
DEFAULT_BUDGET_MB = 1536
#: Seconds between two measurements by :func:`check` (one /proc read each).
CHECK_EVERY = 1.0
WATCH_ENV = "EXPLORER_BUDGET_WATCH_S"
#: Seconds between two measurements by :func:`watch`'s thread (``EXPLORER_BUDGET_WATCH_S``;
#: 0: no thread): an idle process is back under its budget within this; each costs one /proc read.
DEFAULT_WATCH_SECONDS = 30.0
#: The library's memoised functions: (module, function, estimated bytes per entry).
LRU_FUNCTIONS: tuple[tuple[str, str, int], ...] = (
    ("explorer.preprocess", "analyze", 8_000),
    ("explorer.preprocess", "lemma", 250),
    ("explorer.metrics.bleu", "order_counts", 2_000),
    ("explorer.metrics.jcn", "jcn_similarity", 300),
    ("explorer.lexical.strings", "levenshtein", 250),
    ("explorer.aligners.manli.evidence", "chunk_boundaries", 600),
)
_MB = 2**20
_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Cache:
    """One cache: its name (for the log line), its size in bytes now (0: empty, or for a
    ``last`` cache, not known), how to clear it, and whether it goes only after the others."""

    name: str
    size: Callable[[], int]
    clear: Callable[[], None]
    last: bool = False


_REGISTERED: dict[str, Cache] = {}
_LOCK = threading.Lock()
_LAST = [0.0]


def register(name: str, size: Callable[[], int], clear: Callable[[], None], *, last: bool = False) -> None:
    """Add a cache this process keeps (a second registration under ``name`` replaces the
    first); ``last``: cleared after every other cache, whatever ``size`` says."""
    _REGISTERED[name] = Cache(name, size, clear, last)


def budget_bytes() -> int:
    """``EXPLORER_PROCESS_BUDGET_MB`` in bytes (0: none), else the default; a value that is
    not a number is the default."""
    raw = os.environ.get(BUDGET_ENV, "").strip()
    try:
        megabytes = float(raw) if raw else DEFAULT_BUDGET_MB
    except ValueError:
        megabytes = DEFAULT_BUDGET_MB
    return max(0, int(megabytes * _MB))


def caches() -> list[Cache]:
    """Every cache this process holds now: the registered ones, the embedding table's word
    caches and the memoised functions of modules it has imported."""
    found = list(_REGISTERED.values())
    embedding = sys.modules.get("explorer.lexical.embedding")
    if embedding is not None and embedding.shared_embeddings.cache_info().currsize:
        model = embedding.shared_embeddings()
        found.append(Cache("embedding word caches", model.cached_bytes, model.forget_words))
    for module_name, function, per_entry in LRU_FUNCTIONS:
        module = sys.modules.get(module_name)
        memoised = getattr(module, function, None) if module is not None else None
        if memoised is not None and hasattr(memoised, "cache_info"):
            found.append(Cache(f"{module_name}.{function}", partial(_lru_bytes, memoised, per_entry),
                               memoised.cache_clear))
    return found


def _lru_bytes(memoised: Any, per_entry: int) -> int:
    return int(memoised.cache_info().currsize) * per_entry


def _trim() -> None:
    """Hand freed memory back to the system (glibc keeps it otherwise); nothing elsewhere."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def shed(budget: int | None = None, *, resident: Callable[[], int] = resident_bytes,
         quiet: bool = False) -> list[tuple[str, int]]:
    """Past ``budget`` bytes resident (default :func:`budget_bytes`), clear caches largest
    first (the ``last`` ones after all others) until under it, and log one line (``quiet``:
    not when nothing was shed); the (name, bytes) of each cache cleared."""
    limit = budget_bytes() if budget is None else budget
    before = resident()
    if not limit or before <= limit:
        return []
    shed_: list[tuple[str, int]] = []
    with _LOCK:
        found = caches()
        for cache in [*sorted((c for c in found if not c.last), key=lambda c: c.size(), reverse=True),
                      *(c for c in found if c.last)]:
            size = cache.size()
            if size <= 0 and not cache.last:
                continue
            cache.clear()
            shed_.append((cache.name, size))
            _trim()
            if resident() <= limit:
                break
    if quiet and not shed_:
        return shed_
    after = resident()
    what = ", ".join(f"{name} ({size / _MB:,.1f} MB)" if size else name for name, size in shed_) \
        or "nothing: every cache was empty"
    _LOG.warning("memory: pid %d held %s MB, over its %s MB budget; shed %s; now %s MB", os.getpid(),
                 f"{before / _MB:,.0f}", f"{limit / _MB:,.0f}", what, f"{after / _MB:,.0f}")
    return shed_


def check() -> list[tuple[str, int]]:
    """:func:`shed` at most once every :data:`CHECK_EVERY` seconds (cheap to call on every run)."""
    now = time.monotonic()
    if now - _LAST[0] < CHECK_EVERY:
        return []
    _LAST[0] = now
    return shed()


#: The watcher by process id (a fork inherits the dict, not the thread), and what stops it.
_WATCHING: dict[int, tuple[threading.Thread, threading.Event]] = {}


def watch_seconds() -> float:
    """``EXPLORER_BUDGET_WATCH_S`` (0: no watcher), else :data:`DEFAULT_WATCH_SECONDS`; a value
    that is not a number is the default."""
    raw = os.environ.get(WATCH_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_WATCH_SECONDS
    except ValueError:
        return DEFAULT_WATCH_SECONDS


def watch(every: float | None = None) -> threading.Thread | None:
    """Start this process's budget watcher, once: a daemon thread that calls :func:`shed`
    every ``every`` seconds (default :func:`watch_seconds`; 0: none is started), logging only
    when it shed something. The running watcher if there is one already."""
    seconds = watch_seconds() if every is None else every
    with _LOCK:
        running = _WATCHING.get(os.getpid())
        if running is not None and running[0].is_alive():
            return running[0]
        if seconds <= 0:
            return None
        stop = threading.Event()
        thread = threading.Thread(target=_watch, args=(seconds, stop), name="memory-budget-watch", daemon=True)
        _WATCHING[os.getpid()] = (thread, stop)
        thread.start()
        return thread


def unwatch() -> None:
    """Stop this process's watcher (tests; a server's watcher ends with its process)."""
    with _LOCK:
        running = _WATCHING.pop(os.getpid(), None)
    if running is not None:
        running[1].set()
        running[0].join()


def _watch(seconds: float, stop: threading.Event) -> None:
    while not stop.wait(seconds):
        try:
            shed(quiet=True)
        except Exception:  # noqa: BLE001 - a failing cache's clear must not end the watcher
            _LOG.exception("memory: the budget watcher's check failed")
