"""How well a thresholded scorer decides: accuracy, CWS, average precision, correlations.

Decision rule: a pair is judged *entailed* when ``score > cutoff``. Which cutoff a scorer
uses is :func:`explorer.decision.resolve.resolve`'s to say; the measures here take it as
given, except :func:`best_cutoff` (the best cutoff on the data itself, lowest among ties)
and :func:`classification_report` with no cutoff, which uses it (``cutoff_source =
"self"``). Candidate cutoffs include one below every score ("everything entailed").

Ranking measures:

* Confidence-weighted score (RTE1, Dagan et al. 2005):
  ``cws = 1/n * sum_i (#correct among ranks 1..i) / i``, pairs ranked by decreasing
  confidence. A threshold system has no confidence of its own; we take the distance
  ``|score - cutoff|`` as confidence (the farther from the cutoff, the surer the
  decision). Ties keep the data's order.
* Average precision (RTE2, Bar-Haim et al. 2006):
  ``AP = 1/R * sum_i E(i) * (#entailing among ranks 1..i) / i``, pairs ranked by
  decreasing score, ``E(i)`` 1 when the pair at rank i is entailing, R the number of
  entailing pairs. Ties keep the data's order.

Graded data (STS, SICK relatedness) is evaluated by Pearson and Spearman correlation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from explorer.errors import ExplorerError
from explorer.pairs import Pair

__all__ = [
    "Bools", "ClassificationReport", "EvaluationError", "Floats", "GradedReport", "TaskReport", "accuracy",
    "average_precision", "best_cutoff", "classification_report", "confidence_weighted_score", "correlations",
    "graded_report", "per_pair", "sweep",
]

Floats = Sequence[float] | np.ndarray
Bools = Sequence[bool] | np.ndarray


class EvaluationError(ExplorerError, ValueError):
    """Data that cannot be evaluated the way that was asked."""


def per_pair(first: Floats | Bools, second: Floats | Bools, second_type: type, *,
             names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """``first`` as floats and ``second`` as ``second_type``: one entry per pair each,
    refused when their lengths differ (the message counts both by ``names``) or when
    there is no pair."""
    a = np.asarray(first, dtype=float)
    b: np.ndarray = np.asarray(second, dtype=second_type)
    if a.shape != b.shape or a.ndim != 1:
        raise EvaluationError(f"{a.size} {names[0]} for {b.size} {names[1]}")
    if a.size == 0:
        raise EvaluationError("no pairs to evaluate")
    return a, b


def _arrays(scores: Floats, gold: Bools) -> tuple[np.ndarray, np.ndarray]:
    s, g = per_pair(scores, gold, bool, names=("scores", "gold labels"))
    if not np.all(np.isfinite(s)):
        raise EvaluationError("scores must be finite numbers")
    return s, g


def sweep(scores: Floats, gold: Bools) -> tuple[np.ndarray, np.ndarray]:
    """Accuracy at every candidate cutoff, ascending: one below the smallest score
    ("everything entailed", as far below it as the gap to the next distinct score, or 1
    when all scores are equal), then each distinct score.

    Returns:
        ``(cutoffs, accuracies)``, two arrays of equal length.
    """
    s, g = _arrays(scores, gold)
    order = np.argsort(s, kind="stable")
    s_sorted, g_sorted = s[order], g[order]
    distinct = np.unique(s_sorted)
    gap = float(distinct[1] - distinct[0]) if distinct.size > 1 else 1.0
    cutoffs = np.concatenate([[distinct[0] - gap], distinct])
    # For cutoff v, positives predicted are scores > v. Count pairs with score <= v.
    upto = np.searchsorted(s_sorted, cutoffs, side="right")
    pos_cum = np.concatenate([[0], np.cumsum(g_sorted)])
    neg_cum = np.concatenate([[0], np.cumsum(~g_sorted)])
    true_neg = neg_cum[upto]
    true_pos = pos_cum[-1] - pos_cum[upto]
    return cutoffs, (true_pos + true_neg) / s.size


def best_cutoff(scores: Floats, gold: Bools) -> tuple[float, float]:
    """The cutoff with the best accuracy (lowest among ties) and that accuracy."""
    cutoffs, accuracies = sweep(scores, gold)
    best = int(np.argmax(accuracies))  # argmax returns the first, i.e. lowest, cutoff
    return float(cutoffs[best]), float(accuracies[best])


def accuracy(scores: Floats, gold: Bools, cutoff: float) -> float:
    s, g = _arrays(scores, gold)
    return float(np.mean((s > cutoff) == g))


def confidence_weighted_score(scores: Floats, gold: Bools, cutoff: float) -> float:
    """RTE1's CWS with confidence ``|score - cutoff|`` (see the module docstring)."""
    s, g = _arrays(scores, gold)
    correct = (s > cutoff) == g
    order = np.argsort(-np.abs(s - cutoff), kind="stable")
    ranked = correct[order]
    return float(np.mean(np.cumsum(ranked) / np.arange(1, s.size + 1)))


def average_precision(scores: Floats, gold: Bools) -> float:
    """RTE2's average precision, ranking by decreasing score (0 with no positives)."""
    s, g = _arrays(scores, gold)
    if not g.any():
        return 0.0
    ranked = g[np.argsort(-s, kind="stable")]
    precision_at = np.cumsum(ranked) / np.arange(1, s.size + 1)
    return float(np.sum(precision_at[ranked]) / ranked.sum())


def correlations(scores: Floats, gold: Floats) -> tuple[float, float]:
    """Pearson and Spearman correlation (NaN when either side is constant)."""
    from scipy import stats

    s = np.asarray(scores, dtype=float)
    y = np.asarray(gold, dtype=float)
    if s.size < 2 or np.ptp(s) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    return float(stats.pearsonr(s, y)[0]), float(stats.spearmanr(s, y)[0])


@dataclass(frozen=True)
class TaskReport:
    n: int
    accuracy: float
    cws: float
    average_precision: float


@dataclass(frozen=True)
class ClassificationReport:
    """How a thresholded scorer did on binary (or binarised 3-way) data."""

    n: int
    cutoff: float
    cutoff_source: str  # "dev", "self" or "model" (a classifier's own decision)
    accuracy: float
    cws: float
    average_precision: float
    by_task: dict[str, TaskReport] = field(default_factory=dict)


@dataclass(frozen=True)
class GradedReport:
    n: int
    pearson: float
    spearman: float


def classification_report(
    scores: Floats, pairs: Sequence[Pair], *, cutoff: float | None = None, source: str = "dev",
) -> ClassificationReport:
    """Accuracy, CWS and average precision overall and per task.

    ``cutoff=None`` chooses the best cutoff on these pairs (``cutoff_source="self"``).

    Raises:
        EvaluationError: when a pair has no entailment label.
    """
    unlabelled = [p.id for p in pairs if p.entails is None]
    if unlabelled:
        raise EvaluationError(
            f"{len(unlabelled)} pairs have no entailment label (first: {unlabelled[0]}); "
            "accuracy needs labelled data"
        )
    gold = [bool(p.entails) for p in pairs]
    if cutoff is None:
        cutoff, _ = best_cutoff(scores, gold)
        source = "self"
    s = np.asarray(scores, dtype=float)
    g = np.asarray(gold, dtype=bool)
    by_task: dict[str, TaskReport] = {}
    tasks = sorted({p.task for p in pairs if p.task})
    task_of = np.array([p.task or "" for p in pairs])
    for task in tasks:
        mask = task_of == task
        by_task[task] = TaskReport(
            n=int(mask.sum()),
            accuracy=accuracy(s[mask], g[mask], cutoff),
            cws=confidence_weighted_score(s[mask], g[mask], cutoff),
            average_precision=average_precision(s[mask], g[mask]),
        )
    return ClassificationReport(
        n=len(pairs),
        cutoff=float(cutoff),
        cutoff_source=source,
        accuracy=accuracy(s, g, cutoff),
        cws=confidence_weighted_score(s, g, cutoff),
        average_precision=average_precision(s, g),
        by_task=by_task,
    )


def graded_report(scores: Floats, pairs: Sequence[Pair]) -> GradedReport:
    missing = [p.id for p in pairs if p.score is None]
    if missing:
        raise EvaluationError(f"{len(missing)} pairs have no graded score (first: {missing[0]})")
    pearson, spearman = correlations(scores, [float(p.score) for p in pairs])  # type: ignore[arg-type]
    return GradedReport(n=len(pairs), pearson=pearson, spearman=spearman)

