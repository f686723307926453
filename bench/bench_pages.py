"""Benchmark: the Pair page's computation for one pair, and whole page reruns.

Prints medians over several runs of

(a) the Pair page's computation for a fresh pair: build and analyse the pair, run every
    interactive scorer (``capabilities.interactive``), find the matched n-grams and build
    the n-gram grid figure and serialise it as ``st.plotly_chart`` does; caches are
    cleared before each run so every run pays in full;
(b) a whole Pair-page rerun under Streamlit's AppTest (script, widgets, tables, figure),
    the closest to what a user waits for after typing;
(c) the verdict strip of a typed pair: every scorer the Pair page runs before it draws the
    strip (the interactive ones, and on a pair of at most ``AUTO_SLOW_MAX_TOKENS`` tokens the
    slow ones too), on a fresh pair each run, with the methods' resources warm as on a
    running server.

on the first pair of the built-in sample and on the RTE1 dev pair with the longest text
(when ../shared is present). Target: (a) under 300 ms.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_pages [--runs 15] [--only computation,strip,page]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from components.figures.ngram_grid import ngram_grid
from explorer.datasets import load
from explorer.metrics.bleu import ngram_matches, order_counts
from explorer.pairs import Pair
from explorer.preprocess import analyze, analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer

ROOT = Path(__file__).resolve().parents[1]


def pair_page_computation(text: str, hypothesis: str) -> None:
    analysed = analyze_pair(make_pair(text, hypothesis))
    for name, info in SCORERS.items():
        if info.capabilities.interactive:
            get_scorer(name).score(analysed)
    h, p = analysed.hypothesis, analysed.text
    figure = ngram_grid(ngram_matches(h.lower, p.lower, 4), p.tokens, h.tokens)
    figure.to_json()


def time_computation(pair: Pair, runs: int) -> list[float]:
    pair_page_computation(pair.text, pair.hypothesis)  # imports and lazy resources, once
    times = []
    for _ in range(runs):
        analyze.cache_clear()
        order_counts.cache_clear()
        start = time.perf_counter()
        pair_page_computation(pair.text, pair.hypothesis)
        times.append(time.perf_counter() - start)
    return times


def strip_scorers(pair: Pair) -> list[str]:
    """The scorers the Pair page runs before drawing the strip of a typed ``pair``."""
    try:
        from components.sections.verdicts import AUTO_SLOW_MAX_TOKENS
    except ImportError:  # a tree where the page module holds it (100): the "before" side of an A/B run
        AUTO_SLOW_MAX_TOKENS = 100

    a = analyze_pair(pair)
    short = len(a.text) + len(a.hypothesis) <= AUTO_SLOW_MAX_TOKENS
    return [n for n, info in SCORERS.items() if info.capabilities.interactive or short]


def time_strip(pair: Pair, runs: int) -> list[float]:
    names = strip_scorers(pair)
    for name in names:  # build every scorer and warm its resources, once
        get_scorer(name).score(analyze_pair(make_pair(pair.text, pair.hypothesis)))
    times = []
    for _ in range(runs):
        analyze.cache_clear()
        order_counts.cache_clear()
        start = time.perf_counter()
        analysed = analyze_pair(make_pair(pair.text, pair.hypothesis))
        for name in names:
            get_scorer(name).score(analysed)
        times.append(time.perf_counter() - start)
    return times


def time_page_reruns(pair: Pair, runs: int) -> list[float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    times = []
    for i in range(runs):
        # A slightly different hypothesis each time, as when the user types.
        at.text_area(key="pair_text").set_value(pair.text)
        at.text_area(key="pair_hypothesis").set_value(f"{pair.hypothesis} {'x' * (i % 3)}".strip())
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(at.exception)
    return times


def ms(values: list[float]) -> str:
    return f"median {1000 * statistics.median(values):.1f} ms (min {1000 * min(values):.1f}, max {1000 * max(values):.1f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--only", default="computation,strip,page",
                        help="which of (a) computation, (c) strip, (b) page to time (comma-separated)")
    args = parser.parse_args(argv)
    parts = set(args.only.split(","))
    shared = ROOT.parent / "shared" / "nltk_data"
    if shared.is_dir():
        os.environ.setdefault("NLTK_DATA", str(shared))

    cases = [("sample pair 1", load(ROOT / "sample_data" / "typical.xml").pairs[0])]
    rte1 = shared / "corpora" / "rte" / "rte1_dev.xml"
    if rte1.is_file():
        longest = max(load(rte1).pairs, key=lambda p: len(p.text))
        cases.append((f"RTE1 dev pair {longest.id} (longest text)", longest))
    else:
        print(f"({rte1} absent: the long RTE1 pair is skipped)")
    interactive = SCORERS.names(interactive=True)
    print(f"interactive scorers: {', '.join(interactive)}; runs: {args.runs}")
    for label, pair in cases:
        a = analyze_pair(pair)
        size = f"{len(a.text)} text x {len(a.hypothesis)} hypothesis tokens"
        print(f"{label} ({size})")
        if "computation" in parts:
            print(f"  computation (pair, scorers, grid figure): {ms(time_computation(pair, args.runs))}")
        if "strip" in parts:
            print(f"  typed pair's strip ({len(strip_scorers(pair))} scorers):       {ms(time_strip(pair, args.runs))}")
        if "page" in parts:
            print(f"  whole Pair page rerun (AppTest):          {ms(time_page_reruns(pair, max(3, args.runs // 3)))}")


if __name__ == "__main__":
    main()
