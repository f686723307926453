"""Benchmark: what static embeddings cost a typed pair's verdict strip, before and after,
interleaved in one process so the machine's load hits both sides alike.

"After" is the strip as shipped: every scorer the Pair page runs before drawing it
(:func:`bench.bench_pages.strip_scorers`). "Before" is the same strip with the embedding
switched off where it was switched on: ``bow`` on the paper's Levenshtein similarity, the
``manli`` and ``combined`` scorers on the model files given (the ones shipped before, e.g.
``git show main:explorer/models/manli_rte2dev.json > /tmp/manli_before.json``), and no
``embed`` scorer. Every other scorer is the same object on both sides. Each run scores a
fresh pair (caches cleared) once per side, in alternating order; prints the medians and the
ratio after / before per run.

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_embedding_strip \\
        --manli-before /tmp/manli_before.json --combined-before /tmp/combined_before.json [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

from bench.bench_pages import strip_scorers
from explorer.datasets import load
from explorer.metrics.bleu import order_counts
from explorer.pairs import Pair
from explorer.preprocess import analyze, analyze_pair, make_pair
from explorer.scorers import get_scorer

ROOT = Path(__file__).resolve().parents[1]


def before_scorers(names: list[str], manli_model: Path, combined_model: Path) -> dict[str, Any]:
    """The strip's scorers with the embedding switched off (see the module docstring)."""
    from explorer.aligners.bow import PAPER_LEXICAL, BowScorer
    from explorer.aligners.manli import ManliAligner, ManliModel, ManliScorer
    from explorer.combined import CombinedModel, CombinedScorer

    swapped: dict[str, Any] = {
        "bow": BowScorer(lexical=PAPER_LEXICAL),
        "manli": ManliScorer(ManliAligner(ManliModel.load(manli_model))),
        "combined": CombinedScorer(CombinedModel.load(combined_model)),
    }
    return {n: swapped.get(n) or get_scorer(n) for n in names if n != "embed"}


def one_run(pair: Pair, scorers: dict[str, Any]) -> float:
    analyze.cache_clear()
    order_counts.cache_clear()
    start = time.perf_counter()
    analysed = analyze_pair(make_pair(pair.text, pair.hypothesis))
    for scorer in scorers.values():
        scorer.score(analysed)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manli-before", type=Path, required=True)
    parser.add_argument("--combined-before", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    cases = [("sample pair 1", load(ROOT / "sample_data" / "typical.xml").pairs[0])]
    rte1 = Path(os.environ.get("NLTK_DATA", "")) / "corpora" / "rte" / "rte1_dev.xml"
    if rte1.is_file():
        longest = max(load(rte1).pairs, key=lambda p: len(p.text))
        cases.append((f"RTE1 dev pair {longest.id}", longest))
    for label, pair in cases:
        names = strip_scorers(pair)
        sides = {"before": before_scorers(names, args.manli_before, args.combined_before),
                 "after": {n: get_scorer(n) for n in names}}
        for scorers in sides.values():
            one_run(pair, scorers)  # build and warm every scorer once
        times: dict[str, list[float]] = {"before": [], "after": []}
        for k in range(args.runs):
            for side in (("before", "after") if k % 2 == 0 else ("after", "before")):
                times[side].append(one_run(pair, sides[side]))
        ratios = [a / b for a, b in zip(times["after"], times["before"])]
        a = analyze_pair(pair)
        print(f"{label} ({len(a.text)} x {len(a.hypothesis)} tokens; {len(sides['before'])} -> "
              f"{len(sides['after'])} scorers, {args.runs} runs, load {os.getloadavg()[0]:.1f}): "
              f"before {1000 * statistics.median(times['before']):.1f} ms, "
              f"after {1000 * statistics.median(times['after']):.1f} ms, "
              f"after / before per run: median {statistics.median(ratios):.3f} "
              f"(quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}-{statistics.quantiles(ratios, n=4)[2]:.3f})")


if __name__ == "__main__":
    main()
