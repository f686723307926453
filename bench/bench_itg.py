"""Benchmark: the Bracketing ITG biparser per pair, on a whole dataset, and at its worst.

Prints medians over several runs of
(a) one biparse per pair of RTE1 dev (tokens and tags computed beforehand), and the
    slowest pair;
(b) one biparse per pair of RTE2 dev (about 29 x 11 tokens on average);
(c) the whole of RTE1 dev through ``evaluate`` (the ``itg`` scorer, analysis included);
(d) a 60 x 30-token pair written for this benchmark (many repeated words);
(e) the adversarial case: a 60 x 30 pair where *every* word pair is a link candidate, so
    no word is removed and every chart cell runs the full split loop;
(f) (e) in float64, the same loop, to justify the float32 chart;
(g) ``itg_lex`` per pair on RTE2 dev (one run; the lexical similarity matrices, computed
    by :mod:`explorer.lexical`, dominate), after its resources are loaded.

Usage: NLTK_DATA=../shared/nltk_data taskset -c 0 python -m bench.bench_itg [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from bench import median_seconds
from explorer.aligners.itg import BracketingItg, ItgConfig, ItgScorer
from explorer.aligners.itg_kernel import fill_chart
from explorer.datasets import load
from explorer.decision.evaluation import evaluate
from explorer.preprocess import Analysis, analyze_pair, make_pair

ROOT = Path(__file__).resolve().parents[1]

RTE = ROOT.parent / "shared" / "nltk_data" / "corpora" / "rte"

LONG_TEXT = (
    "On the first day of the spring fair in the town of Holm , the mayor opened the new "
    "market hall , and the farmers from the valley sold cheese , apples and bread to the "
    "visitors who had come by train from the city , while the band of the local school "
    "played in the square"
)
LONG_HYPOTHESIS = (
    "The farmers of the valley sold bread , cheese and apples in the new market hall of "
    "Holm , which the mayor opened on the first day of the fair"
)


class Dense:
    """Every word pair is a candidate (similarity 0.5-1), the parser's worst case."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        return self.rng.uniform(0.5, 1.0, size=(len(text), len(hypothesis)))


def per_pair(parser: BracketingItg, pairs: list, runs: int) -> tuple[float, float]:  # type: ignore[type-arg]
    """Median over pairs of the per-pair median time, and the slowest pair's median."""
    times = []
    for pair in pairs:
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            parser.parse(pair)
            samples.append(time.perf_counter() - start)
        times.append(statistics.median(samples))
    return statistics.median(times), max(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    itg = BracketingItg(ItgConfig())
    itg.parse(analyze_pair(make_pair("warm up", "warm up the compiled kernel")))

    rte1 = load(str(RTE / "rte1_dev.xml"))
    rte2 = load(str(RTE / "rte2_dev.xml"))
    rte1_pairs = [analyze_pair(p) for p in rte1.pairs]
    rte2_pairs = [analyze_pair(p) for p in rte2.pairs]
    sizes = [(len(p.text), len(p.hypothesis)) for p in rte2_pairs]
    med1, worst1 = per_pair(itg, rte1_pairs, args.runs)
    med2, worst2 = per_pair(itg, rte2_pairs, args.runs)
    whole = median_seconds(lambda: evaluate(rte1, ["itg"]), max(1, args.runs // 2))

    long_pair = analyze_pair(make_pair(LONG_TEXT, LONG_HYPOTHESIS))
    long_seconds = median_seconds(lambda: itg.parse(long_pair), args.runs)
    long_result = itg.parse(long_pair)

    dense_pair = analyze_pair(make_pair(" ".join(f"t{i}" for i in range(60)),
                                        " ".join(f"h{i}" for i in range(30))))
    dense = BracketingItg(ItgConfig(), similarity=Dense())
    dense_seconds = median_seconds(lambda: dense.parse(dense_pair), args.runs)
    dense_result = dense.parse(dense_pair)
    gain = np.random.default_rng(1).uniform(0.5, 2.0, size=(60, 30))
    allowed = np.ones((60, 30), dtype=bool)
    chart32 = median_seconds(lambda: fill_chart(gain.astype(np.float32), allowed, np.float32(0.1)), args.runs)
    fill_chart(gain[:2, :2].copy(), allowed[:2, :2].copy(), np.float64(0.1))  # compile float64
    chart64 = median_seconds(lambda: fill_chart(gain, allowed, np.float64(0.1)), args.runs)

    lex = ItgScorer("itg_lex").parser
    lex.parse(rte2_pairs[0])  # loads WordNet, PPDB and the information content
    med_lex, worst_lex = per_pair(lex, rte2_pairs, 1)

    print(f"runs: {args.runs}")
    print(f"(a) RTE1 dev, {len(rte1_pairs)} pairs: median {med1 * 1000:.2f} ms/pair, slowest {worst1 * 1000:.1f} ms")
    print(f"(b) RTE2 dev, {len(rte2_pairs)} pairs (mean {statistics.mean(s[0] for s in sizes):.1f} x "
          f"{statistics.mean(s[1] for s in sizes):.1f} tokens): median {med2 * 1000:.2f} ms/pair, "
          f"slowest {worst2 * 1000:.1f} ms")
    print(f"(c) RTE1 dev through evaluate (itg, analysis included): median {whole:.2f} s")
    print(f"(d) written {len(long_pair.text)} x {len(long_pair.hypothesis)} pair: median "
          f"{long_seconds * 1000:.1f} ms (chart over {long_result.parsed_size[0]} x "
          f"{long_result.parsed_size[1]} words with candidates)")
    print(f"(e) dense 60 x 30 (every pair a candidate): median {dense_seconds * 1000:.0f} ms "
          f"(chart alone {chart32 * 1000:.0f} ms; approximation: {dense_result.approximation})")
    print(f"(f) dense 60 x 30 chart in float64: median {chart64 * 1000:.0f} ms; "
          f"float32 / float64 = {chart32 / chart64:.2f}")
    print(f"(g) itg_lex on RTE2 dev: median {med_lex * 1000:.1f} ms/pair, slowest {worst_lex * 1000:.0f} ms")


if __name__ == "__main__":
    main()
