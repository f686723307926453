"""Benchmark: an upload read the way the app reads it (components/uploads.py).

For each format (STS, SNLI-style JSON lines, RTE XML, MSRP, CSV) a file of --pairs synthetic
pairs (sentences drawn from a small word list; no corpus text) is read by
``runtime.isolated_reader.read_bounded`` under the app's limits: counted on its bytes,
parsed in a child process, sent back and rebuilt. Printed per format: the file's size, wall
seconds (median of --runs), the child's peak RSS and the dataset's measured size. Then:

- the refusal of an STS file of 999,000 short pairs (19 MB), median seconds: in the
  library, and as the Dataset page's run under Streamlit's AppTest (the upload handed to
  the file uploader; the browser's transfer is not in it);
- the largest file the limits let in (100,000 SNLI-style records with parse trees, about
  the 128 MB upload limit): wall seconds and the peak resident memory of this process (the
  server's part) plus its children, sampled every 20 ms, and what this process still holds
  after.

Usage: NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_uploads [--pairs 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("the a council bridge harbour school library museum ferry opened closed repaired sold visited renamed "
         "on Monday Friday after long debate among residents of Arlen Bexley Corran near river").split()
PARSE = "(ROOT (S (NP (DT A) (NN girl)) (VP (VBZ feeds) (NP (NNS ducks)) (PP (IN at) (NP (DT a) (NN pond)))) (. .)))"


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def sts(n: int, rng: random.Random) -> bytes:
    return "".join(f"{rng.randint(0, 5)}\t{sentence(rng, 14)}\t{sentence(rng, 9)}\n" for _ in range(n)).encode()


def snli(n: int, rng: random.Random, *, parses: int = 0) -> bytes:
    labels = ("entailment", "neutral", "contradiction")
    return "".join(json.dumps({
        "annotator_labels": ["neutral"], "captionID": f"{i}.jpg#0", "gold_label": rng.choice(labels),
        "pairID": f"{i}.jpg#0r1n", "sentence1": sentence(rng, 14), "sentence2": sentence(rng, 8),
        "sentence1_binary_parse": "( ( A b ) c )", "sentence2_binary_parse": "( a b )",
        "sentence1_parse": PARSE * parses, "sentence2_parse": PARSE * parses}) + "\n" for i in range(n)).encode()


def rte(n: int, rng: random.Random) -> bytes:
    body = "".join(f'  <pair id="{i}" entailment="{rng.choice(("YES", "NO"))}" task="IE">\n'
                   f"    <t>{sentence(rng, 25)}</t>\n    <h>{sentence(rng, 8)}</h>\n  </pair>\n" for i in range(n))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<entailment-corpus>\n{body}</entailment-corpus>\n'.encode()


def msrp(n: int, rng: random.Random) -> bytes:
    rows = "".join(f"{rng.randint(0, 1)}\t{2 * i}\t{2 * i + 1}\t{sentence(rng, 20)}\t{sentence(rng, 18)}\n"
                   for i in range(n))
    return ("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n" + rows).encode()


def csv(n: int, rng: random.Random) -> bytes:
    rows = "".join(f"{i},{sentence(rng, 16)},{sentence(rng, 8)},{rng.choice(('entailment', 'non-entailment'))},"
                   f"T{i % 7}\n" for i in range(n))
    return ("id,text,hypothesis,label,task\n" + rows).encode()


FORMATS: dict[str, tuple[Callable[[int, random.Random], bytes], str]] = {
    "STS": (sts, "pairs.tsv"), "SNLI JSON lines": (snli, "pairs.jsonl"), "RTE XML": (rte, "pairs.xml"),
    "MSRP": (msrp, "msrp.tsv"), "CSV": (csv, "pairs.csv"),
}


def rss_mb(pid: int, *, children: bool = True) -> float:
    """Resident memory of ``pid`` (and its descendants), in MB, from /proc."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            if children:
                with open(f"/proc/{p}/task/{p}/children", encoding="ascii") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, StopIteration):
            continue
    return total / 1024


def peak_while(run: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, peak MB of this process and its children) of ``run()``."""
    peak, done = [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb(os.getpid()))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    try:
        run()
    finally:
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
    return seconds, peak[0]


def refuse_in_app(data: bytes) -> float:
    """Seconds of the Dataset page's run that refuses ``data`` as an upload (AppTest)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    at.switch_page("components/pages/dataset.py").run()
    at.radio(key="dataset_source").set_value("Upload a file").run()
    uploader = at.file_uploader(key="dataset_upload").set_value(("huge.tsv", data, "text/tab-separated-values"))
    start = time.perf_counter()
    uploader.run()
    seconds = time.perf_counter() - start
    if not any("100,000-pair limit" in e.value for e in at.error):
        raise RuntimeError(f"not refused: {[e.value for e in at.error]}")
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("EXPLORER_BACKGROUND_CUTOFFS", "0")
    from components.uploads import LIMITS
    from runtime.isolated_reader import ReadLimitError, read_bounded

    def load() -> str:
        return open("/proc/loadavg", encoding="ascii").read().split()[0]

    rng = random.Random(7)
    print(f"limits: {LIMITS.pairs:,} pairs, {LIMITS.bytes >> 20} MB a file, {LIMITS.memory >> 20} MB for the reader, "
          f"{LIMITS.cpu_seconds:g} s of CPU, {LIMITS.seconds:g} s wall; {args.runs} runs, medians")
    for fmt, (make, name) in FORMATS.items():
        data = make(args.pairs, rng)
        walls, cpus, peaks = [], [], []
        for _ in range(args.runs):
            result = read_bounded(data, name, LIMITS)
            walls.append(result.seconds)
            cpus.append(result.child_cpu)
            peaks.append(result.child_peak / 2**20)
            size = result.footprint
            del result
            gc.collect()
        print(f"{fmt:16} {args.pairs:,} pairs, {len(data) / 1e6:5.1f} MB: wall {statistics.median(walls):5.2f} s "
              f"(runs {', '.join(f'{w:.2f}' for w in walls)}), reader CPU {statistics.median(cpus):4.2f} s, "
              f"reader peak {statistics.median(peaks):4.0f} MB, dataset {size / 2**20:3.0f} MB held; "
              f"load average {load()}")

    huge = "".join(f"{i % 6}\tA man {i % 9}.\tA dog.\n" for i in range(999_000)).encode()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        try:
            read_bounded(huge, "huge.tsv", LIMITS)
        except ReadLimitError:
            times.append(time.perf_counter() - start)
    print(f"999,000-pair STS file ({len(huge) / 1e6:.0f} MB) refused by the reader: median "
          f"{statistics.median(times):.2f} s (runs {', '.join(f'{t:.2f}' for t in times)}); load average {load()}")
    app = [refuse_in_app(huge) for _ in range(args.runs)]
    print(f"  the Dataset page's run that refuses it (AppTest): median {statistics.median(app):.2f} s "
          f"(runs {', '.join(f'{t:.2f}' for t in app)}); load average {load()}")

    largest = snli(args.pairs, rng, parses=4)
    gc.collect()
    before = rss_mb(os.getpid(), children=False)
    kept: list[object] = []
    seconds, peak = peak_while(lambda: kept.append(read_bounded(largest, "largest.jsonl", LIMITS)))
    after = rss_mb(os.getpid(), children=False)
    print(f"largest allowed: {args.pairs:,} SNLI-style records with parse trees, {len(largest) / 1e6:.0f} MB: "
          f"{seconds:.2f} s (reader CPU {kept[0].child_cpu:.2f} s, reader peak {kept[0].child_peak / 2**20:.0f} MB); "  # type: ignore[attr-defined]
          f"this process {before:.0f} MB before, peak with the reader {peak:.0f} MB, "
          f"{after:.0f} MB after (the dataset and the file held); load average {load()}")


if __name__ == "__main__":
    main()
