"""Benchmark: loading a whole SNLI-sized corpus through the bounded reading layer.

Writes an SNLI-shaped JSON-lines file (the hand-written records of tests/unit/loader_fuzz.py,
repeated with fresh pairIDs and parse strings of SNLI's length; no corpus data) to a
temporary folder, loads it with ``explorer.datasets.load`` in a child process per run,
and prints wall time, CPU time and the child's peak RSS, median over runs.

Usage: python -m bench.bench_loaders [--pairs 570000] [--runs 3] [--form jsonl|tsv]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.unit.loader_fuzz import _SNLI_RECORDS

ROOT = Path(__file__).resolve().parents[1]

_PARSE = "(ROOT (S (NP (DT A) (NN girl)) (VP (VBZ feeds) (NP (NNS ducks)) (PP (IN at) (NP (DT a) (NN pond)))) (. .)))"
_CHILD = """
import resource, sys, time
sys.path.insert(0, sys.argv[2])
from explorer.datasets import load
t0, c0 = time.perf_counter(), time.process_time()
data = load(sys.argv[1])
print(len(data), time.perf_counter() - t0, time.process_time() - c0,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write(path: Path, pairs: int, form: str) -> None:
    with path.open("w", encoding="utf-8") as out:
        if form == "tsv":
            out.write("gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
                      "sentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n")
        for i in range(pairs):
            r = dict(_SNLI_RECORDS[i % len(_SNLI_RECORDS)], pairID=f"p{i}", sentence1_parse=_PARSE * 2,
                     sentence1_binary_parse=_PARSE.replace("(ROOT", "(") * 2)
            if form == "tsv":
                out.write("\t".join([r["gold_label"], r["sentence1_binary_parse"], r["sentence2_binary_parse"],
                                     r["sentence1_parse"], r["sentence2_parse"], r["sentence1"], r["sentence2"],
                                     r["captionID"], r["pairID"], r["gold_label"], "", "", "", ""]) + "\n")
            else:
                out.write(json.dumps(r) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=570_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--form", choices=["jsonl", "tsv"], default="jsonl")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"snli_shaped.{'jsonl' if args.form == 'jsonl' else 'txt'}"
        write(path, args.pairs, args.form)
        size = path.stat().st_size
        walls, cpus, rss = [], [], []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(ROOT)], check=True,
                                 capture_output=True, text=True).stdout.split()
            n, wall, cpu, peak = int(out[0]), float(out[1]), float(out[2]), int(out[3])
            walls.append(wall)
            cpus.append(cpu)
            rss.append(peak / 1024)
    print(f"{args.form}: {n:,} pairs, {size / 1e6:.0f} MB, {args.runs} runs; load at "
          f"{time.strftime('%H:%M UTC', time.gmtime())} (load average {open('/proc/loadavg').read().split()[0]})")
    print(f"  wall: median {statistics.median(walls):.1f} s (runs {', '.join(f'{w:.1f}' for w in walls)})")
    print(f"  CPU:  median {statistics.median(cpus):.1f} s -> {n / statistics.median(cpus):,.0f} pairs per CPU second")
    print(f"  peak RSS: median {statistics.median(rss):,.0f} MB")


if __name__ == "__main__":
    main()
