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

``make setup`` builds them ahead, once the packages are installed (``python -m
runtime.disk_caches --build``, :func:`build`), so a server's first start finds them on disk
and only reads them. Without the NLTK data a cache derives from there is nothing to build:
:func:`build` says so in its one line and the setup goes on.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
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
        needs: the NLTK resource it derives from ("" for the kernels).
    """

    name: str
    label: str
    phase: int
    seconds: float
    built: Callable[[], bool]
    needs: str = ""


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
                  _resource_file("brown", BROWN_CACHE_NAME, nist_cache_dir), "brown"),
        DiskCache("Brown idf", "Brown word frequencies (bag-of-words idf, disk cache)", 0, 4.2,
                  _resource_file("brown", IDF_CACHE_NAME), "brown"),
        DiskCache("WordNet IC", "WordNet information content from Brown (disk cache)", 0, 20.2,
                  _resource_file("brown", IC_CACHE_NAME), "brown"),
        DiskCache("WordNet index", "WordNet index and lemmatizer", 0, 2.3,
                  _resource_file("wordnet", "wordnet-index-*.json"), "wordnet"),
        DiskCache("PPDB", "PPDB paraphrase table", 0, 1.6, _resource_file("mwa_ppdb", "ppdb-lexical-*.json"),
                  "mwa_ppdb"),
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


def build_missing(processes: int, todo: Sequence[DiskCache] | None = None) -> None:
    """Build the missing caches (or those of ``todo``) in up to ``processes`` helper
    processes at a time, data first, then kernels. A helper that fails or overruns only
    leaves its caches to the warm-up that follows (which builds them itself)."""
    todo = missing() if todo is None else list(todo)
    for phase in (0, 1):
        groups = share([c for c in todo if c.phase == phase], processes)
        helpers = [Child.module("runtime.disk_caches", *(c.label for c in group), stderr=subprocess.DEVNULL)
                   for group in groups]
        for helper in helpers:
            if not helper.wait(HELPER_TIMEOUT):
                helper.stop(0)


def build(processes: int, names: Sequence[str] = ()) -> str:
    """Build every missing cache (or the missing ones of those ``names`` names), as a first
    start would, and say in one line what was built, what was there already and what has
    nothing to build because its NLTK data is missing."""
    from explorer import resources

    chosen = [c for c in caches() if not names or c.name in names]
    unknown = sorted(set(names) - {c.name for c in chosen})
    if unknown:
        raise ValueError(f"no disk cache named {', '.join(unknown)} (known: {', '.join(c.name for c in caches())})")
    absent = {c.name: c.needs for c in chosen if c.needs and not resources.is_available(c.needs)}
    todo = [c for c in chosen if c.name not in absent and not c.built()]
    started = time.monotonic()
    if todo:
        build_missing(processes, todo)
    failed = [c.name for c in todo if not c.built()]
    made = [c.name for c in todo if c.name not in failed]
    parts = [f"built {len(made)} ({', '.join(made)}) in {time.monotonic() - started:.0f} s" if made else "",
             f"{len(chosen) - len(todo) - len(absent)} on disk already" if len(chosen) > len(todo) + len(absent) else "",
             f"{len(failed)} failed ({', '.join(failed)}): the first start builds them" if failed else ""]
    if absent:
        needed = {nltk_id: [n for n, i in absent.items() if i == nltk_id] for nltk_id in absent.values()}
        parts.append("nothing to build without NLTK data " + "; ".join(
            f"{nltk_id!r} ({', '.join(ns)})" for nltk_id, ns in needed.items()) + ": `make resources` fetches it")
    return "disk caches: " + "; ".join(p for p in parts if p) + "."


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


def cli(argv: list[str]) -> int:
    """``--build [--only NAME,...] [--processes N]``: :func:`build`, its one line on stdout;
    always exit 0 unless the arguments are wrong (a setup step that must not fail)."""
    from runtime.pool import usable_cores

    parser = argparse.ArgumentParser(prog="python -m runtime.disk_caches",
                                     description="Build the disk caches a first start would build.")
    parser.add_argument("--build", action="store_true", required=True)
    parser.add_argument("--only", default="", help="comma-separated cache names (default: every cache)")
    parser.add_argument("--processes", type=int, default=usable_cores())
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    try:
        print(build(max(1, args.processes), names), flush=True)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - a setup step: one line, and the first start builds them
        print(f"disk caches: not built ({type(err).__name__}: {err}); the first start builds them.", flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] and sys.argv[1].startswith("--"):
        raise SystemExit(cli(sys.argv[1:]))
    raise SystemExit(main(sys.argv[1:]))
