"""A dataset scored and evaluated by registered scorers: what ``evaluate`` prints
(:class:`EvaluationReport`).

Scores come from the scorers (:func:`score_pairs`), cutoffs from
:func:`explorer.decision.resolve.resolve_cutoff`, the figures from
:mod:`explorer.decision.measures`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from explorer.api import method_signature, score_many, shown
from explorer.datasets import Dataset
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.measures import (
    ClassificationReport,
    EvaluationError,
    GradedReport,
    classification_report,
    graded_report,
)
from explorer.decision.resolve import Scored, reported_source, resolve_cutoff
from explorer.decision.rules import DEFAULT_RULE
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.scorers import SCORERS, get_scorer

Progress = Callable[[int, int], None]


def score_pairs(
    pairs: Sequence[Pair], scorer_name: str, *, progress: Progress | None = None, refused_as_nan: bool = False,
) -> np.ndarray:
    """Score every pair with one registered scorer (:func:`explorer.api.score_many`): 200
    pairs at a time for a scorer with a batch path of its own, one at a time otherwise,
    so progress still moves.

    Args:
        refused_as_nan: a pair the scorer refuses (a ``ValueError``, such as a size limit)
            gets NaN instead of stopping the scoring (a slice keeps the other pairs).

    Raises:
        the first refusal (an evaluation needs every pair's score), unless ``refused_as_nan``.
    """
    scorer = get_scorer(scorer_name)
    out = np.empty(len(pairs))
    chunk = 200 if hasattr(scorer, "score_many") else 1
    for start in range(0, len(pairs), chunk):
        results = score_many(scorer, [analyze_pair(p) for p in pairs[start : start + chunk]])
        for offset, result in enumerate(results):
            if isinstance(result, Exception):
                if not (refused_as_nan and isinstance(result, ValueError)):
                    raise result
                out[start + offset] = np.nan
                continue
            out[start + offset] = result.value
        if progress is not None:
            progress(start + len(results), len(pairs))
    return out


@dataclass(frozen=True)
class ScorerEvaluation:
    """One scorer's evaluation on one dataset, in the CLI's JSON shape."""

    scorer: str
    report: ClassificationReport | GradedReport
    seconds: float
    scores: tuple[float, ...] = field(repr=False)
    dev_scores: tuple[float, ...] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, object]:
        """The report's figures with the scorer's :func:`~explorer.api.method_signature`
        (``cutoff_source`` in it for labelled data)."""
        body = asdict(self.report)
        source = getattr(self.report, "cutoff_source", None)
        signature = method_signature(SCORERS.info(self.scorer), cutoff_source=source)
        return {"scorer": self.scorer, **body, "seconds": round(self.seconds, 4), "signature": signature}

    def format(self) -> str:
        """The scorer's line (accuracy, cutoff and where it came from, CWS, AP; or Pearson
        and Spearman for graded data), then one line per task."""
        r = self.report
        took = f"({self.seconds:.2f} s)"
        if isinstance(r, GradedReport):
            return f"{self.scorer:<10} pearson {r.pearson:.4f}  spearman {r.spearman:.4f}  {took}"
        lines = [f"{self.scorer:<10} accuracy {r.accuracy:.2%}  cutoff {r.cutoff:.4f} ({r.cutoff_source})"
                 f"  cws {r.cws:.4f}  ap {r.average_precision:.4f}  {took}"]
        lines += [f"    {shown(task):<6} n={t.n:<4} accuracy {t.accuracy:.2%}  cws {t.cws:.4f}  ap {t.average_precision:.4f}"
                  for task, t in r.by_task.items()]
        return "\n".join(lines)


@dataclass(frozen=True)
class EvaluationReport:
    """What ``evaluate`` prints: every scorer's evaluation of one dataset.

    Attributes:
        data: the dataset (its pairs, name and notes).
        results: one :class:`ScorerEvaluation` per scorer.
        data_path, dev_path: the files as given (JSON's ``data`` and ``dev``).
        dev: the development set the cutoffs were chosen on, if any.
        rule: the cutoff rule used on ``dev`` (None without one).
        unlabelled_left_out: pairs of a partly labelled file left out.
    """

    data: Dataset
    results: tuple[ScorerEvaluation, ...]
    data_path: str
    dev_path: str | None = None
    dev: Dataset | None = None
    rule: str | None = None
    unlabelled_left_out: int = 0

    def to_json(self) -> dict[str, object]:
        return {"data": self.data_path, "dev": self.dev_path, "rule": self.rule if self.dev else None,
                "unlabelled_left_out": self.unlabelled_left_out, "results": [r.to_json() for r in self.results]}

    def format(self) -> str:
        dev = f"; cutoffs chosen on {shown(self.dev.name)} ({self.rule})" if self.dev else ""
        lines = [f"{shown(self.data.name)}: {len(self.data)} pairs ({self.data.kind}){dev}"]
        lines += [f"  note: {shown(note)}" for note in self.data.notes]
        lines += ["  " + line for r in self.results for line in r.format().split("\n")]
        return "\n".join(lines)


def evaluate(
    data: Dataset, scorer_names: Sequence[str], *, dev: Dataset | None = None,
    progress: Callable[[str, int, int], None] | None = None, rule: str | None = None,
) -> list[ScorerEvaluation]:
    """Score and evaluate a dataset with each scorer. Each scorer's cutoff is
    :func:`~explorer.decision.resolve.resolve_cutoff`'s: a trained classifier's own, else
    chosen on ``dev`` (when given) by ``rule`` (one of
    :data:`explorer.decision.rules.CUTOFF_RULES`; the default rule when None), else the
    best on the data itself.

    Graded data gets Pearson/Spearman; labelled data gets the classification report.
    """
    rule = rule or DEFAULT_RULE
    check_dev(dev, rule=rule, graded=data.kind == "graded")
    graded = data.kind == "graded"
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
            choice, dev_scores = scorer_cutoff(name, Scored.of(data.name, scores, gold_of(data.pairs)),
                                               dev=dev, rule=rule)
            report = classification_report(scores, data.pairs, cutoff=choice.value, source=reported_source(choice))
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


def check_dev(dev: Dataset | None, *, rule: str, graded: bool) -> None:
    """Refuse, before any scoring, an unknown cutoff rule and a development set that cannot
    choose a cutoff (a pair without an entailment label, no pair, or graded data to judge)."""
    resolve_cutoff("", rule=rule)  # an unknown rule fails before any scoring
    if dev is None:
        return
    unlabelled = [p.id for p in dev.pairs if p.entails is None]
    if unlabelled or not dev.pairs:
        raise EvaluationError(
            f"the development set {dev.name} has {len(unlabelled)} pairs without an entailment label"
            + (f" (first: {unlabelled[0]})" if unlabelled else "")
            + "; choosing a cutoff needs binary or 3-way labels"
        )
    if graded:
        raise EvaluationError("a development set only applies to labelled (classification) data")


def scorer_cutoff(name: str, own: Scored | CutoffChoice | None, *, dev: Dataset | None,
                  rule: str) -> tuple[CutoffChoice, np.ndarray | None]:
    """The cutoff ``evaluate`` decides ``name`` by on data whose labelled pairs scored
    ``own`` (or whose own cutoff is already chosen, as a batch result's):
    :func:`~explorer.decision.resolve.resolve_cutoff` with ``dev`` scored here (not for a
    trained classifier, whose own cutoff needs none); and the dev scores."""
    on_dev, dev_scores = None, None
    if dev is not None and not (name in SCORERS and SCORERS[name].cutoff is not None):
        dev_scores = score_pairs(dev.pairs, name)
        on_dev = Scored.of(dev.name, dev_scores, gold_of(dev.pairs))
    return resolve_cutoff(name, rule=rule, dev=on_dev, own=own), dev_scores


def gold_of(pairs: Sequence[Pair]) -> list[bool]:
    """Entailment of each pair as a boolean (an unlabelled pair counts as not entailed:
    the reports refuse unlabelled pairs before it matters)."""
    return [bool(p.entails) for p in pairs]
