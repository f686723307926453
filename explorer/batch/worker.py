"""What runs on a Dask worker: score one chunk of pairs with every chosen scorer.

Scorers come from :func:`explorer.scorers.get_scorer`, which builds each one once per
process, so a worker loads models and lexical resources (MANLI weights, the Brown
information table, WordNet, the numba kernels) once, not per chunk; :class:`WarmScorers`
does that as the worker starts, so the first chunk is not slower than the rest.

Each pair is analysed (tokenised) once and shared by all scorers, which score a chunk
through :func:`explorer.api.score_many`: a scorer's own ``score_many`` where it has one
(the BLEU family, BLEU-n and WER leave out what only the Pair page draws, n-gram
positions and the WER edit alignment; the edit-distance models score in one batch), else
one pair at a time. A pair a scorer refuses (a bounded method's limit, a side too long to
tokenise, any error of the method) gets a null value and the reason; the chunk goes on.
Measured in docs/BENCHMARKS.md: tokenising a pair costs more than any of these scorers.
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
from distributed.diagnostics.plugin import WorkerPlugin

from explorer.api import breakdown_value, score_many
from explorer.batch.folder import seal
from explorer.batch.schema import (
    CHUNK_DIR,
    arrow_schema,
    breakdown,
    breakdown_column,
    chunk_name,
    error_column,
    phenomenon_column,
)
from explorer.limits import Limits, using
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair

if TYPE_CHECKING:
    from distributed import Worker

#: Longest refusal reason kept per pair.
MAX_REASON = 300

Row = tuple[float, dict[str, float | None]]


def _reason(err: BaseException) -> str:
    text = f"{type(err).__name__}: {err}"
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float | np.integer | np.floating):
        v = float(value)
        return v if math.isfinite(v) else None
    return None


#: A chunk's columns by name: each column one value (or None) per pair.
Columns = dict[str, Sequence[object]]


def compact_pair(pair: Pair) -> Pair:
    """The part of a pair a chunk needs (no gold alignment, no note): less to ship."""
    return Pair(id=pair.id, text=pair.text, hypothesis=pair.hypothesis, label=pair.label, task=pair.task,
                score=pair.score, text_tokens=pair.text_tokens, hypothesis_tokens=pair.hypothesis_tokens)


def pair_table(pairs: Sequence[Pair], start: int) -> Columns:
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


def chunk_table(pairs: Sequence[Pair], start: int, scores: Mapping[str, Sequence[object]], scorers: Sequence[str],
                phenomena: Sequence[str] = ()) -> pa.Table:
    """One chunk as an Arrow table: pair columns, then every scorer's, then the phenomena's
    (``scores`` holds the scorers' and the phenomena's columns)."""
    schema = arrow_schema(scorers, phenomena)
    columns = pair_table(pairs, start)
    columns.update(scores)
    return pa.table({name: columns[name] for name in schema.names}, schema=schema)


def _owner() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def temporary_name(index: int) -> str:
    """A chunk's name while it is written: hidden, and naming the host and process
    writing it (so a later run removes only those of dead processes)."""
    return f".{chunk_name(index)}.tmp-{_owner()}"


def write_table(directory: str | Path, index: int, table: pa.Table) -> Path:
    """Write one chunk: a temporary file, its checksum, then an atomic rename
    (:func:`explorer.batch.folder.seal`)."""
    import pyarrow.parquet as pq

    folder = Path(directory) / CHUNK_DIR
    final = folder / chunk_name(index)
    tmp = folder / temporary_name(index)
    try:
        pq.write_table(table, tmp, compression="zstd")
        seal(tmp, final, _owner())
    finally:
        tmp.unlink(missing_ok=True)
    return final


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of work, small to ship: where its pairs are and where it goes.

    The pairs are one of: ``path`` (the worker reads bytes ``span`` of the dataset
    file itself), ``raw`` (those bytes, sent by a client whose workers cannot see the
    file) or ``pairs`` (a loaded dataset's pairs). With ``out`` the worker writes the
    Parquet chunk there; without, it returns the table for the client to write.
    """

    index: int
    position: int
    scorers: tuple[str, ...]
    name: str
    fmt: str = ""
    path: str | None = None
    raw: bytes | None = None
    span: tuple[int, int] = (0, 0)
    header: bytes = b""
    header_lines: int = 0
    first_line: int = 1
    first_record: int = 1
    pairs: tuple[Pair, ...] | None = None
    out: str | None = None
    limits: Limits | None = None  # the client's per-pair limits (the defaults when None)
    phenomena: tuple[str, ...] = ()  # the manifest's: written as ``ph_`` columns
    #: ``path``'s size and modification time when it was scanned, checked after the read
    stamp: tuple[int, int] | None = None


@dataclass(frozen=True)
class ChunkFailed:
    """A chunk that could not be done, sent back as a value: a task that raised would
    have Dask print the worker's traceback on the terminal before the run's own error.

    ``kind``: ``data`` (the dataset file is malformed there), ``changed`` (the dataset file
    changed since it was scanned: nothing read from it is kept), ``read`` (the worker could
    not read the dataset file), ``write`` (nor write the chunk: a full disk, a read-only
    folder) or ``error`` (anything else, e.g. the worker ran out of memory).
    """

    index: int
    kind: str
    message: str
    errno: int | None = None


@dataclass
class ChunkDone:
    """What a worker sends back: a few numbers, or the table when the client writes."""

    index: int
    rows: int
    seconds: float
    notes: tuple[str, ...] = ()
    table: pa.Table | None = None
    timings: dict[str, float] = field(default_factory=dict)


def task_pairs(task: ChunkTask) -> tuple[Sequence[Pair], tuple[str, ...]]:
    """The pairs of a chunk task and the loader's notes about them."""
    if task.pairs is not None:
        return task.pairs, ()
    from explorer.batch.source import check_unchanged, parse_range
    from explorer.datasets import MAX_FILE_BYTES
    from explorer.datasets.reading import decode

    data = task.raw
    if data is None:
        assert task.path is not None
        with open(task.path, "rb") as f:
            f.seek(task.span[0])
            data = f.read(task.span[1] - task.span[0])
            if task.stamp is not None:
                check_unchanged(task.path, task.stamp, os.fstat(f.fileno()))
    padding = b"\n" * max(0, task.first_line - 1 - task.header_lines)
    text = decode(task.header + padding + data, task.name, max_bytes=MAX_FILE_BYTES)
    return parse_range(task.fmt, text, task.name, task.first_record)


def _forget_pairs() -> None:
    """Drop the per-pair caches a chunk filled. They serve the scorers of one pair, and in
    a batch no pair comes back, so across chunks they only grow the worker. Over 60,000 pairs
    a bleu worker peaked at 426 MiB with the BLEU n-gram counts kept (65,536 entries), and at
    276 MiB with them dropped per chunk (docs/BENCHMARKS.md)."""
    import sys

    bleu = sys.modules.get("explorer.metrics.bleu")
    if bleu is not None:
        bleu.order_counts.cache_clear()


def run_chunk(task: ChunkTask) -> ChunkDone | ChunkFailed:
    """Read, score and (with ``task.out``) write one chunk; what went wrong as a
    :class:`ChunkFailed` (a malformed record names its line; the run stops there)."""
    from explorer.batch.source import SourceChanged
    from explorer.datasets import DatasetError

    stage = "read"  # what an OSError interrupted: reading the dataset file, or writing the chunk
    try:
        begin = time.perf_counter()
        pairs, notes = task_pairs(task)
        read = time.perf_counter()
        stage = "score"
        with using(task.limits):
            scores = score_chunk(pairs, task.scorers)
            detected = time.perf_counter()
            scores.update(phenomena_columns(pairs, task.phenomena))
        _forget_pairs()
        scored = time.perf_counter()
        table = chunk_table(pairs, task.position, scores, task.scorers, task.phenomena)
        timings = {"read": read - begin, "score": detected - read, "phenomena": scored - detected}
        if task.out is not None:
            stage = "write"
            write_table(task.out, task.index, table)
            table = None
        timings["write"] = time.perf_counter() - scored
        return ChunkDone(task.index, len(pairs), time.perf_counter() - begin, notes, table, timings)
    except SourceChanged as err:
        return ChunkFailed(task.index, "changed", str(err))
    except DatasetError as err:
        return ChunkFailed(task.index, "data", str(err))
    except OSError as err:
        if stage != "score":
            return ChunkFailed(task.index, stage, err.strerror or str(err), err.errno)
        return ChunkFailed(task.index, "error", f"{type(err).__name__}: {err}")
    except Exception as err:  # the worker's own trouble (memory, a bug): reported by the client
        return ChunkFailed(task.index, "error", f"{type(err).__name__}: {err}")


def can_share(path: str | None, size: int, out: str) -> bool:
    """Whether this worker sees the dataset file (same size) and can write chunks in
    ``out`` (run on every worker before a batch starts)."""
    if path is not None:
        try:
            if os.path.getsize(path) != size:
                return False
        except OSError:
            return False
    probe = Path(out) / CHUNK_DIR / f".probe-{socket.gethostname()}-{os.getpid()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


def score_chunk(pairs: Sequence[Pair], scorers: Sequence[str]) -> Columns:
    """Every scorer's columns for one chunk of pairs (see :mod:`explorer.batch.schema`).

    Never raises for a pair: a refusal is a null value with its reason.
    """
    analysed: list[AnalyzedPair | None] = []
    analysis_error: list[str | None] = []
    for pair in pairs:
        try:
            analysed.append(analyze_pair(pair))
            analysis_error.append(None)
        except Exception as err:  # a side the tokenizer refuses: every scorer refuses it
            analysed.append(None)
            analysis_error.append(_reason(err))
    columns: Columns = {}
    for name in scorers:
        columns.update(_score_with(name, analysed, analysis_error))
    return columns


def phenomena_columns(pairs: Sequence[Pair], names: Sequence[str]) -> Columns:
    """The ``ph_`` columns of one chunk (:mod:`explorer.groups.phenomena`). Never raises for a
    pair: one that cannot be analysed has no phenomena (nulls), a refused detector a null."""
    from explorer.groups.phenomena import phenomenon_values

    rows: list[Mapping[str, object]] = []
    for pair in pairs:
        try:
            rows.append(phenomenon_values(pair, names))
        except Exception:  # a side the tokenizer refuses: its scorers' columns say why
            rows.append({})
    return {phenomenon_column(name): [row.get(name) for row in rows] for name in names}


def _score_with(name: str, analysed: Sequence[AnalyzedPair | None],
                analysis_error: Sequence[str | None]) -> Columns:
    """One scorer's columns for analysed pairs (None where analysis failed): its value,
    the reason it refused a pair, and the breakdown its registry row names."""
    from explorer.scorers import get_scorer

    n = len(analysed)
    values: list[float | None] = [None] * n
    errors: list[str | None] = list(analysis_error)
    fields: dict[str, list[float | None]] = {f: [None] * n for f in breakdown(name)}
    todo = [i for i in range(n) if analysed[i] is not None]
    try:
        results = score_many(get_scorer(name), [a for a in analysed if a is not None])
    except Exception as err:  # the scorer cannot even be built: every pair refused
        reason = _reason(err)
        errors = [e or reason for e in errors]
        todo, results = [], []
    for i, result in zip(todo, results, strict=True):
        if isinstance(result, Exception):  # a refusal (bounded method) or a method's error
            errors[i] = _reason(result)
            continue
        values[i] = float(result.value)
        for f, column in fields.items():
            column[i] = _number(breakdown_value(result, f))
    for i, got_value in enumerate(values):
        if got_value is not None and not math.isfinite(got_value):
            values[i] = None
            errors[i] = errors[i] or f"the value {got_value} is not a finite number"
    out: Columns = {name: values, error_column(name): errors}
    for f, column in fields.items():
        out[breakdown_column(name, f)] = column
    return out


#: A short pair every scorer can score: running it once per worker compiles the numba
#: kernels and loads each model before the first chunk.
_PROBE = Pair(id="probe", text="Two small dogs ran across the green park today.",
              hypothesis="Two dogs ran in a park.")


def warm(scorers: Sequence[str]) -> dict[str, str]:
    """Build every scorer and score one probe pair; scorer -> error text for those that
    failed (they will refuse their pairs in the chunks)."""
    failed = {}
    for name in scorers:
        try:
            score_chunk([_PROBE], [name])
        except Exception as err:  # reported, not fatal: chunks record the refusals
            failed[name] = _reason(err)
    return failed


class WarmScorers(WorkerPlugin):
    """A Dask worker plugin that warms the scorers when a worker starts (or joins)."""

    name = "explorer-warm-scorers"

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def setup(self, worker: Worker) -> None:
        warm(self.names)
