"""The size-bounded LRU the server's shared caches use (uploaded datasets and files, every
method's per-pair results)."""

from __future__ import annotations

from runtime.lru import SizedLRU


def test_it_holds_at_most_its_budget_letting_go_of_the_least_recently_used() -> None:
    cache: SizedLRU[str, str] = SizedLRU(10)
    cache.put("a", "A", 4)
    cache.put("b", "B", 4)
    assert cache.get("a") == "A"  # "b" is now the least recently used
    cache.put("c", "C", 4)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("A", None, "C")
    assert cache.total == 8 and len(cache) == 2
    cache.put("a", "A2", 6)  # a new size for a kept key replaces the old one
    assert cache.total == 10 and cache.get("a") == "A2"


def test_a_value_larger_than_the_budget_is_not_kept() -> None:
    cache: SizedLRU[str, str] = SizedLRU(10)
    cache.put("a", "A", 3)
    cache.put("a", "huge", 11)
    assert cache.get("a") is None and cache.total == 0 and len(cache) == 0


def test_an_entry_limit_bounds_it_too() -> None:
    cache: SizedLRU[int, int] = SizedLRU(1_000, max_entries=3)
    for k in range(5):
        cache.put(k, k, 1)
    assert len(cache) == 3 and cache.total == 3 and [cache.get(k) for k in range(5)] == [None, None, 2, 3, 4]
    assert cache.pop_oldest() and len(cache) == 2
    cache.clear()
    assert len(cache) == 0 and cache.total == 0 and not cache.pop_oldest()
