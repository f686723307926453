"""Benchmark: every MT-metric feature of Finch et al. (2005) over a dataset.

Prints medians over several runs of (a) the scalar metrics (WER, PER, BLEU1-4,
NIST1-5) on pre-tokenised pairs, (b) the same plus the POS-decomposed PER (tags and
lemmas computed once beforehand, as the dataset path caches them), (c) tokenising,
tagging and lemmatising the pairs once (loading the tagger and WordNet timed apart), (d) NLTK's sentence_nist (N = 5, information
from the one reference, one direction) on the same tokens, with the ratio to our NIST
(both directions, N = 1..5) in the same run, and (e) one Pair-page computation.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_mtmetrics [DATA] [--runs 5] [--limit 1725]
(DATA defaults to MSRP train + val from ../shared, the first 1,725 pairs: the size of
the MSRP test set the paper's target speaks of.)
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from explorer.datasets import load
from explorer.metrics import nist
from explorer.metrics.bleu import order_counts
from explorer.metrics.features import ALL_GROUPS, feature_matrix
from explorer.preprocess import analyze, analyze_pair, make_pair

ROOT = Path(__file__).resolve().parents[1]

SCALAR = tuple(g for g in ALL_GROUPS if g != "pos")


def main(argv: list[str] | None = None) -> None:
    msrp = ROOT.parent / "shared" / "data" / "msrp"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", default=[str(msrp / "msr-para-train.tsv"), str(msrp / "msr-para-val.tsv")])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=int, default=1725)
    args = parser.parse_args(argv)

    from nltk.translate.nist_score import sentence_nist

    pairs = [p for path in args.data for p in load(path).pairs][: args.limit]
    weights = nist.default_weights()  # loads (or builds once) the Brown table
    start = time.perf_counter()
    analysed = [analyze_pair(p) for p in pairs]
    tokenise = time.perf_counter() - start
    start = time.perf_counter()
    _ = analysed[0].text.lemmas  # loads the tagger and WordNet: once per process
    loading = time.perf_counter() - start
    start = time.perf_counter()
    for a in analysed:
        _ = a.text.lemmas, a.hypothesis.lemmas  # tags + lemmas
    tagging = time.perf_counter() - start

    scalar, everything, theirs, ours_nist = [], [], [], []
    for _ in range(args.runs):
        order_counts.cache_clear()
        start = time.perf_counter()
        feature_matrix(analysed, SCALAR, weights=weights)
        scalar.append(time.perf_counter() - start)
        order_counts.cache_clear()
        start = time.perf_counter()
        feature_matrix(analysed, ALL_GROUPS, weights=weights)
        everything.append(time.perf_counter() - start)
        start = time.perf_counter()
        for a in analysed:
            nist.nist_tokens(a.text.lower, a.hypothesis.lower, max_n=5, weights=weights)
        ours_nist.append(time.perf_counter() - start)
        start = time.perf_counter()
        for a in analysed:
            h, p = list(a.hypothesis.lower), list(a.text.lower)
            if len(h) >= 5:  # NLTK divides by zero for shorter candidates
                sentence_nist([p], h, 5)
        theirs.append(time.perf_counter() - start)

    page = []
    for i in range(max(args.runs, 5)):
        pair = make_pair(f"The committee in Arnsby approved {i} new cycle lanes on Monday after a long debate.",
                         f"On Monday Arnsby's committee agreed to {i} more cycle lanes.")
        analyze.cache_clear()
        start = time.perf_counter()
        feature_matrix([analyze_pair(pair)], ALL_GROUPS, weights=weights)
        page.append(time.perf_counter() - start)

    n = len(analysed)
    med = statistics.median
    print(f"data: {n} pairs; runs: {args.runs}; NIST weights: {weights.source}")
    print(f"tokenise once:                         {tokenise:.2f} s")
    print(f"load tagger + WordNet (once per process): {loading:.2f} s")
    print(f"POS tags + lemmas once:                {tagging:.2f} s")
    print(f"scalar metrics (wer per bleu1-4 nist1-5): median {med(scalar):.3f} s")
    print(f"all features incl. POS-PER (92):       median {med(everything):.3f} s")
    print(f"all, end to end (tokenise+tag+features): {tokenise + tagging + med(everything):.2f} s (target < 10 s)")
    print(f"ours NIST-5 both directions:           median {med(ours_nist):.3f} s")
    print(f"nltk sentence_nist one direction:      median {med(theirs):.3f} s")
    print("ratio ours / nltk, per run:            " + ", ".join(f"{o / t:.3f}" for o, t in zip(ours_nist, theirs)))
    print(f"Pair page (analyse + all features):    median {med(page) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
