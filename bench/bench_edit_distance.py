"""Benchmark: scoring and training speed of the pFSM and pPDA (Wang & Cer 2012).

Prints, on the STS 2012 training pairs (MSRpar + SMTeuroparl, 1,484 pairs):
(a) the time to score 1,000 pairs end to end (features + forward, the ``evaluate``
path), first with cold lexical caches; (b) the median per-pair time of the features
(lexical similarity matrix included), of the forward pass in a batch and of one
Pair-page computation (features, forward, backward and Viterbi) for each machine; (c) the median time of one training objective
evaluation (forward + backward + gradient over every pair) and, with ``--fit``, a
whole L-BFGS fit of ``--max-iter`` iterations.

Usage: NLTK_DATA=../shared/nltk_data taskset -c 0 python -m bench.bench_edit_distance [--runs 3] [--fit]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from bench import median_seconds
from explorer.datasets import load
from explorer.edit_distance.features import FeatureIndex, pair_features
from explorer.edit_distance.model import Batch, EditDistanceModel, fit, objective
from explorer.edit_distance.scoring import DEFAULT_MODELS, EditDistanceScorer
from explorer.preprocess import analyze_pair

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    sts = ROOT.parent / "shared" / "data" / "sts2012"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", default=[str(sts / "MSRpar.train.tsv"), str(sts / "SMTeuroparl.train.tsv")])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fit", action="store_true", help="also time a whole fit")
    parser.add_argument("--max-iter", type=int, default=60)
    args = parser.parse_args(argv)

    pairs = [p for path in args.data for p in load(path).pairs]
    analyzed = [analyze_pair(p) for p in pairs]
    gold = np.array([float(p.score) for p in pairs])  # type: ignore[arg-type]
    print(f"{len(pairs)} pairs, mean {np.mean([len(a.text) for a in analyzed]):.1f} x "
          f"{np.mean([len(a.hypothesis) for a in analyzed]):.1f} tokens")

    # End to end on fresh pairs first, while the lexical caches are cold (the
    # `evaluate` path: features + forward, batched).
    sample = analyzed[:1000]
    for kind in ("pfsm", "ppda"):
        scorer = EditDistanceScorer(kind)
        start = time.perf_counter()
        scorer.score_many(sample)
        state = "cold lexical caches, numba from its on-disk cache" if kind == "pfsm" else "warm lexical caches"
        print(f"{kind}: scoring {len(sample)} pairs end to end ({state}): {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    encoded = [pair_features(a) for a in analyzed]
    print(f"features of all pairs (lexical caches warm for the first 1000): {time.perf_counter() - start:.1f} s")
    per_pair = []
    for a in analyzed[:200]:
        t0 = time.perf_counter()
        pair_features(a)
        per_pair.append(time.perf_counter() - t0)
    features_ms = 1000 * statistics.median(per_pair)
    print(f"features per pair (warm), median: {features_ms:.2f} ms")

    index = FeatureIndex.fit(encoded)
    for kind in ("pfsm", "ppda"):
        path = DEFAULT_MODELS[kind]
        model = EditDistanceModel.load(path) if path.is_file() else EditDistanceModel.zero(kind, index)
        batch = Batch.build(encoded, model.index)
        model.predict_batch(batch)  # compile
        forward = median_seconds(lambda: model.predict_batch(batch), args.runs)  # noqa: B023
        scorer = EditDistanceScorer(kind, model=model)
        scorer.score(analyzed[0])
        page = [median_seconds(lambda: scorer.score(a), 1) for a in analyzed[:50]]  # noqa: B023
        print(f"{kind}: forward per pair (batch of {len(batch)}), median of {args.runs}: "
              f"{1000 * forward / len(batch):.3f} ms; Pair page (features + forward + backward + Viterbi), "
              f"median over 50 pairs: {1000 * statistics.median(page):.1f} ms")

        train_index = FeatureIndex.fit(encoded)
        zero = EditDistanceModel.zero(kind, train_index)
        train_batch = Batch.build(encoded, train_index)
        theta = zero.theta()
        objective(zero, train_batch, gold, theta, lam=5.0)
        evaluation = median_seconds(lambda: objective(zero, train_batch, gold, theta, lam=5.0), args.runs)  # noqa: B023
        print(f"{kind}: one objective evaluation (forward + backward + gradient, {len(train_batch)} pairs), "
              f"median of {args.runs}: {evaluation:.2f} s")
        if args.fit:
            start = time.perf_counter()
            trained = fit(zero, train_batch, gold, max_iter=args.max_iter, progress=None)
            print(f"{kind}: fit of {trained.info['iterations']} iterations ({trained.info['evaluations']} "
                  f"evaluations): {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
