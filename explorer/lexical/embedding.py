"""Static word embeddings read offline from the table and tokenizer the ``wordllama`` wheel
ships (WordLlama ``l2_supercat``, 256 dimensions: the token embeddings of a Llama-2
vocabulary of 32,000 subword tokens, trained by Miller (2024) to be averaged into sentence
vectors).

wordllama 0.4.0's own loader (``WordLlama.load()``) looks for the tokenizer in a folder
the wheel does not have, and then downloads it. This module never imports ``wordllama``
(importing it also configures the root logger); it finds the installed package's folder
and reads its two files itself: the safetensors table (:data:`WEIGHTS_FILE`, float16) with
``safetensors`` and the tokenizer (:data:`TOKENIZER_FILE`) with ``tokenizers``. Nothing is
fetched from anywhere (``tests/unit/test_embedding.py`` loads and scores with sockets
blocked).

A word's vector is the mean of its subword tokens' vectors, scaled to unit length; a phrase
or sentence's vector is the mean over all of its words' subword tokens (wordllama's
average pooling), unit length too. Similarity is the cosine of two vectors, in [-1, 1].
Whole matrices are computed at once with numpy (:meth:`StaticEmbeddings.similarity`).

Loading takes about 0.2 s and 17 MB (the float16 table; docs/BENCHMARKS.md,
"Embeddings"); the constructor does no IO, the first call loads.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explorer.errors import ExplorerError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

#: The package whose wheel ships the table, and its pinned version (requirements.txt).
PACKAGE = "wordllama"
PINNED = "wordllama==0.4.0.post1"
#: The two files read, relative to the installed package's folder.
WEIGHTS_FILE = "weights/l2_supercat_256.safetensors"
TOKENIZER_FILE = "tokenizers/l2_supercat_tokenizer_config.json"
#: The tensor holding the table in the safetensors file.
TENSOR = "embedding.weight"
#: What the UI calls the model.
MODEL_LABEL = "WordLlama l2_supercat, 256 dimensions (static token embeddings)"
#: Bytes the kept subword ids may take (each word, its tuple of ids and their int objects, as
#: Python holds them): a budget in bytes, not words, since one 20,000-character token holds
#: thousands of ids. Past it the cache starts again, empty.
MAX_CACHED_ID_BYTES = 32 * 2**20
#: Bytes the kept unit vectors may take (about 1.1 kB per short word, more for a long key).
MAX_CACHED_VECTOR_BYTES = 24 * 2**20
#: What a dict entry and an int object cost Python on top of what ``sys.getsizeof`` counts.
_ENTRY_BYTES = 100
_INT_BYTES = 28


class EmbeddingError(ExplorerError, RuntimeError):
    """The embedding table cannot be read (the package is missing or its files are)."""


def package_folder() -> Path:
    """The installed ``wordllama`` package's folder, found without importing it.

    Raises:
        EmbeddingError: when the package is not installed.
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise EmbeddingError(
            f"the embedding table comes with the {PACKAGE} package, which is not installed; "
            f"install it with `pip install {PINNED}` (it is in requirements.txt)"
        )
    return Path(spec.origin).parent


@dataclass(frozen=True)
class EmbeddingFiles:
    """The two files the table is read from."""

    weights: Path
    tokenizer: Path

    @classmethod
    def shipped(cls) -> EmbeddingFiles:
        """The files inside the installed package."""
        folder = package_folder()
        return cls(folder / WEIGHTS_FILE, folder / TOKENIZER_FILE)


def is_available() -> bool:
    """Whether the shipped table and tokenizer are on disk (nothing is loaded)."""
    try:
        files = EmbeddingFiles.shipped()
    except EmbeddingError:
        return False
    return files.weights.is_file() and files.tokenizer.is_file()


@dataclass(frozen=True)
class LoadInfo:
    """How loading went: seconds, the table's shape and its bytes in memory."""

    seconds: float
    vocabulary: int
    dimensions: int
    table_bytes: int


class StaticEmbeddings:
    """Word, phrase and sentence vectors from a static token-embedding table.

    Args:
        files: where to read the table and tokenizer; the shipped ones by default.
    """

    def __init__(self, files: EmbeddingFiles | None = None) -> None:
        self._files = files
        self._lock = threading.Lock()
        self._table: np.ndarray | None = None
        self._tokenizer: Tokenizer | None = None
        self._ids: dict[str, tuple[int, ...]] = {}
        self._id_bytes = 0
        self._vectors: dict[str, np.ndarray] = {}
        self._vector_bytes = 0
        self.load_info: LoadInfo | None = None

    # -- loading ---------------------------------------------------------------------

    def _loaded(self) -> tuple[np.ndarray, Tokenizer]:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    self._load()
        assert self._table is not None and self._tokenizer is not None
        return self._table, self._tokenizer

    def _load(self) -> None:
        started = time.perf_counter()
        files = self._files or EmbeddingFiles.shipped()
        for path in (files.weights, files.tokenizer):
            if not path.is_file():
                raise EmbeddingError(f"the embedding file {path} is missing; reinstall it with `pip install --force-reinstall {PINNED}`")
        from safetensors import safe_open
        from tokenizers import Tokenizer

        try:
            with safe_open(str(files.weights), framework="np") as handle:
                table = np.ascontiguousarray(handle.get_tensor(TENSOR))
            tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as err:  # a damaged file: say which, in the project's terms
            raise EmbeddingError(f"cannot read the embedding table ({type(err).__name__}: {err})") from err
        if table.ndim != 2:
            raise EmbeddingError(f"{files.weights}: expected a 2-d table, got shape {table.shape}")
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        self._table = table
        self.load_info = LoadInfo(time.perf_counter() - started, table.shape[0], table.shape[1], table.nbytes)

    @property
    def dimensions(self) -> int:
        return int(self._loaded()[0].shape[1])

    # -- tokens ----------------------------------------------------------------------

    def token_ids(self, words: Sequence[str]) -> list[tuple[int, ...]]:
        """Each word's subword token ids (no special tokens; out-of-range ids dropped)."""
        table, tokenizer = self._loaded()
        missing = [w for w in dict.fromkeys(words) if w not in self._ids]
        fresh: dict[str, tuple[int, ...]] = {}
        if missing:
            vocabulary = table.shape[0]
            for word, encoding in zip(missing, tokenizer.encode_batch(missing, add_special_tokens=False)):
                fresh[word] = tuple(i for i in encoding.ids if 0 <= i < vocabulary)
                size = sys.getsizeof(word) + sys.getsizeof(fresh[word]) + _INT_BYTES * len(fresh[word]) + _ENTRY_BYTES
                if self._id_bytes + size > MAX_CACHED_ID_BYTES:
                    self._ids, self._id_bytes = {}, 0
                self._ids[word] = fresh[word]
                self._id_bytes += size
        ids = self._ids
        return [fresh[w] if w in fresh else ids[w] if w in ids else _encode_one(tokenizer, w, table.shape[0])
                for w in words]

    def cached_bytes(self) -> int:
        """What the kept subword ids and vectors take, by this class's own count."""
        return self._id_bytes + self._vector_bytes

    def forget_words(self) -> None:
        """Let go of the kept subword ids and vectors (a process over its memory budget
        sheds them; they are recomputed on demand). The table stays."""
        self._ids, self._id_bytes = {}, 0
        self._vectors, self._vector_bytes = {}, 0

    def subword_tokens(self, word: str) -> list[str]:
        """The subword pieces of one word, as the tokenizer writes them (``▁car``)."""
        _, tokenizer = self._loaded()
        return list(tokenizer.encode(word, add_special_tokens=False).tokens)

    # -- vectors ---------------------------------------------------------------------

    def word_vectors(self, words: Sequence[str]) -> np.ndarray:
        """``(len(words), dimensions)`` unit vectors, one per word: the mean of its subword
        tokens' vectors (a zero row for a word without tokens). Kept per word."""
        table, _ = self._loaded()
        kept = self._vectors
        missing = [w for w in dict.fromkeys(words) if w not in kept]
        fresh = dict(zip(missing, self._compute_vectors(missing))) if missing else {}
        for word, vector in fresh.items():
            # A copy: a row of the batch would keep the whole batch's array alive.
            size = sys.getsizeof(word) + sys.getsizeof(vector.copy()) + _ENTRY_BYTES
            if self._vector_bytes + size > MAX_CACHED_VECTOR_BYTES:
                kept = self._vectors = {}
                self._vector_bytes = 0
            kept[word] = vector.copy()
            self._vector_bytes += size
        if not words:
            return np.zeros((0, table.shape[1]), dtype=np.float32)
        return np.stack([fresh[w] if w in fresh else kept[w] for w in words])

    def _compute_vectors(self, words: Sequence[str]) -> np.ndarray:
        table, _ = self._loaded()
        ids = self.token_ids(words)
        out = np.zeros((len(words), table.shape[1]), dtype=np.float32)
        lengths = np.array([len(t) for t in ids], dtype=np.int64)
        rows = np.flatnonzero(lengths)
        if rows.size:
            flat = np.fromiter((i for r in rows.tolist() for i in ids[r]), dtype=np.int64, count=int(lengths.sum()))
            starts = np.concatenate(([0], np.cumsum(lengths[rows])[:-1]))
            sums = np.add.reduceat(table[flat].astype(np.float32), starts, axis=0)
            out[rows] = sums / lengths[rows, None]
        return _unit(out)

    def text_vector(self, words: Sequence[str]) -> np.ndarray:
        """One unit vector for a phrase or sentence: the mean over every subword token of
        every word (a zero vector when there is none)."""
        table, _ = self._loaded()
        flat = [i for ids in self.token_ids(words) for i in ids]
        if not flat:
            return np.zeros(table.shape[1], dtype=np.float32)
        vector = table[np.asarray(flat, dtype=np.int64)].astype(np.float32).mean(axis=0)
        unit: np.ndarray = _unit(vector[None, :])[0]
        return unit

    # -- similarity ------------------------------------------------------------------

    def similarity(self, a_words: Sequence[str], b_words: Sequence[str]) -> np.ndarray:
        """Cosine of every word of ``a_words`` (rows) with every word of ``b_words``
        (columns); identical words score exactly 1, a word without tokens 0."""
        if not a_words or not b_words:
            return np.zeros((len(a_words), len(b_words)))
        unique = list(dict.fromkeys([*a_words, *b_words]))
        vectors = self.word_vectors(unique)
        index = {w: k for k, w in enumerate(unique)}
        a = vectors[[index[w] for w in a_words]]
        b = vectors[[index[w] for w in b_words]]
        out: np.ndarray = np.clip((a @ b.T).astype(np.float64), -1.0, 1.0)
        same = np.equal.outer(np.array(a_words, dtype=object), np.array(b_words, dtype=object)).astype(bool)
        nonzero = np.outer(a.any(axis=1), b.any(axis=1))
        out[same & nonzero] = 1.0
        return out

    def text_similarity(self, a_words: Sequence[str], b_words: Sequence[str]) -> float:
        """Cosine of the two texts' vectors (:meth:`text_vector`)."""
        return float(np.clip(self.text_vector(a_words) @ self.text_vector(b_words), -1.0, 1.0))


def _encode_one(tokenizer: Tokenizer, word: str, vocabulary: int) -> tuple[int, ...]:
    """A word's ids when the cache was cleared under it (another thread filled it)."""
    return tuple(i for i in tokenizer.encode(word, add_special_tokens=False).ids if 0 <= i < vocabulary)


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
    return unit


@lru_cache(maxsize=1)
def shared_embeddings() -> StaticEmbeddings:
    """The process's one instance (the table is loaded once, on first use)."""
    return StaticEmbeddings()
