"""The word-similarity matrix behind an aligner's links, with the source of each cell.

An aligner that reads its links off a word-similarity matrix says which one through a
``word_similarity()`` method (bag-of-words, the ITG variants, MANLI, the pFSM / pPDA, the
``embed`` aligner). :func:`similarity_view` computes that matrix for a pair, and for each
cell the component that gave it its value (``identity``, ``levenshtein``,
``wordnet_synonyms``, ``ppdb``, ``embedding``, ...: :meth:`explorer.lexical.LexicalSimilarity.source`),
so the Pair page can show why a link was, or was not, made (what SimAlign draws).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.errors import ExplorerError
from explorer.limits import Limits, check, lexical_words
from explorer.preprocess import AnalyzedPair

__all__ = ["SOURCE_LABELS", "NoSimilarityError", "SimilarityView", "similarity_view"]

#: How each source is named on screen.
SOURCE_LABELS: dict[str, str] = {
    "identity": "same word",
    "lemma": "same lemma",
    "levenshtein": "spelling (Levenshtein)",
    "numbers": "same number or date",
    "names": "name variant",
    "ppdb": "PPDB paraphrase",
    "wordnet_synonyms": "WordNet synonym",
    "hypernyms": "WordNet hypernym",
    "derivation": "WordNet derivation",
    "ic_measure": "WordNet information content (Lin)",
    "embedding": "static embedding (cosine)",
    "": "no evidence",
}


class NoSimilarityError(ExplorerError, ValueError):
    """An aligner whose links are not read off a word-similarity matrix."""


@dataclass(frozen=True)
class SimilarityView:
    """A pair's word-similarity matrix as one aligner sees it.

    Attributes:
        values: ``(len(text), len(hypothesis))`` similarities (cosines may be negative).
        sources: the component behind each cell (keys of :data:`SOURCE_LABELS`).
    """

    values: np.ndarray
    sources: tuple[tuple[str, ...], ...]

    def label(self, i: int, j: int) -> str:
        name = self.sources[i][j]
        return SOURCE_LABELS.get(name, name)


def similarity_view(aligner: object, pair: AnalyzedPair, *, limits: Limits | None = None) -> SimilarityView:
    """``aligner``'s word similarity on ``pair``, with each cell's source.

    Raises:
        NoSimilarityError: when the aligner has no ``word_similarity()``.
        explorer.limits.LimitError: for a pair past the limits of a lexical look-up.
    """
    get = getattr(aligner, "word_similarity", None)
    if get is None:
        raise NoSimilarityError(f"the {getattr(aligner, 'name', type(aligner).__name__)} aligner reads its links "
                                "off no word-similarity matrix")
    check("similarity matrix", len(pair.text), len(pair.hypothesis), model="bow", limits=limits,
          words=lexical_words(pair))
    similarity = get()
    values = np.asarray(similarity.matrix(pair.text, pair.hypothesis), dtype=float).reshape(
        len(pair.text), len(pair.hypothesis))
    named = getattr(similarity, "source_matrix", None)
    sources: Sequence[Sequence[str]] = (
        named(pair.text, pair.hypothesis) if named is not None
        else [["identity" if v >= 1.0 else "" for v in row] for row in values.tolist()]
    )
    return SimilarityView(values, tuple(tuple(row) for row in sources))
