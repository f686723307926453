"""BLEU step by step: each order's n-gram matching and clipping, then the combination.

The counts come from :func:`explorer.metrics.bleu.modified_precision` and the final
number from :func:`explorer.metrics.bleu.combine` (the scorer's own functions); the
per-n-gram table spells out what they sum.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from explorer.metrics.bleu import (
    VARIANTS,
    OrderStats,
    Variant,
    brevity_penalty,
    combine,
    modified_precision,
    ngrams,
)
from explorer.preprocess import AnalyzedPair
from explorer.teaching import PairTrace, TeachingSizeError, check_size

__all__ = ["VARIANT_LABELS", "BleuStep", "BleuTrace", "NgramCount", "trace_bleu"]

VARIANT_LABELS: dict[str, str] = {
    "bleu": "BLEU (geometric mean x brevity penalty)",
    "mbleu": "modified BLEU (arithmetic mean, no brevity penalty)",
    "bleu_pa": "BLEU P&A (arithmetic mean x brevity penalty)",
}


@dataclass(frozen=True)
class NgramCount:
    """One distinct hypothesis n-gram: how often it occurs on each side, how many of its
    occurrences count (clipped to the text's count), and where it starts in the hypothesis."""

    gram: tuple[str, ...]
    in_hypothesis: int
    in_text: int
    clipped: int
    h_starts: tuple[int, ...]


@dataclass(frozen=True)
class BleuStep:
    """One step: ``phase`` is ``match`` (which n-grams of order ``n`` occur in the text),
    ``clip`` (their counts clipped, giving the order's precision), ``brevity`` or
    ``combine``; ``orders`` holds the orders finished so far."""

    phase: Literal["match", "clip", "brevity", "combine"]
    n: int
    explain: str
    value: float
    counts: tuple[NgramCount, ...] = ()
    orders: tuple[OrderStats, ...] = ()
    brevity_penalty: float = 1.0


@dataclass(frozen=True)
class BleuTrace(PairTrace):
    variant: Variant
    steps: tuple[BleuStep, ...]
    value: float


def _counts(hyp: tuple[str, ...], text: tuple[str, ...], n: int) -> tuple[NgramCount, ...]:
    in_text = Counter(ngrams(text, n))
    starts: dict[tuple[str, ...], list[int]] = {}
    for i, gram in enumerate(ngrams(hyp, n)):
        starts.setdefault(gram, []).append(i)
    return tuple(
        NgramCount(gram, len(where), in_text[gram], min(len(where), in_text[gram]), tuple(where))
        for gram, where in starts.items()
    )


def _order_name(n: int) -> str:
    return f"{n}-gram" if n > 1 else "word"


def _match_text(n: int, counts: tuple[NgramCount, ...], found: list[NgramCount]) -> str:
    """How many of the hypothesis's distinct n-grams the text has, naming the first six."""
    name = _order_name(n)
    if not counts:
        return f"The hypothesis is shorter than {n} words, so it has no {name}s: precision 0."
    shown = ""
    if found:
        shown = ": " + ", ".join("“" + " ".join(c.gram) + "”" for c in found[:6]) + (" ..." if len(found) > 6 else "")
    return f"{len(found)} of the hypothesis's {len(counts)} distinct {name}s also occur in the text" + shown + "."


def _clip_text(n: int, stats: OrderStats, found: list[NgramCount]) -> str:
    """The order's precision as matched / total, and whether clipping removed repeats."""
    clipped_away = sum(c.in_hypothesis - c.clipped for c in found)
    clip_note = (f" Clipping removed {clipped_away} repeat(s) the text does not have as often."
                 if clipped_away else " No count needed clipping.")
    return (f"{_order_name(n).capitalize()} precision = {stats.matched} matched / {stats.total} in the hypothesis"
            f" = {stats.precision:.3f}." + (clip_note if stats.total else ""))


def _brevity_text(hyp_len: int, text_len: int, bp: float, *, used: bool) -> str:
    return (f"Brevity penalty: the hypothesis has {hyp_len} words, the text {text_len}: "
            + (f"e^(1 - {text_len}/{hyp_len}) = {bp:.3f}." if hyp_len <= text_len else "no penalty, 1.0.")
            + ("" if used else " Modified BLEU leaves it out."))


def _combine_text(variant: Variant, orders: Sequence[OrderStats], bp: float) -> str:
    """How the variant combines the precisions (and the brevity penalty), in words."""
    precisions = ", ".join(f"{o.precision:.3f}" for o in orders)
    if variant == "bleu":
        return (f"geometric mean of ({precisions}) x {bp:.3f}"
                + (" is 0 because one order has no match" if min(o.precision for o in orders) == 0 else ""))
    if variant == "mbleu":
        return f"arithmetic mean of ({precisions})"
    return f"arithmetic mean of ({precisions}) x {bp:.3f}"


def trace_bleu(pair: AnalyzedPair, *, variant: Variant = "mbleu", max_n: int = 4) -> BleuTrace:
    """The steps of one BLEU variant on a pair (hypothesis = candidate, text = reference,
    lower-cased tokens, as the registered scorers)."""
    check_size(pair)
    if variant not in VARIANTS:
        raise TeachingSizeError(f"unknown BLEU variant {variant!r}; choose from {', '.join(VARIANTS)}")
    hyp, text = pair.hypothesis.lower, pair.text.lower
    steps: list[BleuStep] = []
    orders: list[OrderStats] = []
    for n in range(1, max_n + 1):
        counts = _counts(hyp, text, n)
        stats = modified_precision(hyp, text, n)
        found = [c for c in counts if c.in_text]
        steps.append(BleuStep("match", n, _match_text(n, counts, found), stats.precision, counts, tuple(orders)))
        orders.append(stats)
        steps.append(BleuStep("clip", n, _clip_text(n, stats, found), stats.precision, counts, tuple(orders)))
    bp = brevity_penalty(len(hyp), len(text))
    uses_bp = variant != "mbleu"
    final_bp = bp if uses_bp else 1.0
    steps.append(BleuStep("brevity", max_n, _brevity_text(len(hyp), len(text), bp, used=uses_bp),
                          final_bp, (), tuple(orders), bp))
    value = combine(tuple(orders), final_bp, variant)
    how = _combine_text(variant, orders, final_bp)
    steps.append(BleuStep("combine", max_n, f"{VARIANT_LABELS[variant].split(' (')[0]} = {how} = {value:.3f}.",
                          value, (), tuple(orders), final_bp))
    return BleuTrace("bleu", pair.text.tokens, pair.hypothesis.tokens, variant, tuple(steps), value)
