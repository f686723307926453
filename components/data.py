"""Dataset sources and cached dataset computations for the pages.

A dataset is identified by a content hash (:attr:`LoadedDataset.key`), so caches stay
valid across reruns and the same file loaded twice is scored once. All computation is
the library's (:mod:`explorer.datasets`, :mod:`explorer.evaluation`); this module only
caches it and finds the files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import streamlit as st

from explorer.datasets import Dataset, load_bytes
from explorer.evaluation import best_cutoff, score_pairs
from explorer.scorers import SCORERS

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"
#: The dataset the app opens on.
DEFAULT_SAMPLE = SAMPLE_DIR / "rte_sample.xml"
#: Built-in samples offered on the Dataset page, display name -> file.
SAMPLES: dict[str, Path] = {
    "RTE-style sample (70 pairs, binary, 7 tasks)": DEFAULT_SAMPLE,
    "CSV sample (3-way labels)": SAMPLE_DIR / "pairs.csv",
}
#: Pairs are scored in chunks of this size so the progress bar moves and each chunk is
#: cached on its own.
CHUNK = 100


@dataclass(frozen=True)
class LoadedDataset:
    """A dataset with its content hash and where it came from (for display)."""

    dataset: Dataset
    key: str
    origin: str

    @property
    def name(self) -> str:
        return self.dataset.name

    @property
    def binary_labels(self) -> bool:
        """Whether every pair has an entailment label (3-way labels count: entailment
        against the rest)."""
        return self.dataset.kind in ("binary", "three_way")


def content_key(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


# cache_resource, not cache_data: a Dataset is frozen, so every session can share one
# copy instead of unpickling its own on each rerun.
@st.cache_resource(show_spinner=False, max_entries=32)
def _parse(data: bytes, name: str) -> Dataset:
    return load_bytes(data, name)


def load_uploaded(data: bytes, name: str, *, origin: str = "uploaded file") -> LoadedDataset:
    """Load bytes as a dataset (cached by content).

    Raises:
        DatasetError: with the library's message; nothing is returned in part.
    """
    return LoadedDataset(_parse(data, name), content_key(data), origin)


def load_file(path: Path, *, origin: str) -> LoadedDataset:
    """Load a file from disk (cached by content).

    Raises:
        DatasetError: when the file is missing or malformed.
    """
    from explorer.datasets import DatasetError

    try:
        data = path.read_bytes()
    except OSError as err:
        raise DatasetError(f"{path}: cannot read ({err.strerror})") from None
    return load_uploaded(data, path.name, origin=origin)


def default_dataset() -> LoadedDataset:
    return load_file(DEFAULT_SAMPLE, origin="built-in sample")


def nltk_rte_files() -> dict[str, Path]:
    """The RTE XML files of NLTK's ``rte`` corpus on this machine, name -> path (empty
    when the corpus is not installed)."""
    import nltk

    try:
        root = Path(str(nltk.data.find("corpora/rte")))
    except LookupError:
        return {}
    if not root.is_dir():  # a zip-only install; the loader needs plain files
        return {}
    return {p.name: p for p in sorted(root.glob("*.xml"))}


@st.cache_data(show_spinner=False, max_entries=2048)
def _chunk_scores(key: str, scorer: str, start: int, _pairs: Sequence[object]) -> np.ndarray:
    # ``key`` + ``start`` identify the chunk; the pairs themselves are not hashed.
    return score_pairs(_pairs, scorer)  # type: ignore[arg-type]


#: (dataset key, scorer) pairs scored in full in this process: the Pair page tunes a slow
#: scorer's cutoff only when its dataset scores are already at hand.
_SCORED: set[tuple[str, str]] = set()


def dataset_scores(
    loaded: LoadedDataset, scorer: str, *, progress: Callable[[int, int], None] | None = None
) -> np.ndarray:
    """Every pair's score under one registered scorer, cached per chunk of pairs."""
    pairs = loaded.dataset.pairs
    parts = []
    for start in range(0, len(pairs), CHUNK):
        parts.append(_chunk_scores(loaded.key, scorer, start, pairs[start : start + CHUNK]))
        if progress is not None:
            progress(min(start + CHUNK, len(pairs)), len(pairs))
    _SCORED.add((loaded.key, scorer))
    return np.concatenate(parts) if parts else np.empty(0)


def is_scored(loaded: LoadedDataset, scorer: str) -> bool:
    """Whether the whole dataset has been scored with this scorer (so it is cached)."""
    return (loaded.key, scorer) in _SCORED


def gold(loaded: LoadedDataset) -> np.ndarray:
    """Entailment as booleans (entailment against everything else)."""
    return np.array([bool(p.entails) for p in loaded.dataset.pairs], dtype=bool)


@st.cache_data(show_spinner=False, max_entries=256)
def _best_cutoff(key: str, scorer: str, _scores: np.ndarray, _gold: np.ndarray) -> tuple[float, float]:
    return best_cutoff(_scores, _gold)


def dataset_best_cutoff(loaded: LoadedDataset, scorer: str) -> tuple[float, float] | None:
    """The best cutoff for a scorer on a labelled dataset and its accuracy (None when the
    dataset has no entailment labels)."""
    if not loaded.binary_labels or any(p.entails is None for p in loaded.dataset.pairs):
        return None
    return _best_cutoff(loaded.key, scorer, dataset_scores(loaded, scorer), gold(loaded))


#: The cutoff used when none can be tuned (no labels, or a slow scorer not yet run).
FALLBACK_CUTOFF = 0.5


@dataclass(frozen=True)
class Cutoff:
    value: float
    source: str


#: Cutoffs chosen on more data than a dataset holds, by dataset key: a page of a batch
#: result opened on the Pair page keeps the cutoffs of the whole result
#: (:mod:`components.sections.batch_results` fills it).
KNOWN_CUTOFFS: dict[str, dict[str, Cutoff]] = {}


def default_cutoff(loaded: LoadedDataset, scorer: str) -> Cutoff:
    """The best cutoff on the loaded dataset when it has entailment labels (a trained
    classifier's own cutoff for scorers that have one; for a page of a batch result, the
    best on the whole result)."""
    fixed = SCORERS[scorer].cutoff
    if fixed is not None:
        return Cutoff(fixed, "the model's own decision")
    known = KNOWN_CUTOFFS.get(loaded.key, {}).get(scorer)
    if known is not None:
        return known
    if not loaded.binary_labels:
        return Cutoff(FALLBACK_CUTOFF, "default (no labelled dataset)")
    if SCORERS[scorer].interactive or is_scored(loaded, scorer):
        best = dataset_best_cutoff(loaded, scorer)
        if best is not None:
            return Cutoff(best[0], f"best on {loaded.name} ({100 * best[1]:.1f}%)")
    return Cutoff(FALLBACK_CUTOFF, "default (slow method: evaluate it on the Evaluate page to tune the cutoff)")
