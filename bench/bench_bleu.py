"""Benchmark: the BLEU family against NLTK's sentence_bleu on the same pairs.

Prints medians over several runs of (a) our three scorers (bleu, mbleu, bleu_pa) on
pre-tokenised pairs, (b) nltk.translate.bleu_score.sentence_bleu on the same tokens,
(c) their ratio measured in the same run, and (d) one Pair-page computation (tokenise
and analyse a fresh pair, then run every BLEU scorer).

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_bleu [DATA] [--runs 5]
(DATA defaults to RTE3 dev, 800 pairs, when ../shared is present, else the sample.)
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

from explorer.datasets import load
from explorer.metrics.bleu import VARIANTS, order_counts
from explorer.preprocess import analyze, analyze_pair, make_pair
from explorer.scorers import get_scorer

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    default = ROOT.parent / "shared" / "nltk_data" / "corpora" / "rte" / "rte3_dev.xml"
    if not default.is_file():
        default = ROOT / "sample_data" / "typical.xml"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(default))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    from nltk.translate.bleu_score import sentence_bleu

    data = load(args.data)
    start = time.perf_counter()
    analysed = [analyze_pair(p) for p in data.pairs]
    tokenised = [(a.hypothesis.lower, a.text.lower) for a in analysed]
    tokenise_seconds = time.perf_counter() - start
    scorers = [get_scorer(v) for v in VARIANTS]

    ours, theirs = [], []
    for _ in range(args.runs):
        order_counts.cache_clear()  # each run pays for its own n-gram counting
        start = time.perf_counter()
        for scorer in scorers:
            scorer.score_many(analysed)  # the path `evaluate` uses
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NLTK warns on zero counts
            for h, p in tokenised:
                sentence_bleu([list(p)], list(h))
        theirs.append(time.perf_counter() - start)

    page = []
    for i in range(max(args.runs, 5)):
        pair = make_pair(
            f"The committee in Arnsby approved {i} new cycle lanes on Monday after a long debate.",
            f"Arnsby approved {i} cycle lanes.",
        )
        analyze.cache_clear()
        order_counts.cache_clear()
        start = time.perf_counter()
        analysed = analyze_pair(pair)
        for scorer in scorers:
            scorer.score(analysed)
        page.append(time.perf_counter() - start)

    n = len(tokenised)
    ours_med, theirs_med = statistics.median(ours), statistics.median(theirs)
    print(f"data: {data.name} ({n} pairs); runs: {args.runs}; tokenising once: {tokenise_seconds:.2f} s")
    print(f"ours, 3 scorers x {n} pairs:        median {ours_med:.3f} s")
    print(f"nltk sentence_bleu x {n} pairs:     median {theirs_med:.3f} s")
    print(f"ratio ours(3 scorers) / nltk(1):   {ours_med / theirs_med:.3f} (per run: "
          + ", ".join(f"{o / t:.3f}" for o, t in zip(ours, theirs)) + ")")
    print(f"Pair page (analyse + 3 scorers):   median {statistics.median(page) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
