"""The layout of a batch result on disk: a folder with a manifest and Parquet chunks.

::

    OUT/
      batch.json                 the manifest (what was scored, how, and how far)
      chunks/chunk-000000.parquet
      chunks/chunk-000001.parquet
      ...

One row per pair. Columns, in order:

``position`` (int64, the pair's index in the dataset), ``id``, ``task``, ``label`` (the
label as loaded: entailment / non-entailment / neutral / contradiction, or null),
``entails`` (bool: entailment against the rest; null when unlabelled), ``gold_score``
(the graded score, if any), ``text``, ``hypothesis``; then per scorer ``S``: ``S`` (its
value, float64; null when the scorer refused the pair or gave no finite number),
``S__error`` (why it is null, else null) and its breakdown columns ``S__FIELD`` (float64,
see :func:`breakdown`); then per phenomenon ``P`` the manifest names (the fast ones of
:data:`explorer.groups.phenomena.FAST`) ``ph_P`` (bool, float64 or string as its kind; null
where the pair could not be analysed or a limit refused it).

Format 1 results (written before the phenomena columns) have none: their manifest lists no
phenomena, and they open and resume as they were.

A chunk file is written under a temporary name (``.chunk-000001.parquet.tmp-...``, which
no reader globs) and renamed when complete, so a chunk file that exists is whole.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from explorer.errors import ExplorerError

__all__ = [
    "CHUNK_DIR", "DEFAULT_CHUNK_SIZE", "MAX_CHUNK_SIZE", "MIN_CHUNK_SIZE", "CHUNK_GLOB", "FORMAT_VERSION", "MANIFEST", "PAIR_COLUMNS", "BatchError", "Manifest", "arrow_schema",
    "breakdown", "breakdown_column", "chunk_index", "chunk_name", "error_column", "finished_chunks", "read_manifest",
    "scorer_columns", "write_manifest",
]

MANIFEST = "batch.json"
#: Pairs per chunk unless told (here, not in the runner, so the command line's options need
#: no Dask to be imported).
DEFAULT_CHUNK_SIZE = 2000
#: Chunk sizes outside these bounds are refused (too small: scheduling overhead per
#: pair; too large: a kill loses too much and a chunk's table must fit a worker).
MIN_CHUNK_SIZE, MAX_CHUNK_SIZE = 1, 100_000
CHUNK_DIR = "chunks"
CHUNK_GLOB = "chunk-*.parquet"
#: 2: the ``ph_`` phenomena columns and the manifest's ``phenomena``.
FORMAT_VERSION = 2
#: A phenomenon's column is its name after this prefix.
PHENOMENON_PREFIX = "ph_"
_CHUNK_NAME = re.compile(r"^chunk-(\d{6})\.parquet$")

def breakdown(scorer: str) -> tuple[str, ...]:
    """A scorer's breakdown fields: the scalars of its result worth filtering and sorting
    by, as its registry row names them (``ScorerInfo.breakdown``; none for a name no row
    has, e.g. a scorer since removed, read from an old batch)."""
    from explorer.scorers import SCORERS

    info = SCORERS.get(scorer)
    return info.breakdown if info is not None else ()


#: The pair columns every chunk starts with.
PAIR_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("position", pa.int64()),
    ("id", pa.string()),
    ("task", pa.string()),
    ("label", pa.string()),
    ("entails", pa.bool_()),
    ("gold_score", pa.float64()),
    ("text", pa.string()),
    ("hypothesis", pa.string()),
)


class BatchError(ExplorerError, ValueError):
    """A batch that cannot be run or read as asked; the message says what to do."""


def error_column(scorer: str) -> str:
    return f"{scorer}__error"


def breakdown_column(scorer: str, field_name: str) -> str:
    return f"{scorer}__{field_name}"


def scorer_columns(scorer: str) -> list[str]:
    """The columns one scorer adds: value, error, breakdown."""
    return [scorer, error_column(scorer), *(breakdown_column(scorer, f) for f in breakdown(scorer))]


def phenomenon_column(name: str) -> str:
    return f"{PHENOMENON_PREFIX}{name}"


def phenomenon_type(name: str) -> pa.DataType:
    """The Arrow type of a phenomenon's column, from its kind."""
    from explorer.groups.phenomena import PHENOMENA

    kind = PHENOMENA[name].kind
    return pa.bool_() if kind == "bool" else pa.float64() if kind == "number" else pa.string()


def arrow_schema(scorers: Sequence[str], phenomena: Sequence[str] = ()) -> pa.Schema:
    fields = [pa.field(name, kind) for name, kind in PAIR_COLUMNS]
    for scorer in scorers:
        fields.append(pa.field(scorer, pa.float64()))
        fields.append(pa.field(error_column(scorer), pa.string()))
        fields.extend(pa.field(breakdown_column(scorer, f), pa.float64()) for f in breakdown(scorer))
    fields.extend(pa.field(phenomenon_column(name), phenomenon_type(name)) for name in phenomena)
    return pa.schema(fields)


def chunk_name(index: int) -> str:
    return f"chunk-{index:06d}.parquet"


def chunk_index(name: str) -> int | None:
    """The chunk number of a finished chunk file's name (None for anything else)."""
    match = _CHUNK_NAME.match(name)
    return int(match.group(1)) if match else None


@dataclass
class Manifest:
    """What a batch folder holds. Written when the run starts; updated when it ends.

    A re-run with the same data, scorers and chunk size resumes; anything else is
    refused, so a folder never mixes two batches.
    """

    dataset: str
    format: str
    fingerprint: str
    n_pairs: int
    kind: str
    tasks: list[str]
    scorers: list[str]
    chunk_size: int
    explorer_version: str
    created_at: str
    format_version: int = FORMAT_VERSION
    complete: bool = False
    #: scorer -> number of pairs it refused (null value), once complete.
    refused: dict[str, int] = field(default_factory=dict)
    #: scorer -> stored run id, once registered in the store.
    runs: dict[str, int] = field(default_factory=dict)
    store: str | None = None
    store_dataset_id: int | None = None
    #: Records (non-blank lines) of a file read in ranges (0: the pairs were loaded
    #: whole). Chunks are of records; a record the loader skips (an SNLI pair with an
    #: empty sentence) is no row, so ``n_pairs`` is the rows once complete.
    records: int = 0
    #: The loader's notes on the data (e.g. pairs kept unlabelled), once complete.
    notes: list[str] = field(default_factory=list)
    #: The phenomena every chunk has as ``ph_`` columns (none in a format 1 result).
    phenomena: list[str] = field(default_factory=list)

    @property
    def n_chunks(self) -> int:
        return -(-(self.records or self.n_pairs) // self.chunk_size)

    def chunk_rows(self, index: int) -> int:
        """Rows of chunk ``index`` (at most that many for a file read in ranges)."""
        return min(self.chunk_size, (self.records or self.n_pairs) - index * self.chunk_size)

    @property
    def phenomenon_columns(self) -> dict[str, str]:
        """Phenomenon name -> its column (what the slice language's SQL reads)."""
        return {name: phenomenon_column(name) for name in self.phenomena}

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


def read_manifest(directory: str | Path) -> Manifest:
    """The manifest of a batch folder.

    Raises:
        BatchError: when the folder holds no batch result, or one of a newer format.
    """
    path = Path(directory) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BatchError(f"{directory}: no batch result here (no {MANIFEST}); run `python -m explorer batch DATA --out {directory}`") from None
    except ValueError as err:  # cut short or overwritten: the chunks may be fine, the manifest is not
        raise BatchError(
            f"{path}: the manifest is damaged (cut short? {err}). Without it the chunks cannot be matched to "
            f"their data: delete the folder {directory} and run the `batch` command again (it scores the data "
            "anew), or give it another --out folder") from None
    except OSError as err:
        raise BatchError(f"{path}: cannot read the manifest ({err.strerror or err})") from None
    if not isinstance(data, dict) or data.get("format_version", 0) > FORMAT_VERSION:
        raise BatchError(f"{path}: written by a newer explorer (format {data.get('format_version')!r}); upgrade to read it")
    try:
        return Manifest.from_json(data)
    except TypeError as err:
        raise BatchError(f"{path}: not a batch manifest ({err})") from None


def write_manifest(directory: str | Path, manifest: Manifest) -> None:
    """Write the manifest atomically (temporary file, then rename)."""
    path = Path(directory) / MANIFEST
    tmp = path.with_name(f".{MANIFEST}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(manifest.to_json(), indent=2), encoding="utf-8")
    os.replace(tmp, path)


def finished_chunks(directory: str | Path) -> dict[int, Path]:
    """Chunk number -> file, for every finished chunk file in a batch folder."""
    folder = Path(directory) / CHUNK_DIR
    if not folder.is_dir():
        return {}
    found = {}
    for path in folder.iterdir():
        index = chunk_index(path.name)
        if index is not None:
            found[index] = path
    return found
