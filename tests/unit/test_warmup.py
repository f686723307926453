"""The server's warm-up (explorer/warmup.py): steps run once, in order, on a background
thread, with readable progress; a failing step is recorded and the rest still run."""

from __future__ import annotations

import threading

from explorer import warmup
from explorer.aligners import ALIGNERS
from explorer.scorers import SCORERS


def test_steps_run_once_in_order_with_progress_and_failures_recorded() -> None:
    ran: list[str] = []
    gate = threading.Event()

    def blocked() -> None:
        ran.append("second")
        assert gate.wait(30)

    def broken() -> None:
        ran.append("third")
        raise RuntimeError("no model file")

    steps = [warmup.Step("first", lambda: ran.append("first")), warmup.Step("second", blocked),
             warmup.Step("third", broken), warmup.Step("fourth", lambda: ran.append("fourth"))]
    warm = warmup.Warmup(lambda: steps)
    assert warm.status().total == 0 and not warm.finished  # not started yet
    warm.start()
    assert not warm.wait(0.3)  # held at the second step
    status = warm.status()
    assert (status.done, status.total, status.current, status.finished) == (1, 4, "second", False)
    assert status.share == 0.25
    assert warm.start() is warm  # a second start changes nothing
    gate.set()
    assert warm.wait(30)
    status = warm.status()
    assert ran == ["first", "second", "third", "fourth"]  # once each, in order, past the failure
    assert (status.done, status.finished, status.current) == (4, True, "")
    assert status.errors == (("third", "RuntimeError: no model file"),)
    assert status.seconds > 0
    assert warm.status().seconds == status.seconds  # frozen once finished


def test_listing_failure_is_recorded_and_ends_the_warm_up() -> None:
    def listing() -> list[warmup.Step]:
        raise ImportError("no such module")

    warm = warmup.Warmup(listing).start()
    assert warm.wait(30)
    assert warm.status().errors == (("listing the methods", "ImportError: no such module"),)


def test_default_steps_cover_every_scorer_and_aligner_and_the_first_one_runs() -> None:
    steps = warmup.default_steps()
    labels = [s.label for s in steps]
    assert len(steps) == 1 + len(SCORERS) + len(ALIGNERS)
    assert all(f"{info.label} (scorer)" in labels for info in SCORERS.values())
    assert all(f"{info.label} (aligner)" in labels for info in ALIGNERS.values())
    analysed = steps[0].run()
    assert [t for t in analysed.hypothesis.tokens] == ["Ilse", "Marrow", "purchased", "an", "automobile", "."]  # type: ignore[attr-defined]


def test_the_process_has_one_warm_up() -> None:
    fake = warmup.Warmup(lambda: [])
    previous = warmup.replace_for_tests(fake)
    try:
        assert warmup.start() is fake and warmup.current() is fake
        assert fake.wait(30)
    finally:
        warmup.replace_for_tests(previous)
