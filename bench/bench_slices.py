"""Slice tables: how long a group question takes (docs/BENCHMARKS.md, "Slices").

Three figures:

* ``typed``: one typed slice on RTE2 dev (NLTK's 400 pairs) for bleu, mbleu and bow with
  the scores already computed (the group frame built once, as a page keeps it);
* ``builtin``: every built-in phenomenon as a slice on the same frame (phenomena
  computed once, as a page keeps them);
* ``batch``: a slice table for three scorers over a synthetic 500,000-pair batch result
  (Parquet chunks written here, with phenomenon columns) through DuckDB.

    PYTHONPATH=. NLTK_DATA=../shared/nltk_data python bench/bench_slices.py [typed|builtin|batch|all]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import median_seconds, use_shared_nltk_data  # noqa: E402

FAST = ["bleu", "mbleu", "bow"]
TYPED = 'negation_only_in_h and overlap < 0.6 or task == "QA" and wrong(bleu) and not wrong(bow)'
TYPED_NO_PHENOMENA = 'task == "QA" and wrong(bleu) and not wrong(bow) or score(mbleu) > 0.3'
BATCH_SLICES = {
    "negation, low overlap": "negation_only_in_h and overlap < 0.6",
    "QA, bleu wrong, bow right": 'task == "QA" and wrong(bleu) and not wrong(bow)',
    "numbers": "number_mismatch",
    "long hypotheses": "h_length > 12 or label in [\"contradiction\", \"neutral\"]",
}


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def write_synthetic_result(folder: Path, n_pairs: int, scorers: Sequence[str], *, chunk_size: int = 100_000,
                           seed: int = 0) -> Path:
    """A batch result folder of ``n_pairs`` made-up pairs in the batch layout
    (:mod:`explorer.batch.schema`): the pair columns, each scorer's value (about 1% null:
    refused) and the phenomenon columns ``ph_negation_only_in_h``, ``ph_number_mismatch``
    (bool), ``ph_overlap``, ``ph_h_length`` (numbers). The texts are short placeholders."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from explorer.batch.schema import CHUNK_DIR, Manifest, write_manifest

    rng = np.random.default_rng(seed)
    (folder / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
    tasks = np.array(["QA", "IE", "IR", "SUM"])
    labels = np.array(["entailment", "neutral", "contradiction"])
    for index, start in enumerate(range(0, n_pairs, chunk_size)):
        n = min(chunk_size, n_pairs - start)
        label = labels[rng.integers(0, 3, n)]
        entails = label == "entailment"
        columns: dict[str, object] = {
            "position": np.arange(start, start + n, dtype=np.int64),
            "id": [f"p{i}" for i in range(start, start + n)],
            "task": tasks[rng.integers(0, 4, n)],
            "label": label,
            "entails": entails,
            "gold_score": np.full(n, np.nan),
            "text": ["a text"] * n,
            "hypothesis": ["a hypothesis"] * n,
        }
        for offset, scorer in enumerate(scorers):
            values = np.clip(rng.normal(0.4 + 0.2 * entails, 0.2 + 0.05 * offset), 0, 1)
            columns[scorer] = pa.array(values, mask=rng.random(n) < 0.01)
        columns["ph_negation_only_in_h"] = rng.random(n) < 0.1
        columns["ph_number_mismatch"] = rng.random(n) < 0.05
        columns["ph_overlap"] = rng.random(n)
        columns["ph_h_length"] = rng.integers(3, 30, n).astype(float)
        pq.write_table(pa.table(columns), folder / CHUNK_DIR / f"chunk-{index:06d}.parquet")
    write_manifest(folder, Manifest(
        dataset="synthetic", format="jsonl", fingerprint=f"synthetic-{n_pairs}-{seed}", n_pairs=n_pairs,
        kind="three_way", tasks=list(tasks), scorers=list(scorers), chunk_size=chunk_size,
        explorer_version="bench", created_at="", complete=True,
        phenomena=["negation_only_in_h", "number_mismatch", "overlap", "h_length"]))
    return folder


def rte2_frame(phenomena: Sequence[str] | None) -> object:
    from explorer.batch.source import read_dataset
    from explorer.groups.frame import group_frame

    path = Path(os.environ.get("NLTK_DATA", "")) / "corpora" / "rte" / "rte2_dev.xml"
    return group_frame(read_dataset(path), FAST, phenomena=phenomena)


def typed(runs: int) -> None:
    from explorer.groups.frame import registered_phenomena
    from explorer.groups.stats import slice_results

    have = bool(registered_phenomena())
    start = time.perf_counter()
    frame = rte2_frame(["negation_only_in_h", "overlap"] if have else [])
    built = time.perf_counter() - start
    expression = TYPED if have else TYPED_NO_PHENOMENA
    seconds = median_seconds(lambda: slice_results(frame, {"typed": expression}), runs)  # type: ignore[arg-type]
    print(f"typed slice on RTE2 dev ({expression}), scores cached: {seconds * 1000:.1f} ms "
          f"(median of {runs}; building the frame: {built:.1f} s); {load_average()}")


def builtin(runs: int) -> None:
    from explorer.groups.frame import registered_phenomena
    from explorer.groups.stats import slice_results

    try:
        from explorer.groups.phenomena import builtin_slices
    except ImportError:
        print("builtin: no phenomena registered in this build; skipped")
        return
    fast = [n for n, kind in registered_phenomena().items() if not n.endswith(("_manli", "_itg"))]
    start = time.perf_counter()
    frame = rte2_frame(fast)
    built = time.perf_counter() - start
    slices = {name: expr for name, expr in builtin_slices().items()
              if all(not part.endswith(("_manli", "_itg")) for part in expr.split())}
    seconds = median_seconds(lambda: slice_results(frame, slices), runs)  # type: ignore[arg-type]
    print(f"{len(slices)} built-in slices on RTE2 dev for {', '.join(FAST)}, scores and phenomena cached: "
          f"{seconds * 1000:.1f} ms (median of {runs}; building the frame: {built:.1f} s); {load_average()}")


def batch(runs: int, n_pairs: int) -> None:
    from explorer.batch.query import BatchResult
    from explorer.groups.batch_slices import batch_cutoffs, batch_slice_results

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        folder = write_synthetic_result(Path(tmp) / "result", n_pairs, FAST)
        written = time.perf_counter() - start
        # A finished `batch` run keeps each scorer's own cutoff in the folder's figures
        # (BatchResult.precompute); choosing them here once stands for that.
        start = time.perf_counter()
        result = BatchResult.open(folder)
        batch_cutoffs(result, FAST)
        result.save_figures()
        chosen = time.perf_counter() - start

        cpu: list[float] = []

        def table() -> None:
            start = time.process_time()  # every thread of the process, DuckDB's included
            batch_slice_results(BatchResult.open(folder), FAST, BATCH_SLICES)
            cpu.append(time.process_time() - start)

        seconds = median_seconds(table, runs)
        print(f"{len(BATCH_SLICES)} slices x {len(FAST)} scorers over a {n_pairs:,}-pair batch result, opened afresh "
              f"each time: {seconds:.2f} s wall, {sorted(cpu)[len(cpu) // 2]:.2f} s CPU (median of {runs}; choosing the three own cutoffs once, as `batch` does "
              f"when it finishes: {chosen:.1f} s; writing the result: {written:.1f} s); {load_average()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default="all", choices=["typed", "builtin", "batch", "all"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=500_000)
    args = parser.parse_args(argv)
    use_shared_nltk_data()
    if args.what in ("typed", "all"):
        typed(args.runs)
    if args.what in ("builtin", "all"):
        builtin(args.runs)
    if args.what in ("batch", "all"):
        batch(args.runs, args.pairs)


if __name__ == "__main__":
    main()
