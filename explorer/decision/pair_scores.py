"""Every labelled pair's score under each scorer, kept on disk by the cutoff job.

Choosing a dataset's cutoffs (:func:`explorer.decision.cutoffs.compute`, run by the app's
background job, :mod:`runtime.cutoff_jobs`) scores every labelled pair with every scorer. Those scores
are kept here, one ``.npy`` file of float64 per (dataset fingerprint, scorer), in
``scores/`` beside the cached cutoffs (:func:`explorer.cache.cutoff_dir`), so the Pair
page can show a pair's verdicts, slow methods included, without scoring it again
(:func:`value`). Entry ``i`` is the score of the ``i``-th labelled pair of the dataset
(:func:`explorer.decision.cutoffs.labelled`); NaN where the scorer refused the pair. The fingerprint
covers the pairs' ids, texts and labels and :data:`explorer.decision.cutoffs.CACHE_VERSION`, so an
edited dataset or a changed scorer (which bumps the version) never reads old scores.

Bounds, checked before any scoring: datasets of more than :data:`MAX_PAIRS` labelled pairs
are not kept (:func:`storable`); at most :data:`MAX_DATASETS` datasets' files are kept (the
least recently written go first). A file that cannot be written or read is simply absent:
the page then scores the pair itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from explorer.cache import cutoff_dir, prune_datasets, save_array

__all__ = [
    "MAX_DATASETS", "MAX_PAIRS", "SUFFIX", "folder", "has", "load", "path", "prune", "save", "storable", "value",
]

#: Datasets with more labelled pairs keep no per-pair scores (24 scorers x 50,000 pairs x 8
#: bytes is under 10 MB on disk).
MAX_PAIRS = 50_000
#: Score files of at most this many datasets (fingerprints) are kept.
MAX_DATASETS = 32
SUFFIX = ".npy"


def folder() -> Path:
    return cutoff_dir() / "scores"


def path(fp: str, scorer: str, source: str) -> Path:
    return folder() / f"{fp}-{source}-{scorer}{SUFFIX}"


def storable(n_pairs: int) -> bool:
    """Whether a dataset of ``n_pairs`` labelled pairs keeps its per-pair scores."""
    return 0 < n_pairs <= MAX_PAIRS


def has(fp: str, scorer: str, source: str) -> bool:
    return path(fp, scorer, source).is_file()


def save(fp: str, scorer: str, source: str, scores: np.ndarray) -> None:
    """Write one scorer's scores atomically, then drop the oldest datasets past
    :data:`MAX_DATASETS`. Never raises for an unwritable cache."""
    if save_array(path(fp, scorer, source), np.asarray(scores, dtype=np.float64)):
        prune(keep=fp)


def prune(keep: str | None = None, limit: int | None = None) -> None:
    """Remove the score files of all but the ``limit`` (:data:`MAX_DATASETS`) most recently
    written datasets; ``keep`` (the one being written) always stays."""
    prune_datasets(folder(), SUFFIX, MAX_DATASETS if limit is None else limit, keep)


def load(fp: str, scorer: str, source: str) -> np.ndarray | None:
    """One scorer's stored scores (memory-mapped, read only), or None."""
    try:
        found = np.load(path(fp, scorer, source), mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError):
        return None
    return found if found.ndim == 1 else None


def value(fp: str, scorer: str, source: str, index: int, n_pairs: int) -> float | None:
    """The stored score of the ``index``-th of ``n_pairs`` labelled pairs, or None (no file,
    a file of another length, or a pair the scorer refused)."""
    scores = load(fp, scorer, source)
    if scores is None or len(scores) != n_pairs or not 0 <= index < n_pairs:
        return None
    found = float(scores[index])
    return found if np.isfinite(found) else None
