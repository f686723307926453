"""Dataset sources and cached dataset computations for the pages.

A dataset is identified by a content hash (:attr:`LoadedDataset.key`), so caches stay
valid across reruns and the same file loaded twice is scored once. All computation is
the library's (:mod:`explorer.datasets`, :mod:`explorer.decision`); this module only
caches it and finds the files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import streamlit as st

from components import uploads
from explorer.cache import cache_dir, private_dir, write_private
from explorer.datasets import Dataset
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.resolve import Scored
from explorer.pairs import Pair
from explorer.scorers import SCORERS
from runtime import memory_budget

if TYPE_CHECKING:
    pass

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"
#: The dataset the app opens on.
DEFAULT_SAMPLE = SAMPLE_DIR / "typical.xml"
#: The built-in set whose every pair is a lesson about what surface methods miss.
BLIND_SPOTS = SAMPLE_DIR / "blind_spots.xml"
#: Built-in samples offered on the Dataset page, display name -> file.
SAMPLES: dict[str, Path] = {
    "Typical RTE-style pairs (56, binary, 7 tasks)": DEFAULT_SAMPLE,
    "Blind spots (28 lessons: negation, antonym, number, role swap, paraphrase, short hypothesis, embeddings)": BLIND_SPOTS,
    "CSV sample (18 pairs, 3-way labels)": SAMPLE_DIR / "pairs.csv",
}
#: What each built-in sample is for, one line each (file name -> text), shown beside it.
SAMPLE_ABOUT: dict[str, str] = {
    DEFAULT_SAMPLE.name: (
        "Hand-written RTE-style pairs: entailed hypotheses mostly restate the text, "
        "non-entailed ones change its facts, so the methods do roughly what they do on real "
        "RTE data (above chance, far from perfect)."
    ),
    BLIND_SPOTS.name: (
        "Each pair is a lesson in what surface overlap cannot see (negation, antonyms, "
        "changed numbers, swapped roles, paraphrases with few shared words, a tiny hypothesis "
        "in a long text), with a note saying what to look for. Expect the methods to fail "
        "here: that is the point. The task column names the lesson."
    ),
    "pairs.csv": "A generic CSV (3-way labels) showing the CSV format.",
}
#: Pairs are scored in chunks of this size so the progress bar moves, each chunk is cached
#: on its own and is one job on the server's workers (other visitors' jobs go between two
#: chunks); slow scorers take smaller chunks, a few seconds each.
CHUNK = 100
CHUNK_SLOW = 20


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


SAMPLE_ORIGIN, RTE_ORIGIN, UPLOAD_ORIGIN = "built-in sample", "NLTK RTE corpus", "uploaded file"


def content_key(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def load_uploaded(data: bytes, name: str, *, origin: str = "uploaded file") -> LoadedDataset:
    """Load bytes as a dataset (cached by content, shared by every session). An upload
    (``origin`` :data:`UPLOAD_ORIGIN`) is read by the bounded reader of
    :mod:`components.uploads`; the explorer's own files are parsed here.

    Raises:
        DatasetError: with the library's message, or a ``ReadLimitError`` naming the limit
            passed; nothing is returned in part.
    """
    key = content_key(data)
    loaded = LoadedDataset(uploads.read_dataset(data, name, key, isolated=origin == UPLOAD_ORIGIN), key, origin)
    uploads.keep_source(key, name, data)
    return loaded


def dataset_source(loaded: LoadedDataset) -> tuple[str, bytes] | None:
    """(file name, content) a dataset was loaded from, when it was loaded from bytes
    recently (None for datasets built in memory, e.g. a page of a batch result)."""
    return uploads.SOURCES.get(loaded.key)


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


SAMPLE_ORIGIN, RTE_ORIGIN, UPLOAD_ORIGIN = "built-in sample", "NLTK RTE corpus", "uploaded file"
MSR_ORIGIN, BATCH_ORIGIN = "MSR RTE2 dev gold", "batch result"
#: The MSR RTE2 dev gold alignments (three annotators), beside the repository in ../shared.
MSR_FILES = tuple(ROOT.parent / "shared" / "data" / "msr_align" / f"RTE2_dev_{x}.align.txt" for x in "ABC")
MSR_NAME = "rte2-dev"


def msr_available() -> bool:
    return all(path.is_file() for path in MSR_FILES)


@st.cache_resource(show_spinner="Merging the three annotators...")
def _msr_dataset() -> Dataset:
    from explorer.datasets.msr_align import load_annotators

    return load_annotators(MSR_FILES)


# One dataset of a few MB, refilled from disk in seconds: cleared after every cache that knows its size.
memory_budget.register("MSR gold alignments", lambda: 0, _msr_dataset.clear, last=True)


def load_msr() -> LoadedDataset:
    """The MSR RTE2 dev gold alignments, the three annotators merged (800 problems).

    Raises:
        DatasetError: the files are missing or malformed.
    """
    return LoadedDataset(_msr_dataset(), "msr-rte2-dev-abc", MSR_ORIGIN)


#: Uploaded files kept on this server so the URL can name them: the newest this many, and
#: together at most :data:`UPLOADS_KEPT_BYTES`.
UPLOADS_KEPT = 50
UPLOADS_KEPT_BYTES = 1024 * 1024 * 1024
_UPLOAD_KEY = re.compile(r"[0-9a-f]{16}")


def uploads_dir() -> Path:
    """Where uploads are kept for ``?dataset=upload:KEY`` (and the list of batch result
    folders a URL can name, :mod:`components.batch_folders`): ``$EXPLORER_UPLOADS_DIR``,
    else ``uploads`` in the user cache (never the repository)."""
    explicit = os.environ.get("EXPLORER_UPLOADS_DIR")
    return Path(explicit).expanduser() if explicit else cache_dir() / "uploads"


def remember_upload(data: bytes, name: str) -> LoadedDataset:
    """Load an uploaded file and keep a copy on this server, named by its content hash, so
    a reload or a copied link (``?dataset=upload:KEY``) reopens it. Only the newest
    :data:`UPLOADS_KEPT`, together at most :data:`UPLOADS_KEPT_BYTES`, are kept; where the
    cache is not writable, the URL just does not name the upload.

    Raises:
        DatasetError: the file does not load (nothing is kept then).
    """
    loaded = load_uploaded(data, name)
    folder = uploads_dir()
    try:
        private_dir(folder)  # other accounts on the server read neither the files nor their names
        for suffix, content in ((".name", name.encode("utf-8")), (".bin", data)):
            write_private(folder / f"{loaded.key}{suffix}", content)
        kept = sorted(((p, p.stat()) for p in folder.glob("*.bin")), key=lambda f: f[1].st_mtime, reverse=True)
        total = 0
        for number, (old, info) in enumerate(kept):
            total += info.st_size
            if number >= UPLOADS_KEPT or (number and total > UPLOADS_KEPT_BYTES):
                old.unlink(missing_ok=True)
                old.with_suffix(".name").unlink(missing_ok=True)
                _forget_stored(old.with_suffix(STORED_SUFFIX))
    except OSError:
        pass
    return loaded


#: Beside a kept upload: the store datasets its pairs were registered as (store file -> id).
STORED_SUFFIX = ".store"


def note_stored_upload(loaded: LoadedDataset, store: str, dataset_id: int) -> None:
    """Record that a kept upload's pairs are dataset ``dataset_id`` in the store file
    ``store``, so they leave the store with the upload (:func:`remember_upload` drops the
    oldest) unless someone annotated them. Nothing for other data, or an upload not kept."""
    if loaded.origin != UPLOAD_ORIGIN:
        return
    path = uploads_dir() / f"{loaded.key}{STORED_SUFFIX}"
    if not path.with_suffix(".bin").is_file():
        return
    stored = _stored(path)
    if stored.get(store) == dataset_id:
        return
    try:
        write_private(path, json.dumps({**stored, store: dataset_id}).encode("utf-8"))
    except OSError:
        pass  # the upload then stays in the store, as before


def _stored(path: Path) -> dict[str, int]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, int)} if isinstance(found, dict) else {}


def _forget_stored(path: Path) -> None:
    """A dropped upload's store datasets, removed where nobody annotated them."""
    from explorer.store import Store, StoreError

    for store, dataset_id in _stored(path).items():
        try:
            Store(store).delete_unannotated(dataset_id)
        except StoreError:
            pass  # a store gone or unwritable keeps them
    path.unlink(missing_ok=True)


def dataset_ref(loaded: LoadedDataset) -> str | None:
    """How the URL names a dataset (``sample:typical.xml``, ``rte:rte2_dev.xml``,
    ``upload:KEY`` for an upload kept by :func:`remember_upload`, ``msr:rte2-dev`` for the
    MSR gold alignments), so a reload or a copied link reopens it; None for data that
    cannot be reopened (a batch result's ref is :func:`components.batch_folders.ref_of`)."""
    if loaded.origin == SAMPLE_ORIGIN:
        return f"sample:{loaded.name}"
    if loaded.origin == RTE_ORIGIN:
        return f"rte:{loaded.name}"
    if loaded.origin == UPLOAD_ORIGIN and (uploads_dir() / f"{loaded.key}.bin").is_file():
        return f"upload:{loaded.key}"
    if loaded.origin == MSR_ORIGIN:
        return f"msr:{MSR_NAME}"
    return None


def load_ref(ref: str) -> LoadedDataset | None:
    """The dataset a :func:`dataset_ref` names, or None when it names nothing available
    (only files listed in the sample directory or NLTK's RTE corpus, kept uploads and the
    MSR gold alignments are opened; a batch result is :mod:`components.batch_folders`'). An
    upload is read again under the upload limits.

    Raises:
        DatasetError: the named file no longer loads, or passes a limit.
    """
    from explorer.datasets.reading import check_size

    kind, _, name = ref.partition(":")
    if kind == "sample":
        files = {p.name: p for p in SAMPLE_DIR.iterdir() if p.is_file() and p.name != "README.md"}
        path = files.get(name)
        return load_file(path, origin=SAMPLE_ORIGIN) if path else None
    if kind == "rte":
        path = nltk_rte_files().get(name)
        return load_file(path, origin=RTE_ORIGIN) if path else None
    if kind == "upload" and _UPLOAD_KEY.fullmatch(name):  # a hash, never a path
        path = uploads_dir() / f"{name}.bin"
        try:
            file_name = (uploads_dir() / f"{name}.name").read_text(encoding="utf-8")
            check_size(path.stat().st_size, file_name, uploads.LIMITS.bytes)  # before it is read
            data = path.read_bytes()
        except OSError:
            return None
        return load_uploaded(data, file_name)
    if kind == "msr" and name == MSR_NAME and msr_available():
        return load_msr()
    return None


def nltk_rte_files() -> dict[str, Path]:
    """The RTE XML files of NLTK's ``rte`` corpus on this machine, name -> path (empty
    when the corpus is not installed)."""
    from explorer.resources import import_nltk

    nltk = import_nltk()

    try:
        root = Path(str(nltk.data.find("corpora/rte")))
    except LookupError:
        return {}
    if not root.is_dir():  # a zip-only install; the loader needs plain files
        return {}
    return {p.name: p for p in sorted(root.glob("*.xml"))}


def _chunk_scores(key: str, scorer: str, start: int, pairs: Sequence[Pair]) -> np.ndarray:
    """One chunk's scores, kept for the whole server (``key`` + ``start`` identify the
    chunk; the pairs themselves are not hashed), computed on a worker."""
    from components import analysis, workers
    from runtime.pool import cost, tasks

    label = SCORERS[scorer].label if scorer in SCORERS else scorer
    scores: np.ndarray = analysis.kept(
        ("chunk", key, scorer, start, len(pairs)),
        lambda: workers.run(tasks.score_chunk, list(pairs), scorer,
                            what=f"Scoring pairs {start + 1:,}-{start + len(pairs):,} with {label}",
                            long=cost.is_long(pairs, [scorer])))
    return scores


#: (dataset key, scorer) pairs scored in full in this process: the Pair page tunes a slow
#: scorer's cutoff only when its dataset scores are already at hand.
_SCORED: set[tuple[str, str]] = set()


def reset() -> None:
    """Forget what this process has scored and been told about datasets (the scored set,
    the batch results' cutoffs and scores, the fingerprints), and the
    uploads it holds: a fresh process as far as cutoffs go. For tests, which must not see
    what an earlier test scored; the server never needs it."""
    _SCORED.clear()
    KNOWN_CUTOFFS.clear()
    KNOWN_SCORES.clear()
    _LABELLED.clear()
    uploads.reset()


def stored_dataset_scores(loaded: LoadedDataset, scorer: str) -> np.ndarray | None:
    """The scores of a dataset's labelled pairs that its background cutoff job stored
    (:mod:`explorer.decision.pair_scores`), when every one of them is there (a pair the
    scorer refused is not: the page then scores, and reports the refusal); else None."""
    from explorer.decision import pair_scores
    from explorer.decision.cutoffs import DATASET

    fp = fingerprint_of(loaded)
    if fp is None:
        return None
    found = pair_scores.load(fp, scorer, DATASET)
    if found is None or len(found) != labelled_count(loaded) or not np.isfinite(found).all():
        return None
    return found


def dataset_scores(
    loaded: LoadedDataset, scorer: str, *, progress: Callable[[int, int], None] | None = None,
    span: tuple[int, int] | None = None,
) -> np.ndarray:
    """Every pair's score under one registered scorer, cached per chunk of pairs. Chunks of
    labelled pairs whose scores the background cutoff job stored are read, not scored
    (:func:`stored_dataset_scores`): no work done twice. ``span`` (first, end): only those
    pairs' scores (a page of a large dataset; ``first`` a multiple of :data:`CHUNK` so its
    chunks are the whole dataset's)."""
    pairs = loaded.dataset.pairs
    stored = stored_dataset_scores(loaded, scorer)
    mask = labelled_mask(loaded) if stored is not None else None
    at = np.cumsum(mask) - 1 if mask is not None else None  # each pair's index among the labelled
    parts = []
    size = CHUNK if scorer not in SCORERS or SCORERS[scorer].capabilities.interactive else CHUNK_SLOW
    first, last = span if span is not None else (0, len(pairs))
    last = min(last, len(pairs))
    for start in range(first, last, size):
        end = min(start + size, last)
        if stored is not None and mask is not None and at is not None and mask[start:end].all():
            parts.append(np.array(stored[at[start:end]], dtype=np.float64))
        else:
            parts.append(_chunk_scores(loaded.key, scorer, start, pairs[start:end]))
        if progress is not None:
            progress(end, len(pairs))
    if span is None:
        _SCORED.add((loaded.key, scorer))
    return np.concatenate(parts) if parts else np.empty(0)


def is_scored(loaded: LoadedDataset, scorer: str) -> bool:
    """Whether the whole dataset has been scored with this scorer (so it is cached)."""
    return (loaded.key, scorer) in _SCORED


def gold(loaded: LoadedDataset) -> np.ndarray:
    """Entailment as booleans (entailment against everything else)."""
    return np.array([bool(p.entails) for p in loaded.dataset.pairs], dtype=bool)


def labelled_mask(loaded: LoadedDataset) -> np.ndarray:
    """Which pairs carry an entailment label (partly labelled data, e.g. the MSR gold
    alignments joined to NLTK's 400 RTE2 labels, is evaluated on these)."""
    return np.array([p.entails is not None for p in loaded.dataset.pairs], dtype=bool)


#: Cutoffs chosen on more data than a dataset holds, by dataset key: a page of a batch
#: result opened on the Pair page keeps the cutoffs of the whole result
#: (:mod:`components.sections.batch_results` fills it).
KNOWN_CUTOFFS: dict[str, dict[str, CutoffChoice]] = {}
#: Scores stored with such a dataset's pairs, by dataset key: scorer -> pair id -> value
#: (a page of a batch result carries the values the batch stored; the Pair page reads them
#: instead of scoring). Filled and bounded by the same section.
KNOWN_SCORES: dict[str, dict[str, dict[str, float]]] = {}


T = TypeVar("T")


def per_dataset(cache: dict[str, T], loaded: LoadedDataset, build: Callable[[], T], limit: int) -> T:
    """``build()`` for a dataset, kept in ``cache`` under its key. A plain dict, not
    st.cache_data: the Pair page asks several times per run, and st.cache_data's per-call
    overhead was a measurable part of a rerun. Bounded: a full cache is emptied."""
    found = cache.get(loaded.key)
    if found is None:
        found = build()
        if len(cache) >= limit:
            cache.clear()
        cache[loaded.key] = found
    return found


#: (fingerprint, number) of each dataset's labelled pairs, by dataset key.
_LABELLED: dict[str, tuple[str, int]] = {}


def _labelled_summary(loaded: LoadedDataset) -> tuple[str, int]:
    from explorer.decision.cutoffs import fingerprint, labelled

    def build() -> tuple[str, int]:
        pairs = labelled(loaded.dataset.pairs)
        return fingerprint(pairs), len(pairs)

    return per_dataset(_LABELLED, loaded, build, 256)


def fingerprint_of(loaded: LoadedDataset) -> str | None:
    """The content fingerprint of a dataset's labelled pairs (None when it has none)."""
    return _labelled_summary(loaded)[0] if loaded.binary_labels else None


def labelled_count(loaded: LoadedDataset) -> int:
    """How many of a dataset's pairs carry an entailment label (kept with its fingerprint)."""
    return _labelled_summary(loaded)[1] if loaded.binary_labels else 0


def labelled_scores(loaded: LoadedDataset, scorer: str) -> Scored | None:
    """A scorer's scores on a dataset's labelled pairs when this process has scored the
    whole dataset with it (the Evaluate or Dataset page did), else None: nothing is scored."""
    if not loaded.binary_labels or not is_scored(loaded, scorer):
        return None
    mask = labelled_mask(loaded)
    if not mask.any():
        return None
    return Scored(loaded.name, dataset_scores(loaded, scorer)[mask], gold(loaded)[mask])
