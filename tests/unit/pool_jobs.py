"""Tiny jobs for the worker-pool tests (module level, so a worker can import them by name)."""

from __future__ import annotations

import os
import time

from runtime.pool import emit


def add(a: int, b: int) -> int:
    return a + b


def sleep_then(seconds: float, value: object = None) -> object:
    time.sleep(seconds)
    return value


def wait_for(path: str, value: object = None) -> object:
    """Hold a worker until the test creates ``path`` (a condition, not a guess at timing)."""
    deadline = time.monotonic() + 3600  # a test that never releases it fails on its own deadline first
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return value


def stamp(seconds: float, tag: str) -> tuple[str, float, float]:
    """(tag, start, end) on the monotonic clock (shared by every process of one machine)."""
    start = time.monotonic()
    time.sleep(seconds)
    return tag, start, time.monotonic()


def emit_then_sleep(items: list[object], seconds: float) -> None:
    for item in items:
        emit(item)
    time.sleep(seconds)


def pid() -> int:
    return os.getpid()


def niceness() -> int:
    return os.nice(0)


def crash(code: int) -> None:
    os._exit(code)


def fail(message: str) -> None:
    raise ValueError(message)


class Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # args not passed on: pickling it back fails
        super().__init__(f"{a} and {b}")


def fail_oddly() -> None:
    raise Unpicklable(1, 2)


_HELD: list[bytearray] = []


def resident() -> int:
    """This worker's resident bytes (what its memory mark is compared with)."""
    from runtime.pool.worker import resident_bytes

    return resident_bytes()


def hold(megabytes: int) -> int:
    """Keep ``megabytes`` of touched memory in this worker after the job (a job's leftovers)."""
    _HELD.append(bytearray(b"\x01") * (megabytes * 2**20))
    return os.getpid()


def fill_cache(megabytes: int) -> int:
    """Keep ``megabytes`` of touched memory in a cache the worker's memory budget may shed."""
    from runtime import memory_budget

    held = [bytearray(b"\x01") * (megabytes * 2**20)]
    memory_budget.register("test blocks", lambda: sum(map(len, held)), held.clear)
    return os.getpid()
