"""The bag-of-words aligner: MacCartney, Galley & Manning's (2008, §5) baseline.

Each hypothesis token is aligned to its most similar text token. The paper's similarity
is the string resemblance ``1 - lev(lemma_h, lemma_t) / max(|lemma_h|, |lemma_t|)``
(:func:`explorer.lexical.levenshtein_similarity`; identical lemmas score 1); the shipped
aligner takes the max of it and the lexical similarity's static-embedding component
(``0.85 x cosine`` of the two lemmas' vectors where it reaches 0.5), which transferred
across the RTE sets and both gold corpora (docs/RESULTS.md, "Static embeddings"). The
alignment's score is

    score = (1 / |H|) * sum over h of idf(h) * log max_t sim(h, t)

which is at most 0 (every hypothesis word found verbatim) and falls as hypothesis
words, weighted by how informative they are, go unmatched. ``log 0`` is avoided by
flooring the similarity at :data:`SIM_FLOOR`.

idf comes from the Brown corpus (NLTK ``brown``), treating each of its 500 files as
a document: ``idf(w) = log((1 + 500) / (1 + df(w)))`` on lower-cased words, so a word
in every file weighs 0 and an unseen word ``log 501 ≈ 6.2``. The table is built once
(~5 s) and cached on disk (:mod:`explorer.cache`); without Brown every word weighs 1.
A hypothesis token is looked up as written (lower case), then by its lemma.

``min_similarity`` (default 0: every hypothesis token is linked, as in the paper)
leaves a hypothesis token unaligned when even its best match is weaker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from explorer import resources
from explorer.alignment import Alignment
from explorer.api import ResultMixin
from explorer.lexical import LexicalConfig, LexicalSimilarity
from explorer.limits import Limits, check, lexical_words
from explorer.preprocess import AnalyzedPair

__all__ = [
    "IDF_CACHE_NAME", "LEXICAL", "PAPER_LEXICAL", "SIM_FLOOR", "BowAligner", "BowResult", "BowScorer", "brown_idf",
    "idf",
]

SIM_FLOOR = 0.01
#: The paper's similarity: Levenshtein on lemmas.
PAPER_LEXICAL = LexicalConfig.only("levenshtein")
#: The shipped similarity: the paper's and static embeddings (kept on by the transfer rule:
#: docs/RESULTS.md, "Static embeddings").
LEXICAL = PAPER_LEXICAL.enable("embedding")
IDF_CACHE_NAME = "idf-brown-files-v1.json"


@lru_cache(maxsize=1)
def brown_idf() -> dict[str, float]:
    """idf of lower-cased words over Brown's 500 files (empty without Brown); the
    number of documents is stored under the key ``""``."""
    if not resources.is_available("brown"):
        return {}
    from explorer import cache

    def compute() -> dict[str, float]:
        from nltk.corpus import brown

        df: dict[str, int] = {}
        fileids = brown.fileids()
        for fileid in fileids:
            for word in {w.lower() for w in brown.words(fileid)}:
                df[word] = df.get(word, 0) + 1
        n = len(fileids)
        table = {w: math.log((1 + n) / (1 + d)) for w, d in df.items()}
        table[""] = float(n)
        return table

    return {str(k): float(v) for k, v in cache.cached_json(IDF_CACHE_NAME, compute).items()}


def idf(word: str, lemma: str | None = None) -> float:
    """Brown idf of a word (then its lemma); unseen words get the largest value, and
    every word 1.0 when Brown is missing."""
    table = brown_idf()
    if not table:
        return 1.0
    for key in (word.lower(), lemma):
        if key and key in table:
            return table[key]
    return math.log(1 + table[""])


@dataclass(frozen=True)
class BowResult(ResultMixin):
    """A bag-of-words alignment and its score.

    Attributes:
        alignment: one link per aligned hypothesis token (token view only: two
            hypothesis tokens may share a text token).
        value: ``(1/|H|) * sum idf(h) * log sim(h)``; 0 is the best (the number
            compared to a cutoff; higher = more entailed).
        best_text: for each hypothesis token, the text token it was matched to (-1 if
            left unaligned).
        similarity: each hypothesis token's best similarity.
        weights: each hypothesis token's idf.
    """

    alignment: Alignment
    value: float
    best_text: tuple[int, ...] = field(default=())
    similarity: tuple[float, ...] = field(default=())
    weights: tuple[float, ...] = field(default=())

    @property
    def contributions(self) -> tuple[float, ...]:
        """Each hypothesis token's term ``idf * log sim / |H|`` (they sum to the value)."""
        n = len(self.similarity) or 1
        return tuple(w * math.log(max(s, SIM_FLOOR)) / n for w, s in zip(self.weights, self.similarity))

    def detail(self) -> str:
        exact = sum(s >= 1.0 for s in self.similarity)
        return f"{len(self.alignment.links)} links, {exact} of {len(self.similarity)} hypothesis words matched exactly"


class BowAligner:
    """Align each hypothesis token to its most similar text token.

    Args:
        min_similarity: hypothesis tokens whose best match is below this stay
            unaligned (0: link every token, as the paper's baseline does).
        lexical: the word similarity (:data:`LEXICAL` by default; :data:`PAPER_LEXICAL`
            is the paper's Levenshtein alone).
    """

    name = "bow"

    def __init__(self, *, min_similarity: float = 0.0, lexical: LexicalConfig | None = None) -> None:
        if not 0.0 <= min_similarity <= 1.0:
            raise ValueError(f"min_similarity must be in [0, 1], got {min_similarity}")
        self.min_similarity = min_similarity
        self._lexical = LexicalSimilarity(lexical or LEXICAL)

    def word_similarity(self) -> LexicalSimilarity:
        """The word similarity the links are read from."""
        return self._lexical

    def align(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> BowResult:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        text, hyp = pair.text, pair.hypothesis
        p_len, h_len = len(text), len(hyp)
        check(self.name, p_len, h_len, limits=limits, words=lexical_words(pair))
        if h_len == 0:
            return BowResult(Alignment(p_len, 0), 0.0)
        if p_len == 0:
            sims = np.zeros(h_len)
            best = np.full(h_len, -1)
        else:
            matrix = self._lexical.matrix(text, hyp)  # (p, h)
            best = matrix.argmax(axis=0)
            sims = matrix[best, np.arange(h_len)]
        weights = [idf(w, lemma) for w, lemma in zip(hyp.lower, hyp.lemmas)]
        score = sum(w * math.log(max(float(s), SIM_FLOOR)) for w, s in zip(weights, sims)) / h_len
        best_text = [
            int(best[h]) if best[h] >= 0 and sims[h] > 0.0 and sims[h] >= self.min_similarity else -1
            for h in range(h_len)
        ]
        # Several hypothesis tokens may pick the same text token, which one-to-one
        # phrase edits cannot express, so the result is a token alignment only.
        links = {(p, h) for h, p in enumerate(best_text) if p >= 0}
        alignment = Alignment.from_links(p_len, h_len, links)
        return BowResult(
            alignment=alignment,
            value=float(score),
            best_text=tuple(best_text),
            similarity=tuple(float(s) for s in sims),
            weights=tuple(weights),
        )


class BowScorer:
    """The bag-of-words alignment score as an entailment score (higher = more entailed)."""

    name = "bow"

    def __init__(self, *, lexical: LexicalConfig | None = None) -> None:
        self._aligner = BowAligner(lexical=lexical)

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> BowResult:
        return self._aligner.align(pair, limits=limits)
