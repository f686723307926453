"""Benchmark: the WER edit script (what the Pair page draws) against ``jiwer.process_words``.

Both sides get the same pairs as the same lower-cased tokens (tokenised once, before any
clock starts): ours is :func:`explorer.metrics.wer.wer_tokens` with its edit script, one
call per pair as the Pair page makes it; jiwer gets the tokens joined by spaces (its
default transform splits them back), once per pair and once for the whole list. The
runs alternate (ours, jiwer per pair, jiwer batched), so load on the shared machine
touches all three alike; medians over ``--runs``, the ratios from those medians.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_wer [--runs 15] [DATA.xml]
(default DATA: RTE3 dev, 800 pairs; jiwer is a dev dependency, for this comparison only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT = Path(os.environ.get("NLTK_DATA", Path(__file__).resolve().parents[2] / "shared" / "nltk_data")) \
    / "corpora" / "rte" / "rte3_dev.xml"


def _seconds(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    try:
        import jiwer
    except ImportError:
        sys.exit("jiwer is not installed: pip install -r requirements-dev.txt")

    from explorer.datasets import load
    from explorer.metrics.wer import wer_tokens
    from explorer.preprocess import analyze_pair

    pairs = [analyze_pair(p) for p in load(args.data).pairs]
    p_tokens = [a.text.lower for a in pairs]
    h_tokens = [a.hypothesis.lower for a in pairs]
    p_joined = [" ".join(t) for t in p_tokens]
    h_joined = [" ".join(t) for t in h_tokens]

    ours_distance = [wer_tokens(p, h).distance for p, h in zip(p_tokens, h_tokens, strict=True)]
    theirs = jiwer.process_words(p_joined, h_joined)
    theirs_distance = [sum(c.ref_end_idx - c.ref_start_idx if c.type in ("substitute", "delete") else
                           c.hyp_end_idx - c.hyp_start_idx if c.type == "insert" else 0 for c in chunks)
                       for chunks in theirs.alignments]
    same = sum(a == b for a, b in zip(ours_distance, theirs_distance, strict=True))

    def ours() -> None:
        for p, h in zip(p_tokens, h_tokens, strict=True):
            wer_tokens(p, h)

    def jiwer_each() -> None:
        for p, h in zip(p_joined, h_joined, strict=True):
            jiwer.process_words(p, h)

    def jiwer_all() -> None:
        jiwer.process_words(p_joined, h_joined)

    for warm in (ours, jiwer_each, jiwer_all):
        warm()
    times: dict[str, list[float]] = {"ours": [], "jiwer per pair": [], "jiwer batched": []}
    for _ in range(args.runs):
        for name, function in zip(times, (ours, jiwer_each, jiwer_all), strict=True):
            times[name].append(_seconds(function))
    median = {name: statistics.median(t) for name, t in times.items()}
    load_average = open("/proc/loadavg").read().split()[:3]
    print(f"{Path(args.data).name}: {len(pairs)} pairs, mean {statistics.fmean(map(len, p_tokens)):.1f} x "
          f"{statistics.fmean(map(len, h_tokens)):.1f} tokens; {args.runs} runs; load average {' '.join(load_average)}")
    print(f"  distances equal to jiwer's: {same}/{len(pairs)}")
    for name, value in median.items():
        print(f"  {name:<15} median {1000 * value:7.1f} ms  ({1e6 * value / len(pairs):.1f} us per pair)")
    print(f"  ratio ours / jiwer per pair: {median['ours'] / median['jiwer per pair']:.2f}x;"
          f" ours / jiwer batched: {median['ours'] / median['jiwer batched']:.2f}x")


if __name__ == "__main__":
    main()
