"""The worker side of the pool: one loop per worker process, and :func:`emit` for jobs.

A worker is a fork of the pool's warm fork server (:mod:`runtime.pool.zygote`), so it
starts with every lexicon, model and compiled kernel already in memory. It reads one job at
a time from its connection, runs it and sends the result back; a job may also send partial
results while it runs (:func:`emit`: each scorer's result on a pair as soon as it is
known), so a job stopped by its time budget still returns what it finished.

Messages to the server (tuples, first the kind):

* ``("partial", job_id, item)``: something :func:`emit` sent;
* ``("done", job_id, True, result, retire)`` or ``("done", job_id, False, error, retire)``;
  ``retire``: this worker exits now (past its memory mark) and takes no further job.

A worker whose resident memory is past the pool's mark after a job (a job's caches and heap
fragments stay with the process that ran it) exits with :data:`RECYCLED` once the job's
result is sent, and the scheduler forks a fresh one in its place.

An error that does not survive pickling (an exception class with its own ``__init__``
arguments, an unpicklable attribute) is sent as a :class:`RemoteError` naming its type and
message, so the server always gets a sentence, never a hang or a pickling traceback.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from explorer.errors import ExplorerError
from runtime import memory_budget
from runtime.processes import resident_bytes  # 0 where /proc is not: then never recycled

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

#: Where :func:`emit` sends, for the job running in this thread (None: nobody listens).
_EMIT: ContextVar[Callable[[object], None] | None] = ContextVar("explorer_pool_emit", default=None)


#: A worker's exit code when it leaves past its memory mark, between jobs.
RECYCLED = 75


def own_files() -> None:
    """In a freshly forked worker: forget the file handles WordNet's reader inherited, so
    two workers never seek in one shared file description.

    Only the reader's own attributes are read (``vars``), never through NLTK's lazy loader:
    asking a loader that has not loaded yet for an attribute loads WordNet, which where it
    is missing raises a LookupError at every fork (a hook run at fork prints it with its
    traceback) and where it is present would load it in each worker for nothing."""
    import sys

    corpus = sys.modules.get("nltk.corpus")
    reader = getattr(corpus, "wordnet", None) if corpus is not None else None
    attributes = getattr(reader, "__dict__", None)
    if not isinstance(attributes, dict) or not isinstance(attributes.get("_data_file_map"), dict):
        return  # no WordNet, or not loaded yet (then nothing is open)
    attributes["_data_file_map"].clear()
    for name in ("_key_count_file", "_key_synset_file"):
        if attributes.get(name) is not None:
            setattr(reader, name, None)


class RemoteError(ExplorerError, RuntimeError):
    """An error raised by a job whose own exception could not be sent back as it was."""


def emit(item: object) -> None:
    """Send a partial result of the running job to whoever submitted it (nothing happens
    outside a job). ``item`` must pickle."""
    send = _EMIT.get()
    if send is not None:
        send(item)


@contextmanager
def emitting(send: Callable[[object], None]) -> Iterator[None]:
    """Run a block with :func:`emit` calling ``send`` (the in-process runner uses this)."""
    token = _EMIT.set(send)
    try:
        yield
    finally:
        _EMIT.reset(token)


def portable(error: BaseException) -> BaseException:
    """``error`` itself when it survives a pickle round trip, else a :class:`RemoteError`
    with its type and message."""
    try:
        copy = pickle.loads(pickle.dumps(error))
        if type(copy) is type(error):
            return error
    except Exception:  # noqa: BLE001 - any failure means: send a stand-in
        pass
    return RemoteError(f"{type(error).__name__}: {error}")


def run_job(fn: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object],
            send: Callable[[object], None]) -> tuple[bool, object]:
    """``fn(*args, **kwargs)`` with :func:`emit` wired to ``send``: ``(True, result)`` or
    ``(False, error)``."""
    try:
        with emitting(send):
            return True, fn(*args, **kwargs)
    except Exception as err:  # the job's failure is its answer
        return False, portable(err)


def serve(conn: Connection, nice: int, max_rss: int = 0) -> None:
    """The worker's loop (the target of its process): jobs in, results out, until the
    server closes the connection, or until a job leaves the process past ``max_rss``
    bytes resident (0: no mark; it then exits with :data:`RECYCLED`). ``nice`` lowers this
    process's priority first (the pool's lane for long jobs), so short jobs elsewhere get
    the cores first."""
    if nice:
        os.nice(nice)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the server has gone or closed this worker
        job_id, fn, args, kwargs = message

        def send(item: object, job_id: int = job_id) -> None:
            conn.send(("partial", job_id, item))

        ok, payload = run_job(fn, args, kwargs, send)
        # Said with the result, so the server sends this worker no further job.
        if max_rss and resident_bytes() > max_rss:
            memory_budget.shed(max_rss)  # caches go before the worker does
        retire = bool(max_rss) and resident_bytes() > max_rss
        try:
            conn.send(("done", job_id, ok, payload, retire))
        except (EOFError, OSError):
            return
        except Exception as err:  # a result that does not pickle: say so instead
            conn.send(("done", job_id, False, RemoteError(f"the result could not be sent back: "
                                                         f"{type(err).__name__}: {err}"), retire))
        if retire:
            raise SystemExit(RECYCLED)
