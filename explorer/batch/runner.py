"""Score a whole dataset on Dask, chunk by chunk, into Parquet; resumable.

The client (this process) decides the chunks and keeps a bounded number in flight on
the cluster (two per worker thread); it holds no pairs and writes nothing per chunk:

* a line-format file is scanned into byte ranges (:mod:`explorer.batch.source`); each
  task names its range, and the worker reads and parses it, scores it and writes the
  Parquet chunk itself (to a temporary name, then renamed), returning a few numbers.
  Other formats are loaded on the client (RTE-sized files) and their pairs travel.
* workers that cannot see the dataset file or the output folder (a remote cluster
  without a shared file system; checked on every worker before the run) are sent the
  chunk's bytes and send back its table, which the client writes.

So

* a re-run skips every chunk file that exists and still matches the checksum written
  with it (a finished file is whole by construction; one damaged since is scored again
  and named: :mod:`explorer.batch.folder`);
* a run killed at any moment loses at most the chunks in flight; a half-written
  temporary file is never read and is removed by the next run;
* one run at a time writes into a folder (a lock that ends with its process).

Progress goes to a callback (the CLI draws the bar); nothing here prints.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from explorer.batch.folder import LOCK, damage, storage_error, writing
from explorer.batch.schema import (
    CHUNK_DIR,
    CHUNK_GLOB,
    DEFAULT_CHUNK_SIZE,
    MANIFEST,
    MAX_CHUNK_SIZE,
    MIN_CHUNK_SIZE,
    PHENOMENON_PREFIX,
    BatchError,
    Manifest,
    finished_chunks,
    phenomenon_column,
    read_manifest,
    write_manifest,
)
from explorer.batch.source import FileSource, SourceChanged, open_source, read_range, whole_notes
from explorer.batch.worker import (
    ChunkDone,
    ChunkFailed,
    ChunkTask,
    WarmScorers,
    can_share,
    chunk_table,
    compact_pair,
    phenomena_columns,
    run_chunk,
    write_table,
)
from explorer.datasets import Dataset
from explorer.limits import current as current_limits
from explorer.pairs import Pair

#: Chunks kept in flight per worker thread.
IN_FLIGHT_PER_THREAD = 2
#: A local scheduler without the dashboard, its HTTP endpoint (health checks) on a free
#: port of localhost: Dask's default port 8787 is taken as soon as a second cluster runs
#: on the machine, and Dask then warns on the terminal.
QUIET_SCHEDULER = {"dashboard": False, "dashboard_address": "127.0.0.1:0"}
#: Timers of a local cluster with no dashboard to feed: the system monitor (CPU / memory
#: samples for the dashboard, every 0.5 s by default) and the event-loop health tick
#: (every 20 ms) in every process. On 2 cores they took 3.1% of a core in the client
#: (which runs the scheduler) and 5.7% in the workers and nannies while idle; 1.3% and
#: 4.9% so (docs/BENCHMARKS.md). Workers' memory limits have their own timer, untouched.
QUIET_TIMERS = {"distributed.admin.system-monitor.interval": "5s", "distributed.admin.tick.interval": "1s"}


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
    #: whether the workers read the dataset file and write the chunks themselves
    shared_files: bool = False
    #: the loader's notes on chunks scored by this run (e.g. pairs skipped)
    notes: list[str] = field(default_factory=list)
    #: ``(chunk, why)`` for each finished chunk found damaged and scored again
    redone: list[tuple[str, str]] = field(default_factory=list)


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
    """Delete temporary chunk files left by a killed run: this host's whose process is
    gone, and other hosts' older than a day (a live run's are left alone)."""
    host = socket.gethostname()
    for path in folder.glob(".chunk-*.tmp-*"):
        owner = path.name.split(".tmp-", 1)[1]
        name, _, pid_text = owner.rpartition("-")
        try:
            pid = int(pid_text)
        except ValueError:
            pid = -1
        if name in ("", host):
            stale = pid != os.getpid() and (pid <= 0 or not _pid_alive(pid))
        else:
            try:
                stale = time.time() - path.stat().st_mtime > 86_400
            except OSError:
                stale = False
        if stale:
            path.unlink(missing_ok=True)


def prepare(data: Dataset | FileSource, scorers: Sequence[str], out: str | Path, *, chunk_size: int,
            phenomena: Sequence[str] | None = None) -> Manifest:
    """Create the batch folder and its manifest, or check that an existing one is this
    very batch (same data, scorers, chunk size) so it can be resumed. ``phenomena``: those
    every chunk has as ``ph_`` columns (None: every fast one); a resumed batch keeps its own
    manifest's (none for a result written before the columns).

    Raises:
        BatchError: for a bad chunk size, or a folder holding another batch.
    """
    from explorer import __version__
    from explorer.groups.phenomena import check_names
    from explorer.store import dataset_fingerprint

    if not MIN_CHUNK_SIZE <= chunk_size <= MAX_CHUNK_SIZE:
        raise BatchError(f"chunk size {chunk_size} is outside {MIN_CHUNK_SIZE}-{MAX_CHUNK_SIZE}")
    if not scorers:
        raise BatchError("no scorer chosen")
    if len(data) == 0:
        raise BatchError(f"{data.name} has no pairs")
    if isinstance(data, FileSource) and data.chunk_size != chunk_size:
        raise BatchError(f"{data.name} was scanned in chunks of {data.chunk_size}, not {chunk_size}")
    directory = Path(out)
    if isinstance(data, FileSource):
        fingerprint, head, records = data.fingerprint, data.head, data.records
    else:
        fingerprint, head, records = dataset_fingerprint(data.name, data.pairs), data, 0
    if (directory / MANIFEST).exists():
        old = read_manifest(directory)
        differs = [what for what, a, b in (
            ("data", old.fingerprint, fingerprint), ("scorers", old.scorers, list(scorers)),
            ("chunk size", old.chunk_size, chunk_size)) if a != b]
        if differs:
            changed = (f" (if {data.name} was edited since that batch began, put it back as it was and run the "
                       "same command again to resume it)" if differs == ["data"] and old.dataset == data.name else "")
            raise BatchError(
                f"{directory} holds a batch of other {', '.join(differs)} "
                f"({old.dataset}; scorers {','.join(old.scorers)}; chunk size {old.chunk_size}){changed}; "
                "choose another --out folder or delete this one")
        return old
    refuse_foreign(directory)
    (directory / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
    manifest = Manifest(
        dataset=data.name, format=data.format, fingerprint=fingerprint, n_pairs=len(data),
        kind=head.kind, tasks=list(head.tasks), scorers=list(scorers), chunk_size=chunk_size,
        explorer_version=__version__, created_at=_now(), records=records,
        phenomena=list(check_names(phenomena)),
    )
    write_manifest(directory, manifest)
    return manifest


def refuse_foreign(directory: Path) -> None:
    """Refuse a folder that holds files but no batch (before anything is put in it).

    Raises:
        BatchError: naming the folder.
    """
    if (directory / MANIFEST).exists() or not directory.exists():
        return
    if not directory.is_dir() or any(p.name != LOCK for p in directory.iterdir()):
        raise BatchError(f"{directory} exists and is not a batch folder; choose an empty or new --out folder")


def write_chunk(directory: Path, index: int, pairs: Sequence[Pair], start: int,
                scores: Mapping[str, Sequence[object]], schema: pa.Schema | None = None) -> Path:
    """Write one chunk from its pairs and scores (a temporary file, then a rename), with the
    phenomena columns the folder's manifest names (computed here when ``scores`` lacks them)."""
    phenomena = read_manifest(directory).phenomena
    scorers = [name for name in scores if "__" not in name and not name.startswith(PHENOMENON_PREFIX)]
    if any(phenomenon_column(n) not in scores for n in phenomena):
        scores = {**scores, **phenomena_columns(pairs, phenomena)}
    return write_table(directory, index, chunk_table(pairs, start, scores, scorers, phenomena))


def _todo(directory: Path, manifest: Manifest, damaged: list[tuple[str, str]] | None = None) -> list[int]:
    """Chunks still to score: those with no finished file, and, when ``damaged`` is given,
    those whose file does not pass :func:`explorer.batch.folder.damage` (removed, and
    listed in ``damaged`` with the reason)."""
    done = finished_chunks(directory)
    todo = []
    for index in range(manifest.n_chunks):
        path = done.get(index)
        if path is not None:
            if damaged is None:
                continue
            why = damage(path, index=index, rows=manifest.chunk_rows(index), exact_rows=not manifest.records,
                         chunk_size=manifest.chunk_size)
            if why is None:
                continue
            damaged.append((f"{CHUNK_DIR}/{path.name}", why))
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

    import dask
    from distributed import LocalCluster

    n = workers or os.cpu_count() or 1
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        # the workers are given the configuration as they start, so it holds for them too
        with dask.config.set(QUIET_TIMERS):
            return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                                dashboard_address=None, scheduler_kwargs=QUIET_SCHEDULER,
                                silence_logs=logging.ERROR)
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
    data: Dataset | FileSource | str | Path,
    scorers: Sequence[str],
    out: str | Path,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    scheduler: str | None = None,
    workers: int | None = None,
    client: Any = None,
    progress: Callable[[Progress], None] | None = None,
    max_chunks: int | None = None,
    chunk_done: Callable[[ChunkDone], None] | None = None,
    phenomena: Sequence[str] | None = None,
) -> BatchSummary:
    """Score ``data`` with ``scorers`` into the batch folder ``out`` (resuming it).

    Args:
        data: a dataset file (scanned and read in ranges by the workers when its format
            allows, see :mod:`explorer.batch.source`), a scanned file, or a loaded dataset.
        scheduler: address of an existing Dask scheduler (``tcp://host:8786``); None
            starts a local cluster of ``workers`` processes (default: one per core).
        client: an existing ``distributed.Client`` to use instead of either.
        max_chunks: stop after scoring this many chunks (for tests and benchmarks of
            resuming); the folder is left resumable.
        chunk_done: called with each finished chunk's summary (timings, for benchmarks).
        phenomena: the phenomena each chunk carries as ``ph_`` columns (None: every fast
            one, about a fifth of a batch of fast scorers' CPU; ``[]``: none); a resumed
            batch keeps its own.

    Raises:
        BatchError: for a folder holding another batch or written by another run, a bad
            chunk size, a scheduler that cannot be reached, or a chunk that failed (a
            malformed record, a full disk, a worker lost); the finished chunks are kept.
        DatasetError: for a dataset file that cannot be read.
    """
    if isinstance(data, str | Path):
        data = open_source(data, chunk_size)
    directory = Path(out)
    refuse_foreign(directory)
    with writing(directory) as writable:
        if not writable:
            return _read_only(data, scorers, directory, chunk_size=chunk_size)
        return _run_locked(data, scorers, directory, chunk_size=chunk_size, scheduler=scheduler, workers=workers,
                           client=client, progress=progress, max_chunks=max_chunks, chunk_done=chunk_done,
                           phenomena=phenomena)


def _read_only(data: Dataset | FileSource, scorers: Sequence[str], directory: Path, *,
               chunk_size: int) -> BatchSummary:
    """A batch folder nobody may write: a complete result of this very batch, every chunk
    passing its check, is reported as found; anything else cannot go on here.

    Raises:
        BatchError: for another batch, or one with chunks still to score or damaged.
    """
    if not (directory / MANIFEST).exists():
        raise BatchError(f"{directory} cannot be written (a read-only disk or folder); give a writable --out folder")
    manifest = prepare(data, scorers, directory, chunk_size=chunk_size)  # reads and compares only
    done = finished_chunks(directory)
    missing = [i for i in range(manifest.n_chunks) if i not in done]
    damaged = [path.name for index, path in sorted(done.items())
               if damage(path, index=index, rows=manifest.chunk_rows(index), exact_rows=not manifest.records,
                         chunk_size=manifest.chunk_size) is not None]
    if manifest.complete and not missing and not damaged:
        return BatchSummary(directory, manifest, 0, manifest.n_chunks, 0.0, 0)
    left = (f"{len(missing)} of its {manifest.n_chunks} chunks are still to score" if missing or not manifest.complete
            else f"chunk {damaged[0]} is damaged")
    raise BatchError(f"{directory} cannot be written (a read-only disk or folder) and {left}: copy the folder to a "
                     "writable disk and run the same command with --out naming the copy to finish it")


def _run_locked(data: Dataset | FileSource, scorers: Sequence[str], directory: Path, *, chunk_size: int,
                scheduler: str | None, workers: int | None, client: Any,
                progress: Callable[[Progress], None] | None, max_chunks: int | None,
                chunk_done: Callable[[ChunkDone], None] | None,
                phenomena: Sequence[str] | None = None) -> BatchSummary:
    """:func:`run_batch` with the folder's lock held."""
    from distributed import as_completed

    manifest = prepare(data, scorers, directory, chunk_size=chunk_size, phenomena=phenomena)
    _remove_stale_temporaries(directory / CHUNK_DIR)
    redone: list[tuple[str, str]] = []
    todo = _todo(directory, manifest, redone)
    if todo and manifest.complete:  # a damaged chunk: complete again only once it is redone
        manifest.complete = False
        write_manifest(directory, manifest)
    skipped_chunks = manifest.n_chunks - len(todo)
    total = manifest.records or manifest.n_pairs
    skipped_pairs = total - sum(manifest.chunk_rows(i) for i in todo)
    if max_chunks is not None:
        todo = todo[:max_chunks]
    start_time = work_start = time.perf_counter()
    done_pairs = done_chunks = 0
    summary = BatchSummary(directory, manifest, 0, skipped_chunks, 0.0, 0, redone=redone)
    notes: dict[str, None] = {}

    def report() -> None:
        if progress is not None:
            progress(Progress(done_pairs, skipped_pairs, total, skipped_chunks + done_chunks,
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
            file = data if isinstance(data, FileSource) else None
            shared = all(own_client.run(can_share, str(file.path.resolve()) if file else None,
                                        file.size if file else 0, str(directory.resolve())).values())
            summary.shared_files = shared
            window = max(1, threads * IN_FLIGHT_PER_THREAD)
            # Rates count from here: starting the cluster and warming the scorers is
            # a fixed cost, not a per-pair one (the summary's seconds include it).
            work_start = time.perf_counter()
            report()
            pending = iter(todo)
            tag = manifest.fingerprint[-10:]
            names = tuple(manifest.scorers)
            phenomena = tuple(manifest.phenomena)
            target = str(directory.resolve()) if shared else None
            limits = current_limits()  # the client's, so the workers refuse what it would

            def task(index: int) -> ChunkTask:
                position = index * manifest.chunk_size
                if file is None:
                    assert isinstance(data, Dataset)
                    chunk = tuple(compact_pair(p) for p in data.pairs[position: position + manifest.chunk_rows(index)])
                    return ChunkTask(index, position, names, data.name, pairs=chunk, out=target, limits=limits,
                                     phenomena=phenomena)
                r = file.ranges[index]
                try:
                    where = {"path": str(file.path.resolve())} if shared else {"raw": read_range(file, index)}
                except SourceChanged as err:
                    raise failure(ChunkFailed(index, "changed", str(err)), directory,
                                  skipped_chunks + done_chunks) from None
                return ChunkTask(index, position, names, file.name, fmt=file.format, span=(r.start, r.end),
                                 header=file.header, header_lines=file.header_lines, first_line=r.first_line,
                                 first_record=r.first_record, out=target, limits=limits, phenomena=phenomena,
                                 stamp=file.stamp, **where)

            def submit(index: int) -> Any:
                future = own_client.submit(run_chunk, task(index), pure=False, key=f"explorer-batch-{tag}-{index}")
                future.chunk_index = index
                return future

            running = as_completed([submit(i) for _, i in zip(range(window), pending, strict=False)])  # type: ignore[no-untyped-call]
            for future in running:
                index = future.chunk_index
                kept = skipped_chunks + done_chunks
                try:
                    done: ChunkDone | ChunkFailed = future.result()
                except Exception as err:  # a worker that died or lost its scheduler
                    done = ChunkFailed(index, "error", f"{type(err).__name__}: {err}")
                if isinstance(done, ChunkFailed):
                    raise failure(done, directory, kept)
                if done.table is not None:  # the workers cannot write in the output folder
                    try:
                        write_table(directory, index, done.table)
                    except OSError as err:
                        raise failure(ChunkFailed(index, "write", err.strerror or str(err), err.errno),
                                      directory, kept) from None
                future.release()
                notes.update(dict.fromkeys(done.notes))
                if chunk_done is not None:
                    chunk_done(done)
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
    summary.notes = list(notes)
    if not _todo(directory, manifest) and not (manifest.complete and not redone and not done_chunks):
        _complete(directory, manifest, data)  # a result found complete and whole is not written again
    return summary


def failure(failed: ChunkFailed, directory: Path, kept: int) -> BatchError:
    """A chunk's failure as the run's error: what went wrong where, and what to do."""
    import errno

    resume = f"the {kept} finished chunks are kept: run the same command again to resume"
    if failed.kind == "changed":  # nothing read from the changed file was kept
        return BatchError(f"{failed.message}. Put the file back as it was and run the same command again to resume "
                          f"(the {kept} finished chunks, all read before the change, are kept), or score the new "
                          "file into another --out folder")
    if failed.kind == "data":  # the file itself: running again will not help
        return BatchError(f"chunk {failed.index} cannot be read: {failed.message}. Fix the file and run again "
                          "with a new --out folder (a changed file is another batch)")
    if failed.kind == "write":
        full = failed.errno in (errno.ENOSPC, errno.EDQUOT)
        fix = "free some space" if full else "make the folder writable"
        return BatchError(f"chunk {failed.index} could not be written in {directory / CHUNK_DIR}: "
                          f"{failed.message}; {fix}, then run the same command again to resume "
                          f"(the {kept} finished chunks are kept)")
    if failed.kind == "read":
        return BatchError(f"chunk {failed.index}: a worker could not read the dataset file ({failed.message}); {resume}")
    return BatchError(f"chunk {failed.index} failed on the cluster ({failed.message}); {resume}")


def _complete(directory: Path, manifest: Manifest, data: Dataset | FileSource) -> None:
    """Mark a batch whose every chunk is written as complete: its refusals, and for a file
    read in ranges what only the whole shows (rows, kind, tasks, notes, unique ids).

    Raises:
        BatchError: when a pair id occurs in two chunks (the loader refuses that file).
    """
    if isinstance(data, Dataset):
        manifest.notes = list(data.notes)
    else:
        import duckdb

        source = str(directory / CHUNK_DIR / CHUNK_GLOB).replace("'", "''")
        con = duckdb.connect()
        try:
            con.execute("SET enable_progress_bar = false")
            rel = f"read_parquet('{source}')"
            duplicate = con.execute(f"SELECT id FROM {rel} GROUP BY id HAVING count(*) > 1 LIMIT 1").fetchone()
            if duplicate is not None:
                raise BatchError(f"{data.path}: pair id {duplicate[0]!r} occurs more than once; ids must be unique "
                                 "(the scores are kept in the chunks, but the result is not marked complete)")
            counted = con.execute(f"SELECT count(*), count(*) - count(label), count(gold_score) FROM {rel}").fetchone()
            assert counted is not None  # an aggregate has a row
            rows, unlabelled, graded = counted
            labels = {r[0] for r in con.execute(f"SELECT DISTINCT label FROM {rel} WHERE label IS NOT NULL").fetchall()}
            tasks = sorted(r[0] for r in con.execute(
                f"SELECT DISTINCT task FROM {rel} WHERE task IS NOT NULL AND task <> ''").fetchall())
        except duckdb.Error as err:  # a chunk damaged while this run went on
            raise storage_error(directory, err) from None
        finally:
            con.close()
        manifest.kind = ("three_way" if labels & {"neutral", "contradiction"} else "binary") if labels else (
            "graded" if graded else "unlabelled")
        manifest.tasks = tasks
        manifest.n_pairs = int(rows)
        manifest.notes = whole_notes(rows, unlabelled, manifest.records, labelled=bool(labels))
    manifest.complete = True
    manifest.refused = refusals(directory, manifest)
    write_manifest(directory, manifest)
    # what the pages paint first, so a new app server opens the result at once
    import duckdb

    from explorer.batch.query import BatchResult

    try:
        BatchResult.open(directory).precompute()
    except (BatchError, OSError, duckdb.Error):  # the pages compute it then; the scores are safe
        pass


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


__all__ = ["DEFAULT_CHUNK_SIZE", "BatchSummary", "Progress", "prepare", "refusals", "run_batch", "write_chunk"]
