"""All the evidence together: a linear entailment classifier over scorers and alignment features.

Every pair is described by named features (:data:`FEATURES`):

* the values of fast registered scorers (``scorer:NAME``: BLEU family, WER/PER, NIST,
  bag-of-words, MANLI, ITG);
* MANLI's alignment (``manli:...``): the share of hypothesis tokens in EQ, SUB and INS
  edits, the share of text tokens deleted, the number and the idf-weighted share of
  hypothesis content words left unaligned, unaligned hypothesis proper nouns;
* the ITG biparse: inversions;
* mismatches the lexical layer (:mod:`explorer.lexical`) finds: negations on one side
  only, antonyms among MANLI's links (and anywhere between the two sides), hypothesis
  numbers with no equal number in the text;
* lengths: the hypothesis's and the text's (log tokens), the length difference ratio.

The classifier is an L2-regularised logistic regression on standardised features
(:func:`train`); its ``decision`` is a sum of one term per feature, so every pair's
decision is explained by the features that pushed it (:meth:`CombinedModel.explain`).
The shipped model (:data:`DEFAULT_MODEL`) is the one chosen by cross-set transfer
(docs/RESULTS.md, "Combined classifier"), trained on RTE1+RTE2+RTE3 dev, and it is the
registered scorer ``combined`` (value: the probability of entailment; decision at 0.5).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explorer.api import ResultMixin, shown
from explorer.errors import ExplorerError, read_json
from explorer.lexical.mismatch import antonym_anywhere, antonym_links, negation_count, unmatched_numbers
from explorer.limits import Limits, check, cost_model, in_turn, lexical_words, using
from explorer.methods import model_path

__all__ = [
    "DEFAULT_C", "DEFAULT_FEATURES", "DEFAULT_MODEL", "FEATURES", "MAX_TRAIN_PAIRS", "SCORER_FEATURES",
    "CombinedError", "CombinedModel", "CombinedResult", "CombinedRun", "CombinedScorer", "Contribution",
    "alignment_features", "check_features", "default_model", "explain", "feature_matrix", "pair_features",
    "parse_features", "scorers_run", "train", "train_test",
]

if TYPE_CHECKING:
    from explorer.mtclassify import Report
    from explorer.pairs import Pair
    from explorer.preprocess import AnalyzedPair

#: The shipped model, named in the method table's ``combined`` row.
DEFAULT_MODEL = model_path("combined")

#: Scorers whose values are features (fast ones, plus MANLI and ITG whose analyses the
#: alignment features need anyway).
SCORER_FEATURES: tuple[str, ...] = (
    "bleu", "mbleu", "bleu_pa", "wer", "per", "bleu1", "bleu2", "bleu3", "bleu4",
    "nist1", "nist2", "nist3", "nist4", "nist5", "bow", "manli", "itg", "embed",
)

#: Every feature this module computes, with what it measures.
FEATURES: dict[str, str] = {
    **{f"scorer:{n}": f"the {n} scorer's value" for n in SCORER_FEATURES},
    "manli:coverage": "share of hypothesis content words MANLI links to the text",
    "manli:hyp_score": "MANLI's score without DEL edits, per hypothesis token",
    "manli:problem_score": "MANLI's total score per token of the problem (the paper's score)",
    "manli:eq_share": "share of hypothesis tokens in EQ edits",
    "manli:sub_share": "share of hypothesis tokens in SUB edits",
    "manli:ins_share": "share of hypothesis tokens inserted (INS)",
    "manli:del_share": "share of text tokens deleted (DEL)",
    "manli:unaligned_content": "hypothesis content words left unaligned",
    "manli:unaligned_idf": "idf of unaligned hypothesis content words / idf of all hypothesis words",
    "manli:unaligned_names": "hypothesis proper nouns (NNP) left unaligned",
    "itg:inversions": "inverted nodes of the ITG biparse",
    "lex:negation_mismatch": "1 when exactly one side has a negation word",
    "lex:negation_difference": "negation words in the hypothesis minus in the text",
    "lex:antonym_links": "MANLI links whose words are antonyms",
    "lex:antonym_any": "1 when some hypothesis word has an antonym in the text",
    "lex:number_mismatch": "hypothesis numbers with no equal number in the text",
    "len:hypothesis": "log(1 + hypothesis tokens)",
    "len:text": "log(1 + text tokens)",
    "len:ldr": "|text - hypothesis| / max(text, hypothesis) in tokens",
}

#: The documented default feature set, chosen by cross-set transfer on all seven rows
#: of ``experiments/combined_rte.py`` (docs/RESULTS.md, "Combined classifier"): bag-of-words,
#: NIST-3, the hypothesis proper nouns MANLI leaves unaligned, BLEU-1 and the
#: static-embedding sentence cosine, chosen again when bag-of-words and MANLI took static
#: embeddings on and the cosine joined the candidates (mean of the seven rows 67.76%).
#: With the tested set kept out of the choice of C (``experiments.combined_rte --only honest``)
#: they get 58.7 / 65.5 / 72.9 / 70.2% on RTE1 dev / RTE2 dev / RTE3 dev / RTE3 test
#: against bag-of-words' 59.4 / 62.3 / 70.1 / 65.1.
DEFAULT_FEATURES: tuple[str, ...] = (
    "scorer:bow", "scorer:nist3", "manli:unaligned_names", "scorer:bleu1", "scorer:embed",
)

#: The default regularisation (inverse strength) of the logistic regression.
DEFAULT_C = 0.03

#: Refuse to train on more pairs than this (features cost ~50 ms per pair).
MAX_TRAIN_PAIRS = 20_000


class CombinedError(ExplorerError, ValueError):
    """A feature set, model file or training set that cannot be used."""


def check_features(names: Sequence[str]) -> tuple[str, ...]:
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise CombinedError(f"unknown features {', '.join(unknown)}; known: {', '.join(FEATURES)}")
    if not names:
        raise CombinedError("no features named")
    return tuple(names)


def parse_features(spec: str) -> tuple[str, ...]:
    """``"default"``, ``"all"``, or a comma list where ``scorer:``, ``manli:``, ``lex:``,
    ``len:``, ``itg:`` alone select a whole family."""
    spec = spec.strip()
    if spec in ("", "default"):
        return DEFAULT_FEATURES
    if spec == "all":
        return tuple(FEATURES)
    out: list[str] = []
    for item in (s.strip() for s in spec.split(",") if s.strip()):
        if item.endswith(":"):
            family = [n for n in FEATURES if n.startswith(item)]
            if not family:
                raise CombinedError(f"no feature family {item!r}")
            out.extend(f for f in family if f not in out)
        elif item not in out:
            out.append(item)
    return check_features(out)


# -- features ---------------------------------------------------------------------------

def alignment_features(pair: AnalyzedPair, *, antonyms_anywhere: bool = True, itg: bool = True) -> dict[str, float]:
    """The non-scorer features of one pair (decodes MANLI and parses ITG), with the
    values of the ``manli`` and ``itg`` scorers. ``antonyms_anywhere=False`` skips the
    text x hypothesis antonym search (``lex:antonym_any`` is then 0); ``itg=False``
    skips the ITG biparse (``scorer:itg`` and ``itg:inversions`` are then left out)."""
    from explorer.aligners.bow import idf
    from explorer.aligners.manli import entailment_score
    from explorer.scorers import get_scorer

    manli = get_scorer("manli")
    aligner = manli.aligner  # type: ignore[attr-defined]
    result = aligner.align(pair)
    parts = entailment_score(pair, result)
    text, hyp = pair.text, pair.hypothesis
    h_len, p_len = len(hyp), len(text)
    shares = {"EQ": 0, "SUB": 0, "INS": 0}
    deleted = 0
    similarity = aligner.similarity
    for edit in result.edits:
        kind = edit.kind.value
        if edit.h_span is not None and kind in shares:
            shares[kind] += edit.h_span[1] - edit.h_span[0]
        if kind == "DEL" and edit.p_span is not None:
            deleted += edit.p_span[1] - edit.p_span[0]
    links = [link for edit in result.edits if edit.is_aligned for link in edit.links()]
    weights = [idf(w, lemma) for w, lemma in zip(hyp.lower, hyp.lemmas)]
    unaligned = set(parts.unaligned_content)
    biparse = get_scorer("itg").score(pair) if itg else None
    neg_t, neg_h = negation_count(text.lower), negation_count(hyp.lower)
    antonym_any = float(antonyms_anywhere and antonym_anywhere(pair, similarity))
    h = max(h_len, 1)
    out = {
        "scorer:manli": parts.value,
        "manli:coverage": parts.content_coverage,
        "manli:hyp_score": parts.hypothesis_score,
        "manli:problem_score": parts.problem_normalized,
        "manli:eq_share": shares["EQ"] / h,
        "manli:sub_share": shares["SUB"] / h,
        "manli:ins_share": shares["INS"] / h,
        "manli:del_share": deleted / max(p_len, 1),
        "manli:unaligned_content": float(len(unaligned)),
        "manli:unaligned_idf": sum(weights[j] for j in unaligned) / max(sum(weights), 1e-9),
        "manli:unaligned_names": float(sum(hyp.pos[j].startswith("NNP") for j in unaligned)),
        "lex:negation_mismatch": float((neg_t > 0) != (neg_h > 0)),
        "lex:negation_difference": float(neg_h - neg_t),
        "lex:antonym_links": float(antonym_links(pair, links, similarity)),
        "lex:antonym_any": antonym_any,
        "lex:number_mismatch": float(unmatched_numbers(text.lower, hyp.lower)),
        "len:hypothesis": math.log1p(h_len),
        "len:text": math.log1p(p_len),
        "len:ldr": abs(p_len - h_len) / max(p_len, h_len, 1),
    }
    if biparse is not None:
        out["scorer:itg"] = float(biparse.value)
        out["itg:inversions"] = float(getattr(biparse, "inversions", 0))
    return out


def _needs_alignment(names: Sequence[str]) -> bool:
    """Whether :func:`alignment_features` runs (it decodes MANLI) for these features."""
    return any(not n.startswith("scorer:") or n in ("scorer:manli", "scorer:itg") for n in names)


def _needs_itg(names: Sequence[str]) -> bool:
    """Whether :func:`alignment_features` parses with the ITG too for these features."""
    return any(n in ("scorer:itg", "itg:inversions") for n in names)


def scorers_run(names: Sequence[str]) -> tuple[str, ...]:
    """The registered scorers :func:`pair_features` runs for these features, in order:
    MANLI for any feature but another scorer's value, the ITG for its value or inversions,
    then each other scorer named. The combined scorer's cost model is theirs."""
    out: list[str] = []
    if _needs_alignment(names):
        out.append("manli")
        if _needs_itg(names):
            out.append("itg")
    out += [n.split(":", 1)[1] for n in names if n.startswith("scorer:") and n not in ("scorer:manli", "scorer:itg")]
    return tuple(dict.fromkeys(out))


def pair_features(pair: AnalyzedPair, names: Sequence[str] = DEFAULT_FEATURES) -> np.ndarray:
    """One pair's feature vector in the order of ``names``."""
    from explorer.scorers import get_scorer

    values: dict[str, float] = {}
    if _needs_alignment(names):
        values.update(alignment_features(pair, antonyms_anywhere="lex:antonym_any" in names,
                                         itg=_needs_itg(names)))
    for name in names:
        if name.startswith("scorer:") and name not in values:
            values[name] = float(get_scorer(name.split(":", 1)[1]).score(pair).value)
    return np.array([values[n] for n in names], dtype=float)


def feature_matrix(
    pairs: Sequence[AnalyzedPair], names: Sequence[str] = DEFAULT_FEATURES, *,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Rows of :func:`pair_features`, one per pair."""
    names = check_features(names)
    out = np.empty((len(pairs), len(names)))
    for i, pair in enumerate(pairs):
        out[i] = pair_features(pair, names)
        if progress is not None:
            progress(i + 1, len(pairs))
    return out


# -- the model --------------------------------------------------------------------------

@dataclass(frozen=True)
class Contribution:
    """One feature's push on a decision: ``weight * (value - mean) / scale``."""

    feature: str
    value: float
    contribution: float


@dataclass(frozen=True)
class CombinedModel:
    """A logistic regression over standardised features.

    ``decision(x) = intercept + sum_k weights[k] * (x[k] - mean[k]) / scale[k]``;
    entailed when the decision is above 0 (probability above one half).
    """

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float
    info: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_features(self.features)
        n = len(self.features)
        for name in ("mean", "scale", "weights"):
            if np.shape(getattr(self, name)) != (n,):
                raise CombinedError(f"{name} must have one number per feature ({n})")
        if not np.all(np.asarray(self.scale) > 0):
            raise CombinedError("every scale must be positive")

    def terms(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(np.asarray(self.weights) * (np.asarray(x, dtype=float) - self.mean) / self.scale, dtype=float)

    def decision(self, x: np.ndarray) -> np.ndarray:
        """The logit for each row of ``x`` (or for one vector)."""
        return np.asarray(self.intercept + self.terms(x).sum(axis=-1), dtype=float)

    def probability(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(1.0 / (1.0 + np.exp(-self.decision(x))), dtype=float)

    def explain(self, x: np.ndarray) -> list[Contribution]:
        """Each feature's term for one pair, largest push (either way) first."""
        terms = self.terms(x)
        order = np.argsort(-np.abs(terms), kind="stable")
        return [Contribution(self.features[k], float(x[k]), float(terms[k])) for k in order]

    def to_json(self) -> dict[str, object]:
        return {
            "model": "combined",
            "classifier": "logistic regression on standardised features",
            "intercept": round(float(self.intercept), 6),
            "features": [
                {"name": n, "mean": round(float(m), 6), "scale": round(float(s), 6), "weight": round(float(w), 6)}
                for n, m, s, w in zip(self.features, self.mean, self.scale, self.weights)
            ],
            "info": self.info,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, payload: object, *, source: str = "model") -> CombinedModel:
        if not isinstance(payload, dict) or payload.get("model") != "combined":
            raise CombinedError(f"{source}: not a combined-classifier file (expected \"model\": \"combined\")")
        try:
            rows = payload["features"]
            return cls(
                features=tuple(str(r["name"]) for r in rows),
                mean=np.array([float(r["mean"]) for r in rows]),
                scale=np.array([float(r["scale"]) for r in rows]),
                weights=np.array([float(r["weight"]) for r in rows]),
                intercept=float(payload["intercept"]),
                info=dict(payload.get("info") or {}),
            )
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, CombinedError):
                raise CombinedError(f"{source}: {err}") from None
            raise CombinedError(f"{source}: malformed ({err!r})") from None

    @classmethod
    def load(cls, path: str | Path) -> CombinedModel:
        return cls.from_json(read_json(path, CombinedError), source=str(path))


def train(
    x: np.ndarray, y: Sequence[bool] | np.ndarray, features: Sequence[str], *,
    c: float = DEFAULT_C, info: dict[str, object] | None = None,
) -> CombinedModel:
    """Fit the logistic regression (L2, inverse strength ``c``) on standardised features.

    Raises:
        CombinedError: for one class only, a shape mismatch, non-finite values, too many pairs.
    """
    from sklearn.linear_model import LogisticRegression

    features = check_features(features)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=bool)
    if x.ndim != 2 or x.shape != (y.size, len(features)):
        raise CombinedError(f"feature matrix {x.shape} does not match {y.size} labels x {len(features)} features")
    if y.size > MAX_TRAIN_PAIRS:
        raise CombinedError(f"{y.size} training pairs; the limit is {MAX_TRAIN_PAIRS}")
    if y.all() or not y.any():
        raise CombinedError("training data has a single class; the classifier needs both")
    if not np.all(np.isfinite(x)):
        raise CombinedError("features must be finite numbers")
    if not c > 0 or not math.isfinite(c):
        raise CombinedError("C must be a positive number")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    return CombinedModel(
        tuple(features), mean, scale, model.coef_[0].astype(float), float(model.intercept_[0]),
        {**(info or {}), "C": c, "trained_on": int(y.size)},
    )


@lru_cache(maxsize=1)
def default_model() -> CombinedModel:
    """The shipped model (:data:`DEFAULT_MODEL`)."""
    return CombinedModel.load(DEFAULT_MODEL)


# -- the scorer -------------------------------------------------------------------------

@dataclass(frozen=True)
class CombinedResult(ResultMixin):
    """The ``combined`` scorer's result: probability of entailment and why."""

    value: float
    decision: float
    contributions: tuple[Contribution, ...]
    intercept: float

    @property
    def entailed(self) -> bool:
        return self.decision > 0

    def detail(self) -> str:
        push = f"; largest push {self.contributions[0].feature} {self.contributions[0].contribution:+.3f}" \
            if self.contributions else ""
        return f"probability of entailment, logit {self.decision:+.3f}{push}"


class CombinedScorer:
    """The shipped combined classifier as a scorer (value: probability of entailment)."""

    name = "combined"

    def __init__(self, model: CombinedModel | None = None) -> None:
        self._model = model

    @property
    def model(self) -> CombinedModel:
        if self._model is None:
            self._model = default_model()
        return self._model

    def check_limits(self, pair: AnalyzedPair, limits: Limits | None = None) -> None:
        """Refuse a pair past the limits of a scorer the model runs, before any of them
        starts: the cost model of the scorers it runs, in turn (:func:`explorer.limits.in_turn`)."""
        model = in_turn([cost_model(name) for name in scorers_run(self.model.features)])
        check(self.name, len(pair.text), len(pair.hypothesis), model=model, limits=limits,
              words=lexical_words(pair) if model.word_pairs else None)

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> CombinedResult:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits (each
        scorer it runs then works under ``limits`` too)."""
        self.check_limits(pair, limits)
        with using(limits):  # no limits given: the current ones
            return explain(pair, self.model)


def explain(pair: AnalyzedPair, model: CombinedModel | None = None) -> CombinedResult:
    """The decision for one pair with each feature's contribution (largest first)."""
    model = model or default_model()
    x = pair_features(pair, model.features)
    decision = float(model.decision(x))
    return CombinedResult(
        value=float(1.0 / (1.0 + math.exp(-decision))),
        decision=decision,
        contributions=tuple(model.explain(x)),
        intercept=model.intercept,
    )


# -- train / test on datasets (the ``combined`` command) ------------------------------------

def train_test(
    train_pairs: Sequence[Pair], test_pairs: Sequence[Pair] | None, names: Sequence[str] = DEFAULT_FEATURES, *,
    c: float = DEFAULT_C, progress: Callable[[str, int, int], None] | None = None,
    info: dict[str, object] | None = None,
) -> tuple[CombinedModel, Report | None]:
    """Fit on labelled ``train_pairs``; report on ``test_pairs`` (None: no report).

    Returns:
        The model and an :class:`explorer.mtclassify.Report` (None without test pairs).

    Raises:
        CombinedError: unlabelled data, one class, too many pairs, unknown features.
    """
    from explorer.mtclassify import Report, _by_task, binary_scores
    from explorer.preprocess import analyze_pair

    names = check_features(names)

    def labelled(pairs: Sequence[Pair], what: str) -> tuple[list[Pair], np.ndarray]:
        kept = [p for p in pairs if p.entails is not None]
        if not kept:
            raise CombinedError(f"{what}: no labelled pairs; the classifier needs entailment labels")
        if len(kept) > MAX_TRAIN_PAIRS:
            raise CombinedError(f"{what}: {len(kept)} pairs; the limit is {MAX_TRAIN_PAIRS}")
        return kept, np.array([bool(p.entails) for p in kept])

    def features_of(pairs: Sequence[Pair], what: str) -> np.ndarray:
        report = (lambda i, n: progress(what, i, n)) if progress else None
        return feature_matrix([analyze_pair(p) for p in pairs], names, progress=report)

    kept, y = labelled(train_pairs, "training data")
    if y.all() or not y.any():
        raise CombinedError("training data has a single class; the classifier needs both")
    model = train(features_of(kept, "training features"), y, names, c=c, info=info)
    if test_pairs is None:
        return model, None
    test_kept, y_test = labelled(test_pairs, "test data")
    predicted = model.decision(features_of(test_kept, "test features")) > 0
    report = Report("train/test", tuple(names), len(names), binary_scores(y_test, predicted),
                    _by_task(test_kept, y_test, predicted))
    return model, report


@dataclass(frozen=True)
class CombinedRun:
    """What the ``combined`` command prints: the trained model, its test report (None
    without test data) and where the model was saved.

    Attributes:
        train, test: the files as given (JSON's ``train`` and ``test``).
        train_name, test_name: their display names; ``train_pairs`` how many trained it.
    """

    train: str
    test: str | None
    train_name: str
    test_name: str | None
    train_pairs: int
    c: float
    model: CombinedModel
    report: Report | None = None
    saved: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"train": self.train, "test": self.test, "classifier": "combined", "C": self.c,
                "features": list(self.model.features), "model": self.model.to_json(),
                "results": {"combined": self.report.to_json()} if self.report else {}}

    def format(self) -> str:
        """The protocol, the test figures, each feature's weight (largest first), the file."""
        test = shown(self.test_name) if self.test_name else "-"
        lines = [f"train {shown(self.train_name)} ({self.train_pairs}), test {test}; "
                 f"logistic regression, C={self.c:g}, {len(self.model.features)} features"]
        if self.report is not None:
            lines += ["  " + line for line in self.report.format("combined").split("\n")]
        lines.append("  weights (standardised features), largest first:")
        weights = [float(w) for w in self.model.weights]
        lines += [f"    {self.model.features[k]:<28} {weights[k]:+.3f}"
                  for k in sorted(range(len(weights)), key=lambda k: -abs(weights[k]))]
        if self.saved is not None:
            lines.append(f"saved {shown(self.saved)}")
        return "\n".join(lines)
