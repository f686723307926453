"""MANLI's edit features: phi(e) for every candidate phrase edit of a pair, as arrays.

MacCartney, Galley & Manning (2008), "A phrase-based alignment model for natural
language inference", §3 (the scoring function score(E) = sum_e w . phi(e)) and §3.1
(the feature classes). Every feature of an edit depends only on the edit and on the
two sentences, never on the other edits of an alignment, so each candidate's feature
vector is computed once per pair and the decoder only adds up dot products.

Feature classes, as in the paper:

* edit type (EQ / SUB / DEL / INS) -- biases, and EQ when the lemma sequences match;
* phrase sizes -- extra tokens on each side, their difference, a multi-word flag;
* non-constituent phrases -- a multi-word phrase that crosses a chunk boundary
  (an NLTK ``RegexpParser`` chunker over POS tags stands in for the paper's parser);
* lexical similarity -- from :mod:`explorer.lexical` (block maximum, the mean best
  match of each side's tokens, exact / zero indicators, antonymy);
* contextual: distortion (difference of the phrases' relative positions in their
  sentences) and matching neighbours (similarity of the tokens just before and just
  after the two phrases).

We add a few cheap lexical-competition features that the paper's feature list does
not name: whether the edit holds the best match available for its hypothesis (text)
tokens, and for DEL / INS the best similarity the deleted (inserted) token has on the
other side. DEL and INS edits are single tokens (phrase DEL / INS would only split the
same per-token features into more search moves).

An alignment's score is ``base + sum of gains``: ``base`` is the score of the empty
alignment (every token DEL or INS) and an aligned edit's *gain* is its own score minus
the DEL / INS scores of the tokens it covers. Only edits with a positive gain can be
part of the best alignment, which lets the decoder drop the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

import numpy as np

from explorer.alignment import Edit, EditKind

if TYPE_CHECKING:
    from explorer.preprocess import Analysis, AnalyzedPair

ALIGNED_FEATURES: tuple[str, ...] = (
    "sub:bias",
    "sub:eq",
    "sub:sim_max",
    "sub:sim_cover_h",
    "sub:sim_cover_p",
    "sub:sim_exact",
    "sub:sim_zero",
    "sub:antonym",
    "sub:p_extra",
    "sub:h_extra",
    "sub:size_diff",
    "sub:multi",
    "sub:p_nonconstituent",
    "sub:h_nonconstituent",
    "sub:p_stop",
    "sub:h_stop",
    "sub:stop_both",
    "sub:pos_match",
    "sub:best_for_h",
    "sub:best_for_p",
    "sub:eq_content",
    "sub:sim_partial",
    "sub:punct_both",
    "sub:proper_both",
    "sub:lex_identity",
    "sub:lex_levenshtein",
    "sub:lex_numbers",
    "sub:lex_names",
    "sub:lex_ppdb",
    "sub:lex_wordnet_synonyms",
    "sub:lex_hypernyms",
    "sub:lex_derivation",
    "sub:lex_ic_measure",
    # contextual
    "sub:distortion",
    "sub:left_match",
    "sub:right_match",
    "sub:both_match",
    "sub:stop_distortion",
    "sub:stop_left_match",
    "sub:stop_right_match",
    "sub:anchor_left",
    "sub:anchor_right",
    "sub:anchor_both",
    "sub:stop_anchor",
)
DEL_FEATURES: tuple[str, ...] = ("del:bias", "del:stop", "del:punct", "del:best_sim")
INS_FEATURES: tuple[str, ...] = ("ins:bias", "ins:stop", "ins:punct", "ins:best_sim")
#: Every feature's name, in weight-vector order.
FEATURES: tuple[str, ...] = ALIGNED_FEATURES + DEL_FEATURES + INS_FEATURES
INDEX: dict[str, int] = {name: i for i, name in enumerate(FEATURES)}
CONTEXTUAL: tuple[str, ...] = (
    "sub:distortion", "sub:left_match", "sub:right_match", "sub:both_match",
    "sub:stop_distortion", "sub:stop_left_match", "sub:stop_right_match",
    "sub:anchor_left", "sub:anchor_right", "sub:anchor_both", "sub:stop_anchor",
)
#: Anchors: content-word pairs at least this similar. An edit with an anchor just
#: before (after) it on both sides, at consistent offsets, sits in a matching context.
ANCHOR_SIM = 0.9
ANCHOR_WINDOW = 3
N_FEATURES = len(FEATURES)
_DEL0 = len(ALIGNED_FEATURES)
_INS0 = _DEL0 + len(DEL_FEATURES)

#: Chunk grammar standing in for a parser: base noun phrases, verb groups,
#: adjective / adverb groups. Tokens outside every chunk count as one-token chunks.
CHUNK_GRAMMAR = r"""
NP: {<PDT|DT|PRP\$|POS>*<CD|JJ.*|VBN|VBG|NN.*|RB.*>*<NN.*|CD|PRP|EX>+}
VG: {<MD|TO>?<RB.*>*<VB.*>+<RP>?}
AP: {<RB.*>*<JJ.*>+}
"""


#: Lexical components whose scores become features of their own (block maximum).
LEXICAL_COMPONENTS: tuple[str, ...] = (
    "identity", "levenshtein", "numbers", "names", "ppdb",
    "wordnet_synonyms", "hypernyms", "derivation", "ic_measure",
)
#: A string resemblance below this is not evidence of a match (``the`` / ``he``).
LEVENSHTEIN_FLOOR = 0.5


class SimilarityMatrix(Protocol):
    """Lexical similarity of every text token to every hypothesis token, in [0, 1]."""

    def matrix(self, text_analysis: Analysis, hypothesis_analysis: Analysis) -> np.ndarray: ...


@dataclass(frozen=True)
class FeatureConfig:
    """Options of the feature function.

    Attributes:
        max_phrase: longest phrase on either side of an aligned edit.
        contextual: distortion and matching-neighbour features (off for the ablation).
    """

    max_phrase: int = 6
    contextual: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.max_phrase <= 20:
            raise ValueError(f"max_phrase must be between 1 and 20, not {self.max_phrase}")


@dataclass(frozen=True)
class PairFeatures:
    """Every candidate edit of one pair with its feature vector.

    Attributes:
        p_len, h_len: sentence lengths.
        p_start, p_end, h_start, h_end: the candidates' spans, ``(C,)`` int arrays.
        eq: whether each candidate is EQ (lemma sequences equal) rather than SUB.
        aligned: ``(C, N_FEATURES)`` features of the aligned candidates.
        deleted: ``(p_len, N_FEATURES)`` features of deleting each text token.
        inserted: ``(h_len, N_FEATURES)`` features of inserting each hypothesis token.
        added: candidates present only because they were asked for (``extra``); a
            decoder evaluated on unseen data leaves them out.
    """

    p_len: int
    h_len: int
    p_start: np.ndarray
    p_end: np.ndarray
    h_start: np.ndarray
    h_end: np.ndarray
    eq: np.ndarray
    aligned: np.ndarray
    deleted: np.ndarray
    inserted: np.ndarray
    added: np.ndarray

    def __len__(self) -> int:
        return int(self.p_start.size)

    def gains(self, weights: np.ndarray, *, with_added: bool = True) -> tuple[float, np.ndarray]:
        """The empty alignment's score and every candidate's gain over it (minus
        infinity for the ``added`` candidates unless ``with_added``)."""
        del_scores = self.deleted @ weights
        ins_scores = self.inserted @ weights
        base = float(del_scores.sum() + ins_scores.sum())
        del_cum = np.concatenate(([0.0], np.cumsum(del_scores)))
        ins_cum = np.concatenate(([0.0], np.cumsum(ins_scores)))
        gain = (
            self.aligned @ weights
            - (del_cum[self.p_end] - del_cum[self.p_start])
            - (ins_cum[self.h_end] - ins_cum[self.h_start])
        )
        if not with_added:
            gain = np.where(self.added, -np.inf, gain)
        return base, gain

    def vector(self, chosen: np.ndarray) -> np.ndarray:
        """phi(E) of the alignment made of the candidates ``chosen`` (indices) and
        DEL / INS for every token they leave uncovered."""
        phi = self.aligned[chosen].sum(axis=0, dtype=np.float64)
        p_cov = np.zeros(self.p_len, dtype=bool)
        h_cov = np.zeros(self.h_len, dtype=bool)
        for c in np.asarray(chosen, dtype=np.int64):
            p_cov[self.p_start[c] : self.p_end[c]] = True
            h_cov[self.h_start[c] : self.h_end[c]] = True
        phi += self.deleted[~p_cov].sum(axis=0, dtype=np.float64)
        phi += self.inserted[~h_cov].sum(axis=0, dtype=np.float64)
        return phi

    def find(self, p_span: tuple[int, int], h_span: tuple[int, int]) -> int:
        """The index of the candidate with these spans, or -1."""
        hit = np.flatnonzero(
            (self.p_start == p_span[0]) & (self.p_end == p_span[1])
            & (self.h_start == h_span[0]) & (self.h_end == h_span[1])
        )
        return int(hit[0]) if hit.size else -1

    def edits(self, chosen: np.ndarray, weights: np.ndarray) -> tuple[Edit, ...]:
        """The phrase edits of an alignment, each with its score and named features."""
        edits: list[Edit] = []
        p_cov = np.zeros(self.p_len, dtype=bool)
        h_cov = np.zeros(self.h_len, dtype=bool)
        for c in sorted(np.asarray(chosen, dtype=np.int64).tolist(), key=lambda i: (self.h_start[i], self.p_start[i])):
            ps, pe, hs, he = (int(self.p_start[c]), int(self.p_end[c]), int(self.h_start[c]), int(self.h_end[c]))
            p_cov[ps:pe] = True
            h_cov[hs:he] = True
            kind = EditKind.EQ if self.eq[c] else EditKind.SUB
            edits.append(_edit(kind, (ps, pe), (hs, he), self.aligned[c], weights))
        for p in np.flatnonzero(~p_cov).tolist():
            edits.append(_edit(EditKind.DEL, (p, p + 1), None, self.deleted[p], weights))
        for h in np.flatnonzero(~h_cov).tolist():
            edits.append(_edit(EditKind.INS, None, (h, h + 1), self.inserted[h], weights))
        return tuple(edits)


def _edit(kind: EditKind, p_span: tuple[int, int] | None, h_span: tuple[int, int] | None,
          phi: np.ndarray, weights: np.ndarray) -> Edit:
    nonzero = np.flatnonzero(phi)
    features = tuple((FEATURES[i], float(phi[i])) for i in nonzero.tolist())
    return Edit(kind, p_span, h_span, score=float(phi @ weights), features=features)


# -- chunks ---------------------------------------------------------------------------

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


# -- similarity fallback ----------------------------------------------------------------

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


# -- lexical evidence --------------------------------------------------------------------

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


# -- features -----------------------------------------------------------------------------

def _wmax(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Max over every window of ``size`` consecutive entries along ``axis``."""
    return np.lib.stride_tricks.sliding_window_view(values, size, axis=axis).max(axis=-1)


def _wmean(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Mean over every window of ``size`` consecutive entries along ``axis``."""
    return np.lib.stride_tricks.sliding_window_view(values, size, axis=axis).mean(axis=-1)


def _coarse(tag: str) -> str:
    return "N" if tag.startswith(("NN", "PRP", "CD")) else tag[:1]


def extract(
    pair: AnalyzedPair,
    similarity: SimilarityMatrix,
    *,
    config: FeatureConfig = FeatureConfig(),
    antonyms: np.ndarray | None = None,
    extra: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = (),
) -> PairFeatures:
    """All candidate edits of a pair and their features.

    Candidates are every text phrase x hypothesis phrase of at most
    ``config.max_phrase`` tokens each, keeping multi-word blocks only when some token
    pair in them is similar or the block is small (at most 3 tokens in all): a large
    block with no similar token pair never has a positive gain in practice.

    Args:
        pair: the analysed pair.
        similarity: token similarity (``matrix(text, hypothesis)``).
        config: phrase-size bound and feature switches.
        antonyms: ``(p_len, h_len)`` 0/1 antonymy matrix; by default the similarity's
            ``antonym_matrix`` when it has one.
        extra: ``(p_span, h_span)`` blocks to include even when outside the bounds
            (the learner adds the gold edits).
    """
    text, hyp = pair.text, pair.hypothesis
    p_len, h_len = len(text), len(hyp)
    sim, comps = lexical_matrices(similarity, text, hyp)
    if antonyms is None and hasattr(similarity, "antonym_matrix"):
        antonyms = similarity.antonym_matrix(text, hyp)
    ant = np.zeros((p_len, h_len)) if antonyms is None else np.asarray(antonyms, dtype=np.float64).reshape(p_len, h_len)
    p_stop = np.asarray(text.stop, dtype=np.float64)
    h_stop = np.asarray(hyp.stop, dtype=np.float64)
    p_punct = np.asarray(text.is_punct, dtype=np.float64)
    h_punct = np.asarray(hyp.is_punct, dtype=np.float64)
    p_bounds = np.asarray(chunk_boundaries(text.pos), dtype=bool)
    h_bounds = np.asarray(chunk_boundaries(hyp.pos), dtype=bool)
    p_best = sim.max(axis=1) if h_len else np.zeros(p_len)
    h_best = sim.max(axis=0) if p_len else np.zeros(h_len)

    # Candidates and their block statistics, one (text size, hypothesis size) at a time.
    # Layers: similarity, antonymy, then each lexical component.
    layers = np.concatenate((sim[None], ant[None], comps)) if p_len and h_len else np.zeros((2 + len(comps), p_len, h_len))
    groups: list[tuple[np.ndarray, ...]] = []
    k = config.max_phrase
    regular = {(m, n) for m in range(1, min(k, p_len) + 1) for n in range(1, min(k, h_len) + 1)}
    forced: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for (pa, pb), (ha, hb) in extra:
        forced.setdefault((pb - pa, hb - ha), set()).add((pa, ha))
    rows_by_m: dict[int, np.ndarray] = {}
    for m, n in sorted(regular | set(forced)):
        if m not in rows_by_m:
            rows_by_m[m] = _wmax(layers, m, 1)  # (layers, p_len-m+1, h_len)
        rows = rows_by_m[m]
        blk = _wmax(rows, n, 2)  # (layers, p_len-m+1, h_len-n+1)
        if (m, n) in regular:
            keep = (blk[0] > 0) | (m + n <= 3)
        else:
            keep = np.zeros(blk.shape[1:], dtype=bool)
        added = np.zeros_like(keep)
        for pa, ha in forced.get((m, n), ()):
            added[pa, ha] = not keep[pa, ha]
        keep |= added
        a, b = np.nonzero(keep)
        cover_h = _wmean(rows[0], n, 1)[a, b]
        cover_p = _wmean(_wmax(sim, n, 1), m, 0)[a, b]
        groups.append((a, b, np.full(a.size, m), np.full(a.size, n), blk[:, a, b], cover_h, cover_p, added[a, b]))
    if groups:
        p_start = np.concatenate([g[0] for g in groups]).astype(np.int64)
        h_start = np.concatenate([g[1] for g in groups]).astype(np.int64)
        p_size = np.concatenate([g[2] for g in groups]).astype(np.int64)
        h_size = np.concatenate([g[3] for g in groups]).astype(np.int64)
        stats = np.concatenate([g[4] for g in groups], axis=1)
        cover_h = np.concatenate([g[5] for g in groups])
        cover_p = np.concatenate([g[6] for g in groups])
        was_added = np.concatenate([g[7] for g in groups]).astype(bool)
    else:
        p_start = h_start = p_size = h_size = np.zeros(0, dtype=np.int64)
        stats = np.zeros((layers.shape[0], 0))
        cover_h = cover_p = np.zeros(0)
        was_added = np.zeros(0, dtype=bool)
    block_max, antonym, lex = stats[0], stats[1], stats[2:].T
    p_end = p_start + p_size
    h_end = h_start + h_size
    c = p_start.size

    stop_cum_p = np.concatenate(([0.0], np.cumsum(p_stop)))
    stop_cum_h = np.concatenate(([0.0], np.cumsum(h_stop)))
    p_stop_frac = (stop_cum_p[p_end] - stop_cum_p[p_start]) / p_size
    h_stop_frac = (stop_cum_h[h_end] - stop_cum_h[h_start]) / h_size
    p_lem = text.lemmas
    h_lem = hyp.lemmas
    eq = np.fromiter(
        (p_lem[a:b] == h_lem[x:y] for a, b, x, y in zip(p_start.tolist(), p_end.tolist(), h_start.tolist(), h_end.tolist())),
        dtype=bool, count=c,
    )
    p_coarse = np.array([_coarse(t) for t in text.pos] or [""])
    h_coarse = np.array([_coarse(t) for t in hyp.pos] or [""])
    pos_match = (p_coarse[np.maximum(p_end - 1, 0)] == h_coarse[np.maximum(h_end - 1, 0)]) if c else np.zeros(0, bool)
    # Best available match: the block holds the best similarity its h (p) tokens have.
    h_best_cum = _span_max(h_best, h_start, h_end)
    p_best_cum = _span_max(p_best, p_start, p_end)

    f = np.zeros((c, N_FEATURES), dtype=np.float32)
    col = INDEX
    f[:, col["sub:bias"]] = 1.0
    f[:, col["sub:eq"]] = eq
    f[:, col["sub:sim_max"]] = block_max
    f[:, col["sub:sim_cover_h"]] = cover_h
    f[:, col["sub:sim_cover_p"]] = cover_p
    f[:, col["sub:sim_exact"]] = block_max >= 0.999
    f[:, col["sub:sim_zero"]] = block_max <= 0.0
    f[:, col["sub:antonym"]] = antonym
    f[:, col["sub:p_extra"]] = p_size - 1
    f[:, col["sub:h_extra"]] = h_size - 1
    f[:, col["sub:size_diff"]] = np.abs(p_size - h_size)
    f[:, col["sub:multi"]] = (p_size > 1) | (h_size > 1)
    f[:, col["sub:p_nonconstituent"]] = (p_size > 1) & ~(p_bounds[p_start] & p_bounds[p_end])
    f[:, col["sub:h_nonconstituent"]] = (h_size > 1) & ~(h_bounds[h_start] & h_bounds[h_end])
    f[:, col["sub:p_stop"]] = p_stop_frac
    f[:, col["sub:h_stop"]] = h_stop_frac
    f[:, col["sub:stop_both"]] = p_stop_frac * h_stop_frac
    f[:, col["sub:pos_match"]] = pos_match
    f[:, col["sub:best_for_h"]] = (block_max > 0) & (block_max >= h_best_cum - 1e-9)
    f[:, col["sub:best_for_p"]] = (block_max > 0) & (block_max >= p_best_cum - 1e-9)
    stop_both = p_stop_frac * h_stop_frac
    first_lex = col["sub:lex_identity"]
    f[:, first_lex : first_lex + len(LEXICAL_COMPONENTS)] = lex
    f[:, col["sub:eq_content"]] = eq * (1.0 - stop_both)
    f[:, col["sub:sim_partial"]] = (block_max > 0) & (block_max < 0.999)
    p_punct_cum = np.concatenate(([0.0], np.cumsum(p_punct)))
    h_punct_cum = np.concatenate(([0.0], np.cumsum(h_punct)))
    f[:, col["sub:punct_both"]] = ((p_punct_cum[p_end] - p_punct_cum[p_start]) == p_size) & (
        (h_punct_cum[h_end] - h_punct_cum[h_start]) == h_size)
    p_proper = np.array([t.startswith("NNP") for t in text.pos] or [False])
    h_proper = np.array([t.startswith("NNP") for t in hyp.pos] or [False])
    if c:
        f[:, col["sub:proper_both"]] = p_proper[p_end - 1] & h_proper[h_end - 1]
    if config.contextual and c:
        p_mid = (p_start + p_end) / 2.0 / max(p_len, 1)
        h_mid = (h_start + h_end) / 2.0 / max(h_len, 1)
        distortion = np.abs(p_mid - h_mid)
        f[:, col["sub:distortion"]] = distortion
        left = _neighbour(sim, p_start - 1, h_start - 1, p_len, h_len)
        right = _neighbour(sim, p_end, h_end, p_len, h_len)
        f[:, col["sub:left_match"]] = left
        f[:, col["sub:right_match"]] = right
        f[:, col["sub:both_match"]] = left * right
        f[:, col["sub:stop_distortion"]] = stop_both * distortion
        f[:, col["sub:stop_left_match"]] = stop_both * left
        f[:, col["sub:stop_right_match"]] = stop_both * right
        content = ~(np.asarray(text.stop, dtype=bool)[:, None] | np.asarray(hyp.stop, dtype=bool)[None, :])
        anchor_p, anchor_h = np.nonzero((sim >= ANCHOR_SIM) & content)
        left_a = _anchored(p_start - anchor_p[None, :].T, h_start - anchor_h[None, :].T)
        right_a = _anchored(anchor_p[None, :].T - (p_end - 1), anchor_h[None, :].T - (h_end - 1))
        f[:, col["sub:anchor_left"]] = left_a
        f[:, col["sub:anchor_right"]] = right_a
        f[:, col["sub:anchor_both"]] = left_a & right_a
        f[:, col["sub:stop_anchor"]] = stop_both * (left_a | right_a)

    deleted = np.zeros((p_len, N_FEATURES), dtype=np.float32)
    deleted[:, _DEL0 + 0] = 1.0
    deleted[:, _DEL0 + 1] = p_stop
    deleted[:, _DEL0 + 2] = p_punct
    deleted[:, _DEL0 + 3] = p_best
    inserted = np.zeros((h_len, N_FEATURES), dtype=np.float32)
    inserted[:, _INS0 + 0] = 1.0
    inserted[:, _INS0 + 1] = h_stop
    inserted[:, _INS0 + 2] = h_punct
    inserted[:, _INS0 + 3] = h_best
    return PairFeatures(p_len, h_len, p_start, p_end, h_start, h_end, eq, f, deleted, inserted, was_added)


def _anchored(gap_p: np.ndarray, gap_h: np.ndarray) -> np.ndarray:
    """Per candidate (columns): some anchor (rows) lies 1..ANCHOR_WINDOW tokens away
    on both sides, in the same direction, with offsets differing by at most one."""
    ok = (gap_p >= 1) & (gap_h >= 1) & (gap_p <= ANCHOR_WINDOW) & (gap_h <= ANCHOR_WINDOW) & (np.abs(gap_p - gap_h) <= 1)
    return ok.any(axis=0) if ok.size else np.zeros(gap_p.shape[1], dtype=bool)


def _span_max(values: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    out = np.zeros(start.size)
    for size in np.unique(end - start).tolist():
        idx = np.flatnonzero(end - start == size)
        out[idx] = _wmax(values, size, 0)[start[idx]]
    return out


def _neighbour(sim: np.ndarray, p: np.ndarray, h: np.ndarray, p_len: int, h_len: int) -> np.ndarray:
    """Similarity of the neighbouring tokens at ``p`` and ``h``; two sentence edges
    count as a match, one edge against a token as none."""
    p_in = (p >= 0) & (p < p_len)
    h_in = (h >= 0) & (h < h_len)
    out = np.where(~p_in & ~h_in, 1.0, 0.0)
    both = p_in & h_in
    out[both] = sim[p[both], h[both]]
    return out
