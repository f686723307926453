"""The derived data the warm-up keeps on disk, and building what is missing in parallel.

A first start on a machine builds several disk caches (:mod:`explorer.cache`, numba's kernel
cache): the Brown tables, WordNet's lemma index and information content, PPDB's table, the
compiled ITG, MANLI and pFSM / pPDA kernels. One after another that is about 70 s of CPU on
the 2-core reference machine (``bench/bench_pool.py --only warmup --cold-caches``); most of
them are independent, so :func:`build_missing` builds the missing ones in parallel helper
processes (``python -m runtime.disk_caches LABEL...``, one per usable core), in two phases:
the data first, then the kernels (whose first run reads the data). Each helper runs the
warm-up steps (:func:`runtime.warmup.default_steps`) of its caches, which write them; the
warm-up that follows reads them back in a few seconds. Later starts find every cache built
and skip this.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import explorer
from runtime.processes import Child

if TYPE_CHECKING:
    from runtime.warmup import Step

#: Longest a helper may take (seconds) before it is stopped; its step then runs in the warm-up.
HELPER_TIMEOUT = 1800.0
#: The library's folder: the kernels' modules (and numba's cache beside them) are there.
LIBRARY = Path(explorer.__file__).resolve().parent


@dataclass(frozen=True)
class DiskCache:
    """One derived thing kept on disk.

    Attributes:
        name: what it is, in a few words ("Brown IC").
        label: the warm-up step that builds it (:func:`runtime.warmup.default_steps`).
        phase: 0 for data, 1 for compiled kernels (built after the data they read).
        seconds: CPU seconds to build it on the reference machine (for sharing the work out).
        built: whether it is on disk already (or has nothing to build: its resource is missing).
    """

    name: str
    label: str
    phase: int
    seconds: float
    built: Callable[[], bool]


def _resource_file(resource: str, name: str, folder: Callable[[], Path] | None = None) -> Callable[[], bool]:
    """Built when a file matching ``name`` is in the cache folder, or when the NLTK
    ``resource`` it derives from is missing (nothing to build)."""

    def built() -> bool:
        from explorer import cache, resources

        return not resources.is_available(resource) or any((folder or cache.cache_dir)().glob(name))

    return built


def _kernels(*modules: str) -> Callable[[], bool]:
    """Whether numba's cache holds the kernels of these modules (under ``NUMBA_CACHE_DIR``
    when set, else next to each module)."""

    def built() -> bool:
        import os

        explicit = os.environ.get("NUMBA_CACHE_DIR")
        places = [Path(explicit)] if explicit else [LIBRARY / Path(m).parent / "__pycache__" for m in modules]
        stems = [Path(m).stem for m in modules]
        return all(any(any(place.rglob(f"{stem}.*.nbi")) for place in places if place.is_dir()) for stem in stems)

    return built


def caches() -> list[DiskCache]:
    """Every disk cache of the warm-up, with the step that builds it."""
    from explorer.aligners.bow import IDF_CACHE_NAME
    from explorer.lexical.config import IC_CACHE_NAME
    from explorer.metrics.nist import BROWN_CACHE_NAME
    from explorer.metrics.nist import cache_dir as nist_cache_dir
    from runtime.warmup import scorer_step_label

    return [
        DiskCache("Brown NIST weights", "Brown information weights (NIST, disk cache)", 0, 14.4,
                  _resource_file("brown", BROWN_CACHE_NAME, nist_cache_dir)),
        DiskCache("Brown idf", "Brown word frequencies (bag-of-words idf, disk cache)", 0, 4.2,
                  _resource_file("brown", IDF_CACHE_NAME)),
        DiskCache("WordNet IC", "WordNet information content from Brown (disk cache)", 0, 20.2,
                  _resource_file("brown", IC_CACHE_NAME)),
        DiskCache("WordNet index", "WordNet index and lemmatizer", 0, 2.3,
                  _resource_file("wordnet", "wordnet-index-*.json")),
        DiskCache("PPDB", "PPDB paraphrase table", 0, 1.6, _resource_file("mwa_ppdb", "ppdb-lexical-*.json")),
        DiskCache("ITG kernel", scorer_step_label("itg"), 1, 2.5, _kernels("aligners/itg_kernel.py")),
        DiskCache("MANLI kernels", scorer_step_label("manli"), 1, 13.7, _kernels("aligners/manli/kernel.py")),
        DiskCache("pFSM/pPDA kernels", scorer_step_label("pfsm"), 1, 8.3,
                  _kernels("edit_distance/automaton.py", "edit_distance/features.py")),
    ]


def missing() -> list[DiskCache]:
    """The caches not yet on disk."""
    return [c for c in caches() if not c.built()]


def share(todo: list[DiskCache], processes: int) -> list[list[DiskCache]]:
    """``todo`` in at most ``processes`` groups of about equal cost (longest first, each to
    the least loaded group)."""
    groups: list[list[DiskCache]] = [[] for _ in range(max(1, min(processes, len(todo))))]
    for cache in sorted(todo, key=lambda c: -c.seconds):
        min(groups, key=lambda g: sum(c.seconds for c in g)).append(cache)
    return [g for g in groups if g]


def cache_step(processes: int) -> Step | None:
    """On a first start, one warm-up step that builds the missing caches in ``processes``
    parallel helpers (:func:`build_missing`); None when every cache is built."""
    from runtime.warmup import Step

    todo = missing()
    if not todo:
        return None
    groups = len(share(todo, processes))
    return Step(f"first start on this machine: building {len(todo)} disk caches in {groups} processes "
                f"({', '.join(c.name for c in todo)})", lambda: build_missing(processes))


def build_missing(processes: int) -> None:
    """Build the missing caches in up to ``processes`` helper processes at a time, data
    first, then kernels. A helper that fails or overruns only leaves its caches to the
    warm-up that follows (which builds them itself)."""
    todo = missing()
    for phase in (0, 1):
        groups = share([c for c in todo if c.phase == phase], processes)
        helpers = [Child.module("runtime.disk_caches", *(c.label for c in group), stderr=subprocess.DEVNULL)
                   for group in groups]
        for helper in helpers:
            if not helper.wait(HELPER_TIMEOUT):
                helper.stop(0)


def main(labels: list[str]) -> int:
    """A helper: run the warm-up steps with these labels (each writes its disk cache)."""
    from explorer import resources
    from runtime import warmup

    resources.import_nltk()
    steps = {step.label: step for step in warmup.default_steps()}
    for label in labels:
        try:
            steps[label].run()
        except Exception:  # noqa: BLE001 - the warm-up after this runs the step again and reports it
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
