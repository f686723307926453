"""How a score becomes an entailment decision, and whether that decision transfers.

A thresholded scorer judges a pair entailed when ``score > cutoff``. The cutoff is chosen on
one labelled set (A) and applied unchanged to another (B); what matters is the accuracy on
B, not the accuracy A promised. This module holds

* the cutoff rules (:data:`CUTOFF_RULES`), each ``rule(scores, gold) -> cutoff``:

  - ``best``: the best accuracy on A, ties to the lowest cutoff, the cutoff being one of
    A's scores (the library's historical rule, :func:`explorer.decision.measures.best_cutoff`);
  - ``midpoint``: the same best-accuracy choice, but the cutoff is put halfway between the
    chosen score and the next distinct score above it (the gap is where A says nothing);
  - ``plateau``: among all cutoffs with the best accuracy, the middle of the widest run of
    consecutive ones (midpoint placement), not the lowest;
  - ``smoothed``: the best cutoff after averaging the accuracy curve over a window of
    ``2k + 1`` neighbouring cutoffs (k = 2% of A's distinct scores), midpoint placement;
  - ``prior``: the cutoff that labels the same share of A entailed as A's gold share
    (a quantile; it ignores which pairs are entailed);
  - ``logistic``: a one-feature logistic regression of gold on the score, the cutoff where
    the fitted probability is one half;

* :func:`transfer`: one scorer's row of the transfer table (cutoff chosen on A by a rule,
  accuracy on A and on B, B's own best accuracy, B's average precision);
* :func:`bootstrap_transfer`: the spread of the chosen cutoff and of the transferred
  accuracy when A is resampled with replacement.

Every sweep here includes "everything entailed" (a cutoff below the smallest score).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from explorer.decision.measures import EvaluationError, accuracy, average_precision, per_pair, sweep

__all__ = [
    "CUTOFF_RULES", "DEFAULT_RULE", "MAX_BOOTSTRAP", "OWN_RULE", "Bools", "BootstrapSummary", "CutoffRule", "Floats",
    "PairedDifference", "TransferRow", "bootstrap_transfer", "choose_cutoff", "cutoff_best", "cutoff_logistic",
    "cutoff_midpoint", "cutoff_plateau", "cutoff_prior", "cutoff_smoothed", "paired_difference", "transfer",
    "transfer_table",
]

Floats = Sequence[float] | np.ndarray
Bools = Sequence[bool] | np.ndarray
CutoffRule = Callable[[Floats, Bools], float]

#: Bootstrap resamples are refused past this many (each resample sweeps A once).
MAX_BOOTSTRAP = 5000


def _best_indices(accuracies: np.ndarray) -> np.ndarray:
    return np.flatnonzero(accuracies >= accuracies.max() - 1e-12)


def _midpoint(cutoffs: np.ndarray, index: int, scores: np.ndarray) -> float:
    """Halfway between candidate ``index`` and the next distinct candidate (or the top score)."""
    if index + 1 < cutoffs.size:
        return float((cutoffs[index] + cutoffs[index + 1]) / 2)
    return float(cutoffs[index])  # above every score: nothing entailed either way


def _candidates(scores: Floats, gold: Bools) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cutoffs, accuracies = sweep(scores, gold)
    return cutoffs, accuracies, np.asarray(scores, dtype=float)


def cutoff_best(scores: Floats, gold: Bools) -> float:
    """Best accuracy on the data, lowest cutoff among ties (a candidate score)."""
    cutoffs, accuracies = sweep(scores, gold)
    return float(cutoffs[int(np.argmax(accuracies))])


def cutoff_midpoint(scores: Floats, gold: Bools) -> float:
    """Best accuracy, lowest among ties, placed halfway into the gap above it."""
    cutoffs, accuracies, s = _candidates(scores, gold)
    return _midpoint(cutoffs, int(np.argmax(accuracies)), s)


def cutoff_plateau(scores: Floats, gold: Bools) -> float:
    """The middle of the widest run of consecutive best-accuracy cutoffs."""
    cutoffs, accuracies, s = _candidates(scores, gold)
    best = _best_indices(accuracies)
    runs: list[tuple[int, int]] = []
    start = prev = int(best[0])
    for i in best[1:]:
        if i != prev + 1:
            runs.append((start, prev))
            start = int(i)
        prev = int(i)
    runs.append((start, prev))
    lo, hi = max(runs, key=lambda r: (r[1] - r[0], -r[0]))
    if lo == hi:
        return _midpoint(cutoffs, lo, s)
    # The run spans cutoffs[lo] .. the gap above cutoffs[hi]; take the middle of that range.
    top = _midpoint(cutoffs, hi, s)
    return float((cutoffs[lo] + top) / 2)


def cutoff_smoothed(scores: Floats, gold: Bools, *, share: float = 0.02) -> float:
    """Best cutoff of the accuracy curve averaged over ``2k + 1`` neighbours."""
    cutoffs, accuracies, s = _candidates(scores, gold)
    k = max(1, int(round(share * cutoffs.size)))
    padded = np.concatenate([np.full(k, accuracies[0]), accuracies, np.full(k, accuracies[-1])])
    smooth = np.convolve(padded, np.ones(2 * k + 1) / (2 * k + 1), mode="valid")
    return _midpoint(cutoffs, int(np.argmax(smooth)), s)


def cutoff_prior(scores: Floats, gold: Bools) -> float:
    """The cutoff that labels A's gold share of pairs entailed (a score quantile)."""
    s = np.asarray(scores, dtype=float)
    g = np.asarray(gold, dtype=bool)
    if s.size == 0:
        raise EvaluationError("no pairs to choose a cutoff on")
    negatives = int(s.size - g.sum())
    ordered = np.sort(s)
    if negatives == 0:
        return float(np.nextafter(ordered[0], -np.inf))
    if negatives == s.size:
        return float(ordered[-1])
    return float((ordered[negatives - 1] + ordered[negatives]) / 2)


def cutoff_logistic(scores: Floats, gold: Bools) -> float:
    """Where a one-feature logistic fit of gold on score crosses one half.

    Falls back to :func:`cutoff_midpoint` when the fit has no positive slope (the score
    does not rank entailed pairs higher on A) or A has one class.
    """
    s = np.asarray(scores, dtype=float)
    g = np.asarray(gold, dtype=bool)
    if g.all() or not g.any() or np.ptp(s) == 0:
        return cutoff_midpoint(s, g)
    from sklearn.linear_model import LogisticRegression

    mean, scale = float(s.mean()), float(s.std()) or 1.0
    model = LogisticRegression(C=1e4).fit(((s - mean) / scale).reshape(-1, 1), g)
    slope, intercept = float(model.coef_[0, 0]), float(model.intercept_[0])
    if slope <= 0:
        return cutoff_midpoint(s, g)
    return mean + scale * (-intercept / slope)


CUTOFF_RULES: dict[str, CutoffRule] = {
    "best": cutoff_best,
    "midpoint": cutoff_midpoint,
    "plateau": cutoff_plateau,
    "smoothed": cutoff_smoothed,
    "prior": cutoff_prior,
    "logistic": cutoff_logistic,
}

#: The rule of every cutoff chosen on a development set and carried to other data: the
#: Pair page's, the Evaluate page's, ``evaluate --dev``'s and a batch result's
#: (:func:`explorer.decision.resolve.resolve_cutoff`). Chosen by cross-set transfer
#: (docs/RESULTS.md "Cutoff rules"): as accurate on B as ``best``, and no score of A sits
#: exactly on the cutoff, so scores a hair above a tied dev score are not decided by
#: floating-point noise.
DEFAULT_RULE = "midpoint"
#: The rule of a set's own cutoff, decided on the pairs it was chosen on (the dataset's own
#: on the Pair page, "self" on the Evaluate page and in ``evaluate`` without ``--dev``, a
#: batch result's): the lowest best cutoff, at a score, as the papers report theirs
#: (Szymanski's 0.221 on RTE1 dev). On its own pairs every best-accuracy rule decides the
#: same way, so only the number shown differs; the shipped defaults were chosen by it too.
OWN_RULE = "best"


def choose_cutoff(scores: Floats, gold: Bools, rule: str = DEFAULT_RULE) -> float:
    """The cutoff ``rule`` chooses on labelled scores.

    Raises:
        EvaluationError: for an unknown rule or unusable scores.
    """
    try:
        fn = CUTOFF_RULES[rule]
    except KeyError:
        raise EvaluationError(f"unknown cutoff rule {rule!r}; choose from: {', '.join(CUTOFF_RULES)}") from None
    return float(fn(scores, gold))


@dataclass(frozen=True)
class TransferRow:
    """A cutoff chosen on ``source`` (A) and applied to ``target`` (B)."""

    scorer: str
    source: str
    target: str
    rule: str
    cutoff: float
    source_accuracy: float
    target_accuracy: float
    target_best_accuracy: float  # B's own best cutoff: what a perfect choice would give
    target_average_precision: float
    n_source: int
    n_target: int

    @property
    def loss(self) -> float:
        """Accuracy lost on B against B's own best cutoff."""
        return self.target_best_accuracy - self.target_accuracy

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "loss": self.loss}


def transfer(
    source_scores: Floats, source_gold: Bools, target_scores: Floats, target_gold: Bools, *,
    scorer: str = "", source: str = "A", target: str = "B", rule: str = DEFAULT_RULE,
    fixed_cutoff: float | None = None,
) -> TransferRow:
    """One row of the transfer table. ``fixed_cutoff`` (a trained classifier's own
    decision) replaces the rule; the row's rule is then ``"model"``."""
    if fixed_cutoff is not None:
        cutoff, rule = float(fixed_cutoff), "model"
    else:
        cutoff = choose_cutoff(source_scores, source_gold, rule)
    _, target_curve = sweep(target_scores, target_gold)
    return TransferRow(
        scorer=scorer, source=source, target=target, rule=rule, cutoff=cutoff,
        source_accuracy=accuracy(source_scores, source_gold, cutoff),
        target_accuracy=accuracy(target_scores, target_gold, cutoff),
        target_best_accuracy=float(target_curve.max()),
        target_average_precision=average_precision(target_scores, target_gold),
        n_source=len(source_scores), n_target=len(target_scores),
    )


def transfer_table(
    scores: Mapping[str, tuple[Floats, Floats]], source_gold: Bools, target_gold: Bools, *,
    source: str = "A", target: str = "B", rule: str = DEFAULT_RULE,
    fixed: Mapping[str, float] | None = None,
) -> list[TransferRow]:
    """One :class:`TransferRow` per scorer; ``scores[name] = (scores on A, scores on B)``;
    ``fixed[name]``: a classifier's own cutoff, used instead of the rule."""
    fixed = fixed or {}
    return [
        transfer(a, source_gold, b, target_gold, scorer=name, source=source, target=target, rule=rule,
                 fixed_cutoff=fixed.get(name))
        for name, (a, b) in scores.items()
    ]


@dataclass(frozen=True)
class BootstrapSummary:
    """Spread over resamples of A: quantiles (5, 50, 95) of the cutoff and of B's accuracy."""

    rule: str
    resamples: int
    cutoff: tuple[float, float, float]
    target_accuracy: tuple[float, float, float]
    target_accuracy_mean: float
    target_accuracy_sd: float


def bootstrap_transfer(
    source_scores: Floats, source_gold: Bools, target_scores: Floats, target_gold: Bools, *,
    rule: str = DEFAULT_RULE, resamples: int = 1000, seed: int = 0,
) -> BootstrapSummary:
    """Resample A with replacement, choose the cutoff on each resample, apply it to B.

    Raises:
        EvaluationError: past :data:`MAX_BOOTSTRAP` resamples.
    """
    if not 1 <= resamples <= MAX_BOOTSTRAP:
        raise EvaluationError(f"resamples must be in 1..{MAX_BOOTSTRAP}, got {resamples}")
    s = np.asarray(source_scores, dtype=float)
    g = np.asarray(source_gold, dtype=bool)
    t = np.asarray(target_scores, dtype=float)
    tg = np.asarray(target_gold, dtype=bool)
    rng = np.random.default_rng(seed)
    cutoffs = np.empty(resamples)
    accs = np.empty(resamples)
    for i in range(resamples):
        pick = rng.integers(0, s.size, s.size)
        cutoffs[i] = choose_cutoff(s[pick], g[pick], rule)
        accs[i] = float(np.mean((t > cutoffs[i]) == tg))
    q = (5, 50, 95)
    return BootstrapSummary(
        rule=rule, resamples=resamples,
        cutoff=tuple(float(x) for x in np.percentile(cutoffs, q)),  # type: ignore[arg-type]
        target_accuracy=tuple(float(x) for x in np.percentile(accs, q)),  # type: ignore[arg-type]
        target_accuracy_mean=float(accs.mean()), target_accuracy_sd=float(accs.std()),
    )


@dataclass(frozen=True)
class PairedDifference:
    """Accuracy of method A minus method B on the same pairs, with a bootstrap interval."""

    difference: float
    low: float
    high: float
    resamples: int
    level: float


def paired_difference(
    correct_a: Bools, correct_b: Bools, *, resamples: int = 2000, level: float = 0.95, seed: int = 0,
) -> PairedDifference:
    """How much more often A is right than B on the same pairs, and a percentile interval
    over resamples of the pairs (both methods judged on each resample's pairs; this is
    the spread of the *target* set, the cutoffs or models staying fixed).

    Raises:
        EvaluationError: for arrays of different lengths, an empty set, a level outside
            (0, 1), or past :data:`MAX_BOOTSTRAP` resamples.
    """
    if not 1 <= resamples <= MAX_BOOTSTRAP:
        raise EvaluationError(f"resamples must be in 1..{MAX_BOOTSTRAP}, got {resamples}")
    if not 0.0 < level < 1.0:
        raise EvaluationError(f"level must be between 0 and 1, got {level}")
    a, b = per_pair(correct_a, correct_b, float, names=("judgements of the first method", "of the second"))
    diff = a - b
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, diff.size, (resamples, diff.size))
    means = diff[picks].mean(axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(means, (tail, 100 - tail))
    return PairedDifference(float(diff.mean()), float(low), float(high), resamples, level)
