"""The warm-up's disk caches: which are built, sharing the missing ones out over helper
processes, and the helpers building them."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import resources
from runtime import disk_caches, warmup
from runtime.disk_caches import DiskCache


def _cache(label: str, seconds: float, phase: int = 0, built: bool = False) -> DiskCache:
    return DiskCache(label.split(" (")[0], label, phase, seconds, lambda: built)


def test_every_cache_names_a_warm_up_step() -> None:
    labels = {step.label for step in warmup.default_steps()}
    assert {c.label for c in disk_caches.caches()} <= labels


def test_the_missing_caches_are_shared_out_by_cost() -> None:
    todo = [_cache("ic", 20), _cache("nist", 14), _cache("idf", 4), _cache("wordnet", 2), _cache("ppdb", 2)]
    groups = disk_caches.share(todo, 2)
    assert [[c.label for c in g] for g in groups] == [["ic", "ppdb"], ["nist", "idf", "wordnet"]]
    assert len(disk_caches.share(todo, 8)) == 5  # never more groups than caches
    assert [[c.label for c in g] for g in disk_caches.share(todo, 1)] == [["ic", "nist", "idf", "wordnet", "ppdb"]]


def test_a_first_start_adds_one_step_naming_what_it_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(disk_caches, "caches", lambda: [_cache("Brown tables (x)", 9), _cache("PPDB", 1, built=True),
                                                        _cache("MANLI kernels (y)", 5, phase=1)])
    step = disk_caches.cache_step(2)
    assert step is not None
    assert step.label == ("first start on this machine: building 2 disk caches in 2 processes "
                          "(Brown tables, MANLI kernels)")
    monkeypatch.setattr(disk_caches, "caches", lambda: [_cache("PPDB", 1, built=True)])
    assert disk_caches.cache_step(2) is None  # every cache built: no step


@pytest.mark.slow
def test_helpers_build_the_missing_caches_in_parallel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for needed in ("wordnet", "mwa_ppdb"):
        if not resources.is_available(needed):
            pytest.skip(f"the NLTK resource {needed!r} is not installed")
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    wanted = {"WordNet index and lemmatizer", "PPDB paraphrase table"}
    chosen = [c for c in disk_caches.caches() if c.label in wanted]
    monkeypatch.setattr(disk_caches, "caches", lambda: chosen)
    assert {c.label for c in disk_caches.missing()} == wanted
    disk_caches.build_missing(2)
    assert disk_caches.missing() == []
    assert list(tmp_path.glob("wordnet-index-*.json")) and list(tmp_path.glob("ppdb-lexical-*.json"))
