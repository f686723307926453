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
    "sub:lex_embedding",
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
    # support features: function words, `be`, numbers and context (see _support_features)
    "sub:stop_unsupported",
    "sub:be_mixed",
    "sub:be_unsupported",
    "sub:num_mismatch",
    "sub:num_one_side",
    "sub:context2",
    "sub:rival",
    "sub:rival_unsupported",
    "sub:weak_excess",
    # numbers in other formats read as one value
    "sub:num_value_eq",
    "sub:num_value_clash",
)
DEL_FEATURES: tuple[str, ...] = ("del:bias", "del:stop", "del:punct", "del:best_sim", "del:excess")
INS_FEATURES: tuple[str, ...] = ("ins:bias", "ins:stop", "ins:punct", "ins:best_sim", "ins:excess")
#: Every feature's name, in weight-vector order.
FEATURES: tuple[str, ...] = ALIGNED_FEATURES + DEL_FEATURES + INS_FEATURES
INDEX: dict[str, int] = {name: i for i, name in enumerate(FEATURES)}
CONTEXTUAL: tuple[str, ...] = (
    "sub:distortion", "sub:left_match", "sub:right_match", "sub:both_match",
    "sub:stop_distortion", "sub:stop_left_match", "sub:stop_right_match",
    "sub:anchor_left", "sub:anchor_right", "sub:anchor_both", "sub:stop_anchor",
    "sub:stop_unsupported", "sub:be_unsupported", "sub:context2", "sub:rival", "sub:rival_unsupported",
)
#: Anchors: content-word pairs at least this similar. An edit with an anchor just
#: before (after) it on both sides, at consistent offsets, sits in a matching context.
ANCHOR_SIM = 0.9
ANCHOR_WINDOW = 3
N_FEATURES = len(FEATURES)
#: Rows of the feature matrix scored at a time (:meth:`PairFeatures.aligned_scores`).
SCORE_CHUNK = 65_536
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
    "wordnet_synonyms", "hypernyms", "derivation", "ic_measure", "embedding",
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
#
# extract() runs in stages, each linear in the number of candidates C (or in the pair's
# token pairs): (1) lexical evidence per token pair, (2) the candidate blocks and their
# block statistics, (3) the edit's shape (type, sizes, constituents, stopwords, POS),
# (4) lexical features, (5) contextual features, (6) DEL / INS features. No stage builds
# an array that grows with C times anything but a constant; MANLI's limits
# (:mod:`explorer.limits`) bound C before stage 2 starts.

def _wmax(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Max over every window of ``size`` consecutive entries along ``axis``."""
    return np.lib.stride_tricks.sliding_window_view(values, size, axis=axis).max(axis=-1)


def _wmean(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Mean over every window of ``size`` consecutive entries along ``axis``."""
    return np.lib.stride_tricks.sliding_window_view(values, size, axis=axis).mean(axis=-1)


def _coarse(tag: str) -> str:
    return "N" if tag.startswith(("NN", "PRP", "CD")) else tag[:1]


def _cum(values: np.ndarray) -> np.ndarray:
    """Prefix sums with a leading 0: ``cum[b] - cum[a]`` sums ``values[a:b]``."""
    return np.concatenate(([0.0], np.cumsum(values)))


@dataclass(frozen=True)
class _Side:
    """Per-token facts of one sentence, as arrays."""

    n: int
    stop: np.ndarray  # float 0/1
    punct: np.ndarray  # float 0/1
    bounds: np.ndarray  # (n + 1,) bool, chunk boundaries
    coarse: np.ndarray  # coarse POS (one "" entry for an empty sentence)
    proper: np.ndarray  # NNP* (one False entry for an empty sentence)
    best: np.ndarray  # the token's best similarity on the other side
    be: np.ndarray  # float 0/1: a form of `be` (lemma)
    number: np.ndarray  # the token's numeric value, NaN when it is not a number
    ties: np.ndarray  # float 0/1: more than one token on the other side reaches ``best`` (> 0)
    numeric: tuple[str, ...] = ()  # lower-cased token where it may be part of a number, else ""

    @classmethod
    def of(cls, analysis: Analysis, best: np.ndarray, ties: np.ndarray | None = None) -> _Side:
        return cls(
            n=len(analysis),
            stop=np.asarray(analysis.stop, dtype=np.float64),
            punct=np.asarray(analysis.is_punct, dtype=np.float64),
            bounds=np.asarray(chunk_boundaries(analysis.pos), dtype=bool),
            coarse=np.array([_coarse(t) for t in analysis.pos] or [""]),
            proper=np.array([t.startswith("NNP") for t in analysis.pos] or [False]),
            best=best,
            be=np.array([lem == "be" for lem in analysis.lemmas], dtype=np.float64),
            number=np.array([_number(tok, tag) for tok, tag in zip(analysis.tokens, analysis.pos)], dtype=np.float64),
            ties=np.zeros(len(analysis)) if ties is None else ties,
            numeric=tuple(_numeric(tok, tag) for tok, tag in zip(analysis.tokens, analysis.pos)),
        )


def _number(token: str, tag: str) -> float:
    """A token's numeric value when it is tagged CD or holds a digit (``one`` as a pronoun
    is not a number), else NaN."""
    from explorer.lexical.numbers import number_value

    if tag != "CD" and not any(ch.isdigit() for ch in token):
        return float("nan")
    value = number_value(token)
    return float("nan") if value is None else value


def _numeric(token: str, tag: str) -> str:
    """The lower-cased token when it may be part of a number (tagged CD, holding a digit,
    or a percent word: ``per cent`` too), else "" (``one`` as a pronoun is no number)."""
    from explorer.lexical.numbers import PERCENT_WORDS

    low = token.lower()
    if tag == "CD" or any(ch.isdigit() for ch in token) or low in PERCENT_WORDS or low in ("per", "cent"):
        return low
    return ""


@dataclass(frozen=True)
class _Candidates:
    """Candidate blocks (stage 2): spans and block statistics, one entry per candidate.

    ``stats`` rows: block maximum of the similarity, of the antonymy, then of each
    lexical component (:data:`LEXICAL_COMPONENTS`).
    """

    p_start: np.ndarray
    h_start: np.ndarray
    p_size: np.ndarray
    h_size: np.ndarray
    stats: np.ndarray  # (2 + len(LEXICAL_COMPONENTS), C)
    cover_h: np.ndarray  # mean over the block's h tokens of their best match in the p phrase
    cover_p: np.ndarray  # the same for the p tokens
    added: np.ndarray  # present only because ``extra`` asked for it

    @property
    def p_end(self) -> np.ndarray:
        return self.p_start + self.p_size

    @property
    def h_end(self) -> np.ndarray:
        return self.h_start + self.h_size

    def __len__(self) -> int:
        return int(self.p_start.size)


def _candidates(
    sim: np.ndarray, layers: np.ndarray, max_phrase: int,
    extra: tuple[tuple[tuple[int, int], tuple[int, int]], ...],
) -> _Candidates:
    """Stage 2: every block of at most ``max_phrase`` tokens a side whose similarity
    maximum is positive or that has at most 3 tokens in all, plus the ``extra`` blocks.

    Works one text phrase size at a time, so its temporaries are a few ``(layers,
    p_len, h_len)`` arrays whatever ``max_phrase`` is.
    """
    p_len, h_len = sim.shape
    regular = {(m, n) for m in range(1, min(max_phrase, p_len) + 1) for n in range(1, min(max_phrase, h_len) + 1)}
    forced: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for (pa, pb), (ha, hb) in extra:
        forced.setdefault((pb - pa, hb - ha), set()).add((pa, ha))
    groups: list[tuple[np.ndarray, ...]] = []
    rows_m, rows = 0, np.zeros(0)
    for m, n in sorted(regular | set(forced)):
        if m != rows_m:
            rows_m, rows = m, _wmax(layers, m, 1)  # (layers, p_len-m+1, h_len)
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
        del blk
    if not groups:
        empty = np.zeros(0, dtype=np.int64)
        return _Candidates(empty, empty, empty, empty, np.zeros((layers.shape[0], 0)), np.zeros(0), np.zeros(0),
                           np.zeros(0, dtype=bool))
    return _Candidates(
        p_start=np.concatenate([g[0] for g in groups]).astype(np.int64),
        h_start=np.concatenate([g[1] for g in groups]).astype(np.int64),
        p_size=np.concatenate([g[2] for g in groups]).astype(np.int64),
        h_size=np.concatenate([g[3] for g in groups]).astype(np.int64),
        stats=np.concatenate([g[4] for g in groups], axis=1),
        cover_h=np.concatenate([g[5] for g in groups]),
        cover_p=np.concatenate([g[6] for g in groups]),
        added=np.concatenate([g[7] for g in groups]).astype(bool),
    )


def _shape_features(f: np.ndarray, cand: _Candidates, p: _Side, h: _Side,
                    p_lemmas: tuple[str, ...], h_lemmas: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Stage 3: edit type, phrase sizes, constituents, stopwords, POS, punctuation and
    proper nouns. Returns the EQ flags (lemma sequences equal) and each block's share
    of stopwords on both sides (text share x hypothesis share)."""
    col = INDEX
    c = len(cand)
    p_start, h_start, p_size, h_size = cand.p_start, cand.h_start, cand.p_size, cand.h_size
    p_end, h_end = cand.p_end, cand.h_end
    stop_cum_p, stop_cum_h = _cum(p.stop), _cum(h.stop)
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
    p_punct_cum, h_punct_cum = _cum(p.punct), _cum(h.punct)
    f[:, col["sub:punct_both"]] = ((p_punct_cum[p_end] - p_punct_cum[p_start]) == p_size) & (
        (h_punct_cum[h_end] - h_punct_cum[h_start]) == h_size)
    if c:
        f[:, col["sub:proper_both"]] = p.proper[p_end - 1] & h.proper[h_end - 1]
    # `be` against a word that is not `be` (a copula standing for a content verb).
    be_cum_p, be_cum_h = _cum(p.be), _cum(h.be)
    f[:, col["sub:be_mixed"]] = ((be_cum_p[p_end] - be_cum_p[p_start]) > 0) != ((be_cum_h[h_end] - be_cum_h[h_start]) > 0)
    _number_features(f, cand, p, h)
    _number_format_features(f, cand, p, h, eq)
    return eq, stop_both


def _number_features(f: np.ndarray, cand: _Candidates, p: _Side, h: _Side) -> None:
    """Number agreement: a number on one side of the block only, or numbers on both
    sides of which some hypothesis (text) number has no equal value on the other side.
    Each span's set of token values is built once and the blocks with numbers on both
    sides are compared as arrays (:func:`_neither_subset`): no Python work per candidate."""
    col = INDEX
    num_cum_p, num_cum_h = _cum(~np.isnan(p.number)), _cum(~np.isnan(h.number))
    p_has = (num_cum_p[cand.p_end] - num_cum_p[cand.p_start]) > 0
    h_has = (num_cum_h[cand.h_end] - num_cum_h[cand.h_start]) > 0
    f[:, col["sub:num_one_side"]] = p_has != h_has
    both = np.flatnonzero(p_has & h_has)
    if not both.size:
        return
    size_cap = int(max(cand.p_size[both].max(), cand.h_size[both].max()))
    sets: dict[frozenset[float], int] = {}
    p_ids, h_ids = _value_spans(p.number, size_cap, sets), _value_spans(h.number, size_cap, sets)
    f[both, col["sub:num_mismatch"]] = _neither_subset(
        p_ids[cand.p_start[both], cand.p_size[both]], h_ids[cand.h_start[both], cand.h_size[both]], sets)


def _value_spans(number: np.ndarray, size_cap: int, sets: dict[frozenset[float], int]) -> np.ndarray:
    """The set of token values (NaN left out) of every span of at most ``size_cap``
    tokens that holds one, as ids into ``sets`` (added there): an ``(n + 1, size_cap + 1)``
    array indexed by start and size, -1 where the span holds no number."""
    n = number.size
    ids = np.full((n + 1, size_cap + 1), -1, dtype=np.int64)
    values = number.tolist()
    for start in range(n):
        seen: set[float] = set()
        for size in range(1, min(size_cap, n - start) + 1):
            v = values[start + size - 1]
            if v == v:
                seen.add(v)
            if seen:
                ids[start, size] = sets.setdefault(frozenset(seen), len(sets))
    return ids


def _bit_masks(sets: dict[frozenset[float], int]) -> np.ndarray:
    """Each value set of ``sets`` as a bit mask over their distinct values: ``(len(sets),
    words)`` uint64."""
    bit = {v: i for i, v in enumerate(sorted({v for key in sets for v in key}))}
    masks = np.zeros((len(sets), max(1, (len(bit) + 63) // 64)), dtype=np.uint64)
    for key, k in sets.items():
        for v in key:
            masks[k, bit[v] // 64] |= np.uint64(1) << np.uint64(bit[v] % 64)
    return masks


def _neither_subset(a: np.ndarray, b: np.ndarray, sets: dict[frozenset[float], int]) -> np.ndarray:
    """Per entry: neither value set ``a[i]`` nor ``b[i]`` (ids into ``sets``, all >= 0)
    includes the other. Compared once per distinct pair of sets, a chunk at a time."""
    if not a.size:
        return np.zeros(0, dtype=bool)
    masks = _bit_masks(sets)
    pairs, inverse = np.unique(a * len(sets) + b, return_inverse=True)
    out = np.zeros(pairs.size, dtype=bool)
    for at in range(0, pairs.size, 4096):
        chunk = pairs[at : at + 4096]
        am, bm = masks[chunk // len(sets)], masks[chunk % len(sets)]
        out[at : at + 4096] = (am & ~bm).any(axis=1) & (bm & ~am).any(axis=1)
    return out[inverse.reshape(-1)]


def _number_format_features(f: np.ndarray, cand: _Candidates, p: _Side, h: _Side, eq: np.ndarray) -> None:
    """Numbers in other formats read as one value (:func:`explorer.lexical.numbers.span_number`):
    ``sub:num_value_eq`` when the two sides of a block denote the same values (or, with no
    values, both speak of a percentage) although their lemmas differ (``85.74 million`` /
    ``85,740,000``, ``71-year-old`` / ``71``, ``5 percent`` / ``5 %``); ``sub:num_value_clash``
    when both denote values and neither side's include the other's.

    Cost: each span with a number token is read once (at most ``len * max_phrase`` spans a
    side, :data:`~explorer.lexical.numbers.MAX_NUMBER_SPAN` tokens each); the candidates are
    then compared as arrays (value sets as bit masks over the pair's distinct values), so
    a pair full of numbers costs no Python work per candidate."""
    col = INDEX
    p_num = np.array([bool(t) for t in p.numeric], dtype=np.float64)
    h_num = np.array([bool(t) for t in h.numeric], dtype=np.float64)
    if not len(cand) or not p_num.any() or not h_num.any():
        return
    num_cum_p, num_cum_h = _cum(p_num), _cum(h_num)
    rows = np.flatnonzero(((num_cum_p[cand.p_end] - num_cum_p[cand.p_start]) > 0)
                          & ((num_cum_h[cand.h_end] - num_cum_h[cand.h_start]) > 0))
    if not rows.size:
        return
    size_cap = min(int(max(cand.p_size[rows].max(), cand.h_size[rows].max())), MAX_SPAN_READ)
    sets: dict[frozenset[float], int] = {}
    p_read, h_read = _read_spans(p.numeric, size_cap, sets), _read_spans(h.numeric, size_cap, sets)
    if not sets:
        return
    empty = np.array([not key for key in sets])

    def lookup(read: tuple[np.ndarray, np.ndarray], start: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ids, percent = read
        inside = size <= size_cap
        at = (start, np.minimum(size, size_cap))
        return np.where(inside, ids[at], -1), np.where(inside, percent[at], False)

    p_id, p_pct = lookup(p_read, cand.p_start[rows], cand.p_size[rows])
    h_id, h_pct = lookup(h_read, cand.h_start[rows], cand.h_size[rows])
    read = (p_id >= 0) & (h_id >= 0)
    p_id, h_id = np.maximum(p_id, 0), np.maximum(h_id, 0)
    p_empty, h_empty = empty[p_id], empty[h_id]
    with_values = read & ~p_empty & ~h_empty
    f[rows, col["sub:num_value_eq"]] = ~eq[rows] & (
        (with_values & (p_id == h_id)) | (read & p_empty & h_empty & p_pct & h_pct))
    f[rows[with_values], col["sub:num_value_clash"]] = _neither_subset(p_id[with_values], h_id[with_values], sets)


#: Spans longer than this are not read as numbers by :func:`_number_format_features`
#: (:data:`explorer.lexical.numbers.MAX_NUMBER_SPAN`; imported lazily like the rest of
#: :mod:`explorer.lexical`).
MAX_SPAN_READ = 8


def _read_spans(numeric: tuple[str, ...], size_cap: int,
                sets: dict[frozenset[float], int]) -> tuple[np.ndarray, np.ndarray]:
    """Every span of at most ``size_cap`` tokens read as a number: ``(ids, percent)``,
    ``(n + 1, size_cap + 1)`` arrays indexed by start and size, ``ids`` naming the value
    set in ``sets`` (added there) or -1 for a span without a number."""
    from explorer.lexical.numbers import span_number

    n = len(numeric)
    ids = np.full((n + 1, size_cap + 1), -1, dtype=np.int64)
    percent = np.zeros((n + 1, size_cap + 1), dtype=bool)
    marked = [i for i, token in enumerate(numeric) if token]
    starts = sorted({s for i in marked for s in range(max(0, i - size_cap + 1), i + 1)})
    for start in starts:
        for size in range(1, min(size_cap, n - start) + 1):
            parsed = span_number(numeric[start : start + size])
            if parsed is None:
                continue
            ids[start, size] = sets.setdefault(parsed[0], len(sets))
            percent[start, size] = parsed[1]
    return ids, percent


def _lexical_features(f: np.ndarray, cand: _Candidates, p: _Side, h: _Side) -> None:
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
    h_best = _span_max(h.best, cand.h_start, cand.h_end)
    p_best = _span_max(p.best, cand.p_start, cand.p_end)
    f[:, col["sub:best_for_h"]] = (block_max > 0) & (block_max >= h_best - 1e-9)
    f[:, col["sub:best_for_p"]] = (block_max > 0) & (block_max >= p_best - 1e-9)
    first_lex = col["sub:lex_identity"]
    f[:, first_lex : first_lex + len(LEXICAL_COMPONENTS)] = lex


def _contextual_features(f: np.ndarray, cand: _Candidates, sim: np.ndarray, p: _Side, h: _Side,
                         stop_both: np.ndarray) -> None:
    """Stage 5: distortion, matching neighbours and anchors (see :data:`ANCHOR_SIM`)."""
    col = INDEX
    p_len, h_len = sim.shape
    p_start, h_start, p_end, h_end = cand.p_start, cand.h_start, cand.p_end, cand.h_end
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
    anchors = (sim >= ANCHOR_SIM) & ~((p.stop > 0)[:, None] | (h.stop > 0)[None, :])
    left_a = _anchored(anchors, p_start, h_start, -1)
    right_a = _anchored(anchors, p_end - 1, h_end - 1, +1)
    f[:, col["sub:anchor_left"]] = left_a
    f[:, col["sub:anchor_right"]] = right_a
    f[:, col["sub:anchor_both"]] = left_a & right_a
    f[:, col["sub:stop_anchor"]] = stop_both * (left_a | right_a)
    # Support from the context: a neighbour that matches or an anchor nearby. Function
    # words, forms of `be` and tokens with equally good rivals need it most.
    unsupported = (left < 0.5) & (right < 0.5) & ~left_a & ~right_a
    f[:, col["sub:stop_unsupported"]] = stop_both * unsupported
    be_cum_p, be_cum_h = _cum(p.be), _cum(h.be)
    any_be = ((be_cum_p[p_end] - be_cum_p[p_start]) > 0) | ((be_cum_h[h_end] - be_cum_h[h_start]) > 0)
    f[:, col["sub:be_unsupported"]] = any_be & unsupported
    left2 = _neighbour(sim, p_start - 2, h_start - 2, p_len, h_len)
    right2 = _neighbour(sim, p_end + 1, h_end + 1, p_len, h_len)
    f[:, col["sub:context2"]] = (left + right + left2 + right2) / 4.0
    rival = (_span_max(h.ties, h_start, h_end) > 0) | (_span_max(p.ties, p_start, p_end) > 0)
    f[:, col["sub:rival"]] = rival
    f[:, col["sub:rival_unsupported"]] = rival & unsupported


def _token_features(side: _Side, first: int, excess: float) -> np.ndarray:
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
    p = _Side.of(text, p_best, _ties(sim, p_best, 1))
    h = _Side.of(hyp, h_best, _ties(sim, h_best, 0))
    # Stage 2: candidates. Layers: similarity, antonymy, then each lexical component.
    layers = np.concatenate((sim[None], ant[None], comps)) if p_len and h_len else np.zeros((2 + len(comps), p_len, h_len))
    del comps
    cand = _candidates(sim, layers, config.max_phrase, extra)
    del layers
    # Stages 3-5: the aligned candidates' features.
    f = np.zeros((len(cand), N_FEATURES), dtype=np.float32)
    eq, stop_both = _shape_features(f, cand, p, h, text.lemmas, hyp.lemmas)
    _lexical_features(f, cand, p, h)
    if config.contextual and len(cand):
        _contextual_features(f, cand, sim, p, h, stop_both)
    f[:, INDEX["sub:weak_excess"]] = excess(p_len, h_len) * (1.0 - f[:, INDEX["sub:sim_max"]])
    # Stage 6: DEL and INS.
    deleted = _token_features(p, _DEL0, excess(p_len, h_len))
    inserted = _token_features(h, _INS0, excess(h_len, p_len))
    return PairFeatures(p_len, h_len, cand.p_start, cand.p_end, cand.h_start, cand.h_end, eq, f, deleted, inserted,
                        cand.added)


#: The (text, hypothesis) distances from a phrase to an anchor that count as a matching
#: context: 1..ANCHOR_WINDOW tokens on both sides, the two differing by at most one.
_ANCHOR_OFFSETS: tuple[tuple[int, int], ...] = tuple(
    (dp, dh) for dp in range(1, ANCHOR_WINDOW + 1) for dh in range(1, ANCHOR_WINDOW + 1) if abs(dp - dh) <= 1
)


def _anchored(anchors: np.ndarray, p_at: np.ndarray, h_at: np.ndarray, direction: int) -> np.ndarray:
    """Per candidate: an anchor lies at ``(p_at + direction * dp, h_at + direction * dh)``
    for one of :data:`_ANCHOR_OFFSETS` (looked up in the padded anchor matrix: ``O(C)``)."""
    w = ANCHOR_WINDOW
    padded = np.zeros((anchors.shape[0] + 2 * w, anchors.shape[1] + 2 * w), dtype=bool)
    padded[w : w + anchors.shape[0], w : w + anchors.shape[1]] = anchors
    out = np.zeros(p_at.size, dtype=bool)
    for dp, dh in _ANCHOR_OFFSETS:
        out |= padded[p_at + direction * dp + w, h_at + direction * dh + w]
    return out


def _ties(sim: np.ndarray, best: np.ndarray, axis: int) -> np.ndarray:
    """Per token: 1 when more than one token on the other side reaches its best
    similarity (and that is positive), else 0."""
    if sim.size == 0:
        return np.zeros(best.size)
    at_best = sim >= (best[:, None] if axis == 1 else best[None, :]) - 1e-9
    return ((at_best.sum(axis=axis) > 1) & (best > 0)).astype(np.float64)


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
