"""A what-if rewrite of a 100-pair slice, timed: ``rewrite_run`` over the first 100 pairs of
RTE2 dev (NLTK's copy) with every fast (interactive) scorer, then with MANLI.

    PYTHONPATH=. python bench/bench_rewrite.py [--rule swap] [--pairs 100] [--runs 3]

The cutoff of each scorer is the data's own (no development set), as ``evaluate`` would
choose it: the first run scores the whole file's labelled pairs for it (and loads models,
WordNet and kernels), and keeps their scores in a throwaway score cache, as the app's cutoff
job keeps them; the ``--runs`` runs after it read those and score the slice's rewrites.
The first run's wall and CPU seconds and the later runs' medians are printed with the load
average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from bench import SHARED_NLTK_DATA, use_shared_nltk_data


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", default="swap")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    use_shared_nltk_data()
    os.environ["EXPLORER_CUTOFF_CACHE"] = tempfile.mkdtemp(prefix="bench-rewrite-")  # a cold score cache

    from explorer.batch.source import read_dataset
    from explorer.groups.rewrites import rewrite_run
    from explorer.scorers import SCORERS

    nltk_data = os.environ.get("NLTK_DATA", str(SHARED_NLTK_DATA)).split(os.pathsep)[0]
    data = read_dataset(os.path.join(nltk_data, "corpora", "rte", "rte2_dev.xml"))
    ids = [p.id for p in data.pairs[: args.pairs]]
    fast = SCORERS.names(interactive=True)
    for label, scorers in (("every fast scorer", fast), ("manli", ["manli"])):
        wall, cpu = time.perf_counter(), time.process_time()
        report = rewrite_run(data, args.rule, scorers, ids=ids)
        first = f"first run {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU"
        walls, cpus = [], []
        for _ in range(args.runs):
            wall, cpu = time.perf_counter(), time.process_time()
            report = rewrite_run(data, args.rule, scorers, ids=ids)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        flipped = {r.scorer: r.flipped for r in report.results}
        print(f"{args.rule} of {len(ids)} of {len(data)} pairs, {label} ({len(scorers)}): "
              f"{report.n_rewritten} rewritten; {first}; then median {statistics.median(walls):.2f} s wall, "
              f"{statistics.median(cpus):.2f} s CPU; load {os.getloadavg()[0]:.1f}; flipped {flipped}")


if __name__ == "__main__":
    main()
