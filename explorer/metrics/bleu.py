"""BLEU and its entailment variants.

Papineni et al. (2002): clipped n-gram precisions for n = 1..N (N = 4, uniform
weights), combined by a geometric mean and multiplied by the brevity penalty
``e^(1 - r/c)`` when the candidate length c is shorter than the reference length r.
In RTE the hypothesis is the candidate and the text the reference.

Szymanski ("Recognizing Textual Entailment With a Modified BLEU Algorithm") argues
that BLEU penalises the short hypotheses of RTE twice: by the brevity penalty and by a
geometric mean that is zero as soon as one order has no match. The modified BLEU
(``mbleu``) drops the brevity penalty and averages the precisions linearly. The
variant ``bleu_pa``, which Szymanski attributes to Pérez & Alfonseca, averages
linearly but keeps the brevity penalty.

Finch, Hwang & Sumita (2005, §2.1) use BLEU1..BLEU4 as paraphrase features: the
geometric mean of the precisions of orders 1..n *without* the brevity penalty, computed
with each sentence as the candidate in turn and averaged (:func:`bleu_both_ways`,
:class:`BleuNScorer`).

An order for which the hypothesis has no n-gram at all (it is shorter than n) has
precision 0, as in the original definition. Tokens are compared lower-cased.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from explorer.api import ResultMixin, both_directions
from explorer.limits import Limits, check
from explorer.preprocess import AnalyzedPair

__all__ = [
    "VARIANTS", "BleuNScorer", "BleuResult", "BleuScorer", "NgramMatch", "OrderStats", "SymmetricBleuResult",
    "Variant", "bleu_both_ways", "bleu_tokens", "brevity_penalty", "combine", "modified_precision", "ngram_matches",
    "ngrams", "order_counts",
]

Variant = Literal["bleu", "mbleu", "bleu_pa"]
VARIANTS: tuple[Variant, ...] = ("bleu", "mbleu", "bleu_pa")


@dataclass(frozen=True)
class OrderStats:
    """Clipped n-gram counts of one order."""

    n: int
    matched: int
    total: int

    @property
    def precision(self) -> float:
        return self.matched / self.total if self.total else 0.0


@dataclass(frozen=True)
class NgramMatch:
    """A hypothesis n-gram found in the text: where it starts in each."""

    n: int
    h_start: int
    p_starts: tuple[int, ...]


@dataclass(frozen=True)
class BleuResult(ResultMixin):
    """A BLEU-family score with everything that produced it."""

    variant: Variant
    value: float
    orders: tuple[OrderStats, ...]
    brevity_penalty: float
    hypothesis_length: int
    text_length: int
    matches: tuple[NgramMatch, ...]

    @property
    def precisions(self) -> tuple[float, ...]:
        return tuple(o.precision for o in self.orders)

    def detail(self) -> str:
        """Matched / total n-grams per order, then the brevity penalty (sacreBLEU's order;
        modified BLEU leaves it out)."""
        counts = " ".join(f"{o.matched}/{o.total}" for o in self.orders)
        unused = " (not applied)" if self.variant == "mbleu" else ""
        return f"n-grams matched {counts}, brevity penalty {self.brevity_penalty:.3f}{unused}"
    def _precision(self, n: int) -> float | None:
        return self.orders[n - 1].precision if n <= len(self.orders) else None

    # The clipped precisions by order: the breakdown a batch stores (``bleu__p1``, ...).
    p1 = property(lambda self: self._precision(1))
    p2 = property(lambda self: self._precision(2))
    p3 = property(lambda self: self._precision(3))
    p4 = property(lambda self: self._precision(4))


def ngrams(tokens: tuple[str, ...], n: int) -> list[tuple[str, ...]]:
    """All n-grams of a token sequence, in order."""
    return [tokens[i : i + n] for i in range(len(tokens) - n + 1)]


def modified_precision(
    candidate: tuple[str, ...], reference: tuple[str, ...], n: int
) -> OrderStats:
    """Clipped n-gram matches of the candidate against one reference (Papineni §2.1)."""
    cand = Counter(ngrams(candidate, n))
    if not cand:
        return OrderStats(n, 0, 0)
    ref = Counter(ngrams(reference, n))
    matched = sum(min(count, ref[gram]) for gram, count in cand.items() if gram in ref)
    return OrderStats(n, matched, sum(cand.values()))


@lru_cache(maxsize=65_536)
def order_counts(
    candidate: tuple[str, ...], reference: tuple[str, ...], max_n: int
) -> tuple[OrderStats, ...]:
    """:func:`modified_precision` for every order 1..max_n at once.

    Cached, so the three variants scoring the same pair count n-grams once; this is
    the shared code path of sentence- and corpus-level use.
    """
    stats = []
    matched = 1
    for n in range(1, max_n + 1):
        total = len(candidate) - n + 1
        if total <= 0:
            stats.append(OrderStats(n, 0, 0))
            continue
        if matched:  # no (n-1)-gram match means no n-gram match: skip the counting
            cand: Counter[object]
            ref: Counter[object]
            if n == 1:
                cand, ref = Counter(candidate), Counter(reference)
            else:
                cand = Counter(zip(*(candidate[i:] for i in range(n))))
                ref = Counter(zip(*(reference[i:] for i in range(n))))
            matched = (cand & ref).total()
        stats.append(OrderStats(n, matched, total))
    return tuple(stats)


def brevity_penalty(candidate_length: int, reference_length: int) -> float:
    """``1`` if the candidate is longer than the reference, else ``e^(1 - r/c)``
    (0 for an empty candidate)."""
    if candidate_length > reference_length:
        return 1.0
    if candidate_length == 0:
        return 0.0
    return math.exp(1.0 - reference_length / candidate_length)


def combine(orders: tuple[OrderStats, ...], bp: float, variant: Variant) -> float:
    """The final score from per-order counts and the brevity penalty."""
    precisions = [o.precision for o in orders]
    if not precisions:
        return 0.0
    if variant == "bleu":
        if min(precisions) == 0.0:
            return 0.0
        return bp * math.exp(sum(math.log(p) for p in precisions) / len(precisions))
    mean = sum(precisions) / len(precisions)
    return mean if variant == "mbleu" else bp * mean


def ngram_matches(
    candidate: tuple[str, ...], reference: tuple[str, ...], max_n: int
) -> tuple[NgramMatch, ...]:
    """Every candidate n-gram (n <= max_n) that occurs in the reference, with positions."""
    found: list[NgramMatch] = []
    for n in range(1, max_n + 1):
        where: dict[tuple[str, ...], list[int]] = {}
        for i, gram in enumerate(ngrams(reference, n)):
            where.setdefault(gram, []).append(i)
        hits = [
            NgramMatch(n, i, tuple(where[gram]))
            for i, gram in enumerate(ngrams(candidate, n))
            if gram in where
        ]
        if not hits:
            break  # no n-gram match means no longer match either
        found.extend(hits)
    return tuple(found)


def bleu_tokens(
    hypothesis: tuple[str, ...], text: tuple[str, ...], *, variant: Variant = "bleu",
    max_n: int = 4, with_matches: bool = True, brevity: bool = True,
) -> BleuResult:
    """Score hypothesis tokens against text tokens (both already normalised).

    ``brevity=False`` leaves the brevity penalty out (reported as 1.0).

    >>> result = bleu_tokens(("the", "cat", "sat"), ("the", "cat", "sat", "down"), variant="mbleu")
    >>> [(o.matched, o.total) for o in result.orders]  # clipped matches per order, 1 to 4
    [(3, 3), (2, 2), (1, 1), (0, 0)]
    >>> result.value  # modified BLEU: the mean of the precisions (an empty order counts 0)
    0.75
    >>> print(result)
    0.7500  (n-grams matched 3/3 2/2 1/1 0/0, brevity penalty 0.717 (not applied))
    >>> bleu_tokens(("the", "cat", "sat"), ("the", "cat", "sat", "down")).value  # BLEU: a zero precision is 0
    0.0
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown BLEU variant {variant!r}; expected one of {VARIANTS}")
    if max_n < 1:
        raise ValueError("max_n must be at least 1")
    orders = order_counts(tuple(hypothesis), tuple(text), max_n)
    bp = brevity_penalty(len(hypothesis), len(text)) if brevity else 1.0
    return BleuResult(
        variant=variant,
        value=combine(orders, bp, variant),
        orders=orders,
        brevity_penalty=bp,
        hypothesis_length=len(hypothesis),
        text_length=len(text),
        matches=ngram_matches(hypothesis, text, max_n) if with_matches else (),
    )


@dataclass(frozen=True)
class BleuScorer:
    """A registry scorer for one BLEU variant."""

    variant: Variant = "bleu"
    max_n: int = 4

    @property
    def name(self) -> str:
        return self.variant

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> BleuResult:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        check(self.name, len(pair.text), len(pair.hypothesis), limits=limits)
        return bleu_tokens(
            pair.hypothesis.lower, pair.text.lower, variant=self.variant, max_n=self.max_n
        )

    def score_many(self, pairs: Sequence[AnalyzedPair], *, limits: Limits | None = None) -> list[BleuResult]:
        """Without the n-gram positions only the Pair page draws: the dataset path."""
        for pair in pairs:
            check(self.name, len(pair.text), len(pair.hypothesis), limits=limits)
        return [bleu_tokens(a.hypothesis.lower, a.text.lower, variant=self.variant, max_n=self.max_n,
                            with_matches=False) for a in pairs]


@dataclass(frozen=True)
class SymmetricBleuResult(ResultMixin):
    """Finch et al.'s BLEU-n: no brevity penalty, both directions averaged.

    Attributes:
        n: the highest order.
        value: mean of the two directions' scores.
        hypothesis_candidate: BLEU with the hypothesis as candidate, text as reference.
        text_candidate: the other direction.
    """

    n: int
    value: float
    hypothesis_candidate: BleuResult
    text_candidate: BleuResult

    def detail(self) -> str:
        return both_directions(self.hypothesis_candidate.value, self.text_candidate.value)


def bleu_both_ways(
    text: tuple[str, ...], hypothesis: tuple[str, ...], n: int, *, with_matches: bool = True
) -> SymmetricBleuResult:
    """Geometric-mean BLEU of orders 1..n without brevity penalty, in both directions."""
    forward = bleu_tokens(hypothesis, text, max_n=n, brevity=False, with_matches=with_matches)
    backward = bleu_tokens(text, hypothesis, max_n=n, brevity=False, with_matches=with_matches)
    return SymmetricBleuResult(n, (forward.value + backward.value) / 2, forward, backward)


@dataclass(frozen=True)
class BleuNScorer:
    """A registry scorer for Finch et al.'s BLEU-n (``bleu1`` .. ``bleu4``)."""

    n: int = 4

    @property
    def name(self) -> str:
        return f"bleu{self.n}"

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> SymmetricBleuResult:
        check(self.name, len(pair.text), len(pair.hypothesis), limits=limits)
        return bleu_both_ways(pair.text.lower, pair.hypothesis.lower, self.n)

    def score_many(self, pairs: Sequence[AnalyzedPair], *, limits: Limits | None = None) -> list[SymmetricBleuResult]:
        for a in pairs:
            check(self.name, len(a.text), len(a.hypothesis), limits=limits)
        return [bleu_both_ways(a.text.lower, a.hypothesis.lower, self.n, with_matches=False) for a in pairs]
