"""Benchmark: the lexical similarity matrix, the bag-of-words aligner and the static embeddings.

Prints (a) one-off resource load times (PPDB table; Brown information content and
idf from the on-disk cache; the static-embedding table, with the process's resident
memory before and after), (b) the all-components lexical matrix per pair: a cold
pass (every word pair new to the process) and warm passes (memoised), with and without
the ``embedding`` component, (c) the bag-of-words aligner per pair, cold and warm, (d)
the ``embed`` scorer and aligner per pair. Tagging and lemmatisation happen before
any clock starts. Figures are medians over pairs (and over runs for warm passes).

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_lexical [DATA] [--runs 5]
(DATA defaults to NLTK's RTE2 dev, 400 pairs.)
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from explorer.aligners.bow import BowAligner, brown_idf
from explorer.aligners.embed import EmbedAligner, EmbedScorer
from explorer.datasets import load
from explorer.lexical import (
    LexicalConfig,
    LexicalSimilarity,
    StaticEmbeddings,
    brown_information_content,
    levenshtein,
    load_ppdb,
)
from explorer.preprocess import analyze_pair

ROOT = Path(__file__).resolve().parents[1]


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def per_pair(fn, items) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - start)
    return out


def resident_mb() -> float:
    """The process's resident memory now (Linux /proc)."""
    import os

    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.3f} ms"


def main(argv: list[str] | None = None) -> None:
    default = ROOT.parent / "shared" / "nltk_data" / "corpora" / "rte" / "rte2_dev.xml"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(default))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    pairs = [analyze_pair(p) for p in load(args.data).pairs]
    for pair in pairs:
        for side in (pair.text, pair.hypothesis):
            side.lemmas, side.stop  # noqa: B018 -- tag and lemmatise before timing
    cells = statistics.median(len(p.text) * len(p.hypothesis) for p in pairs)
    print(f"data: {args.data} ({len(pairs)} pairs, median {cells:.0f} token pairs per problem)")

    print(f"load PPDB table:                  {timed(load_ppdb):.2f} s")
    print(f"load Brown IC (disk cache):       {timed(brown_information_content):.2f} s")
    print(f"load Brown idf (disk cache):      {timed(brown_idf):.2f} s")
    before = resident_mb()
    embeddings = StaticEmbeddings()
    seconds = timed(lambda: embeddings.word_vectors(["table"]))
    info = embeddings.load_info
    assert info is not None
    print(f"load static embeddings:           {seconds:.2f} s (reading {info.seconds:.2f} s; table "
          f"{info.vocabulary} x {info.dimensions}, {info.table_bytes / 2**20:.1f} MB; resident memory "
          f"{before:.0f} -> {resident_mb():.0f} MB)")

    for label, config in (("default components", LexicalConfig()),
                          ("default + embedding", LexicalConfig().enable("embedding"))):
        lexical = LexicalSimilarity(config)
        cold = per_pair(lambda p: lexical.matrix(p.text, p.hypothesis), pairs)  # noqa: B023 -- called at once
        warm = [t for _ in range(args.runs) for t in per_pair(lambda p: lexical.matrix(p.text, p.hypothesis), pairs)]  # noqa: B023
        print(f"lexical matrix, {label}, cold: median {ms(statistics.median(cold))}, total {sum(cold):.2f} s")
        print(f"lexical matrix, {label}, warm: median {ms(statistics.median(warm))}, p90 {ms(sorted(warm)[int(0.9 * len(warm))])}")

    levenshtein.cache_clear()
    bow = BowAligner()
    cold = per_pair(bow.align, pairs)
    warm = [t for _ in range(args.runs) for t in per_pair(bow.align, pairs)]
    print(f"bow aligner, cold: median {ms(statistics.median(cold))}")
    print(f"bow aligner, warm: median {ms(statistics.median(warm))}")

    for label, method in (("embed scorer", EmbedScorer().score), ("embed aligner", EmbedAligner().align)):
        cold = per_pair(method, pairs)
        warm = [t for _ in range(args.runs) for t in per_pair(method, pairs)]
        print(f"{label}, cold: median {ms(statistics.median(cold))}; warm: median {ms(statistics.median(warm))}")


if __name__ == "__main__":
    main()
