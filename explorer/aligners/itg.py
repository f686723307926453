"""Bracketing ITG biparsing: parse trees, ITG alignments and ITG scores.

Wu (2005, "Recognizing Paraphrases and Textual Entailment using Inversion Transduction
Grammars") scores a sentence pair by its best biparse under a *Bracketing* ITG: one
nonterminal ``A``, the straight rule ``A -> [A A]`` (the two halves in the same order in
both sentences), the inverted rule ``A -> <A A>`` (reversed order in the hypothesis) and
the lexical rules ``A -> x/y`` (a link), ``A -> x/ε`` (an unaligned text word) and
``A -> ε/y`` (an unaligned hypothesis word). This module finds the best biparse by
dynamic programming over span pairs (Wu 1997's biparsing algorithm; the chart is filled by
:func:`explorer.aligners.itg_kernel.fill_chart`), reads the tree back, and reads the
token alignment off its lexical leaves.

Weights (the Leusch-style edit-distance view: no training, every parameter below):

* leaving text word ``i`` unaligned costs ``text_null`` (0 for stopwords and punctuation
  in the stoplist variant), a hypothesis word ``hypothesis_null`` (likewise);
* a link ``x/y`` is a lexical rule only when ``sim(x, y) >= min_similarity`` and neither
  word is a stoplisted word; it costs ``(1 - sim) * (null(x) + null(y))``, so an exact
  match costs 0 and a weak synonym almost as much as leaving both words unaligned;
* every inverted node whose two children are non-empty on both sides costs ``inversion``.

``sim`` is exact lower-case identity by default (the paper used no thesaurus) and can be
any :class:`Similarity`, e.g. the shared WordNet/PPDB similarity of
:mod:`explorer.lexical`. The cost of a biparse is the sum of its rule costs; the score is
``1 - cost / (cost of leaving every word unaligned)``, in [0, 1] (the all-null biparse is
always available), higher meaning more of both sentences aligned under a nested
structure.

Entailment adaptation: in RTE the text is usually much longer than the hypothesis and
only part of it should align, so the ``itg_entail`` configuration makes unaligned text
words cheap (``text_null = 0.1``). ``itg_lex`` links words by the shared lexical
similarity (>= 0.8), with stopwords and punctuation linking only to the identical word
(:class:`FunctionWordsExact`); it is the "thesaurus" the paper expected to help.

Exactness and the length guard: words without any link candidate are removed before
parsing (they are null in every biparse, and an ITG can attach a null word anywhere
without extra inversions) and put back into the tree as straight attachments, so the
parse is exact. If the remaining problem still has more than :data:`MAX_CHART_CELLS`
chart cells, two documented approximations apply in turn, each recorded in
:attr:`ItgParse.approximation`: (1) keep for each hypothesis word only its best text
candidate (ties: the nearest to the diagonal), (2) parse only the first words with link
candidates on each side that fit, leaving the rest unaligned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from explorer.aligners.itg_tree import (
    ChartReader,
    ItgError,
    ItgNode,
    NodeKind,
    expand,
    null_chain,
)
from explorer.alignment import Alignment, Edit, EditKind
from explorer.api import ResultMixin
from explorer.limits import Limits, check, distinct_words
from explorer.preprocess import Analysis, AnalyzedPair

__all__ = [
    "MAX_CHART_CELLS", "VARIANTS", "BracketingItg", "ExactSimilarity", "FunctionWordsExact", "ItgAligner",
    "ItgConfig", "ItgParse", "ItgScorer", "Similarity",
]

if TYPE_CHECKING:
    from explorer.lexical import LexicalConfig


#: Upper bound on ``(T + 1)^2 (H + 1)^2`` for the exact parse after removing words with
#: no link candidate: 61 x 31 words fit (two float32 charts of 14 MB each, about
#: 0.3 s when every word pair is a candidate).
MAX_CHART_CELLS = 3_600_000


class Similarity(Protocol):
    """Lexical similarity in [0, 1] of every text word with every hypothesis word."""

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray: ...


@dataclass(frozen=True)
class ExactSimilarity:
    """1 for identical lower-case words, else 0 (``lemmas=True``: ``lemma_score`` for
    words that differ but share a WordNet lemma)."""

    lemmas: bool = False
    lemma_score: float = 0.9

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        p = np.array(text.lower, dtype=object)
        h = np.array(hypothesis.lower, dtype=object)
        sim = (p[:, None] == h[None, :]).astype(float)
        if self.lemmas and len(p) and len(h):
            pl = np.array(text.lemmas, dtype=object)
            hl = np.array(hypothesis.lemmas, dtype=object)
            lemma_eq = pl[:, None] == hl[None, :]
            sim = np.where((sim == 0) & lemma_eq, self.lemma_score, sim)
        return sim.reshape(len(p), len(h))

    def source_matrix(self, text: Analysis, hypothesis: Analysis) -> list[list[str]]:
        """``identity`` (``lemma``) where :meth:`matrix` is 1 (``lemma_score``), else ``""``."""
        sim = self.matrix(text, hypothesis)
        return [["identity" if x == 1.0 else "lemma" if x > 0 else "" for x in row] for row in sim.tolist()]


class FunctionWordsExact:
    """Wraps a similarity so that stopwords and punctuation link only to the identical
    word: a thesaurus relates "a" to "an" or "in" to "at", and such links cost more
    alignment precision than they bring recall (RESULTS.md, Bracketing ITG)."""

    def __init__(self, base: Similarity) -> None:
        self.base = base

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        sim = np.asarray(self.base.matrix(text, hypothesis), dtype=float)
        if sim.size == 0:
            return sim
        return np.where(self._masked(text, hypothesis), 0.0, sim)

    def source_matrix(self, text: Analysis, hypothesis: Analysis) -> list[list[str]]:
        """The wrapped similarity's sources, ``""`` where a function word is kept to identity."""
        sources = getattr(self.base, "source_matrix", None)
        if sources is None or not len(text) or not len(hypothesis):
            return [["" for _ in hypothesis.tokens] for _ in text.tokens]
        masked = self._masked(text, hypothesis)
        return [["" if masked[i, j] else name for j, name in enumerate(row)]
                for i, row in enumerate(sources(text, hypothesis))]

    @staticmethod
    def _masked(text: Analysis, hypothesis: Analysis) -> np.ndarray:
        stop = np.array(text.stop, dtype=bool)[:, None] | np.array(hypothesis.stop, dtype=bool)[None, :]
        same = np.array(text.lower, dtype=object)[:, None] == np.array(hypothesis.lower, dtype=object)[None, :]
        return stop & ~same


@dataclass(frozen=True)
class ItgConfig:
    """Costs of the Bracketing ITG (see the module docstring for their meaning)."""

    text_null: float = 1.0
    hypothesis_null: float = 1.0
    inversion: float = 0.1
    min_similarity: float = 0.5
    stoplist: bool = False

    def __post_init__(self) -> None:
        for name in ("text_null", "hypothesis_null", "inversion"):
            if getattr(self, name) < 0:
                raise ItgError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0 < self.min_similarity <= 1:
            raise ItgError(f"min_similarity must be in (0, 1], got {self.min_similarity}")


@dataclass(frozen=True)
class ItgParse(ResultMixin):
    """The best biparse of a pair and everything derived from it.

    Attributes:
        tree: the Viterbi tree over all tokens (None only when both sides are empty).
        alignment: the token alignment read off the lexical leaves (EQ for identical
            lower-case words, SUB for other links, DEL / INS for null leaves).
        cost: the summed rule costs of the tree.
        null_cost: the cost of leaving every word unaligned (the normaliser).
        value: ``1 - cost / null_cost`` in [0, 1] (0 when ``null_cost`` is 0).
        inversions: inverted nodes with both children non-empty on both sides.
        parsed_size: ``(text words, hypothesis words)`` that entered the chart.
        approximation: None for an exact parse, else what the length guard did.
    """

    tree: ItgNode | None
    alignment: Alignment
    cost: float
    null_cost: float
    value: float
    inversions: int
    parsed_size: tuple[int, int]
    approximation: str | None = None
    text_null_costs: tuple[float, ...] = field(default=(), repr=False)
    hypothesis_null_costs: tuple[float, ...] = field(default=(), repr=False)

    def detail(self) -> str:
        approximate = f", {self.approximation}" if self.approximation else ""
        return (f"cost {self.cost:g} of {self.null_cost:g} with nothing aligned, {len(self.alignment.links)} links, "
                f"{self.inversions} inversions{approximate}")

    def to_json(self) -> dict[str, object]:
        """A JSON-ready summary; the tree as a flat node list (parents first, children
        by index), since trees with long null chains are too deep to nest."""
        nodes = self.tree.walk() if self.tree is not None else []
        index = {id(n): k for k, n in enumerate(nodes)}
        return {
            "value": self.value,
            "cost": self.cost,
            "null_cost": self.null_cost,
            "inversions": self.inversions,
            "parsed_size": list(self.parsed_size),
            "approximation": self.approximation,
            "links": [list(link) for link in sorted(self.alignment.sure)],
            "tree": [
                {"kind": n.kind.value, "p_span": list(n.p_span), "h_span": list(n.h_span),
                 "children": [index[id(c)] for c in n.children]}
                for n in nodes
            ],
        }


class BracketingItg:
    """The biparser: ``parse(pair)`` gives the best biparse under one configuration."""

    def __init__(self, config: ItgConfig | None = None, *,
                 similarity: Similarity | None = None) -> None:
        self.config = config or ItgConfig()
        self.similarity: Similarity = similarity or ExactSimilarity()

    def null_costs(self, text: Analysis, hypothesis: Analysis) -> tuple[np.ndarray, np.ndarray]:
        """Per-word null-alignment costs (stoplisted words cost nothing)."""
        wp = np.full(len(text), self.config.text_null)
        wh = np.full(len(hypothesis), self.config.hypothesis_null)
        if self.config.stoplist:
            wp[np.array(text.stop, dtype=bool).reshape(-1)] = 0.0
            wh[np.array(hypothesis.stop, dtype=bool).reshape(-1)] = 0.0
        return wp, wh

    def parse(self, pair: AnalyzedPair) -> ItgParse:
        return self.parse_analyses(pair.text, pair.hypothesis)

    def parse_analyses(self, text: Analysis, hypothesis: Analysis) -> ItgParse:
        """Biparse two analysed sentences.

        Raises:
            ItgError: if the similarity matrix has the wrong shape or values.
        """
        gain, allowed, sim, wp, wh = self.link_matrices(text, hypothesis)
        return self._parse_matrix(gain, allowed, sim, wp, wh, text.lower, hypothesis.lower)

    def link_matrices(
        self, text: Analysis, hypothesis: Analysis
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What the chart is filled from: each link's gain, whether it is a lexical rule
        at all, the similarity, and the per-word null costs of each side."""
        n_p, n_h = len(text), len(hypothesis)
        sim = np.asarray(self.similarity.matrix(text, hypothesis), dtype=float)
        if sim.shape != (n_p, n_h):
            raise ItgError(f"similarity matrix of shape {sim.shape} for {n_p} x {n_h} tokens")
        if not np.all(np.isfinite(sim)):
            raise ItgError("similarity matrix has non-finite values")
        sim = np.clip(sim, 0.0, 1.0)
        wp, wh = self.null_costs(text, hypothesis)
        pair_null = wp[:, None] + wh[None, :]
        allowed = (sim >= self.config.min_similarity) & (pair_null > 0)
        gain = np.where(allowed, sim * pair_null, 0.0)
        return gain, allowed, sim, wp, wh

    def _parse_matrix(self, gain: np.ndarray, allowed: np.ndarray, sim: np.ndarray,
                      wp: np.ndarray, wh: np.ndarray, p_words: Sequence[str],
                      h_words: Sequence[str]) -> ItgParse:
        n_p, n_h = gain.shape
        approximation: str | None = None
        p_keep = np.flatnonzero(allowed.any(axis=1))
        h_keep = np.flatnonzero(allowed.any(axis=0))
        if (len(p_keep) + 1) ** 2 * (len(h_keep) + 1) ** 2 > MAX_CHART_CELLS:
            allowed = _best_candidate_only(allowed, sim)
            gain = np.where(allowed, gain, 0.0)
            p_keep = np.flatnonzero(allowed.any(axis=1))
            h_keep = np.flatnonzero(allowed.any(axis=0))
            approximation = "kept only the best text candidate of each hypothesis word"
            if (len(p_keep) + 1) ** 2 * (len(h_keep) + 1) ** 2 > MAX_CHART_CELLS:
                root = int(MAX_CHART_CELLS ** 0.5)
                h_n = min(len(h_keep), int(root ** 0.5) - 1)
                p_n = root // (h_n + 1) - 1
                p_keep, h_keep = p_keep[:p_n], h_keep[:h_n]
                approximation += (
                    f"; then parsed only the first {len(p_keep)} text and {len(h_keep)} "
                    "hypothesis words with link candidates"
                )
        sub_gain = np.ascontiguousarray(gain[np.ix_(p_keep, h_keep)], dtype=np.float32)
        sub_allowed = np.ascontiguousarray(allowed[np.ix_(p_keep, h_keep)])
        from explorer.aligners.itg_kernel import fill_chart

        chart = fill_chart(sub_gain, sub_allowed, np.float32(self.config.inversion))
        reader = ChartReader(chart, sub_gain, sub_allowed, self.config.inversion)
        small = reader.read(0, len(p_keep), 0, len(h_keep))
        if small is None or len(p_keep) == 0 or len(h_keep) == 0:
            tree = null_chain((0, n_p), (0, n_h))
        else:
            tree = expand(small, [int(k) for k in p_keep], [int(k) for k in h_keep], n_p, n_h, sim)
        edits: list[Edit] = []
        inversions = 0
        cost = 0.0
        for node in tree.walk() if tree is not None else ():
            if node.kind is NodeKind.INVERTED:
                inversions += 1
                cost += self.config.inversion
            elif node.kind is NodeKind.LINK:
                p, h = node.p_span[0], node.h_span[0]
                link_cost = (1.0 - node.similarity) * float(wp[p] + wh[h])
                cost += link_cost
                kind = EditKind.EQ if p_words[p] == h_words[h] else EditKind.SUB
                edits.append(Edit(kind, node.p_span, node.h_span, score=-link_cost,
                                  features=(("similarity", node.similarity),)))
            elif node.kind is NodeKind.TEXT_NULL:
                p = node.p_span[0]
                cost += float(wp[p])
                edits.append(Edit(EditKind.DEL, node.p_span, None, score=-float(wp[p])))
            elif node.kind is NodeKind.HYP_NULL:
                h = node.h_span[0]
                cost += float(wh[h])
                edits.append(Edit(EditKind.INS, None, node.h_span, score=-float(wh[h])))
        alignment = Alignment.from_edits(n_p, n_h, edits)
        null_cost = float(wp.sum() + wh.sum())
        # The cost is summed over the tree in float64 (the chart is float32), so the
        # score is exactly that of the tree shown.
        value = 0.0 if null_cost <= 0 else min(1.0, max(0.0, 1.0 - cost / null_cost))
        return ItgParse(
            tree=tree, alignment=alignment, cost=cost, null_cost=null_cost, value=value,
            inversions=inversions, parsed_size=(len(p_keep), len(h_keep)),
            approximation=approximation,
            text_null_costs=tuple(float(x) for x in wp),
            hypothesis_null_costs=tuple(float(x) for x in wh),
        )


def _best_candidate_only(allowed: np.ndarray, sim: np.ndarray) -> np.ndarray:
    """For each hypothesis word keep only its most similar text candidate (ties: the
    one nearest the diagonal)."""
    n_p, n_h = allowed.shape
    out = np.zeros_like(allowed)
    if n_p == 0:
        return out
    diagonal = np.abs(np.arange(n_p)[:, None] / max(n_p, 1) - np.arange(n_h)[None, :] / max(n_h, 1))
    key = np.where(allowed, sim - 1e-3 * diagonal, -np.inf)
    for h in range(n_h):
        if allowed[:, h].any():
            out[int(np.argmax(key[:, h])), h] = True
    return out


# -- configurations, scorer and aligner ----------------------------------------------

#: The registered configurations: name -> (label, description, config, similarity).
#: ``similarity`` is "exact" (identical lower-case words, as in the paper) or "lexical"
#: (the shared WordNet/PPDB similarity of :mod:`explorer.lexical`, with function words
#: linking only to themselves, see :class:`FunctionWordsExact`).
VARIANTS: dict[str, tuple[str, str, ItgConfig, str]] = {
    "itg": (
        "Bracketing ITG",
        "Wu 2005: best biparse, unit null costs, exact word matches",
        ItgConfig(), "exact",
    ),
    "itg_stop": (
        "Bracketing ITG (stoplist)",
        "as itg, stopwords and punctuation removed from the lexical rules",
        ItgConfig(stoplist=True), "exact",
    ),
    "itg_entail": (
        "Bracketing ITG (cheap text nulls)",
        "as itg, unaligned text words cost 0.1: only part of the text should align",
        ItgConfig(text_null=0.1), "exact",
    ),
    "itg_lex": (
        "Bracketing ITG (lexical similarity)",
        "as itg, links between words of WordNet/PPDB/embedding similarity >= 0.8 (function words: identity)",
        ItgConfig(min_similarity=0.8), "lexical",
    ),
}


def _similarity(kind: str, lexical_config: LexicalConfig | None = None) -> Similarity:
    if kind == "exact":
        return ExactSimilarity()
    if kind == "lexical":
        from explorer import lexical

        # The shared components and static embeddings, kept on by the transfer rule
        # (docs/RESULTS.md, "Static embeddings").
        config = lexical_config or lexical.LexicalConfig().enable("embedding")
        return FunctionWordsExact(lexical.similarity_for(config))
    raise ItgError(f"unknown similarity {kind!r}; use 'exact' or 'lexical'")


class ItgScorer:
    """A registered scorer: ``score(pair).value`` is the normalised biparse score."""

    def __init__(self, name: str = "itg", *, parser: BracketingItg | None = None,
                 lexical: LexicalConfig | None = None) -> None:
        """``lexical``: the lexical variants' components (the shared defaults when None)."""
        if parser is None:
            if name not in VARIANTS:
                raise ItgError(f"unknown ITG variant {name!r}; choose from: {', '.join(VARIANTS)}")
            _, _, config, kind = VARIANTS[name]
            parser = BracketingItg(config, similarity=_similarity(kind, lexical))
        self._name = name
        self.parser = parser

    def word_similarity(self) -> Similarity:
        """The word similarity the lexical rules are read from."""
        return self.parser.similarity

    @property
    def name(self) -> str:
        return self._name

    def check_limits(self, text: Analysis, hypothesis: Analysis, limits: Limits | None = None) -> None:
        """Refuse a pair past the limits (:mod:`explorer.limits`); the lexical variants
        also bound the distinct word pairs whose similarity is looked up."""
        lexical = not isinstance(self.parser.similarity, ExactSimilarity)
        words = (distinct_words(text.lower), distinct_words(hypothesis.lower)) if lexical else None
        check(self.name, len(text), len(hypothesis), limits=limits, words=words)

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> ItgParse:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        self.check_limits(pair.text, pair.hypothesis, limits)
        return self.parser.parse(pair)


class ItgAligner(ItgScorer):
    """A registered aligner: ``align(pair).alignment`` is read off the Viterbi tree."""

    def align(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> ItgParse:
        return self.score(pair, limits=limits)
