"""PHENOMENA: pair-level detectors, each a name, one line on what it finds and a value.

A phenomenon is a property of one pair that an error analyst groups pairs by: a negation on
one side only, a number of the hypothesis the text lacks, an aligner leaving hypothesis
content words unaligned. Its value is a bool, a number or (for the task) a text; ``None``
where the method it needs refuses the pair under the limits in force (:mod:`explorer.limits`).
The detectors live in :mod:`explorer.groups.detectors`.

The fast phenomena read only the pair (tokens, tags, lemmas, WordNet); the per-aligner ones
(``unaligned_h_content_<aligner>``, ``antonym_aligned_<aligner>``, for MANLI, bag-of-words
and the ITG) run the aligner (``slow``): the app sends them to the worker pool in chunks
(:func:`phenomena_chunk`, a pool job).

:func:`phenomena_table` computes a dataset's table once: every column it computes is kept on
disk, one ``.npy`` per (dataset fingerprint, phenomenon) in ``phenomena/`` of the cache
directory (:func:`explorer.cache.cache_dir`), so the next call reads it. The fingerprint
covers the pairs' ids, texts, given tokens and tasks, :data:`CACHE_VERSION` (bumped when a
detector changes) and the limits in force (a refused pair's missing value depends on them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explorer.cache import cache_dir, content_hash, prune_datasets, save_array
from explorer.errors import ExplorerError
from explorer.groups import detectors as d
from explorer.groups.detectors import PairFacts, Value
from explorer.limits import current

if TYPE_CHECKING:
    import pandas as pd

    from explorer.pairs import Pair

#: Bumped when a detector's meaning changes, so no cached column of the old one is read.
CACHE_VERSION = 1
#: Datasets of more pairs keep no phenomena on disk (a batch result has them as columns).
MAX_CACHED_PAIRS = 50_000
#: Refuse to build a table of more pairs than this in one process (use ``batch``).
MAX_PAIRS = 100_000
#: Phenomena files of at most this many datasets are kept.
MAX_DATASETS = 32
#: Pairs per chunk: the unit of progress and of a pool job.
CHUNK_SIZE = 50
#: The aligners whose per-aligner phenomena are registered.
PHENOMENON_ALIGNERS = ("manli", "bow", "itg")
KINDS = ("bool", "number", "text")


class PhenomenonError(ExplorerError, ValueError):
    """An unknown phenomenon name or a dataset too large to tabulate."""


@dataclass(frozen=True)
class Phenomenon:
    """One pair-level detector.

    Attributes:
        name: identifier usable in the slice language (``[a-z][a-z0-9_]*``).
        description: one line: what it finds.
        kind: ``bool``, ``number`` or ``text``.
        detect: the detector (None where the method it needs refuses the pair).
        needs: resources it reads (``wordnet``, ``tagger``) or the aligner it runs.
        slow: it runs an aligner (the app computes it on the worker pool).
        slice: the built-in slice's name and expression (a bool's own name; a threshold for a
            number; empty: no built-in slice).
    """

    name: str
    description: str
    kind: str
    detect: Callable[[PairFacts], Value]
    needs: tuple[str, ...] = ()
    slow: bool = False
    slice: tuple[str, str] | tuple[()] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "bool" and not self.slice:
            object.__setattr__(self, "slice", (self.name, self.name))


def _registry() -> dict[str, Phenomenon]:
    rows = [
        Phenomenon("negation_only_in_h", "a negation word (not, never, no, ...) in the hypothesis and none in the text",
                   "bool", d.negation_only_in_h),
        Phenomenon("negation_only_in_t", "a negation word in the text and none in the hypothesis", "bool",
                   d.negation_only_in_t),
        Phenomenon("number_mismatch", "a number in the hypothesis equal to no number in the text", "bool",
                   d.number_mismatch),
        Phenomenon("name_absent", "a capitalised name in the hypothesis the text has neither as a word nor as a "
                   "variant (acronym)", "bool", d.name_absent, ("tagger",)),
        Phenomenon("antonym_pair", "a hypothesis content word with a WordNet antonym in the text", "bool",
                   d.antonym_pair, ("wordnet", "tagger")),
        Phenomenon("quantifier_one_side", "a quantifier (all, some, most, ...) on one side and not the other",
                   "bool", d.quantifier_one_side),
        Phenomenon("modal_one_side", "a modal (may, must, could, ...) on one side and not the other", "bool",
                   d.modal_one_side),
        Phenomenon("overlap", "share (0-1) of hypothesis content words whose word or lemma the text has", "number",
                   d.overlap, ("wordnet", "tagger"), slice=("low_overlap", "overlap < 0.5")),
        Phenomenon("h_length", "hypothesis tokens", "number", d.h_length, slice=("long_hypothesis", "h_length > 15")),
        Phenomenon("length_ratio", "hypothesis tokens / text tokens", "number", d.length_ratio,
                   slice=("hypothesis_half_of_text", "length_ratio > 0.5")),
        Phenomenon("task", "the corpus' task or subtask tag (empty when none)", "text", d.task),
    ]
    for aligner in PHENOMENON_ALIGNERS:
        rows += [
            Phenomenon(f"unaligned_h_content_{aligner}", f"hypothesis content words {aligner} leaves unaligned",
                       "number", partial(d.unaligned_h_content, aligner=aligner), (aligner,), slow=True,
                       slice=(f"unaligned_by_{aligner}", f"unaligned_h_content_{aligner} >= 1")),
            Phenomenon(f"antonym_aligned_{aligner}", f"{aligner} links two WordNet antonyms", "bool",
                       partial(d.antonym_aligned, aligner=aligner), (aligner, "wordnet"), slow=True),
        ]
    return {row.name: row for row in rows}


PHENOMENA: dict[str, Phenomenon] = _registry()
#: The phenomena that run no aligner, in registry order (what ``batch`` writes as columns).
FAST: tuple[str, ...] = tuple(n for n, p in PHENOMENA.items() if not p.slow)


def check_names(names: Sequence[str] | None) -> tuple[str, ...]:
    """The names, checked (None: every fast phenomenon, :data:`FAST`).

    Raises:
        PhenomenonError: naming the unknown ones and the known ones.
    """
    if names is None:
        return FAST
    unknown = [n for n in names if n not in PHENOMENA]
    if unknown:
        raise PhenomenonError(f"unknown phenomena {', '.join(unknown)}; known: {', '.join(PHENOMENA)}")
    return tuple(dict.fromkeys(names))


def _values(facts: PairFacts, names: Sequence[str]) -> dict[str, Value]:
    return {name: PHENOMENA[name].detect(facts) for name in names}


def phenomenon_values(pair: Pair, names: Sequence[str] | None = None) -> dict[str, Value]:
    """One pair's phenomena (None: every fast one); None where a method refused the pair."""
    return _values(PairFacts(pair), check_names(names))


def phenomena_chunk(pairs: Sequence[Pair], names: Sequence[str]) -> dict[str, list[Value]]:
    """Each phenomenon's values on a chunk of pairs, in order (the worker pool's job)."""
    names = check_names(names)
    rows = [_values(PairFacts(pair), names) for pair in pairs]
    return {name: [row[name] for row in rows] for name in names}


# -- the cache -------------------------------------------------------------------------

def folder() -> Path:
    return cache_dir() / "phenomena"


def fingerprint(pairs: Sequence[Pair]) -> str:
    """A hash of what the phenomena of these pairs depend on: ids, texts, given tokens,
    tasks, :data:`CACHE_VERSION` and the limits in force."""
    rows = ((p.id, p.text, p.hypothesis, p.task or "", " ".join(p.text_tokens or ()),
             " ".join(p.hypothesis_tokens or ())) for p in pairs)
    return content_hash(rows, f"phenomena-v{CACHE_VERSION}-{current()!r}")


def _path(fp: str, name: str) -> Path:
    return folder() / f"{fp}-{name}.npy"


def _encode(values: Sequence[Value]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _decode(kind: str, stored: np.ndarray) -> list[Value]:
    if kind == "bool":
        return [None if np.isnan(v) else bool(v) for v in stored]
    return [None if np.isnan(v) else float(v) for v in stored]


def _cached(fp: str, name: str, n: int) -> list[Value] | None:
    try:
        stored = np.load(_path(fp, name), allow_pickle=False)
    except (OSError, ValueError):
        return None
    if stored.ndim != 1 or len(stored) != n:
        return None
    return _decode(PHENOMENA[name].kind, stored)


def save_columns(pairs: Sequence[Pair], columns: Mapping[str, Sequence[Value]], fp: str | None = None) -> None:
    """Keep computed columns (one value per pair, in order) for the next table of the same
    pairs; the text ones (cheap) and those of datasets past :data:`MAX_CACHED_PAIRS` are not kept."""
    if not 0 < len(pairs) <= MAX_CACHED_PAIRS:
        return
    fp = fp or fingerprint(pairs)
    wrote = False
    for name, values in columns.items():
        if PHENOMENA[name].kind != "text" and len(values) == len(pairs):
            wrote = save_array(_path(fp, name), _encode(values)) or wrote
    if wrote:
        prune_datasets(folder(), ".npy", MAX_DATASETS, keep=fp)


# -- the table -------------------------------------------------------------------------

#: Computes some phenomena of a chunk of pairs: :func:`phenomena_chunk`, or the app's call
#: of it on the worker pool.
ChunkRunner = Callable[[Sequence["Pair"], Sequence[str]], Mapping[str, Sequence[Value]]]


def phenomena_table(pairs: Sequence[Pair], names: Sequence[str] | None = None, *,
                    progress: Callable[[int, int], None] | None = None,
                    run_chunk: ChunkRunner | None = None, chunk_size: int = CHUNK_SIZE) -> pd.DataFrame:
    """One row per pair in order (RangeIndex), one column per phenomenon (None: every fast
    one). Columns kept on disk for these pairs are read; the rest are computed chunk by
    chunk with ``run_chunk`` (default :func:`phenomena_chunk` in this process; the app
    passes the worker pool's) and kept. ``progress(done, total)`` after each chunk.

    Bool columns are pandas' nullable ``boolean``, numbers ``float64`` (NaN where a method
    refused the pair), the task ``object``.

    Raises:
        PhenomenonError: an unknown name, or more pairs than :data:`MAX_PAIRS`.
    """
    import pandas as pd

    names = check_names(names)
    if len(pairs) > MAX_PAIRS:
        raise PhenomenonError(f"{len(pairs):,} pairs; a phenomena table takes at most {MAX_PAIRS:,} "
                              "(a `batch` result has the fast phenomena as columns)")
    if chunk_size < 1:
        raise PhenomenonError("chunk_size must be at least 1")
    storable = 0 < len(pairs) <= MAX_CACHED_PAIRS
    fp = fingerprint(pairs) if storable else ""
    columns: dict[str, list[Value]] = {}
    for name in names:
        found = _cached(fp, name, len(pairs)) if storable else None
        if found is not None:
            columns[name] = found
    missing = [n for n in names if n not in columns]
    if missing:
        computed: dict[str, list[Value]] = {n: [] for n in missing}
        runner = run_chunk or phenomena_chunk
        for start in range(0, len(pairs), chunk_size):
            chunk = pairs[start:start + chunk_size]
            got = runner(chunk, missing)
            for name in missing:
                computed[name].extend(got[name])
            if progress is not None:
                progress(start + len(chunk), len(pairs))
        if storable:
            save_columns(pairs, computed, fp)
        columns.update(computed)
    elif progress is not None:
        progress(len(pairs), len(pairs))
    frame = pd.DataFrame(index=pd.RangeIndex(len(pairs)))
    for name in names:
        frame[name] = _series(PHENOMENA[name].kind, columns[name])
    return frame


def _series(kind: str, values: Sequence[Value]) -> pd.Series:
    import pandas as pd

    if kind == "bool":
        return pd.Series(pd.array(list(values), dtype="boolean"))
    if kind == "number":
        return pd.Series([np.nan if v is None else v for v in values], dtype="float64")
    return pd.Series(list(values), dtype="object")


def builtin_slices() -> dict[str, str]:
    """Slice name -> expression: every bool phenomenon as itself, a threshold for numbers
    (``overlap < 0.5``, ``h_length > 15``, ``unaligned_h_content_manli >= 1``)."""
    return dict(p.slice for p in PHENOMENA.values() if p.slice)


__all__ = [
    "FAST", "PHENOMENA", "PHENOMENON_ALIGNERS", "Phenomenon", "PhenomenonError", "builtin_slices", "check_names",
    "fingerprint", "phenomena_chunk", "phenomena_table", "phenomenon_values", "save_columns",
]
