"""``python -m explorer batch DATA --scorer a,b --out DIR``: score a whole corpus on Dask
(the library part is :mod:`explorer.batch`)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, TextIO

from explorer.api import shown
from explorer.batch.schema import DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE, MIN_CHUNK_SIZE
from explorer.cli.output import UsageError, emit, fail, int_in

if TYPE_CHECKING:  # Dask only when a batch runs, not when the command line starts
    from explorer.batch.runner import Progress

#: Scorers named by ``--scorer fast``: those the Pair page runs on every keystroke.
FAST = "fast"


def configure_batch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file (any format `evaluate` reads)")
    parser.add_argument("--scorer", default="bleu,mbleu,bleu_pa",
                        help="comma-separated scorer names, 'fast' (every interactive scorer) or 'all'")
    parser.add_argument("--out", required=True, help="result folder (created; an existing one of the same batch is resumed)")
    parser.add_argument("--chunk-size", type=int_in(MIN_CHUNK_SIZE, MAX_CHUNK_SIZE), default=DEFAULT_CHUNK_SIZE,
                        help=f"pairs per chunk: the unit of work, of resuming and of loss on a kill (default {DEFAULT_CHUNK_SIZE})")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="an existing Dask scheduler (e.g. tcp://10.0.0.5:8786); default: a local cluster")
    parser.add_argument("--workers", type=int_in(1, 1024), help="local cluster size (default: one process per core)")
    parser.add_argument("--store", help="store file to register the result in (default: the app's store)")
    parser.add_argument("--no-register", action="store_true", help="do not register the result in the store")
    parser.add_argument("--no-phenomena", action="store_true",
                        help="leave out the phenomenon columns (ph_*: negation, numbers, ... for slices), about a "
                             "fifth of a fast batch's CPU; a resumed batch keeps what it began with")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


class ProgressBar:
    """``[#####.....] 120,000/500,000 pairs  2,310 pairs/s  2m44s left`` on a terminal
    (redrawn at most twice a second); a plain line per tenth of the work otherwise."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self.last_draw = 0.0
        self.last_tenth = -1

    def __call__(self, p: Progress) -> None:
        done = p.pairs_done + p.pairs_skipped
        fraction = done / p.pairs_total if p.pairs_total else 1.0
        finished = done >= p.pairs_total
        rate = f"{p.pairs_per_second:,.0f} pairs/s" if p.pairs_done else ("" if finished else "starting workers")
        left = "" if finished or not p.pairs_done else f"  {_duration(p.seconds_left)} left"
        resumed = f" ({p.pairs_skipped:,} done before)" if p.pairs_skipped else ""
        if self.tty:
            now = time.monotonic()
            if not finished and now - self.last_draw < 0.5 and p.pairs_done:
                return
            self.last_draw = now
            filled = int(self.width * fraction)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r[{bar}] {done:,}/{p.pairs_total:,} pairs{resumed}  {rate}{left}\033[K")
            if finished:
                self.stream.write("\n")
            self.stream.flush()
            return
        tenth = int(fraction * 10)
        if tenth != self.last_tenth or finished:
            self.last_tenth = tenth
            print(f"{done:,}/{p.pairs_total:,} pairs{resumed}  {rate}{left}", file=self.stream, flush=True)


def _memory_mib(field: str = "VmHWM") -> float | None:
    """This process's peak (``VmHWM``) or current (``VmRSS``) resident memory, where
    /proc tells it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


class _Sampled:
    """The progress bar, noting the client's largest resident memory while chunks run."""

    def __init__(self, bar: ProgressBar) -> None:
        self.bar = bar
        self.largest: float | None = None

    def __call__(self, p: Progress) -> None:
        now = _memory_mib("VmRSS")
        if now is not None and (self.largest is None or now > self.largest):
            self.largest = now
        self.bar(p)


def read_only_store(path: str | None) -> str | None:
    """Why the store the result would be registered in cannot be written (it is on a
    read-only file system, or the file is not writable), else None. SQLite says only
    "unable to open database file" for both."""
    import os
    from pathlib import Path

    from explorer.store.schema import ENV_VAR, default_path

    store = Path(path).expanduser() if path else default_path()
    where = store if store.exists() else next((p for p in store.parents if p.exists()), None)
    if where is None:
        return None
    try:
        read_only_mount = bool(os.statvfs(where).f_flag & os.ST_RDONLY)
    except OSError:
        return None
    if read_only_mount:
        why = "is on a read-only file system"
    elif store.exists() and not os.access(store, os.W_OK):
        why = "is a read-only file"
    else:
        return None
    return (f"the store {store} {why}, so the result cannot be registered in it: name a store on a writable "
            f"disk with --store PATH (or the environment variable {ENV_VAR}), or pass --no-register")


@dataclass(frozen=True)
class BatchRun:
    """What ``batch`` prints at the end: the folder's figures, the pairs each scorer
    refused, the store runs it was registered as and the client's memory."""

    data: str
    out: str
    pairs: int
    scorers: list[str]
    chunks: int
    chunks_run: int
    chunks_skipped: int
    workers: int
    seconds: float
    complete: bool
    refused: dict[str, int]
    runs: dict[str, int]
    workers_read_the_file: bool
    client_peak_mib: float | None
    client_mib_while_scoring: float | None

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def format(self) -> str:
        lines = [f"{self.pairs:,} pairs in {self.chunks} chunks: {self.chunks_run} scored now on {self.workers} "
                 f"workers, {self.chunks_skipped} found done; {self.seconds:.1f} s"]
        lines += [f"  {scorer}: {n:,} pairs refused (null value; the reason is in the {scorer}__error column)"
                  for scorer, n in self.refused.items() if n]
        runs = f"; store runs {', '.join(f'{k} #{v}' for k, v in self.runs.items())}" if self.runs else ""
        lines.append(f"result: {shown(self.out)}{runs}")
        return "\n".join(lines)


def run_batch(args: argparse.Namespace) -> int:
    from explorer.batch.runner import run_batch as score_corpus
    from explorer.batch.schema import BatchError
    from explorer.batch.source import FileSource, open_source
    from explorer.datasets import DatasetError
    from explorer.scorers import SCORERS, UnknownScorerError, parse_scorer_names

    if args.no_register and args.store is not None:
        raise UsageError("--store names where to register the result; leave it out with --no-register")
    if args.scheduler is not None and args.workers is not None:
        raise UsageError("--workers sizes a local cluster; an existing one (--scheduler) has its own workers")
    problem = None if args.no_register else read_only_store(args.store)
    if problem is not None:  # before the work, not after it
        return fail(problem)
    try:
        names = SCORERS.names(interactive=True) if args.scorer.strip() == FAST else parse_scorer_names(args.scorer)
        data = open_source(args.data, args.chunk_size)
        if isinstance(data, FileSource):
            print(f"{shown(data.name)}: {data.records:,} records ({data.format}, read in {len(data.ranges):,} ranges "
                  f"by the workers); scorers {', '.join(names)}", file=sys.stderr)
        else:
            print(f"{shown(data.name)}: {len(data):,} pairs ({data.kind}); scorers {', '.join(names)}", file=sys.stderr)
            for note in data.notes:  # e.g. SNLI pairs without annotator consensus, kept unlabelled
                print(f"note: {shown(note)}", file=sys.stderr)
        sampled = _Sampled(ProgressBar())
        summary = score_corpus(data, names, args.out, chunk_size=args.chunk_size, scheduler=args.scheduler,
                               workers=args.workers, progress=sampled, phenomena=[] if args.no_phenomena else None)
    except (BatchError, DatasetError, UnknownScorerError, OSError) as err:
        return fail(str(err))
    for chunk, why in summary.redone:
        print(f"note: {chunk} was damaged ({shown(why)}); scored again", file=sys.stderr)
    for address, missing in summary.missing_resources.items():
        print(f"warning: worker {shown(address)} lacks NLTK resources {', '.join(missing)}; "
              "see `python -m explorer resources` for what degrades", file=sys.stderr)
    manifest = summary.manifest
    if isinstance(data, FileSource):
        for note in manifest.notes if manifest.complete else summary.notes:
            print(f"note: {shown(note)}", file=sys.stderr)
    runs: dict[str, int] = {}
    if manifest.complete and not args.no_register:
        from explorer.batch.register import register
        from explorer.store import Store, StoreError

        try:
            runs = register(args.out, None, Store(args.store))
        except (BatchError, StoreError, OSError) as err:
            why = read_only_store(args.store) or f"the result could not be registered in the store: {err}"
            print(f"warning: the result is complete, but {shown(why)}", file=sys.stderr)
    peak = _memory_mib()
    return emit(BatchRun(
        data=args.data, out=str(args.out), pairs=manifest.n_pairs, scorers=list(manifest.scorers),
        chunks=manifest.n_chunks, chunks_run=summary.chunks_run, chunks_skipped=summary.chunks_skipped,
        workers=summary.workers, seconds=round(summary.seconds, 3), complete=manifest.complete,
        refused=dict(manifest.refused), runs=runs, workers_read_the_file=summary.shared_files,
        client_peak_mib=None if peak is None else round(peak, 1),
        client_mib_while_scoring=None if sampled.largest is None else round(sampled.largest, 1),
    ), args.format)
