"""MANLI: the phrase-based alignment model for NLI and its simulated-annealing decoder.

MacCartney, Galley & Manning (2008), "A phrase-based alignment model for natural
language inference", §4 (MANLI-ALIGN). The decoder starts from the empty alignment
(every token deleted or inserted) and, for N rounds, scores every successor -- the
alignment reached by adding one candidate edit and dropping the edits it conflicts
with, or by dropping one edit -- samples one with probability proportional to
``exp(score / T)`` and lowers the temperature ``T = r * T``. The best alignment seen is
returned, after a final greedy climb (the zero-temperature limit of the same walk).

Because an edit's score does not depend on the rest of the alignment, a successor's
score is the current score plus the new edit's gain minus the gains of the edits it
replaces; only candidates with a positive gain can improve an alignment, so the others
are dropped before the walk. The walk and the final climb are compiled with numba
(:mod:`explorer.aligners.manli_kernel`).

Cost: up to :func:`explorer.limits.manli_candidates` candidate edits (phrases of up to
``max_phrase`` tokens on each side, about ``36 |t| |h|``), each with a float32 feature
row (:mod:`explorer.aligners.manli_features`); the walk is linear in the candidates per
round. :class:`ManliAligner` checks the limits of :mod:`explorer.limits` before it
computes anything.

An alignment's entailment score (scorer ``manli``, :func:`entailment_score`) is the share
of the hypothesis's content words (not stopwords, not punctuation) that the alignment
links to the text, plus :data:`HYPOTHESIS_SCORE_WEIGHT` times the hypothesis side of the
alignment score per hypothesis token (the total without the DEL edits: text left out
costs an entailment nothing). The paper's normalisation, the total divided by the number
of tokens of the problem, is kept as ``problem_normalized``; it transferred worst across
the RTE sets (docs/RESULTS.md, "The `manli` entailment score").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.aligners.manli_features import (
    FEATURES,
    N_FEATURES,
    FeatureConfig,
    PairFeatures,
    SimilarityMatrix,
    extract,
)
from explorer.aligners.manli_kernel import anneal_walk, climb
from explorer.alignment import Alignment, Edit, EditKind
from explorer.api import ResultMixin
from explorer.errors import ExplorerError
from explorer.limits import Limits, check, lexical_words, manli_candidates

if TYPE_CHECKING:
    from explorer.preprocess import AnalyzedPair

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_MODEL = MODELS_DIR / "manli_rte2dev.json"


class ManliModelError(ExplorerError, ValueError):
    """A weights file that cannot be used."""


@dataclass(frozen=True)
class ShippedManli:
    """A MANLI model shipped in ``explorer/models``.

    Attributes:
        name: what ``--model`` and the Aligners page call it.
        file: the weights file in ``explorer/models``.
        label: a short human name.
        trained_on: what it was trained on, in words.
        training_sets: the gold sets it was trained on (:func:`training_set_of` keys),
            so figures on them are labelled training-set figures.
    """

    name: str
    file: str
    label: str
    trained_on: str
    training_sets: tuple[str, ...]

    @property
    def path(self) -> Path:
        return MODELS_DIR / self.file


#: The shipped MANLI models; the first is the default (aligner ``manli`` and scorer ``manli``).
SHIPPED_MODELS: dict[str, ShippedManli] = {
    m.name: m for m in (
        ShippedManli("msr", "manli_rte2dev.json", "MSR RTE2 dev",
                     "the 800 MSR RTE2 dev gold alignments (annotators A/B/C merged by majority, SURE links)",
                     ("msr_rte2_dev",)),
        ShippedManli("msr_edi", "manli_msr_edi.json", "MSR RTE2 dev + Edinburgh++ train",
                     "the 800 MSR RTE2 dev gold alignments (A/B/C merged, SURE) and the 714 Edinburgh++ "
                     "training pairs (SURE links); 30 epochs, weights averaged over 3 training orders",
                     ("msr_rte2_dev", "edinburgh_train")),
    )
}
DEFAULT_MODEL_NAME = "msr"


def model_file(name_or_path: str | Path) -> Path:
    """The weights file of a shipped model's name (:data:`SHIPPED_MODELS`), or the path given.

    Raises:
        ManliModelError: for a string that is neither a shipped name nor an existing file.
    """
    if isinstance(name_or_path, str) and name_or_path in SHIPPED_MODELS:
        return SHIPPED_MODELS[name_or_path].path
    path = Path(name_or_path)
    if not path.is_file():
        raise ManliModelError(
            f"{name_or_path}: no such MANLI model file; give a weights file or a shipped model "
            f"({', '.join(SHIPPED_MODELS)})"
        )
    return path


def training_set_of(dataset_name: str) -> str | None:
    """Which shipped training set a gold dataset's name (file name or merged-file key)
    denotes: ``msr_rte2_dev``, ``edinburgh_train`` or None."""
    lowered = dataset_name.lower()
    if "rte2_dev" in lowered or "msr-rte2-dev" in lowered:
        return "msr_rte2_dev"
    if "gold.train" in lowered:
        return "edinburgh_train"
    return None


@dataclass(frozen=True)
class DecoderConfig:
    """MANLI-ALIGN's schedule: N rounds, initial temperature T0, cooling rate r."""

    iterations: int = 100
    t0: float = 40.0
    rate: float = 0.9
    seed: int = 0

    def __post_init__(self) -> None:
        if self.iterations < 0:
            raise ValueError("iterations must be >= 0")
        if not self.t0 > 0 or not 0 < self.rate <= 1:
            raise ValueError("t0 must be > 0 and rate in (0, 1]")


@dataclass(frozen=True)
class ManliModel:
    """Weights (one per name in :data:`FEATURES`) and the feature options they were
    trained with."""

    weights: np.ndarray
    features: FeatureConfig = FeatureConfig()
    lexical: dict[str, bool] = field(default_factory=dict)
    info: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "model": "manli",
            "features": {"max_phrase": self.features.max_phrase, "contextual": self.features.contextual},
            "lexical": dict(self.lexical),
            "weights": {name: round(float(w), 6) for name, w in zip(FEATURES, self.weights)},
            "info": dict(self.info),
        }

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, payload: dict[str, object], *, source: str = "model") -> ManliModel:
        if not isinstance(payload, dict) or payload.get("model") != "manli":
            raise ManliModelError(f"{source}: not a MANLI weights file (expected \"model\": \"manli\")")
        raw = payload.get("weights")
        if not isinstance(raw, dict):
            raise ManliModelError(f"{source}: \"weights\" must map feature names to numbers")
        unknown = sorted(set(raw) - set(FEATURES))
        if unknown:
            raise ManliModelError(f"{source}: unknown features {', '.join(unknown)}")
        weights = np.array([float(raw.get(name, 0.0)) for name in FEATURES])
        feats = payload.get("features") or {}
        lexical = payload.get("lexical") or {}
        info = payload.get("info") or {}
        if not isinstance(feats, dict) or not isinstance(lexical, dict) or not isinstance(info, dict):
            raise ManliModelError(f"{source}: \"features\", \"lexical\" and \"info\" must be objects")
        config = FeatureConfig(
            max_phrase=int(feats.get("max_phrase", 6)), contextual=bool(feats.get("contextual", True))
        )
        return cls(weights, config, {str(k): bool(v) for k, v in lexical.items()}, dict(info))

    @classmethod
    def load(cls, path: str | Path) -> ManliModel:
        path = Path(path)
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except OSError as err:
            raise ManliModelError(f"{path}: cannot read ({err.strerror})") from None
        except json.JSONDecodeError as err:
            raise ManliModelError(f"{path}: not JSON ({err})") from None
        return cls.from_json(payload, source=str(path))


@lru_cache(maxsize=1)
def default_model() -> ManliModel:
    """The shipped weights, trained on the 800 MSR RTE2 dev problems."""
    return ManliModel.load(DEFAULT_MODEL)


@lru_cache(maxsize=len(SHIPPED_MODELS))
def shipped_model(name: str) -> ManliModel:
    """A shipped model by name (loaded once).

    Raises:
        ManliModelError: for a name not in :data:`SHIPPED_MODELS`.
    """
    if name not in SHIPPED_MODELS:
        raise ManliModelError(f"no shipped MANLI model {name!r}; choose from {', '.join(SHIPPED_MODELS)}")
    return default_model() if name == DEFAULT_MODEL_NAME else ManliModel.load(SHIPPED_MODELS[name].path)


def anneal(
    gain: np.ndarray,
    p_start: np.ndarray,
    p_end: np.ndarray,
    h_start: np.ndarray,
    h_end: np.ndarray,
    p_len: int,
    h_len: int,
    *,
    config: DecoderConfig = DecoderConfig(),
) -> np.ndarray:
    """MANLI-ALIGN over candidates with the given gains.

    Returns:
        The indices (into the given arrays) of the aligned edits of the best alignment
        found; tokens outside them are DEL / INS.
    """
    return anneal_logged(gain, p_start, p_end, h_start, h_end, p_len, h_len, config=config)[0]


@dataclass(frozen=True)
class AnnealLog:
    """What the walk did, round by round (teaching mode): ``useful`` maps the walk's
    candidates to the given arrays; per round the temperature, the score after the
    move (over the empty alignment), the move (``c`` added, ``K + c`` dropped) and the
    alignment after it; ``walk_best`` is the walk's result before the final climb."""

    useful: np.ndarray
    temperature: np.ndarray
    score: np.ndarray
    move: np.ndarray
    chosen: np.ndarray
    walk_best: np.ndarray


def anneal_logged(
    gain: np.ndarray,
    p_start: np.ndarray,
    p_end: np.ndarray,
    h_start: np.ndarray,
    h_end: np.ndarray,
    p_len: int,
    h_len: int,
    *,
    config: DecoderConfig = DecoderConfig(),
    record: bool = False,
) -> tuple[np.ndarray, AnnealLog | None]:
    """:func:`anneal`, and with ``record=True`` the walk's log (the same compiled walk,
    writing each round into arrays it is given)."""
    useful = np.flatnonzero(gain > 1e-12)
    if useful.size == 0:
        empty = np.zeros(0)
        return useful, (AnnealLog(useful, empty, empty, empty.astype(np.int64), np.zeros((0, 0), dtype=np.bool_),
                                  np.zeros(0, dtype=np.bool_)) if record else None)
    arrays = (
        np.ascontiguousarray(p_start[useful], dtype=np.int64),
        np.ascontiguousarray(p_end[useful], dtype=np.int64),
        np.ascontiguousarray(h_start[useful], dtype=np.int64),
        np.ascontiguousarray(h_end[useful], dtype=np.int64),
        np.ascontiguousarray(gain[useful], dtype=np.float64),
    )
    k = int(useful.size)
    rounds = int(config.iterations) + 2 * k + 2 if record else 0
    log = np.full((rounds, 3), np.nan)
    log_chosen = np.zeros((rounds, k), dtype=np.bool_)
    mask = anneal_walk(*arrays, int(p_len), int(h_len), int(config.iterations), float(config.t0),
                       float(config.rate), int(config.seed), log, log_chosen)
    final = climb(*arrays, int(p_len), int(h_len), mask)
    if not record:
        return useful[final], None
    done = int(np.count_nonzero(~np.isnan(log[:, 0])))
    return useful[final], AnnealLog(useful, log[:done, 0].copy(), log[:done, 1].copy(),
                                    log[:done, 2].astype(np.int64), log_chosen[:done].copy(), mask.copy())


def decode(
    features: PairFeatures, weights: np.ndarray, *, config: DecoderConfig = DecoderConfig(), with_added: bool = True,
) -> tuple[np.ndarray, float]:
    """The best alignment found for one pair: chosen candidate indices and its score.
    ``with_added=False`` leaves out candidates added for training (gold blocks)."""
    base, gain = features.gains(weights, with_added=with_added)
    chosen = anneal(gain, features.p_start, features.p_end, features.h_start, features.h_end,
                    features.p_len, features.h_len, config=config)
    return chosen, base + float(gain[chosen].sum())


# -- the aligner and the scorer -------------------------------------------------------------

@dataclass(frozen=True)
class ManliResult(ResultMixin):
    """A MANLI alignment: the edits carry their scores and features.

    ``total`` is the alignment's total score (the sum of every edit's score, DEL and
    INS included); ``normalized`` divides it by the pair's number of tokens (the paper's
    entailment score). ``entailment`` is the ``manli`` scorer's value for this alignment
    (:func:`entailment_score`) and is the ``value`` compared to a cutoff.
    """

    alignment: Alignment
    total: float
    normalized: float
    n_candidates: int
    weights: tuple[tuple[str, float], ...] = field(compare=False, default=())
    entailment: float | None = None

    @property
    def edits(self) -> tuple[Edit, ...]:
        return self.alignment.edits or ()

    @property
    def value(self) -> float:
        """The number compared to a cutoff: :attr:`entailment` (:attr:`normalized` for a
        result built without its pair)."""
        return self.normalized if self.entailment is None else self.entailment

    @property
    def score(self) -> float:
        """Old name of :attr:`total` (kept for callers written before the rename)."""
        return self.total


def _lexical_similarity(flags: dict[str, bool]) -> SimilarityMatrix:
    """The project's lexical similarity with the model's component switches."""
    from explorer.lexical import LexicalConfig, similarity_for

    return similarity_for(LexicalConfig(**flags))


class ManliAligner:
    """MANLI with trained weights.

    Args:
        model: weights and feature options; the shipped model when None.
        similarity: the lexical similarity to use; the model's when None.
        decoder: the annealing schedule.
    """

    name = "manli"

    def __init__(
        self,
        model: ManliModel | None = None,
        *,
        similarity: SimilarityMatrix | None = None,
        decoder: DecoderConfig = DecoderConfig(),
    ) -> None:
        self.model = model if model is not None else default_model()
        if self.model.weights.shape != (N_FEATURES,):
            raise ManliModelError(f"expected {N_FEATURES} weights, got {self.model.weights.shape}")
        self._similarity = similarity
        self.decoder = decoder

    @property
    def similarity(self) -> SimilarityMatrix:
        if self._similarity is None:
            self._similarity = _lexical_similarity(self.model.lexical)
        return self._similarity

    def word_similarity(self) -> SimilarityMatrix:
        """The word similarity the candidate edits are scored with (the model's components)."""
        return self.similarity

    def with_model(self, path: str | Path) -> ManliAligner:
        """The same aligner with weights from another file or a shipped model's name
        (:data:`SHIPPED_MODELS`; ``align-eval --model``)."""
        if isinstance(path, str) and path in SHIPPED_MODELS:
            return ManliAligner(shipped_model(path), decoder=self.decoder)
        return ManliAligner(ManliModel.load(model_file(path)), decoder=self.decoder)

    def check_limits(self, pair: AnalyzedPair, limits: Limits | None = None) -> None:
        """Refuse a pair whose candidate edits (bounded by the sizes and the model's
        phrase length) or memory estimate exceed the limits (:mod:`explorer.limits`)."""
        p_len, h_len = len(pair.text), len(pair.hypothesis)
        check(self.name, p_len, h_len, model="manli", limits=limits,
              candidates=manli_candidates(p_len, h_len, self.model.features.max_phrase),
              words=lexical_words(pair))

    def features(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> PairFeatures:
        self.check_limits(pair, limits)
        return extract(pair, self.similarity, config=self.model.features)

    def align(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> ManliResult:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        feats = self.features(pair, limits=limits)
        chosen, total = decode(feats, self.model.weights, config=self.decoder)
        edits = feats.edits(chosen, self.model.weights)
        alignment = Alignment.from_edits(feats.p_len, feats.h_len, edits)
        n_tokens = max(feats.p_len + feats.h_len, 1)
        result = ManliResult(
            alignment, total, total / n_tokens, len(feats),
            tuple((name, float(w)) for name, w in zip(FEATURES, self.model.weights)),
        )
        return replace(result, entailment=entailment_score(pair, result).value)

    def score_alignment(self, pair: AnalyzedPair, alignment: Alignment, *,
                        limits: Limits | None = None) -> tuple[ManliResult, int]:
        """Score a given alignment (a hand-edited one, say) with the model's weights.

        The links become phrase edits by merging contiguous links
        (:meth:`Alignment.to_phrase_edits` with ``partial=True``); links no one-to-one
        phrase alignment can hold are left out and counted.

        Returns:
            The scored alignment as a :class:`ManliResult`, and how many links were left out.

        Raises:
            ValueError: if the alignment does not cover the pair's tokens.
            explorer.limits.LimitError: for a pair past the limits.
        """
        self.check_limits(pair, limits)
        if (alignment.p_len, alignment.h_len) != (len(pair.text), len(pair.hypothesis)):
            raise ValueError(
                f"alignment is {alignment.p_len} x {alignment.h_len} tokens but the pair has "
                f"{len(pair.text)} x {len(pair.hypothesis)}"
            )
        edits, unreachable = alignment.to_phrase_edits(partial=True)
        blocks = tuple(
            (e.p_span, e.h_span) for e in edits if e.p_span is not None and e.h_span is not None
        )
        feats = extract(pair, self.similarity, config=self.model.features, extra=blocks)  # type: ignore[arg-type]
        chosen = np.array([feats.find(ps, hs) for ps, hs in blocks], dtype=np.int64)
        base, gain = feats.gains(self.model.weights)
        total = base + float(gain[chosen].sum())
        scored = Alignment.from_edits(feats.p_len, feats.h_len, feats.edits(chosen, self.model.weights))
        n_tokens = max(feats.p_len + feats.h_len, 1)
        result = ManliResult(scored, total, total / n_tokens, len(feats))
        return replace(result, entailment=entailment_score(pair, result).value), len(unreachable)


#: Weight of the hypothesis-side alignment score per hypothesis token in the ``manli``
#: entailment value; it mostly breaks ties between equal coverages (0.03-0.3 transfer
#: alike, docs/RESULTS.md).
HYPOTHESIS_SCORE_WEIGHT = 0.1


@dataclass(frozen=True)
class ManliScore(ResultMixin):
    """The ``manli`` scorer's result: the entailment value and its parts.

    Attributes:
        value: ``content_coverage + HYPOTHESIS_SCORE_WEIGHT * hypothesis_score``.
        total: the alignment's total score (every edit).
        n_tokens: tokens of the problem (text + hypothesis).
        aligned_links: the alignment as ``"p-h ..."``.
        content_coverage: share of hypothesis content words linked to the text (of all
            hypothesis tokens when it has no content word).
        hypothesis_score: the total without DEL edits, per hypothesis token.
        problem_normalized: the paper's score, total / n_tokens.
        unaligned_content: hypothesis positions of the content words left unaligned.
    """

    value: float
    total: float
    n_tokens: int
    aligned_links: str
    content_coverage: float = 0.0
    hypothesis_score: float = 0.0
    problem_normalized: float = 0.0
    unaligned_content: tuple[int, ...] = ()

    @property
    def alignment_score(self) -> float:
        """Old name of :attr:`total` (kept for callers written before the rename)."""
        return self.total

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "alignment_score": self.total}  # the key before the rename stays


def entailment_score(pair: AnalyzedPair, result: ManliResult) -> ManliScore:
    """The ``manli`` scorer's value for a MANLI alignment of ``pair`` (its own or an edited one)."""
    hyp = pair.hypothesis
    h_len = len(hyp)
    aligned = [False] * h_len
    deleted = 0.0
    for edit in result.edits:
        if edit.is_aligned and edit.h_span is not None:
            for j in range(*edit.h_span):
                aligned[j] = True
        elif edit.kind is EditKind.DEL:
            deleted += edit.score
    content = [j for j in range(h_len) if not (hyp.stop[j] or hyp.is_punct[j])]
    counted = content or list(range(h_len))
    coverage = sum(aligned[j] for j in counted) / len(counted) if counted else 1.0
    hypothesis_score = (result.total - deleted) / max(h_len, 1)
    return ManliScore(
        value=coverage + HYPOTHESIS_SCORE_WEIGHT * hypothesis_score,
        total=result.total,
        n_tokens=len(pair.text) + h_len,
        aligned_links=result.alignment.to_sure_align(),
        content_coverage=coverage,
        hypothesis_score=hypothesis_score,
        problem_normalized=result.normalized,
        unaligned_content=tuple(j for j in content if not aligned[j]),
    )


class ManliScorer:
    """Entailment score from the MANLI alignment (:func:`entailment_score`)."""

    name = "manli"

    def __init__(self, aligner: ManliAligner | None = None) -> None:
        self._aligner = aligner

    @property
    def aligner(self) -> ManliAligner:
        if self._aligner is None:
            self._aligner = ManliAligner()
        return self._aligner

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> ManliScore:
        return entailment_score(pair, self.aligner.align(pair, limits=limits))
