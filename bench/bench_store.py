"""Benchmark: the Errors page against a store holding 100,000 annotations.

Builds a synthetic store in a temporary folder (a dataset of ``--pairs`` pairs over the
seven RTE1 tasks, a scorer run with a cutoff, ``--annotations`` tags drawn at random from
the default taxonomy, plus notes on a tenth as many pairs), then times, as medians over
``--runs`` repetitions on a warm connection:

* the Errors-page query: :func:`explorer.store.crosstab.crosstab` (aggregated in SQL)
  plus its pivot by outcome;
* the pair list the page shows under it (incorrect pairs carrying one tag);
* the same cross-tab computed in Python from fetched rows, for a ratio in the same run;
* one tag write (``set_pair_tags``) on the full store.

Usage: python -m bench.bench_store [--pairs 30000] [--annotations 100000] [--runs 15]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from explorer.datasets import Dataset
from explorer.pairs import ENTAILMENT, NON_ENTAILMENT, Pair
from explorer.store import Store
from explorer.store.crosstab import annotated_pairs, crosstab

ROOT = Path(__file__).resolve().parents[1]

TASKS = ("CD", "IE", "IR", "MT", "PP", "QA", "RC")


def build(store: Store, n_pairs: int, n_annotations: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    pairs = tuple(
        Pair(str(i + 1), f"text number {i}", f"hypothesis {i}",
             label=rng.choice((ENTAILMENT, NON_ENTAILMENT)), task=rng.choice(TASKS))
        for i in range(n_pairs)
    )
    dataset_id = store.add_dataset(Dataset("bench", "csv", pairs))
    run_id = store.add_run(dataset_id, kind="scorer", method="bleu",
                           scores={p.id: rng.random() for p in pairs}, cutoff=0.5)
    tags = [t.name for t in store.tags()]
    if n_annotations > n_pairs * len(tags):
        raise SystemExit(f"at most {n_pairs * len(tags)} distinct tags fit on {n_pairs} pairs")
    chosen = rng.sample(range(n_pairs * len(tags)), n_annotations)
    by_tag: dict[str, list[str]] = {}
    for k in chosen:
        by_tag.setdefault(tags[k % len(tags)], []).append(pairs[k // len(tags)].id)
    for tag, ids in by_tag.items():
        store.tag_pairs(dataset_id, ids, [tag], author="bench")
    for pair in rng.sample(pairs, n_pairs // 10):
        store.add_note(dataset_id, pair.id, "looks like a lexical gap", author="bench")
    return dataset_id, run_id


def python_crosstab(store: Store, dataset_id: int, run_id: int) -> Counter[tuple[str, str, str, str]]:
    """The baseline: fetch the tag rows, pairs and scores, and aggregate in Python."""
    cutoff = store.run(run_id).cutoff or 0.0
    info = {r[0]: (r[1] or "(none)", r[2] or "(none)") for r in store.execute_read(
        "SELECT pair_id, task, label FROM pairs WHERE dataset_id = ?", (dataset_id,))}
    scores = store.run_scores(run_id)
    counts: Counter[tuple[str, str, str, str]] = Counter()
    for pair_id, tags in store.tags_by_pair(dataset_id).items():
        task, label = info[pair_id]
        score = scores.get(pair_id)
        outcome = ("no score" if score is None
                   else "correct" if (score > cutoff) == (label == ENTAILMENT) else "incorrect")
        for tag in tags:
            counts[(tag, task, label, outcome)] += 1
    return counts


def median_ms(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU (this process) milliseconds of ``fn`` over ``runs`` calls.

    CPU time is reported beside wall time because the machines are shared: waiting for
    a core inflates wall time, not CPU time.
    """
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=30_000)
    parser.add_argument("--annotations", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        start = time.perf_counter()
        dataset_id, run_id = build(store, args.pairs, args.annotations, args.seed)
        print(f"built store: {args.pairs} pairs, {store.count('pair_tags')} tags, "
              f"{store.count('notes')} notes in {time.perf_counter() - start:.1f} s "
              f"({(Path(folder) / 'bench.sqlite3').stat().st_size / 1e6:.1f} MB)")

        def errors_page() -> object:
            table = crosstab(store, dataset_id, run_id)
            return table.pivot(by="outcome")

        table = crosstab(store, dataset_id, run_id)
        sql_counts = Counter({(r.tag, r.task, r.label, r.outcome): r.count for r in table.rows})
        if sql_counts != python_crosstab(store, dataset_id, run_id):
            raise SystemExit("SQL and Python cross-tabs disagree")

        ratios = []
        sql_wall, sql_cpu, py_wall = [], [], []
        for _ in range(args.runs):
            wall, cpu = median_ms(errors_page, 1)
            py, _ = median_ms(lambda: python_crosstab(store, dataset_id, run_id), 1)
            sql_wall.append(wall)
            sql_cpu.append(cpu)
            py_wall.append(py)
            ratios.append(wall / py)

        def pair_list() -> list[dict[str, object]]:
            return annotated_pairs(store, dataset_id, run_id, tag="negation", outcome="incorrect")

        list_wall, list_cpu = median_ms(pair_list, args.runs)
        rng = random.Random(args.seed)
        tags = [t.name for t in store.tags()]
        write_wall, _ = median_ms(
            lambda: store.set_pair_tags(dataset_id, "1", [rng.choice(tags)], author="bench"),
            args.runs)

        print(f"Errors-page cross-tab (SQL) + pivot: median {statistics.median(sql_wall):.1f} ms wall, "
              f"{statistics.median(sql_cpu):.1f} ms CPU (wall min {min(sql_wall):.1f}, "
              f"max {max(sql_wall):.1f}; {len(table.rows)} cells)")
        print(f"same cross-tab aggregated in Python:  median {statistics.median(py_wall):.1f} ms wall")
        print(f"ratio SQL / Python, per run, median:  {statistics.median(ratios):.2f}")
        print(f"pair list (incorrect, tag negation):  median {list_wall:.1f} ms wall, {list_cpu:.1f} ms CPU "
              f"({len(pair_list())} pairs)")
        print(f"one set_pair_tags write (a change):   median {write_wall:.2f} ms wall")


if __name__ == "__main__":
    main()
