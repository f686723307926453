"""Static word embeddings as a scorer and an aligner (:mod:`explorer.lexical.embedding`).

``embed`` scorer: the cosine of the two sentences' vectors, each the mean of the static
vectors of all of its subword tokens (wordllama's average pooling), on lower-cased tokens.
Symmetric: it measures how alike the two sentences are, not whether one follows from the
other, the classic baseline an embedding model offers.

``embed`` aligner: links over the matrix of word-vector cosines in the manner of SimAlign
(Jalili Sabet et al. 2020, §2.2), which reads alignments off a similarity matrix without
training:

1. *argmax*: text word ``i`` and hypothesis word ``j`` are linked when each is the other's
   most similar word (the maximum of its row and of its column);
2. *itermax*: for :attr:`EmbedAligner.iterations` more rounds, only words still unaligned
   compete: a cell whose two words are both aligned is out, a cell with one aligned word
   has its similarity multiplied by :attr:`EmbedAligner.discount`, and the mutual maxima
   of what is left are linked too (a word may so get a second partner: one-to-many links).

A link needs a cosine of at least :attr:`EmbedAligner.min_similarity`; punctuation may be
linked (:attr:`EmbedAligner.punctuation`: both gold corpora link it). The settings shipped
were chosen on the MSR RTE2 dev gold (docs/RESULTS.md, "Static embeddings"). The aligner's
``value`` is the hypothesis side's coverage: the mean over hypothesis words of their best
link's cosine (0 when unlinked).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.alignment import Alignment, Link
from explorer.api import ResultMixin
from explorer.lexical.embedding import StaticEmbeddings, shared_embeddings
from explorer.limits import Limits, check
from explorer.preprocess import Analysis, AnalyzedPair

#: The shipped settings: the best on the MSR RTE2 dev gold, 81.3 F1 there and 77.8 on
#: Edinburgh++ train held out (docs/RESULTS.md, "Static embeddings"); itermax rounds added
#: recall but cost more precision on MSR.
ITERATIONS = 0
DISCOUNT = 0.9
MIN_SIMILARITY = 0.6
PUNCTUATION = True


@dataclass(frozen=True)
class EmbedScore(ResultMixin):
    """The ``embed`` scorer's result.

    Attributes:
        value: the cosine of the two sentence vectors (higher = more alike).
        text_tokens, hypothesis_tokens: the subword tokens pooled on each side.
    """

    value: float
    text_tokens: int
    hypothesis_tokens: int

    def detail(self) -> str:
        return f"{self.text_tokens} text and {self.hypothesis_tokens} hypothesis subword tokens pooled"


@dataclass(frozen=True)
class EmbedAlignment(ResultMixin):
    """The ``embed`` aligner's result.

    Attributes:
        alignment: the links (token view: a word may have several partners).
        value: mean over hypothesis words of their best link's cosine (0 when unlinked).
        rounds: ``(text index, hypothesis index, round)`` per link; round 0 is the mutual
            argmax, 1 and on the itermax rounds.
    """

    alignment: Alignment
    value: float
    rounds: tuple[tuple[int, int, int], ...] = ()

    def detail(self) -> str:
        mutual = sum(r == 0 for _, _, r in self.rounds)
        return f"{len(self.alignment.links)} links, {mutual} of them mutual best matches"


def mutual_argmax(similarity: np.ndarray) -> np.ndarray:
    """Boolean matrix: the cell is the maximum of its row and of its column (and > 0).
    Ties keep the first maximum of each row and column, so no word gets two by a tie."""
    if similarity.size == 0:
        return np.zeros(similarity.shape, dtype=bool)
    rows = np.zeros(similarity.shape, dtype=bool)
    rows[np.arange(similarity.shape[0]), similarity.argmax(axis=1)] = True
    cols = np.zeros(similarity.shape, dtype=bool)
    cols[similarity.argmax(axis=0), np.arange(similarity.shape[1])] = True
    return rows & cols & (similarity > 0)


def itermax(similarity: np.ndarray, *, iterations: int = ITERATIONS, discount: float = DISCOUNT,
            min_similarity: float = MIN_SIMILARITY) -> np.ndarray:
    """The round each cell was linked in (-1: not linked): round 0 the mutual argmax of
    the cells at or above ``min_similarity``, then ``iterations`` rounds over the words
    still unaligned (see the module docstring)."""
    usable = np.where(similarity >= min_similarity, similarity, 0.0)
    linked = np.full(similarity.shape, -1, dtype=np.int64)
    linked[mutual_argmax(usable)] = 0
    for round_ in range(1, iterations + 1):
        text_done = (linked >= 0).any(axis=1)
        hyp_done = (linked >= 0).any(axis=0)
        if text_done.all() and hyp_done.all():
            break
        both = np.outer(text_done, hyp_done)
        one = np.logical_xor.outer(text_done, hyp_done)
        left = np.where(both, 0.0, np.where(one, discount * usable, usable))
        new = mutual_argmax(left) & (linked < 0)
        if not new.any():
            break
        linked[new] = round_
    return linked


class EmbeddingCosine:
    """The word-cosine matrix of an analysed pair, in the shape of the lexical similarities
    (``matrix``, ``source_matrix``), for the Pair page's heatmap."""

    def __init__(self, embeddings: StaticEmbeddings) -> None:
        self.embeddings = embeddings

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        return self.embeddings.similarity(text.lower, hypothesis.lower)

    def source_matrix(self, text: Analysis, hypothesis: Analysis) -> list[list[str]]:
        """``identity`` for equal lower-cased tokens, ``embedding`` for the rest."""
        return [["identity" if a == b else "embedding" for b in hypothesis.lower] for a in text.lower]


class _StaticEmbeddingsUser:
    """The table a method reads: the process's shared one unless given (tests give a tiny one)."""

    _embeddings: StaticEmbeddings | None = None

    @property
    def embeddings(self) -> StaticEmbeddings:
        if self._embeddings is None:
            self._embeddings = shared_embeddings()
        return self._embeddings


class EmbedScorer(_StaticEmbeddingsUser):
    """The cosine of the two sentences' pooled static vectors."""

    name = "embed"

    def __init__(self, embeddings: StaticEmbeddings | None = None) -> None:
        self._embeddings = embeddings

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> EmbedScore:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        text, hyp = pair.text.lower, pair.hypothesis.lower
        check(self.name, len(text), len(hyp), limits=limits)
        ids = self.embeddings.token_ids([*text, *hyp])
        return EmbedScore(
            value=self.embeddings.text_similarity(text, hyp),
            text_tokens=sum(len(t) for t in ids[:len(text)]),
            hypothesis_tokens=sum(len(t) for t in ids[len(text):]),
        )


class EmbedAligner(_StaticEmbeddingsUser):
    """SimAlign-style links over the static word-vector cosines.

    Args:
        iterations: itermax rounds after the mutual argmax (0: argmax only).
        discount: factor on a cell one of whose words is already aligned.
        min_similarity: the least cosine a link needs.
        punctuation: whether punctuation tokens may be linked.
    """

    name = "embed"

    def __init__(self, *, iterations: int = ITERATIONS, discount: float = DISCOUNT,
                 min_similarity: float = MIN_SIMILARITY, punctuation: bool = PUNCTUATION,
                 embeddings: StaticEmbeddings | None = None) -> None:
        if not 0 <= iterations <= 10:
            raise ValueError(f"iterations must be between 0 and 10, not {iterations}")
        if not 0.0 < discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], not {discount}")
        if not -1.0 <= min_similarity <= 1.0:
            raise ValueError(f"min_similarity must be in [-1, 1], not {min_similarity}")
        self.iterations = iterations
        self.discount = discount
        self.min_similarity = min_similarity
        self.punctuation = punctuation
        self._embeddings = embeddings

    def word_similarity(self) -> EmbeddingCosine:
        """The word similarity the links are read from."""
        return EmbeddingCosine(self.embeddings)

    def similarity(self, pair: AnalyzedPair) -> np.ndarray:
        """The cosine of every text token's vector with every hypothesis token's (lower
        case), ``(len(text), len(hypothesis))``: the matrix the links are read from (not
        kept in the result: the Pair page's heatmap asks for it)."""
        return self.embeddings.similarity(pair.text.lower, pair.hypothesis.lower)

    def linkable(self, pair: AnalyzedPair, similarity: np.ndarray) -> np.ndarray:
        """``similarity`` with the cells that may not be linked set to 0 (punctuation, unless
        :attr:`punctuation`); the links are read from this matrix."""
        usable = similarity.copy()
        if not self.punctuation:
            usable[np.asarray(pair.text.is_punct, dtype=bool), :] = 0.0
            usable[:, np.asarray(pair.hypothesis.is_punct, dtype=bool)] = 0.0
        return usable

    def align(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> EmbedAlignment:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        p_len, h_len = len(pair.text), len(pair.hypothesis)
        check(self.name, p_len, h_len, limits=limits)
        if p_len == 0 or h_len == 0:
            return EmbedAlignment(Alignment(p_len, h_len), 0.0)
        sims = self.similarity(pair)
        usable = self.linkable(pair, sims)
        linked = itermax(usable, iterations=self.iterations, discount=self.discount,
                         min_similarity=max(self.min_similarity, 1e-9))
        cells = np.argwhere(linked >= 0)
        links: set[Link] = {(int(i), int(j)) for i, j in cells}
        best = np.where(linked >= 0, sims, 0.0).max(axis=0)
        return EmbedAlignment(
            alignment=Alignment.from_links(p_len, h_len, links),
            value=float(best.mean()),
            rounds=tuple(sorted((int(i), int(j), int(linked[i, j])) for i, j in cells)),
        )
