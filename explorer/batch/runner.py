"""Score a whole dataset on Dask, chunk by chunk, into Parquet; resumable.

The client (this process) holds the dataset, cuts it into chunks of ``chunk_size``
pairs, keeps a bounded number of chunks in flight on the cluster (two per worker
thread), and writes each finished chunk itself: to a temporary name, then renamed. So

* a re-run skips every chunk file that exists (a finished file is whole by
  construction; its row count is checked against the manifest all the same);
* a run killed at any moment loses at most the chunks in flight; a half-written
  temporary file is never read and is removed by the next run;
* workers need the package and the NLTK data, not the dataset file or the output
  folder: pairs travel to them and scores travel back.

Progress goes to a callback (the CLI draws the bar); nothing here prints.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from explorer.batch.schema import (
    CHUNK_DIR,
    PAIR_COLUMNS,
    BatchError,
    Manifest,
    arrow_schema,
    chunk_name,
    finished_chunks,
    read_manifest,
    write_manifest,
)
from explorer.batch.worker import WarmScorers, compact_pair, score_chunk
from explorer.datasets import Dataset

DEFAULT_CHUNK_SIZE = 2000
#: Chunk sizes outside these bounds are refused (too small: scheduling overhead per
#: pair; too large: a kill loses too much and a chunk's table must fit a worker).
MIN_CHUNK_SIZE, MAX_CHUNK_SIZE = 1, 100_000
#: Chunks kept in flight per worker thread.
IN_FLIGHT_PER_THREAD = 2


@dataclass(frozen=True)
class Progress:
    """Where a batch run is. ``pairs_done`` counts pairs scored by this run;
    ``pairs_skipped`` those found finished from an earlier run."""

    pairs_done: int
    pairs_skipped: int
    pairs_total: int
    chunks_done: int
    chunks_total: int
    seconds: float

    @property
    def pairs_per_second(self) -> float:
        return self.pairs_done / self.seconds if self.seconds > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        rate = self.pairs_per_second
        if rate <= 0:
            return None
        return (self.pairs_total - self.pairs_skipped - self.pairs_done) / rate


@dataclass
class BatchSummary:
    directory: Path
    manifest: Manifest
    chunks_run: int
    chunks_skipped: int
    seconds: float
    workers: int
    #: worker address -> NLTK resources it lacks (what degrades is in explorer.resources).
    missing_resources: dict[str, list[str]] = field(default_factory=dict)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_temporaries(folder: Path) -> None:
    """Delete temporary chunk files left by a killed run (not those of a live one)."""
    for path in folder.glob(".chunk-*.tmp-*"):
        try:
            pid = int(path.name.rsplit("-", 1)[1])
        except ValueError:
            pid = -1
        if pid != os.getpid() and (pid <= 0 or not _pid_alive(pid)):
            path.unlink(missing_ok=True)


def prepare(data: Dataset, scorers: Sequence[str], out: str | Path, *, chunk_size: int) -> Manifest:
    """Create the batch folder and its manifest, or check that an existing one is this
    very batch (same data, scorers, chunk size) so it can be resumed.

    Raises:
        BatchError: for a bad chunk size, or a folder holding another batch.
    """
    from explorer import __version__
    from explorer.store import dataset_fingerprint

    if not MIN_CHUNK_SIZE <= chunk_size <= MAX_CHUNK_SIZE:
        raise BatchError(f"chunk size {chunk_size} is outside {MIN_CHUNK_SIZE}-{MAX_CHUNK_SIZE}")
    if not scorers:
        raise BatchError("no scorer chosen")
    if len(data) == 0:
        raise BatchError(f"{data.name} has no pairs")
    directory = Path(out)
    fingerprint = dataset_fingerprint(data.name, data.pairs)
    if (directory / "batch.json").exists():
        old = read_manifest(directory)
        differs = [what for what, a, b in (
            ("data", old.fingerprint, fingerprint), ("scorers", old.scorers, list(scorers)),
            ("chunk size", old.chunk_size, chunk_size)) if a != b]
        if differs:
            raise BatchError(
                f"{directory} holds a batch of other {', '.join(differs)} "
                f"({old.dataset}; scorers {','.join(old.scorers)}; chunk size {old.chunk_size}); "
                "choose another --out folder or delete this one")
        return old
    if directory.exists() and any(directory.iterdir()):
        raise BatchError(f"{directory} exists and is not a batch folder; choose an empty or new --out folder")
    (directory / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
    manifest = Manifest(
        dataset=data.name, format=data.format, fingerprint=fingerprint, n_pairs=len(data),
        kind=data.kind, tasks=list(data.tasks), scorers=list(scorers), chunk_size=chunk_size,
        explorer_version=__version__, created_at=_now(),
    )
    write_manifest(directory, manifest)
    return manifest


def pair_table(pairs: Sequence[Any], start: int) -> dict[str, list[Any]]:
    """The pair columns of a chunk (see :mod:`explorer.batch.schema`)."""
    return {
        "position": list(range(start, start + len(pairs))),
        "id": [p.id for p in pairs],
        "task": [p.task for p in pairs],
        "label": [p.label for p in pairs],
        "entails": [p.entails for p in pairs],
        "gold_score": [p.score for p in pairs],
        "text": [p.text for p in pairs],
        "hypothesis": [p.hypothesis for p in pairs],
    }


def write_chunk(directory: Path, index: int, pairs: Sequence[Any], start: int,
                scores: dict[str, list[Any]], schema: pa.Schema) -> Path:
    """Write one chunk: a temporary file, then an atomic rename."""
    columns = pair_table(pairs, start)
    columns.update(scores)
    table = pa.table({name: columns[name] for name in schema.names}, schema=schema)
    folder = directory / CHUNK_DIR
    final = folder / chunk_name(index)
    tmp = folder / f".{chunk_name(index)}.tmp-{os.getpid()}"
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, final)
    return final


def _todo(directory: Path, manifest: Manifest) -> list[int]:
    """Chunks still to score: those with no finished file, or a file of the wrong size
    (which is removed)."""
    done = finished_chunks(directory)
    todo = []
    for index in range(manifest.n_chunks):
        path = done.get(index)
        if path is not None:
            try:
                if pq.read_metadata(path).num_rows == manifest.chunk_rows(index):
                    continue
            except (OSError, pa.ArrowException):
                pass
            path.unlink(missing_ok=True)
        todo.append(index)
    return todo


def _missing_resources() -> list[str]:
    from explorer import resources

    return [r.nltk_id for r in resources.missing()]


def local_cluster(workers: int | None = None) -> Any:
    """A local Dask cluster of ``workers`` single-threaded worker processes (default: one
    per core).

    Worker processes are spawned, and a spawned process re-imports the parent's
    ``__main__`` file unless told otherwise; under a script runner such as Streamlit's
    (or a test suite that ran one) that file is an app that must not run again. The
    workers only need :mod:`explorer`, so they start from a bare ``__main__``.
    """
    import sys
    import types

    from distributed import LocalCluster

    n = workers or os.cpu_count() or 1
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                            dashboard_address=None, silence_logs=logging.ERROR)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _client(scheduler: str | None, workers: int | None) -> tuple[Any, Any]:
    """A Dask client: on an existing scheduler, or on a new local cluster of processes
    (one single-threaded worker per core: the scorers are pure Python, the GIL allows
    no more)."""
    from distributed import Client

    if scheduler:
        try:
            return Client(scheduler, timeout="30s"), None  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as err:
            raise BatchError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    cluster = local_cluster(workers)
    return Client(cluster), cluster  # type: ignore[no-untyped-call]


def run_batch(
    data: Dataset,
    scorers: Sequence[str],
    out: str | Path,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    scheduler: str | None = None,
    workers: int | None = None,
    client: Any = None,
    progress: Callable[[Progress], None] | None = None,
    max_chunks: int | None = None,
) -> BatchSummary:
    """Score ``data`` with ``scorers`` into the batch folder ``out`` (resuming it).

    Args:
        scheduler: address of an existing Dask scheduler (``tcp://host:8786``); None
            starts a local cluster of ``workers`` processes (default: one per core).
        client: an existing ``distributed.Client`` to use instead of either.
        max_chunks: stop after scoring this many chunks (for tests and benchmarks of
            resuming); the folder is left resumable.

    Raises:
        BatchError: for a folder holding another batch, a bad chunk size, or a scheduler
            that cannot be reached.
    """
    from distributed import as_completed

    directory = Path(out)
    manifest = prepare(data, scorers, directory, chunk_size=chunk_size)
    _remove_stale_temporaries(directory / CHUNK_DIR)
    todo = _todo(directory, manifest)
    skipped_chunks = manifest.n_chunks - len(todo)
    skipped_pairs = manifest.n_pairs - sum(manifest.chunk_rows(i) for i in todo)
    if max_chunks is not None:
        todo = todo[:max_chunks]
    schema = arrow_schema(manifest.scorers)
    start_time = work_start = time.perf_counter()
    done_pairs = done_chunks = 0
    summary = BatchSummary(directory, manifest, 0, skipped_chunks, 0.0, 0)

    def report() -> None:
        if progress is not None:
            progress(Progress(done_pairs, skipped_pairs, manifest.n_pairs, skipped_chunks + done_chunks,
                              manifest.n_chunks, time.perf_counter() - work_start))

    report()
    if todo:
        own_client, cluster = (client, None) if client is not None else _client(scheduler, workers)
        try:
            own_client.register_plugin(WarmScorers(manifest.scorers))
            summary.missing_resources = {
                addr: missing for addr, missing in own_client.run(_missing_resources).items() if missing}
            threads = sum(own_client.nthreads().values()) or 1
            summary.workers = len(own_client.nthreads())
            window = max(1, threads * IN_FLIGHT_PER_THREAD)
            # Rates count from here: starting the cluster and warming the scorers is
            # a fixed cost, not a per-pair one (the summary's seconds include it).
            work_start = time.perf_counter()
            pending = iter(todo)
            tag = manifest.fingerprint[:10]

            def submit(index: int) -> Any:
                begin = index * manifest.chunk_size
                chunk = [compact_pair(p) for p in data.pairs[begin : begin + manifest.chunk_rows(index)]]
                future = own_client.submit(score_chunk, chunk, manifest.scorers, pure=False,
                                           key=f"explorer-batch-{tag}-{index}")
                future.chunk_index = index
                return future

            running = as_completed([submit(i) for _, i in zip(range(window), pending, strict=False)])  # type: ignore[no-untyped-call]
            for future in running:
                index = future.chunk_index
                try:
                    scores = future.result()
                except Exception as err:  # a worker died (memory, a kill) or lost its scheduler
                    raise BatchError(
                        f"chunk {index} failed on the cluster ({type(err).__name__}: {err}); the "
                        f"{skipped_chunks + done_chunks} finished chunks are kept: run the same command "
                        "again to resume") from None
                begin = index * manifest.chunk_size
                write_chunk(directory, index, data.pairs[begin : begin + manifest.chunk_rows(index)],
                            begin, scores, schema)
                future.release()
                done_pairs += manifest.chunk_rows(index)
                done_chunks += 1
                report()
                following = next(pending, None)
                if following is not None:
                    running.add(submit(following))  # type: ignore[no-untyped-call]
        finally:
            if client is None:
                own_client.close()
                if cluster is not None:
                    cluster.close()
    summary.chunks_run = done_chunks
    summary.seconds = time.perf_counter() - start_time
    if not _todo(directory, manifest):
        manifest.complete = True
        manifest.refused = refusals(directory, manifest)
        write_manifest(directory, manifest)
    return summary


def refusals(directory: str | Path, manifest: Manifest | None = None) -> dict[str, int]:
    """Scorer -> how many pairs it gave no value (from the chunk files' statistics)."""
    manifest = manifest or read_manifest(directory)
    counts = dict.fromkeys(manifest.scorers, 0)
    for path in finished_chunks(directory).values():
        meta = pq.read_metadata(path)
        names = meta.schema.to_arrow_schema().names
        for scorer in manifest.scorers:
            column = names.index(scorer)
            for g in range(meta.num_row_groups):
                stats = meta.row_group(g).column(column).statistics
                counts[scorer] += int(stats.null_count) if stats is not None and stats.has_null_count else 0
    return counts


__all__ = ["DEFAULT_CHUNK_SIZE", "PAIR_COLUMNS", "BatchSummary", "Progress", "prepare", "refusals", "run_batch"]
