"""A process over its memory budget sheds its caches, largest first, before anything is
killed (runtime/memory_budget.py)."""

from __future__ import annotations

import logging

import pytest

from runtime import memory_budget
from runtime.lru import SizedLRU
from runtime.processes import wait_until
from tests.deadline import DEADLINE


@pytest.fixture
def trims(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """Each trim after a clear, counted instead of run: a trim is a full garbage collection
    over this whole test process (about half a second once the suite's tables are loaded),
    and what it gives back is checked in a real process by
    ``test_a_real_process_over_budget_gives_the_memory_back``."""
    done: list[None] = []
    monkeypatch.setattr(memory_budget, "_trim", lambda: done.append(None))
    return done


@pytest.fixture
def two_caches(monkeypatch: pytest.MonkeyPatch, trims: list[None]) -> tuple[SizedLRU[str, bytes], SizedLRU[str, bytes]]:
    monkeypatch.setattr(memory_budget, "_REGISTERED", {})
    # Only these two: the library's memoised functions hold whatever earlier tests left.
    monkeypatch.setattr(memory_budget, "caches", lambda: list(memory_budget._REGISTERED.values()))
    big: SizedLRU[str, bytes] = SizedLRU(1 << 30)
    small: SizedLRU[str, bytes] = SizedLRU(1 << 30)
    big.put("a", b"x" * 300, 300)
    small.put("b", b"y" * 100, 100)
    memory_budget.register("big", lambda: big.total, big.clear)
    memory_budget.register("small", lambda: small.total, small.clear)
    return big, small


def test_under_budget_nothing_is_shed(two_caches: tuple[SizedLRU[str, bytes], SizedLRU[str, bytes]]) -> None:
    big, small = two_caches
    assert memory_budget.shed(1000, resident=lambda: 999) == []
    assert len(big) == len(small) == 1


def test_over_budget_the_largest_cache_goes_first_and_only_as_many_as_needed(
    two_caches: tuple[SizedLRU[str, bytes], SizedLRU[str, bytes]], caplog: pytest.LogCaptureFixture,
) -> None:
    big, small = two_caches
    def resident() -> int:  # the process's memory follows what the caches hold: 1,200 with both
        return 800 + big.total + small.total

    with caplog.at_level(logging.WARNING, logger="runtime.memory_budget"):
        shed = memory_budget.shed(1000, resident=resident)
    assert [name for name, _ in shed] == ["big"]
    assert len(big) == 0 and len(small) == 1
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "over its 0 MB budget; shed big" in lines[0]


def test_still_over_budget_every_cache_goes(two_caches: tuple[SizedLRU[str, bytes], SizedLRU[str, bytes]],
                                           trims: list[None]) -> None:
    big, small = two_caches
    shed = memory_budget.shed(1000, resident=lambda: 5000)
    assert [n for n, _ in shed] == ["big", "small"] and len(big) == len(small) == 0
    assert len(trims) == 2  # the memory each clear freed is handed back before the next measurement


def test_the_library_caches_are_found_and_cleared(monkeypatch: pytest.MonkeyPatch, trims: list[None]) -> None:
    from explorer.lexical.strings import levenshtein

    monkeypatch.setattr(memory_budget, "_REGISTERED", {})
    levenshtein.cache_clear()
    for i in range(50):
        levenshtein(f"harbour{i}", "harbor")
    found = {c.name: c for c in memory_budget.caches()}
    assert found["explorer.lexical.strings.levenshtein"].size() == 50 * 250
    shed = memory_budget.shed(1, resident=lambda: 2)
    assert levenshtein.cache_info().currsize == 0
    assert len(trims) == len(shed) and "explorer.lexical.strings.levenshtein" in dict(shed)  # a trim after each clear


def test_the_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(memory_budget.BUDGET_ENV, "300")
    assert memory_budget.budget_bytes() == 300 * 2**20
    monkeypatch.setenv(memory_budget.BUDGET_ENV, "0")
    assert memory_budget.budget_bytes() == 0
    assert memory_budget.shed(resident=lambda: 1 << 40) == []  # no budget: nothing shed
    monkeypatch.delenv(memory_budget.BUDGET_ENV)
    assert memory_budget.budget_bytes() == memory_budget.DEFAULT_BUDGET_MB * 2**20


def test_a_real_process_over_budget_gives_the_memory_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_budget, "_REGISTERED", {})
    cache: SizedLRU[int, bytearray] = SizedLRU(1 << 31)
    for i in range(8):  # 160 MB in 20 MB blocks
        cache.put(i, bytearray(20 * 2**20), 20 * 2**20)
    memory_budget.register("blocks", lambda: cache.total, cache.clear)
    before = memory_budget.resident_bytes()
    memory_budget.shed(before - 100 * 2**20)
    assert len(cache) == 0
    assert memory_budget.resident_bytes() < before - 100 * 2**20


def test_a_worker_past_its_mark_sheds_its_caches_and_stays() -> None:
    """What a job left in a cache goes before the worker does: past the recycling mark the
    worker clears its caches and, back under it, keeps serving (no replacement)."""
    from tests.unit import pool_jobs as jobs
    from tests.unit.test_pool import WAIT, recycling_pool

    pool = recycling_pool(150)
    mark_mb = pool.recycle_bytes / 2**20
    try:
        first = pool.submit("a", jobs.fill_cache, 300).result(WAIT)
        assert pool.submit("a", jobs.pid).result(WAIT) == first  # the cache went, the worker stayed
        assert pool.submit("a", jobs.resident).result(WAIT) < mark_mb * 2**20
        assert pool.counts["recycled"] == 0
    finally:
        pool.close()


def test_caches_registered_last_go_after_every_other_whatever_their_size(
    two_caches: tuple[SizedLRU[str, bytes], SizedLRU[str, bytes]],
) -> None:
    big, small = two_caches
    cleared: list[str] = []
    memory_budget.register("unsized", lambda: 0, lambda: cleared.append("unsized"), last=True)
    memory_budget.register("huge but last", lambda: 1 << 40, lambda: cleared.append("huge"), last=True)
    def resident() -> int:
        return 800 + big.total + small.total + 1000 * (len(cleared) < 2)

    assert [n for n, _ in memory_budget.shed(1000, resident=resident)] == ["big", "small", "unsized", "huge but last"]
    assert cleared == ["unsized", "huge"]  # registration order among the last; an unsized one is cleared too
    cleared.clear()
    assert [n for n, _ in memory_budget.shed(1000, resident=lambda: 1100 - 200 * len(cleared))] == ["unsized"]


def test_an_idle_process_over_its_budget_sheds_on_its_own(
    two_caches: tuple[SizedLRU[str, bytes], SizedLRU[str, bytes]], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    big, small = two_caches
    monkeypatch.setenv(memory_budget.BUDGET_ENV, "1")  # this test process is well past 1 MB
    try:
        with caplog.at_level(logging.WARNING, logger="runtime.memory_budget"):
            watcher = memory_budget.watch(every=0.05)
            assert watcher is not None and memory_budget.watch(every=0.05) is watcher  # once per process
            assert wait_until(lambda: len(big) == len(small) == 0 and bool(caplog.records), DEADLINE)  # no call here
            assert "over its 1 MB budget; shed big (0.0 MB), small" in caplog.records[0].getMessage()
            # Nothing left to shed: a quiet check (the watcher's) writes no line every period.
            assert memory_budget.shed(quiet=True) == [] and len(caplog.records) == 1
    finally:
        memory_budget.unwatch()
    assert not watcher.is_alive()
    monkeypatch.setenv(memory_budget.WATCH_ENV, "0")
    assert memory_budget.watch() is None  # switched off


def test_the_watch_period_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memory_budget.WATCH_ENV, raising=False)
    assert memory_budget.watch_seconds() == memory_budget.DEFAULT_WATCH_SECONDS
    monkeypatch.setenv(memory_budget.WATCH_ENV, "2.5")
    assert memory_budget.watch_seconds() == 2.5
    monkeypatch.setenv(memory_budget.WATCH_ENV, "often")
    assert memory_budget.watch_seconds() == memory_budget.DEFAULT_WATCH_SECONDS


def test_the_apps_streamlit_caches_are_cleared_when_shedding(monkeypatch: pytest.MonkeyPatch) -> None:
    from components import data
    from components.sections import batch_results

    class Opened:
        """Stands in for a batch result (no folder needed): a new object on each open."""

        @classmethod
        def open(cls, directory: str) -> Opened:
            return cls()

        def warm(self) -> None:
            pass

    monkeypatch.setattr(batch_results, "BatchResult", Opened)
    monkeypatch.setattr("explorer.datasets.msr_align.load_annotators", lambda files: object())
    first_result, first_msr = batch_results._open("folder", 1, 0.0), data._msr_dataset()
    assert batch_results._open("folder", 1, 0.0) is first_result and data._msr_dataset() is first_msr  # cached
    last = {c.name for c in memory_budget.caches() if c.last}
    assert {"open batch results", "MSR gold alignments"} <= last
    memory_budget.shed(1, resident=lambda: 2)  # over budget with every other cache gone: these go too
    assert batch_results._open("folder", 1, 0.0) is not first_result and data._msr_dataset() is not first_msr
    batch_results._open.clear()
    data._msr_dataset.clear()
