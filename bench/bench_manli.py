"""Benchmark: MANLI decoding and training speed on the MSR RTE2 dev problems.

Prints, in one run and on one core (BLAS threads pinned to 1):

* decode: the median time of MANLI-ALIGN alone (gains from the precomputed features,
  annealing, final climb) per problem, with the shipped weights;
* features: the median time to build a problem's candidate edits and features
  (lexical similarity included, caches warm after the first pass);
* align: ``ManliAligner.align`` end to end (what ``align-eval`` times);
* typed: one new pair typed on the Pair page, cold lexical caches for its words;
* train (with ``--train``): features + 50 perceptron epochs on all problems, and the
  peak memory of the process.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_manli [GOLD...] [--train] [--limit N]
(GOLD defaults to the three MSR RTE2 dev annotator files, merged by majority.)
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402 -- after the thread settings above
import resource  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from explorer.aligners.evaluation import load_gold  # noqa: E402
from explorer.aligners.manli import ManliAligner, decode, default_model  # noqa: E402
from explorer.aligners.manli.learn import TrainConfig, prepare, train  # noqa: E402
from explorer.preprocess import analyze_pair, make_pair  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _ms(values: list[float]) -> str:
    return f"median {1000 * statistics.median(values):.2f} ms, p90 {1000 * statistics.quantiles(values, n=10)[-1]:.2f} ms"


def _timed_each(function, items):  # type: ignore[no-untyped-def]
    """``function`` on each item in turn: the results and each call's wall time in seconds."""
    results, times = [], []
    for item in items:
        started = time.perf_counter()
        results.append(function(item))
        times.append(time.perf_counter() - started)
    return results, times


def main(argv: list[str] | None = None) -> None:
    shared = ROOT.parent / "shared" / "data" / "msr_align"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="*", default=[str(shared / f"RTE2_dev_{x}.align.txt") for x in "ABC"])
    parser.add_argument("--train", action="store_true", help="also time training on every problem")
    parser.add_argument("--limit", type=int, help="use only the first N problems")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    pairs = [p for p in load_gold(args.gold).pairs if p.gold_alignment is not None][: args.limit]
    aligner = ManliAligner()
    model = default_model()
    analysed = [analyze_pair(p) for p in pairs]
    for a in analysed:
        a.text.lemmas, a.hypothesis.lemmas, a.text.stop, a.hypothesis.stop  # noqa: B018 -- tag outside the clock

    # Typed pair first, while the lexical caches know none of its words.
    typed = analyze_pair(make_pair(
        "The orchestra's new conductor, appointed in March, rehearsed the symphony with unusual patience.",
        "A conductor rehearsed a symphony.",
    ))
    aligner.features(analyze_pair(make_pair("A dog barked.", "The dog barked.")))  # load resources, compile
    started = time.perf_counter()
    aligner.align(typed)
    typed_seconds = time.perf_counter() - started

    features, feature_times = _timed_each(aligner.features, analysed)
    _, warm_feature_times = _timed_each(aligner.features, analysed)
    _, decode_times = _timed_each(lambda f: decode(f, model.weights, config=aligner.decoder), features)
    _, align_times = _timed_each(aligner.align, analysed)

    print(f"MANLI on {len(pairs)} problems, one core")
    print(f"  decode (MANLI-ALIGN, N=100 T0=40 r=0.9, max phrase {model.features.max_phrase}): {_ms(decode_times)}")
    print(f"  candidates per problem: median {statistics.median(len(f) for f in features):.0f}")
    print(f"  features, first pass (cold lexical caches): {_ms(feature_times)}")
    print(f"  features, warm caches: {_ms(warm_feature_times)}")
    print(f"  align end to end (warm): {_ms(align_times)}")
    print(f"  typed pair, cold caches for its words: {1000 * typed_seconds:.0f} ms")
    if args.train:
        started = time.perf_counter()
        problems = prepare(pairs, aligner.similarity, config=model.features)
        prepared = time.perf_counter() - started
        train(problems, config=TrainConfig())
        total = time.perf_counter() - started
        print(f"  training on {len(problems)} problems: {total / 60:.1f} min ({prepared:.0f} s features, "
              f"{total - prepared:.0f} s for 50 perceptron epochs)")
    print(f"  peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
