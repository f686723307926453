"""A process over its memory budget sheds its caches, largest first, before anything is
killed (runtime/memory_budget.py)."""

from __future__ import annotations

import logging

import pytest

from runtime import memory_budget
from runtime.lru import SizedLRU


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
