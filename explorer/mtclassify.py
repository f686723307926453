"""Classifiers over MT-metric features, and the corpus statistics beside them.

Finch, Hwang & Sumita (2005, §3-4) train an SVM with an RBF kernel on the features of
:mod:`explorer.metrics.features` and report accuracy on the MSR Paraphrase corpus and
on PASCAL RTE1 per task. Here the classifier is scikit-learn's ``SVC`` (RBF kernel,
features standardised on the training data). Two protocols:

* train / test: fit on one dataset, report on another;
* k-fold cross-validation (the paper's "jackknifing"): stratified folds over the data
  given, with the mean fold accuracy, its 95% interval (Student t over the folds) and,
  from the out-of-fold predictions, precision, recall, F1 and per-task accuracy.

The positive class is ENTAILMENT (for MSRP: paraphrase).

Corpus statistics (the paper's Table 1): mean sentence lengths, length difference ratio
``LDR = |len(text) - len(hypothesis)| / max(len(text), len(hypothesis))`` (our
definition; 0 for equal lengths) and the mean word edit distance, per task.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, astuple, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.api import shown
from explorer.errors import ExplorerError
from explorer.metrics.features import feature_matrix
from explorer.metrics.wer import levenshtein
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.published import PAPER_MSRP_ACCURACY, PAPER_MSRP_JACKKNIFE

__all__ = [
    "CORPUS_HEADER", "PROFILE_PATH", "QUANTILES", "ClassifyError", "ClassifyReport", "CorpusReport",
    "CorpusStatistics", "Features", "Report", "Scores", "binary_scores", "comparison_rows", "corpus_statistics",
    "cross_validate", "feature_profile", "labelled", "length_difference_ratio", "load_profile", "make_classifier",
    "mean_interval", "metric_features", "train_test",
]

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline


class ClassifyError(ExplorerError, ValueError):
    """Data that cannot be used for training or testing."""


@dataclass(frozen=True)
class Scores:
    """Binary classification figures (positive = entailment / paraphrase)."""

    n: int
    accuracy: float
    precision: float
    recall: float
    f1: float


def binary_scores(gold: Sequence[bool] | np.ndarray, predicted: Sequence[bool] | np.ndarray) -> Scores:
    g, p = np.asarray(gold, dtype=bool), np.asarray(predicted, dtype=bool)
    if g.shape != p.shape:
        raise ClassifyError(f"{g.size} gold labels for {p.size} predictions")
    if g.size == 0:
        return Scores(0, math.nan, math.nan, math.nan, math.nan)
    tp = int(np.sum(g & p))
    precision = tp / int(p.sum()) if p.any() else 0.0
    recall = tp / int(g.sum()) if g.any() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(int(g.size), float(np.mean(g == p)), precision, recall, f1)


def labelled(pairs: Sequence[Pair], name: str) -> tuple[list[Pair], np.ndarray]:
    """The labelled pairs and their gold booleans.

    Raises:
        ClassifyError: when no pair is labelled or only one class occurs.
    """
    kept = [p for p in pairs if p.label is not None]
    if not kept:
        raise ClassifyError(f"{name}: no labelled pairs; the classifier needs entailment labels")
    gold = np.array([bool(p.entails) for p in kept])
    return kept, gold


def make_classifier(*, c: float = 1.0, gamma: str | float = "scale", seed: int = 0) -> Pipeline:
    """Standardise, then an RBF-kernel SVC."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return make_pipeline(StandardScaler(), SVC(kernel="rbf", C=c, gamma=gamma, random_state=seed))


Features = Callable[[Sequence[Pair]], tuple[tuple[str, ...], np.ndarray]]


def metric_features(groups: Sequence[str]) -> Features:
    """The feature function for the given groups (pairs analysed on the way)."""

    def compute(pairs: Sequence[Pair]) -> tuple[tuple[str, ...], np.ndarray]:
        return feature_matrix([analyze_pair(p) for p in pairs], groups)

    return compute


@dataclass(frozen=True)
class Report:
    """One experiment's result.

    Attributes:
        protocol: ``"train/test"`` or ``"k-fold"``.
        features: the feature groups.
        overall: scores on the test data (or the out-of-fold predictions).
        by_task: scores per task, when the data has tasks.
        fold_accuracies: the k-fold protocol's per-fold accuracies.
        interval: the 95% interval of the mean fold accuracy.
        by_ldr: ``{"low": ..., "high": ...}`` when the LDR split was asked for.
        ldr_cutoff: the median LDR splitting the halves.
    """

    protocol: str
    features: tuple[str, ...]
    n_features: int
    overall: Scores
    by_task: dict[str, Scores] = field(default_factory=dict)
    fold_accuracies: tuple[float, ...] = ()
    interval: tuple[float, float] | None = None
    by_ldr: dict[str, Scores] = field(default_factory=dict)
    ldr_cutoff: float | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def format(self, label: str = "") -> str:
        """One line of figures under ``label`` (with the folds' mean and interval), then
        one per task (when there are several) and per LDR half."""
        o = self.overall
        line = (f"{shown(label):<12} n={o.n:<5} acc {o.accuracy:6.2%}  P {o.precision:.3f}  R {o.recall:.3f}  "
                f"F1 {o.f1:.3f}  ({self.n_features} features)")
        if self.interval is not None:
            line += (f"  folds {statistics.fmean(self.fold_accuracies):.2%} "
                     f"[{self.interval[0]:.2%}, {self.interval[1]:.2%}]")
        lines = [line]
        lines += [f"    {shown(task):<6} n={s.n:<4} acc {s.accuracy:6.2%}  F1 {s.f1:.3f}"
                  for task, s in (self.by_task.items() if len(self.by_task) > 1 else ())]
        lines += [f"    LDR {half:<4} n={s.n:<4} acc {s.accuracy:6.2%}  F1 {s.f1:.3f}  (cutoff {self.ldr_cutoff:.3f})"
                  for half, s in self.by_ldr.items()]
        return "\n".join(lines)


@dataclass(frozen=True)
class ClassifyReport:
    """What ``classify`` prints: the protocol and settings, then each experiment's
    :class:`Report` under its name (``"all"``, ``"without pos"``, ...)."""

    train: str
    test: str | None
    protocol: str
    settings: str
    results: tuple[tuple[str, Report], ...]

    def to_json(self) -> dict[str, object]:
        return {"train": self.train, "test": self.test, "protocol": self.protocol,
                "results": {name: r.to_json() for name, r in self.results}}

    def format(self) -> str:
        head = f"{shown(self.protocol)}; {self.settings}"
        return "\n".join([head, *("  " + line for name, r in self.results for line in r.format(name).split("\n"))])


def _by_task(pairs: Sequence[Pair], gold: np.ndarray, predicted: np.ndarray) -> dict[str, Scores]:
    tasks = sorted({p.task for p in pairs if p.task})
    out = {}
    for task in tasks:
        mask = np.array([p.task == task for p in pairs])
        out[task] = binary_scores(gold[mask], predicted[mask])
    return out


def length_difference_ratio(p_len: int, h_len: int) -> float:
    """``|p - h| / max(p, h)``; 0 for two empty sentences."""
    longest = max(p_len, h_len)
    return abs(p_len - h_len) / longest if longest else 0.0


def _pair_ldr(pair: Pair) -> float:
    a = analyze_pair(pair)
    return length_difference_ratio(len(a.text), len(a.hypothesis))


def _by_ldr(pairs: Sequence[Pair], gold: np.ndarray, predicted: np.ndarray, cutoff: float) -> dict[str, Scores]:
    ldr = np.array([_pair_ldr(p) for p in pairs])
    low = ldr <= cutoff
    return {"low": binary_scores(gold[low], predicted[low]), "high": binary_scores(gold[~low], predicted[~low])}


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The Student-t interval of the mean of ``values`` (a point for one value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean
    from scipy.stats import t

    half = float(t.ppf((1 + confidence) / 2, len(values) - 1)) * statistics.stdev(values) / math.sqrt(len(values))
    return mean - half, mean + half


def train_test(
    train: Sequence[Pair], test: Sequence[Pair], groups: Sequence[str], *,
    c: float = 1.0, gamma: str | float = "scale", ldr_split: bool = False,
    features: Features | None = None,
) -> Report:
    """Fit on ``train``, report on ``test``."""
    train_pairs, y_train = labelled(train, "training data")
    test_pairs, y_test = labelled(test, "test data")
    if len(set(y_train.tolist())) < 2:
        raise ClassifyError("training data has a single class; the classifier needs both")
    compute = features or metric_features(groups)
    names, x_train = compute(train_pairs)
    _, x_test = compute(test_pairs)
    model = make_classifier(c=c, gamma=gamma).fit(x_train, y_train)
    predicted = np.asarray(model.predict(x_test), dtype=bool)
    report = Report("train/test", tuple(groups), len(names), binary_scores(y_test, predicted),
                    _by_task(test_pairs, y_test, predicted))
    if ldr_split:
        cutoff = float(np.median([_pair_ldr(p) for p in train_pairs]))
        report = Report(**{**report.__dict__, "by_ldr": _by_ldr(test_pairs, y_test, predicted, cutoff), "ldr_cutoff": cutoff})
    return report


def cross_validate(
    pairs: Sequence[Pair], groups: Sequence[str], *, folds: int = 10,
    c: float = 1.0, gamma: str | float = "scale", seed: int = 0, ldr_split: bool = False,
    features: Features | None = None,
) -> Report:
    """Stratified k-fold cross-validation over ``pairs``."""
    from sklearn.model_selection import StratifiedKFold

    kept, gold = labelled(pairs, "data")
    if folds < 2:
        raise ClassifyError("--folds must be at least 2")
    smallest = min(int(gold.sum()), int((~gold).sum()))
    if smallest < folds:
        raise ClassifyError(f"{folds} folds need at least {folds} pairs of each class; the smaller class has {smallest}")
    compute = features or metric_features(groups)
    names, x = compute(kept)
    predicted = np.zeros(len(kept), dtype=bool)
    accuracies = []
    for train_index, test_index in StratifiedKFold(folds, shuffle=True, random_state=seed).split(x, gold):
        model = make_classifier(c=c, gamma=gamma, seed=seed).fit(x[train_index], gold[train_index])
        predicted[test_index] = np.asarray(model.predict(x[test_index]), dtype=bool)
        accuracies.append(float(np.mean(predicted[test_index] == gold[test_index])))
    report = Report("k-fold", tuple(groups), len(names), binary_scores(gold, predicted),
                    _by_task(kept, gold, predicted), tuple(accuracies), mean_interval(accuracies))
    if ldr_split:
        cutoff = float(np.median([_pair_ldr(p) for p in kept]))
        report = Report(**{**report.__dict__, "by_ldr": _by_ldr(kept, gold, predicted, cutoff), "ldr_cutoff": cutoff})
    return report


# -- corpus statistics (Finch et al. Table 1) ---------------------------------------------

@dataclass(frozen=True)
class CorpusStatistics:
    """Length and edit-distance statistics of a group of pairs (tokens)."""

    group: str
    n: int
    positive_share: float
    mean_text_length: float
    mean_hypothesis_length: float
    mean_ldr: float
    mean_edit_distance: float

    def format(self) -> str:
        """One row under :data:`CORPUS_HEADER`."""
        values = (shown(self.group), *astuple(self)[1:])
        return " ".join(format(value, spec) for value, (_, _, spec) in zip(values, _CORPUS_COLUMNS, strict=True))


#: ``corpus-stats``' columns in field order: heading, heading's alignment and width, the
#: value's format. One table, so a heading and its column cannot drift apart.
_CORPUS_COLUMNS = (("group", "<6", "<6"), ("n", ">5", ">5"), ("pos.", ">6", ">6.1%"), ("|text|", ">7", ">7.2f"),
                   ("|hyp|", ">7", ">7.2f"), ("LDR", ">6", ">6.3f"), ("edit", ">6", ">6.2f"))
CORPUS_HEADER = " ".join(format(heading, width) for heading, width, _ in _CORPUS_COLUMNS)


@dataclass(frozen=True)
class CorpusReport:
    """What ``corpus-stats`` prints: a file's rows of :class:`CorpusStatistics` (all
    pairs first, then per task)."""

    data: str
    rows: tuple[CorpusStatistics, ...]

    def to_json(self) -> dict[str, object]:
        return {"data": self.data, "rows": [asdict(r) for r in self.rows]}

    def format(self) -> str:
        return "\n".join([f"{shown(Path(self.data).name)}: {self.rows[0].n} pairs (lengths in tokens)",
                          "  " + CORPUS_HEADER, *("  " + r.format() for r in self.rows)])


def corpus_statistics(pairs: Sequence[Pair]) -> list[CorpusStatistics]:
    """One row for all pairs, then one per task (when the pairs have tasks)."""
    if not pairs:
        raise ClassifyError("no pairs to describe")

    def row(group: str, members: Sequence[Pair]) -> CorpusStatistics:
        analysed = [analyze_pair(p) for p in members]
        labels = [p.entails for p in members if p.entails is not None]
        return CorpusStatistics(
            group=group,
            n=len(members),
            positive_share=statistics.fmean(labels) if labels else math.nan,
            mean_text_length=statistics.fmean(len(a.text) for a in analysed),
            mean_hypothesis_length=statistics.fmean(len(a.hypothesis) for a in analysed),
            mean_ldr=statistics.fmean(length_difference_ratio(len(a.text), len(a.hypothesis)) for a in analysed),
            mean_edit_distance=statistics.fmean(levenshtein(a.text.lower, a.hypothesis.lower) for a in analysed),
        )

    rows = [row("all", pairs)]
    for task in sorted({p.task for p in pairs if p.task}):
        rows.append(row(task, [p for p in pairs if p.task == task]))
    return rows


# -- feature distributions shipped for the Pair page -------------------------------------

#: Quantiles of the scalar MT-metric features on the MSRP training split, per class,
#: written by ``python -m explorer classify ... --save-profile``.
PROFILE_PATH = Path(__file__).resolve().parent / "models" / "mtmetrics_profile_msrp_train.json"
QUANTILES = (5, 25, 50, 75, 95)


def feature_profile(names: Sequence[str], matrix: np.ndarray, gold: np.ndarray, *, source: str) -> dict[str, Any]:
    """Per feature and class (positive / negative): quantiles and mean.

    Only scalar features (not the per-tag POS components) are summarised.
    """
    features: dict[str, Any] = {}
    for column, name in enumerate(names):
        if ":" in name:
            continue
        features[name] = {}
        for cls, mask in (("positive", gold), ("negative", ~gold)):
            values = matrix[mask, column]
            if values.size == 0:
                continue
            quantiles = np.percentile(values, QUANTILES)
            features[name][cls] = {f"q{q:02d}": round(float(v), 6) for q, v in zip(QUANTILES, quantiles)}
            features[name][cls]["mean"] = round(float(values.mean()), 6)
            features[name][cls]["n"] = int(values.size)
    return {"source": source, "features": features}


def load_profile(path: Path = PROFILE_PATH) -> dict[str, Any] | None:
    """The shipped feature profile, or None when it is missing or unreadable."""
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


# -- the paper's figures (in explorer.published), for the side-by-side table ---------------


def comparison_rows(reports: Sequence[tuple[str, Report]]) -> list[dict[str, object]]:
    """One row per experiment: our figures beside the paper's MSRP accuracy, where the
    paper printed one for that feature set."""
    rows = []
    for name, report in reports:
        o = report.overall
        paper: float | None = PAPER_MSRP_ACCURACY.get(name)
        if report.protocol == "k-fold" and name == "all":
            paper = PAPER_MSRP_JACKKNIFE[0]
        rows.append({
            "features": name,
            "protocol": report.protocol,
            "n": o.n,
            "accuracy %": round(100 * o.accuracy, 2),
            "95% interval": (f"{100 * report.interval[0]:.2f}-{100 * report.interval[1]:.2f}"
                             if report.interval else ""),
            "precision": round(o.precision, 3),
            "recall": round(o.recall, 3),
            "F1": round(o.f1, 3),
            "paper accuracy % (MSRP)": paper,
        })
    return rows
