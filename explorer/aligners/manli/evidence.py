"""MANLI's lexical evidence: token similarity, its components, and chunk boundaries.

Stage 1 of :func:`explorer.aligners.manli.features.extract`: the similarity of every
text token to every hypothesis token (from :mod:`explorer.lexical`, or
:class:`SurfaceSimilarity` without it) and each lexical component's score, and the
chunk boundaries the non-constituent features read (an NLTK ``RegexpParser`` chunker
over POS tags stands in for the paper's parser).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

import numpy as np

from explorer.aligners.manli.names import LEVENSHTEIN_FLOOR, LEXICAL_COMPONENTS

if TYPE_CHECKING:
    from explorer.preprocess import Analysis

#: Chunk grammar standing in for a parser: base noun phrases, verb groups,
#: adjective / adverb groups. Tokens outside every chunk count as one-token chunks.
CHUNK_GRAMMAR = r"""
NP: {<PDT|DT|PRP\$|POS>*<CD|JJ.*|VBN|VBG|NN.*|RB.*>*<NN.*|CD|PRP|EX>+}
VG: {<MD|TO>?<RB.*>*<VB.*>+<RP>?}
AP: {<RB.*>*<JJ.*>+}
"""


class SimilarityMatrix(Protocol):
    """Lexical similarity of every text token to every hypothesis token, in [0, 1]."""

    def matrix(self, text_analysis: Analysis, hypothesis_analysis: Analysis) -> np.ndarray: ...


@lru_cache(maxsize=1)
def _chunker():  # type: ignore[no-untyped-def]
    from nltk.chunk import RegexpParser

    return RegexpParser(CHUNK_GRAMMAR)


@lru_cache(maxsize=8192)
def chunk_boundaries(pos: tuple[str, ...]) -> tuple[bool, ...]:
    """``len(pos) + 1`` flags: True where a chunk starts or ends (between tokens)."""
    from nltk.tree import Tree

    bounds = [True] * (len(pos) + 1)
    if not pos:
        return tuple(bounds)
    tree = _chunker().parse([(str(i), tag) for i, tag in enumerate(pos)])
    i = 0
    for node in tree:
        if isinstance(node, Tree):
            size = len(node.leaves())
            for k in range(i + 1, i + size):
                bounds[k] = False
            i += size
        else:
            i += 1
    return tuple(bounds)


class SurfaceSimilarity:
    """Lemma equality and normalised Levenshtein similarity: the similarity used when
    :mod:`explorer.lexical` is not available, and in tests."""

    def matrix(self, text_analysis: Analysis, hypothesis_analysis: Analysis) -> np.ndarray:
        from nltk.metrics.distance import edit_distance

        out = np.zeros((len(text_analysis), len(hypothesis_analysis)))
        for i, (pw, pl) in enumerate(zip(text_analysis.lower, text_analysis.lemmas)):
            for j, (hw, hl) in enumerate(zip(hypothesis_analysis.lower, hypothesis_analysis.lemmas)):
                if pw == hw or pl == hl:
                    out[i, j] = 1.0
                elif pl[:1].isalnum() and hl[:1].isalnum():
                    sim = 1.0 - edit_distance(pl, hl) / max(len(pl), len(hl))
                    out[i, j] = sim if sim >= 0.5 else 0.0
        return out


_BREAKDOWNS: dict[tuple[int, str, str, str, str], tuple[float, ...]] = {}


def lexical_matrices(similarity: SimilarityMatrix, text: Analysis, hypothesis: Analysis) -> tuple[np.ndarray, np.ndarray]:
    """The similarity MANLI uses and each component's score, for every token pair.

    With a similarity that reports its components (``breakdown``, as
    :class:`explorer.lexical.LexicalSimilarity` does) the similarity is the max over
    components with Levenshtein resemblance below :data:`LEVENSHTEIN_FLOOR` ignored;
    otherwise it is ``similarity.matrix`` and only identity is known.

    Returns:
        ``(sim, components)``: ``(p_len, h_len)`` and ``(len(LEXICAL_COMPONENTS), p_len, h_len)``.
    """
    p_len, h_len = len(text), len(hypothesis)
    comps = np.zeros((len(LEXICAL_COMPONENTS), p_len, h_len))
    breakdown = getattr(similarity, "breakdown", None)
    if breakdown is None:
        sim = np.clip(np.asarray(similarity.matrix(text, hypothesis), dtype=np.float64).reshape(p_len, h_len), 0, 1)
        comps[0] = np.equal.outer(np.array(text.lemmas, dtype=object), np.array(hypothesis.lemmas, dtype=object)) if p_len and h_len else 0
        return sim, comps
    if len(_BREAKDOWNS) > 1_000_000:
        _BREAKDOWNS.clear()
    owner = id(similarity)
    for i, (a, ap) in enumerate(zip(text.lemmas, text.pos)):
        for j, (b, bp) in enumerate(zip(hypothesis.lemmas, hypothesis.pos)):
            key = (owner, a, ap, b, bp)
            row = _BREAKDOWNS.get(key)
            if row is None:
                parts = breakdown(a, ap, b, bp)
                row = tuple(float(parts.get(name, 0.0)) for name in LEXICAL_COMPONENTS)
                _BREAKDOWNS[key] = row
            comps[:, i, j] = row
    strong = comps.copy()
    lev = LEXICAL_COMPONENTS.index("levenshtein")
    strong[lev] = np.where(strong[lev] >= LEVENSHTEIN_FLOOR, strong[lev], 0.0)
    sim = np.clip(strong.max(axis=0), 0.0, 1.0) if p_len and h_len else np.zeros((p_len, h_len))
    return sim, comps
