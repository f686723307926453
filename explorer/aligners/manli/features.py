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

Support features target the errors an analysis across corpora found (docs/RESULTS.md,
"MANLI"): function words and forms of `be` without contextual support (no matching
neighbour, no anchor), `be` against another word, numbers whose values disagree or that
stand on one side only, the context two tokens out, rivals (another token matching equally
well), and the pair's shape (:func:`excess`: the share of a sentence that cannot have a
one-to-one partner), so that one set of weights can serve RTE pairs and paraphrases.
Models trained without them load with those weights at 0. Two more read numbers in
other formats as one value (``sub:num_value_eq``, ``sub:num_value_clash``: ``85.74 million``
/ ``85,740,000``, ``71-year-old`` / ``71``, ``5 percent`` / ``5 %``).

An alignment's score is ``base + sum of gains``: ``base`` is the score of the empty
alignment (every token DEL or INS) and an aligned edit's *gain* is its own score minus
the DEL / INS scores of the tokens it covers. Only edits with a positive gain can be
part of the best alignment, which lets the decoder drop the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from explorer.aligners.manli.candidates import Candidates, Side, candidates, cum, span_max, ties
from explorer.aligners.manli.context import contextual_features
from explorer.aligners.manli.evidence import SimilarityMatrix, lexical_matrices
from explorer.aligners.manli.names import DEL0, FEATURES, INDEX, INS0, LEXICAL_COMPONENTS, N_FEATURES, SCORE_CHUNK
from explorer.aligners.manli.number_features import number_features, number_format_features
from explorer.alignment import Edit, EditKind

if TYPE_CHECKING:
    from explorer.preprocess import AnalyzedPair


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


class CandidateSpans(NamedTuple):
    """What the decoder needs besides the gains: the candidate edits' spans (``(C,)`` int
    arrays, text ``[p_start, p_end)`` to hypothesis ``[h_start, h_end)``) and the two
    sentence lengths."""

    p_start: np.ndarray
    p_end: np.ndarray
    h_start: np.ndarray
    h_end: np.ndarray
    p_len: int
    h_len: int


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

    def spans(self) -> CandidateSpans:
        """The candidates' spans and the sentence lengths, as the decoder takes them."""
        return CandidateSpans(self.p_start, self.p_end, self.h_start, self.h_end, self.p_len, self.h_len)

    def gains(self, weights: np.ndarray, *, with_added: bool = True) -> tuple[float, np.ndarray]:
        """The empty alignment's score and every candidate's gain over it (minus
        infinity for the ``added`` candidates unless ``with_added``)."""
        del_scores = self.deleted @ weights
        ins_scores = self.inserted @ weights
        base = float(del_scores.sum() + ins_scores.sum())
        del_cum = np.concatenate(([0.0], np.cumsum(del_scores)))
        ins_cum = np.concatenate(([0.0], np.cumsum(ins_scores)))
        gain = (
            self.aligned_scores(weights)
            - (del_cum[self.p_end] - del_cum[self.p_start])
            - (ins_cum[self.h_end] - ins_cum[self.h_start])
        )
        if not with_added:
            gain = np.where(self.added, -np.inf, gain)
        return base, gain

    def aligned_scores(self, weights: np.ndarray) -> np.ndarray:
        """``aligned @ weights`` in blocks of :data:`SCORE_CHUNK` rows, so the float32
        features are never widened to float64 all at once (that copy alone was
        ``C * N_FEATURES * 8`` bytes)."""
        c = len(self)
        if c <= SCORE_CHUNK:
            return self.aligned @ weights
        out = np.empty(c)
        for start in range(0, c, SCORE_CHUNK):
            out[start : start + SCORE_CHUNK] = self.aligned[start : start + SCORE_CHUNK] @ weights
        return out

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


def _shape_features(f: np.ndarray, cand: Candidates, p: Side, h: Side,
                    p_lemmas: tuple[str, ...], h_lemmas: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Stage 3: edit type, phrase sizes, constituents, stopwords, POS, punctuation and
    proper nouns. Returns the EQ flags (lemma sequences equal) and each block's share
    of stopwords on both sides (text share x hypothesis share)."""
    col = INDEX
    c = len(cand)
    p_start, h_start, p_size, h_size = cand.p_start, cand.h_start, cand.p_size, cand.h_size
    p_end, h_end = cand.p_end, cand.h_end
    stop_cum_p, stop_cum_h = cum(p.stop), cum(h.stop)
    p_stop_frac = (stop_cum_p[p_end] - stop_cum_p[p_start]) / p_size
    h_stop_frac = (stop_cum_h[h_end] - stop_cum_h[h_start]) / h_size
    eq = np.fromiter(
        (p_lemmas[a:b] == h_lemmas[x:y] for a, b, x, y in zip(p_start.tolist(), p_end.tolist(), h_start.tolist(), h_end.tolist())),
        dtype=bool, count=c,
    )
    pos_match = (p.coarse[np.maximum(p_end - 1, 0)] == h.coarse[np.maximum(h_end - 1, 0)]) if c else np.zeros(0, bool)
    stop_both = p_stop_frac * h_stop_frac
    f[:, col["sub:bias"]] = 1.0
    f[:, col["sub:eq"]] = eq
    f[:, col["sub:p_extra"]] = p_size - 1
    f[:, col["sub:h_extra"]] = h_size - 1
    f[:, col["sub:size_diff"]] = np.abs(p_size - h_size)
    f[:, col["sub:multi"]] = (p_size > 1) | (h_size > 1)
    f[:, col["sub:p_nonconstituent"]] = (p_size > 1) & ~(p.bounds[p_start] & p.bounds[p_end])
    f[:, col["sub:h_nonconstituent"]] = (h_size > 1) & ~(h.bounds[h_start] & h.bounds[h_end])
    f[:, col["sub:p_stop"]] = p_stop_frac
    f[:, col["sub:h_stop"]] = h_stop_frac
    f[:, col["sub:stop_both"]] = stop_both
    f[:, col["sub:pos_match"]] = pos_match
    f[:, col["sub:eq_content"]] = eq * (1.0 - stop_both)
    p_punct_cum, h_punct_cum = cum(p.punct), cum(h.punct)
    f[:, col["sub:punct_both"]] = ((p_punct_cum[p_end] - p_punct_cum[p_start]) == p_size) & (
        (h_punct_cum[h_end] - h_punct_cum[h_start]) == h_size)
    if c:
        f[:, col["sub:proper_both"]] = p.proper[p_end - 1] & h.proper[h_end - 1]
    # `be` against a word that is not `be` (a copula standing for a content verb).
    be_cum_p, be_cum_h = cum(p.be), cum(h.be)
    f[:, col["sub:be_mixed"]] = ((be_cum_p[p_end] - be_cum_p[p_start]) > 0) != ((be_cum_h[h_end] - be_cum_h[h_start]) > 0)
    number_features(f, cand, p, h)
    number_format_features(f, cand, p, h, eq)
    return eq, stop_both


def _lexical_features(f: np.ndarray, cand: Candidates, p: Side, h: Side) -> None:
    """Stage 4: the block's similarity, coverage, antonymy, each lexical component,
    and whether the block holds the best match its tokens have."""
    col = INDEX
    block_max, antonym, lex = cand.stats[0], cand.stats[1], cand.stats[2:].T
    f[:, col["sub:sim_max"]] = block_max
    f[:, col["sub:sim_cover_h"]] = cand.cover_h
    f[:, col["sub:sim_cover_p"]] = cand.cover_p
    f[:, col["sub:sim_exact"]] = block_max >= 0.999
    f[:, col["sub:sim_zero"]] = block_max <= 0.0
    f[:, col["sub:sim_partial"]] = (block_max > 0) & (block_max < 0.999)
    f[:, col["sub:antonym"]] = antonym
    h_best = span_max(h.best, cand.h_start, cand.h_end)
    p_best = span_max(p.best, cand.p_start, cand.p_end)
    f[:, col["sub:best_for_h"]] = (block_max > 0) & (block_max >= h_best - 1e-9)
    f[:, col["sub:best_for_p"]] = (block_max > 0) & (block_max >= p_best - 1e-9)
    first_lex = col["sub:lex_identity"]
    f[:, first_lex : first_lex + len(LEXICAL_COMPONENTS)] = lex


def _token_features(side: Side, first: int, excess: float) -> np.ndarray:
    """Stage 6: the features of deleting (inserting) each token, from column ``first``;
    ``excess`` is the pair's :func:`excess` on this side."""
    out = np.zeros((side.n, N_FEATURES), dtype=np.float32)
    out[:, first + 0] = 1.0
    out[:, first + 1] = side.stop
    out[:, first + 2] = side.punct
    out[:, first + 3] = side.best
    out[:, first + 4] = excess
    return out


def excess(n: int, other: int) -> float:
    """The share of a sentence's ``n`` tokens that cannot have a one-to-one partner in
    the ``other`` sentence's tokens: ``max(0, 1 - other / n)``. About 0 for paraphrases,
    large for an RTE text beside a short hypothesis; a pair's shape, so that one set of
    weights can prefer deleting text tokens where the text is much longer."""
    return max(0.0, 1.0 - other / n) if n else 0.0


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

    Cost: the lexical evidence is ``O(|t| |h|)``; everything else is linear in the
    number of candidates, at most :func:`explorer.limits.manli_candidates` (callers
    check :func:`explorer.limits.check` first; :class:`ManliAligner` does).

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
    # Stage 1: lexical evidence for every token pair.
    sim, comps = lexical_matrices(similarity, text, hyp)
    if antonyms is None and hasattr(similarity, "antonym_matrix"):
        antonyms = similarity.antonym_matrix(text, hyp)
    ant = np.zeros((p_len, h_len)) if antonyms is None else np.asarray(antonyms, dtype=np.float64).reshape(p_len, h_len)
    p_best = sim.max(axis=1) if h_len else np.zeros(p_len)
    h_best = sim.max(axis=0) if p_len else np.zeros(h_len)
    p = Side.of(text, p_best, ties(sim, p_best, 1))
    h = Side.of(hyp, h_best, ties(sim, h_best, 0))
    # Stage 2: candidates. Layers: similarity, antonymy, then each lexical component.
    layers = np.concatenate((sim[None], ant[None], comps)) if p_len and h_len else np.zeros((2 + len(comps), p_len, h_len))
    del comps
    cand = candidates(sim, layers, config.max_phrase, extra)
    del layers
    # Stages 3-5: the aligned candidates' features.
    f = np.zeros((len(cand), N_FEATURES), dtype=np.float32)
    eq, stop_both = _shape_features(f, cand, p, h, text.lemmas, hyp.lemmas)
    _lexical_features(f, cand, p, h)
    if config.contextual and len(cand):
        contextual_features(f, cand, sim, p, h, stop_both)
    f[:, INDEX["sub:weak_excess"]] = excess(p_len, h_len) * (1.0 - f[:, INDEX["sub:sim_max"]])
    # Stage 6: DEL and INS.
    deleted = _token_features(p, DEL0, excess(p_len, h_len))
    inserted = _token_features(h, INS0, excess(h_len, p_len))
    return PairFeatures(p_len, h_len, cand.p_start, cand.p_end, cand.h_start, cand.h_end, eq, f, deleted, inserted,
                        cand.added)
