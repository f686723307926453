"""Reading an untrusted file in a child process, bounded before and while it is parsed.

A server that parses uploads itself holds the parse's peak (the decoded text, every line,
every JSON object) in its own memory, and one file can take it. :func:`read_bounded`
checks what the bytes alone show first (size, and the records counted by
:mod:`explorer.datasets.counting`: a 999,000-line file is refused in a fraction of a
second), then parses in a fresh child process (``python -m runtime.isolated_reader``)
under :class:`ReadLimits`:

- **memory**: the child caps its own address space (``RLIMIT_AS``) before it reads a byte;
  a parse that needs more ends in ``MemoryError`` (or the child's death) and is refused
  naming the limit;
- **time**: the child's ``RLIMIT_CPU`` ends it past ``cpu_seconds`` of processor time (the
  work a file causes, whatever the machine's load), and the parent kills it past
  ``seconds`` of wall time (a child that waits on something never uses its CPU);
- **pairs**: the child refuses more than ``pairs`` pairs before parsing (its own exact
  count) and after (pairs a count cannot see, e.g. MSR alignments);
- **readers**: at most ``readers`` children run at once on the machine (lock files in the
  user cache, shared by every server process); a request waits ``wait`` seconds for one.

Why a fresh process per file (``subprocess``), not a pool or ``fork``: a Streamlit server
runs many threads, and forking a threaded process can deadlock the child on a lock some
other thread held; a fresh interpreter inherits nothing, starts in about 0.1-0.5 s
(only the loaders are imported), returns all its memory to the system when it exits, and
is killed alone. The child sends the :class:`~explorer.datasets.Dataset` back pickled; the
parent unpickles only the classes a dataset is made of, so a child that misbehaves on a
hostile file cannot make the server build anything else.

The child's failures become :class:`ReadLimitError` messages naming the limit; the file's
own errors stay :class:`~explorer.datasets.DatasetError` messages naming the line.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from explorer.datasets import Dataset, DatasetError
from runtime.processes import Child

_MB = 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """What one read may take. ``batch_hint`` ends the pair-limit message: where a larger
    file should go instead."""

    pairs: int
    bytes: int
    memory: int
    seconds: float
    cpu_seconds: float = 20.0
    readers: int = 1
    wait: float = 20.0
    batch_hint: str = ""


class ReadLimitError(DatasetError):
    """A file refused by one of :class:`ReadLimits` (not by its content); ``limit`` names
    which: ``pairs``, ``bytes``, ``memory``, ``seconds``, ``cpu_seconds``, ``readers`` (or
    ``live``, the app's own budget)."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


@dataclass(frozen=True)
class ReadResult:
    """A dataset read by the child, its measured size in memory (:func:`footprint`), the
    read's wall seconds, the child's peak resident memory (bytes) and processor seconds."""

    dataset: Dataset
    footprint: int
    seconds: float
    child_peak: int
    child_cpu: float = 0.0


def pair_limit_message(name: str, records: int | None, limits: ReadLimits) -> str:
    """The refusal of a file over the pair limit (``records`` None: more than the limit)."""
    held = f"{records:,} records is" if records is not None else f"more than {limits.pairs:,} records are"
    return (f"{name}: {held} over the {limits.pairs:,}-pair limit for a dataset opened in the app"
            + (f"; {limits.batch_hint}" if limits.batch_hint else ""))


def read_bounded(data: bytes, name: str, limits: ReadLimits,
                 admit: Callable[[int], None] | None = None) -> ReadResult:
    """Parse ``data`` as :func:`explorer.datasets.load_bytes` would, in a child process
    under ``limits`` (see the module docstring). ``admit`` is called with the dataset's
    measured size before the dataset is rebuilt here, and may refuse it by raising.

    Raises:
        ReadLimitError: past a limit, naming it.
        DatasetError: for a file its loader refuses.
    """
    from explorer.datasets.counting import records_over
    from explorer.datasets.reading import check_size

    check_size(len(data), name, limits.bytes)
    records = records_over(data, name, limits.pairs)
    if records is not None:
        raise ReadLimitError(pair_limit_message(name, records, limits), "pairs")
    with _reader_slot(limits):
        return _run_child(data, name, limits, admit)


# -- the machine-wide reader slots ----------------------------------------------------------


@contextlib.contextmanager
def _reader_slot(limits: ReadLimits) -> Iterator[None]:
    """Hold one of ``limits.readers`` lock files until the block ends; wait at most
    ``limits.wait`` seconds for one. Without a writable cache folder, no waiting: the
    read goes ahead (the memory cap still holds)."""
    import fcntl

    from explorer.cache import cache_dir

    folder = cache_dir() / "readers"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handles = [open(folder / f"slot-{i}.lock", "a+b") for i in range(max(1, limits.readers))]  # noqa: SIM115
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + limits.wait
        while True:
            for handle in handles:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue
                try:
                    yield
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
                return
            if time.monotonic() > deadline:
                raise ReadLimitError(
                    f"other uploads are being read on this server ({limits.readers} at a time) and none finished "
                    f"within {limits.wait:.0f} s; try again in a moment", "readers")
            time.sleep(0.05)
    finally:
        for handle in handles:
            handle.close()


# -- the parent's side of the child ---------------------------------------------------------


def _run_child(data: bytes, name: str, limits: ReadLimits, admit: Callable[[int], None] | None) -> ReadResult:
    # counted: read_bounded has counted the records within the limit; the child does not again.
    request = json.dumps({"name": name, "pairs": limits.pairs, "bytes": limits.bytes, "memory": limits.memory,
                          "seconds": limits.seconds, "cpu_seconds": limits.cpu_seconds,
                          "batch_hint": limits.batch_hint, "counted": True})
    start = time.perf_counter()
    with _as_file(data) as source:
        # stderr: the server's log. Past the wall-clock limit the child is killed and reaped.
        child = Child.module("runtime.isolated_reader", request, stdin=source or subprocess.PIPE,
                             stdout=subprocess.PIPE)
        try:
            out, _ = child.communicate(None if source else data, timeout=limits.seconds)
        except subprocess.TimeoutExpired:
            raise _too_slow(name, limits) from None
    return _result(out, child.popen.returncode, name, limits, time.perf_counter() - start, admit)


@contextlib.contextmanager
def _as_file(data: bytes) -> Iterator[IO[bytes] | None]:
    """``data`` in an unnamed temporary file, at its start: the child's stdin. Written in
    one call (through a pipe, 100 MB took 30,000 writes of 4 kB, each a switch between the
    two processes); on disk, so the server's memory does not hold a second copy. None when
    the disk refuses it (full, read-only): the pipe then."""
    handle: IO[bytes] | None = None
    try:
        handle = tempfile.TemporaryFile()  # noqa: SIM115
        handle.write(data)
        handle.flush()
        handle.seek(0)
    except OSError:
        if handle is not None:
            handle.close()
        handle = None
    try:
        yield handle
    finally:
        if handle is not None:
            handle.close()


def _too_slow(name: str, limits: ReadLimits) -> ReadLimitError:
    return ReadLimitError(f"{name}: reading it took longer than the app's {limits.seconds:g}-second limit for "
                          "one file; split it, or use a smaller file", "seconds")


def _too_big(name: str, limits: ReadLimits) -> str:
    return (f"{name}: reading it needed more than the app's {limits.memory // _MB:,} MB memory limit for one "
            "file; split it, or use a smaller file")


def _result(out: bytes, code: int, name: str, limits: ReadLimits, seconds: float,
            admit: Callable[[int], None] | None) -> ReadResult:
    """The child's reply: a head ``(kind, message or size, peak)``, then for ``ok`` the
    dataset, rebuilt only once ``admit`` has accepted its size."""
    reply = io.BytesIO(out)
    try:
        head = _Unpickler(reply).load() if out else None
    except Exception:  # a truncated or foreign reply: the child did not finish
        head = None
    if isinstance(head, tuple) and len(head) == 3 and head[0] in _REFUSALS and isinstance(head[1], str):
        if head[0] == "dataset":
            raise DatasetError(head[1])
        raise ReadLimitError(head[1], head[0])
    if isinstance(head, tuple) and len(head) == 3 and head[0] == "ok" and isinstance(head[1], int) \
            and isinstance(head[2], tuple):
        if admit is not None:
            admit(head[1])
        try:
            with _collector_paused():
                dataset = _Unpickler(reply).load()
        except Exception:
            dataset = None
        if isinstance(dataset, Dataset):
            return ReadResult(dataset, head[1], seconds, int(head[2][0]), float(head[2][1]))
    if code == -signal.SIGXCPU:  # the kernel's signal at the processor-time limit
        raise ReadLimitError(f"{name}: reading it needed more than the app's {limits.cpu_seconds:g} seconds of "
                             "processor time for one file; split it, or use a smaller file", "cpu_seconds")
    # No reply: ended by the system, e.g. the memory cap met outside Python's allocator.
    raise ReadLimitError(f"{_too_big(name, limits)} (the reader stopped with code {code})", "memory")


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a dataset is rebuilt: its 100,000 pairs hold no
    reference cycle, yet each thousand new objects set off a pass of the collector over the
    server's heap (a quarter of the rebuild's time)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


_REFUSALS = ("dataset", "pairs", "memory")
#: Every class a dataset is made of: the only ones the parent rebuilds from a reply.
_ALLOWED = {
    ("explorer.datasets", "Dataset"), ("explorer.pairs", "Pair"), ("explorer.alignment", "Alignment"),
    ("explorer.alignment", "Edit"), ("explorer.alignment", "EditKind"), ("builtins", "frozenset"),
    ("builtins", "set"), ("copyreg", "_reconstructor"), ("builtins", "object"),
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a dataset")
        return super().find_class(module, name)


# -- the child ------------------------------------------------------------------------------


def footprint(dataset: Dataset) -> int:
    """The bytes a dataset's pairs hold in memory: each pair object, its attributes and
    every object they reach, each counted once (``sys.getsizeof``; shared strings such as
    the file name or a label once per dataset).

    The sum of :func:`_size`'s walk, with a pair's plain attributes (strings, numbers,
    tuples of tokens) counted in this loop rather than by a call each: a 100,000-pair
    dataset reaches over a million objects, and a call each took twice the time."""
    seen: set[int] = set()
    mark, size_of = seen.add, sys.getsizeof
    total = size_of(dataset.pairs)
    for pair in dataset.pairs:
        attributes = getattr(pair, "__dict__", None)
        if attributes is None or id(pair) in seen:
            total += _size(pair, seen)
            continue
        mark(id(pair))
        total += size_of(pair) + size_of(attributes)
        for value in attributes.values():
            kind = type(value)
            if kind not in _PLAIN and kind is not tuple:
                total += _size(value, seen)
            elif id(value) not in seen:
                mark(id(value))
                total += size_of(value)
                for item in value if kind is tuple else ():
                    if type(item) is not str:
                        total += _size(item, seen)
                    elif id(item) not in seen:
                        mark(id(item))
                        total += size_of(item)
    return total


#: Types :func:`footprint` counts without a call: what :func:`_size` counts by size alone.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _size(obj: object, seen: set[int]) -> int:
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, str | int | float | bool) or obj is None:
        return size
    if isinstance(obj, tuple | list | set | frozenset):
        return size + sum(_size(item, seen) for item in obj)
    attributes = getattr(obj, "__dict__", None)
    if attributes is not None:
        size += sys.getsizeof(attributes) + sum(_size(value, seen) for value in attributes.values())
    return size


def _child(request: dict[str, Any]) -> list[object]:
    """Read stdin and parse it under the request's limits (run in the child); the objects
    to send back (see :func:`_result`)."""
    import resource

    # One file, then the process ends: the cycle collector's passes over the growing parse
    # (a third of an XML file's read) would free nothing it needs.
    gc.disable()
    limits = ReadLimits(pairs=int(request["pairs"]), bytes=int(request["bytes"]), memory=int(request["memory"]),
                        seconds=float(request["seconds"]), cpu_seconds=float(request["cpu_seconds"]),
                        batch_hint=str(request["batch_hint"]))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
    cpu = max(1, round(limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL a second later
    name = str(request["name"])
    try:
        kind, value = _parse(sys.stdin.buffer.read(limits.bytes + 1), name, limits,
                             counted=bool(request.get("counted")))
    except MemoryError:
        kind, value = "memory", _too_big(name, limits)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = (usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime)
    if isinstance(value, Dataset):
        return [(kind, footprint(value), peak), value]
    return [(kind, value, peak)]


def _parse(data: bytes, name: str, limits: ReadLimits, *, counted: bool = False) -> tuple[str, Dataset | str]:
    """What the child sends back for ``data``: ``("ok", dataset)`` or a refusal's kind and
    message. ``counted``: the parent has counted the records within the limit (the child
    does not count them again)."""
    from explorer.datasets import load_bytes, reading
    from explorer.datasets.counting import count_records

    try:
        records = None if counted else count_records(data, name)
        if records is not None and records > limits.pairs:
            return "pairs", pair_limit_message(name, records, limits)
        reading.MAX_PAIRS = limits.pairs  # this process reads one file: the loaders stop there
        dataset = load_bytes(data, name, max_bytes=limits.bytes)
    except reading.PairLimitError:
        return "pairs", pair_limit_message(name, None, limits)
    except DatasetError as err:
        return "dataset", str(err)
    except MemoryError:
        raise
    except Exception as err:  # a loader's bug: said in one line, the traceback in the server's log
        import traceback

        traceback.print_exc()
        return "dataset", f"{name}: the file could not be read ({type(err).__name__}); please report it"
    return "ok", dataset


def main(argv: list[str] | None = None) -> int:
    request = json.loads((argv or sys.argv[1:])[0])
    for part in _child(request):
        sys.stdout.buffer.write(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # The reply is written: end without the interpreter's teardown, which would free the
    # dataset object by object (a second of processor time after a 100,000-pair read).
    os._exit(code)
