"""Benchmark: reading a whole SNLI-sized corpus, and what the command line costs on it.

Writes an SNLI-shaped JSON-lines file (the hand-written records of tests/unit/loader_fuzz.py,
repeated with fresh pairIDs and parse strings of SNLI's length; no corpus data) to a
temporary folder, runs one command on it in a child process per run, and prints wall
time, CPU time and the child's peak RSS (with its ratio to the file's size), median over
runs. Commands:

* ``load``: ``explorer.datasets.load`` (the library's whole-file loader);
* ``read``: ``explorer.batch.source.read_dataset`` (how the command line reads a file:
  range by range, pairs only);
* ``corpus-stats``: ``python -m explorer corpus-stats FILE``;
* ``long-line``: ``corpus-stats`` on a file whose second line is ``--line-mb`` MB long
  (refused: the time and memory of the refusal).

``--tree DIR`` imports the explorer from another checkout (e.g. ``git archive`` of an older
commit), for before / after figures with the same script.

Usage: python -m bench.bench_loaders [--command load] [--pairs 570000] [--runs 3] [--form jsonl|tsv]
       [--parse-repeat 2] [--distinct] [--line-mb 900] [--tree DIR]
"""

from __future__ import annotations

import argparse
import json
import os
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
import contextlib, io, resource, sys, time
sys.path.insert(0, sys.argv[3])
command, path = sys.argv[1], sys.argv[2]
t0, c0 = time.perf_counter(), time.process_time()
if command == "load":
    from explorer.datasets import load
    n = len(load(path))
elif command == "read":
    from explorer.batch.source import read_dataset
    n = len(read_dataset(path))
else:
    from explorer.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        n = main(["corpus-stats", path, "--json"])  # the exit status
print(n, time.perf_counter() - t0, time.process_time() - c0,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write(path: Path, pairs: int, form: str, *, parse_repeat: int = 2, distinct: bool = False) -> None:
    with path.open("w", encoding="utf-8") as out:
        if form == "tsv":
            out.write("gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
                      "sentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n")
        for i in range(pairs):
            r = dict(_SNLI_RECORDS[i % len(_SNLI_RECORDS)], pairID=f"p{i}", sentence1_parse=_PARSE * parse_repeat,
                     sentence1_binary_parse=_PARSE.replace("(ROOT", "(") * parse_repeat)
            if distinct:  # every sentence new: no analysis is served from a cache
                r["sentence1"] = f"{r['sentence1']} Seen at stop {i}."
                r["sentence2"] = f"{r['sentence2']} Case {i}."
            if form == "tsv":
                out.write("\t".join([r["gold_label"], r["sentence1_binary_parse"], r["sentence2_binary_parse"],
                                     r["sentence1_parse"], r["sentence2_parse"], r["sentence1"], r["sentence2"],
                                     r["captionID"], r["pairID"], r["gold_label"], "", "", "", ""]) + "\n")
            else:
                out.write(json.dumps(r) + "\n")


def write_long_line(path: Path, megabytes: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(dict(_SNLI_RECORDS[0], pairID="p0")) + "\n")
        out.write('{"gold_label": "neutral", "sentence1": "')
        chunk = "x" * (1 << 20)
        for _ in range(megabytes):
            out.write(chunk)
        out.write('", "sentence2": "y", "pairID": "p1"}\n')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--command", choices=["load", "read", "corpus-stats", "long-line"], default="load")
    parser.add_argument("--pairs", type=int, default=570_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--form", choices=["jsonl", "tsv"], default="jsonl")
    parser.add_argument("--parse-repeat", type=int, default=2, help="parse strings per record, SNLI's length each")
    parser.add_argument("--distinct", action="store_true", help="every sentence different (no analysis cache hits)")
    parser.add_argument("--line-mb", type=int, default=900, help="long-line: the long line's size")
    parser.add_argument("--tree", default=str(ROOT), help="the checkout to import the explorer from")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"snli_shaped.{'jsonl' if args.form == 'jsonl' else 'txt'}"
        if args.command == "long-line":
            write_long_line(path, args.line_mb)
        else:
            write(path, args.pairs, args.form, parse_repeat=args.parse_repeat, distinct=args.distinct)
        size = path.stat().st_size
        command = "corpus-stats" if args.command == "long-line" else args.command
        walls, cpus, rss = [], [], []
        loads = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", _CHILD, command, str(path), args.tree], check=True,
                                 capture_output=True, text=True, env={**os.environ, "PYTHONPATH": args.tree}).stdout
            n, wall, cpu, peak = out.split()[-4:]
            walls.append(float(wall))
            cpus.append(float(cpu))
            rss.append(int(peak) * 1024 / 1e6)  # ru_maxrss is in KiB
            loads.append(open("/proc/loadavg").read().split()[0])
    what = "exit status" if command == "corpus-stats" else "pairs"
    print(f"{args.command} ({args.form}, tree {args.tree}): {size / 1e6:,.0f} MB, {what} {n}, {args.runs} runs, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average after each run {', '.join(loads)}")
    print(f"  wall: median {statistics.median(walls):.1f} s (runs {', '.join(f'{w:.1f}' for w in walls)})")
    print(f"  CPU:  median {statistics.median(cpus):.1f} s")
    peak = statistics.median(rss)
    print(f"  peak RSS: median {peak:,.0f} MB ({peak * 1e6 / size:.2f}x the file)")


if __name__ == "__main__":
    main()
