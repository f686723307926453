"""Benchmark: a 100,000-pair upload, from the file handed to the Dataset page to its first pair.

For each upload format the app takes in one file (JSON lines, CSV, TSV, RTE XML), a file of
``--pairs`` pairs is written here (sentences drawn from the small word list of
``bench/bench_uploads.py``: no corpus text; the JSON lines carry SNLI's parse-tree fields,
the heaviest records the limits let in). Each file is handed to the Dataset page's file
uploader under Streamlit's AppTest, the page's code path (read by the bounded reader in a
child process, the table built and drawn); timed until the run ends with the first pair in
the table. Printed per format: the file's size, seconds to the first pair, the peak
resident memory of this process and its children (the server's part, sampled every 20 ms)
above what it held before, its processor seconds (this process and the reader), the rows
and bytes of table the page sent, and the load average.

Usage: NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_upload_first_pair [--pairs 100000]
       [--formats jsonl csv tsv xml] [--timeout 600]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench import use_shared_nltk_data  # noqa: E402
from bench.bench_uploads import csv, peak_while, rss_mb, rte, snli, sts  # noqa: E402

#: Format -> (file maker, file name, MIME type).
FORMATS: dict[str, tuple[Callable[[int, random.Random], bytes], str, str]] = {
    "jsonl": (lambda n, rng: snli(n, rng, parses=4), "pairs.jsonl", "application/jsonl"),
    "csv": (csv, "pairs.csv", "text/csv"),
    "tsv": (sts, "pairs.tsv", "text/tab-separated-values"),
    "xml": (rte, "pairs.xml", "text/xml"),
}


def first_pair(data: bytes, name: str, mime: str, timeout: float) -> tuple[float, float, int, int, str]:
    """(seconds from the upload to the page's run ending with the first pair in its table,
    processor seconds of that run, rows and Arrow bytes of the table sent, the first row's
    id) for one upload (AppTest)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    at.switch_page("components/pages/dataset.py").run()
    at.radio(key="dataset_source").set_value("Upload a file").run()
    uploader = at.file_uploader(key="dataset_upload").set_value((name, data, mime))
    start, cpu = time.perf_counter(), processor_seconds()
    uploader.run()
    seconds, cpu = time.perf_counter() - start, processor_seconds() - cpu
    if at.error:
        raise RuntimeError(f"{name}: {[e.value for e in at.error]}")
    if not at.dataframe:
        raise RuntimeError(f"{name}: no table on the page")
    table = at.dataframe[0]
    shown = table.value
    return seconds, cpu, len(shown), len(table.proto.arrow_data.data), str(shown.iloc[0]["id"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--formats", nargs="+", choices=list(FORMATS), default=list(FORMATS))
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args(argv)
    use_shared_nltk_data()
    os.environ.setdefault("EXPLORER_BACKGROUND_CUTOFFS", "0")
    os.environ.setdefault("EXPLORER_WORKERS", "0")  # AppTest: jobs in the page's thread
    with tempfile.TemporaryDirectory(prefix="bench-uploads-") as kept:
        os.environ.setdefault("EXPLORER_UPLOADS_DIR", kept)  # the kept uploads: not the user cache
        # A fresh store: each upload is new to it, as a student's file is (and the user's
        # store does not keep the benchmark's pairs).
        os.environ.setdefault("ENTAILMENT_EXPLORER_STORE", str(Path(kept) / "store.sqlite3"))
        rng = random.Random(11)
        first_pair(csv(20, rng), "warm.csv", "text/csv", args.timeout)  # the app's imports are not the upload's
        for fmt in args.formats:
            measure(fmt, FORMATS[fmt][0](args.pairs, rng), args.pairs, args.timeout)
            gc.collect()


def processor_seconds() -> float:
    """CPU seconds of this process (every thread: the page runs on AppTest's) and its
    finished children (the upload's reader): the work, whatever the machine's load."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(fmt: str, data: bytes, pairs: int, timeout: float) -> None:
    """Time one format's upload to its first pair and print its line."""
    from components import data as page_data

    _, name, mime = FORMATS[fmt]
    page_data.reset()
    gc.collect()
    before = rss_mb(os.getpid())
    got: list[tuple[float, float, int, int, str]] = []
    _, peak = peak_while(lambda: got.append(first_pair(data, name, mime, timeout)))
    seconds, cpu, rows, sent, first = got[0]
    load = open("/proc/loadavg", encoding="ascii").read().split()[0]
    print(f"{fmt:5} {pairs:,} pairs, {len(data) / 1e6:5.1f} MB: first pair ({first}) in {seconds:6.2f} s, "
          f"{cpu:5.2f} s of CPU; peak +{peak - before:,.0f} MB (this process and its children, {before:,.0f} MB "
          f"before); table sent {rows:,} rows, {sent / 1e6:.1f} MB; load average {load}", flush=True)

if __name__ == "__main__":
    main()
