"""Page runs of one process take slots: at most ``limit()`` execute at once."""

from __future__ import annotations

import threading

import pytest

from runtime import run_slots
from tests.deadline import DEADLINE

pytestmark = pytest.mark.unit


def most_at_once(threads: int) -> int:
    """Start ``threads`` runs that each hold their slot until all have tried to enter; the
    most that were inside at the same moment."""
    inside, most = 0, 0
    lock = threading.Lock()
    arrived = threading.Barrier(threads, timeout=DEADLINE)
    release = threading.Event()

    def run() -> None:
        nonlocal inside, most
        arrived.wait()
        with run_slots.slot():
            with lock:
                inside += 1
                most = max(most, inside)
            release.wait(DEADLINE)
            with lock:
                inside -= 1

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    # Wait until the runs that can enter have entered (the others wait on the semaphore).
    expected = min(threads, run_slots.limit() or threads)
    pause = threading.Event()  # never set: a short wait between two looks
    while True:
        with lock:
            if inside >= expected:
                break
        pause.wait(0.01)
    release.set()
    for worker in workers:
        worker.join(DEADLINE)
    return most


def test_at_most_the_limit_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(run_slots.SLOTS_ENV, "2")
    assert most_at_once(6) == 2


def test_zero_means_no_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(run_slots.SLOTS_ENV, "0")
    assert most_at_once(5) == 5


@pytest.mark.parametrize(("raw", "expected"), [("", run_slots.DEFAULT_SLOTS), ("4", 4), ("-3", 0),
                                               ("many", run_slots.DEFAULT_SLOTS)])
def test_the_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch, raw: str, expected: int) -> None:
    monkeypatch.setenv(run_slots.SLOTS_ENV, raw)
    assert run_slots.limit() == expected


def test_a_run_that_fails_gives_its_slot_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(run_slots.SLOTS_ENV, "1")
    with pytest.raises(RuntimeError), run_slots.slot():
        raise RuntimeError("the page failed")
    entered = threading.Event()

    def run() -> None:
        with run_slots.slot():
            entered.set()

    worker = threading.Thread(target=run)
    worker.start()
    assert entered.wait(DEADLINE)
    worker.join(DEADLINE)


def test_a_waiting_run_gives_its_slot_to_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one slot, a run that waits inside ``released()`` lets another run execute, and
    takes a slot again before it goes on."""
    monkeypatch.setenv(run_slots.SLOTS_ENV, "1")
    other_ran, waiting = threading.Event(), threading.Event()
    order: list[str] = []

    def waiter() -> None:
        with run_slots.slot():
            with run_slots.released():
                waiting.set()
                assert other_ran.wait(DEADLINE)
            order.append("waiter again")

    def other() -> None:
        assert waiting.wait(DEADLINE)
        with run_slots.slot():
            order.append("other")
        other_ran.set()

    threads = [threading.Thread(target=waiter), threading.Thread(target=other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    assert order == ["other", "waiter again"]


def test_released_outside_a_slot_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(run_slots.SLOTS_ENV, "1")
    with run_slots.released():
        pass
    with run_slots.slot():  # the one slot is still free
        pass
