"""Evaluating scorers as entailment classifiers and as similarity measures.

Decision rule: a pair is judged *entailed* when ``score > cutoff``. With a development
set, the cutoff is chosen on it by a rule of :mod:`explorer.decision` (by default
``midpoint``: the best accuracy there, lowest among ties, placed halfway into the gap to
the next distinct score) and applied unchanged to the test data; with no development set
it is the best cutoff on the data itself (:func:`best_cutoff`, ``cutoff_source = "self"``).
Candidate cutoffs include one below every score ("everything entailed").

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

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from explorer.datasets import Dataset
from explorer.errors import ExplorerError
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.scorers import SCORERS, get_scorer

Progress = Callable[[int, int], None]
Floats = Sequence[float] | np.ndarray
Bools = Sequence[bool] | np.ndarray


class EvaluationError(ExplorerError, ValueError):
    """Data that cannot be evaluated the way that was asked."""


def _arrays(scores: Floats, gold: Bools) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=float)
    g = np.asarray(gold, dtype=bool)
    if s.shape != g.shape or s.ndim != 1:
        raise EvaluationError(f"{s.size} scores for {g.size} gold labels")
    if s.size == 0:
        raise EvaluationError("no pairs to evaluate")
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


def score_pairs(
    pairs: Sequence[Pair], scorer_name: str, *, progress: Progress | None = None
) -> np.ndarray:
    """Score every pair with one registered scorer."""
    scorer = get_scorer(scorer_name)
    out = np.empty(len(pairs))
    score_many = getattr(scorer, "score_many", None)
    if score_many is not None:
        # Scorers with a batch path score in chunks so progress still moves.
        chunk = 200
        for start in range(0, len(pairs), chunk):
            batch = [analyze_pair(p) for p in pairs[start : start + chunk]]
            out[start : start + len(batch)] = score_many(batch)
            if progress is not None:
                progress(start + len(batch), len(pairs))
        return out
    for i, pair in enumerate(pairs):
        out[i] = scorer.score(analyze_pair(pair)).value
        if progress is not None:
            progress(i + 1, len(pairs))
    return out


@dataclass(frozen=True)
class ScorerEvaluation:
    """One scorer's evaluation on one dataset, in the CLI's JSON shape."""

    scorer: str
    report: ClassificationReport | GradedReport
    seconds: float
    scores: tuple[float, ...] = field(repr=False)
    dev_scores: tuple[float, ...] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        body = asdict(self.report)
        return {"scorer": self.scorer, **body, "seconds": round(self.seconds, 4)}


def evaluate(
    data: Dataset, scorer_names: Sequence[str], *, dev: Dataset | None = None,
    progress: Callable[[str, int, int], None] | None = None, rule: str | None = None,
) -> list[ScorerEvaluation]:
    """Score and evaluate a dataset with each scorer (cutoffs chosen on ``dev`` if given,
    by ``rule``: one of :data:`explorer.decision.CUTOFF_RULES`, the default rule when None).

    Graded data gets Pearson/Spearman; labelled data gets the classification report.
    """
    from explorer.decision import DEFAULT_RULE, choose_cutoff

    rule = rule or DEFAULT_RULE
    if dev is not None:
        choose_cutoff([0.0, 1.0], [False, True], rule)  # an unknown rule fails before any scoring
        unlabelled = [p.id for p in dev.pairs if p.entails is None]
        if unlabelled or not dev.pairs:
            raise EvaluationError(
                f"the development set {dev.name} has {len(unlabelled)} pairs without an entailment label"
                + (f" (first: {unlabelled[0]})" if unlabelled else "")
                + "; choosing a cutoff needs binary or 3-way labels"
            )
    graded = data.kind == "graded"
    if dev is not None and graded:
        raise EvaluationError("a development set only applies to labelled (classification) data")
    results = []
    for name in scorer_names:
        start = time.perf_counter()
        report_progress = (lambda i, n, name=name: progress(name, i, n)) if progress else None
        scores = score_pairs(data.pairs, name, progress=report_progress)
        dev_scores = None
        report: ClassificationReport | GradedReport
        if graded:
            report = graded_report(scores, data.pairs)
        else:
            cutoff = None
            fixed = SCORERS[name].cutoff if name in SCORERS else None
            if fixed is not None:
                cutoff = fixed
            elif dev is not None:
                dev_scores = score_pairs(dev.pairs, name)
                cutoff = choose_cutoff(dev_scores, [bool(p.entails) for p in dev.pairs], rule)
            report = classification_report(scores, data.pairs, cutoff=cutoff,
                                           source="model" if fixed is not None else "dev")
        results.append(
            ScorerEvaluation(
                scorer=name,
                report=report,
                seconds=time.perf_counter() - start,
                scores=tuple(float(x) for x in scores),
                dev_scores=None if dev_scores is None else tuple(float(x) for x in dev_scores),
            )
        )
    return results
