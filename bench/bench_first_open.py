"""Benchmark: opening the Pair page on a large uploaded dataset, first run and rerun.

The Pair page used to choose every scorer's cutoff on the loaded dataset before drawing
anything (scoring every pair with every interactive scorer); it now draws with the cutoffs
at hand (cached for the dataset, or the shipped RTE-dev defaults) and chooses the
dataset's cutoffs only on request. This times, under Streamlit's AppTest (no browser), the
first run of the app after a dataset of N synthetic labelled pairs becomes the current
dataset, then a rerun with the same pair, for N in --sizes. The pairs are generated from
small word lists (no corpus text); every run starts a fresh AppTest, and the cutoff cache
is a fresh temporary directory.

Usage: NLTK_DATA=../shared/nltk_data python bench/bench_first_open.py [--sizes 1000,5000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAMES = ["Arlen", "Bexley", "Corran", "Dunmore", "Ellinby", "Fenwick", "Garrow", "Harlen"]
NOUNS = ["council", "bridge", "harbour", "school", "library", "museum", "brewery", "ferry"]
VERBS = ["opened", "closed", "repaired", "sold", "visited", "renamed", "expanded", "moved"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def synthetic_csv(n: int, seed: int = 7, *, id_prefix: str = "", days: list[str] = DAYS) -> str:
    """``n`` invented pairs as CSV, half restating the text and half naming other things
    (also the browser timings' upload, with their own ids and days)."""
    rng = random.Random(seed)
    lines = ["id,text,hypothesis,label"]
    for i in range(n):
        name, noun, verb, day = rng.choice(NAMES), rng.choice(NOUNS), rng.choice(VERBS), rng.choice(days)
        text = f"The {noun} in {name} was {verb} on {day} after a long debate among residents"
        if rng.random() < 0.5:
            hyp, label = f"The {noun} in {name} was {verb}", "entailment"
        else:
            hyp, label = f"The {rng.choice(NOUNS)} in {rng.choice(NAMES)} was {rng.choice(VERBS)}", "non-entailment"
        lines.append(f"{id_prefix}{i},{text},{hyp},{label}")
    return "\n".join(lines) + "\n"


def open_pair_page(data: bytes) -> tuple[float, float]:
    from streamlit.testing.v1 import AppTest

    from components.data import load_uploaded
    from components.state import DATASET

    loaded = load_uploaded(data, f"synthetic_{len(data)}.csv")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.session_state[DATASET.key] = loaded
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception)
    start = time.perf_counter()
    at.run()
    return first, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    shared = ROOT.parent / "shared" / "nltk_data"
    if shared.is_dir():
        os.environ.setdefault("NLTK_DATA", str(shared))
    os.environ["EXPLORER_CUTOFF_CACHE"] = tempfile.mkdtemp(prefix="bench-cutoffs-")
    # No background cutoff job (runtime/cutoff_jobs.py): its child process would compete
    # with the runs timed here. The browser benchmark (bench_browser_timings) keeps it on.
    os.environ.setdefault("EXPLORER_BACKGROUND_CUTOFFS", "0")
    os.environ.setdefault("ENTAILMENT_EXPLORER_STORE", str(Path(tempfile.mkdtemp()) / "store.sqlite3"))
    open_pair_page(synthetic_csv(50, seed=1).encode())  # imports, lexical resources, numba: once
    for n in (int(x) for x in args.sizes.split(",")):
        firsts, reruns = [], []
        for run in range(args.runs):
            first, rerun = open_pair_page(synthetic_csv(n, seed=100 + run).encode())
            firsts.append(first)
            reruns.append(rerun)
        print(f"{n:>6} pairs: first Pair-page run median {statistics.median(firsts):.2f} s "
              f"(min {min(firsts):.2f}, max {max(firsts):.2f}); rerun median {statistics.median(reruns):.2f} s")


if __name__ == "__main__":
    main()
