"""MANLI-LEARN: the averaged perceptron that trains MANLI's feature weights.

MacCartney, Galley & Manning (2008), §5 (MANLI-LEARN). For each of N epochs the
training problems are shuffled; each problem is decoded with the current weights and
the weights move by ``alpha_i * (phi(gold) - phi(decoded))``; at the end of the epoch
the weights are L2-normalised and stored. The learning rate falls as
``alpha_i = alpha_0 * decay**i``. The returned weights are the average of the stored
weights after a burn-in of B epochs (defaults as in the paper: N = 50, B = 10,
alpha_0 = 1, decay 0.8).

With ``orders = k > 1`` the whole run is repeated with the shuffling seeds ``seed ..
seed + k - 1`` and the k unit-norm weight vectors are averaged (and normalised again).
The learning rate falls fast, so one run's weights depend strongly on the order of its
first epochs (two orders of the same problems moved held-out MSR F1 by 1.7 points,
docs/RESULTS.md); averaging over orders removes much of that variance. It costs k times
the training time and nothing at decoding time.

Gold token alignments (SURE links only) become phrase edits with
:meth:`explorer.alignment.Alignment.to_phrase_edits`; the links it cannot express are
left out of training and counted (:attr:`Problem.unreachable`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from explorer.aligners.manli.evidence import SimilarityMatrix
from explorer.aligners.manli.features import FeatureConfig, PairFeatures, extract
from explorer.aligners.manli.model import DecoderConfig, ManliModel
from explorer.aligners.manli.names import N_FEATURES
from explorer.aligners.manli.search import decode
from explorer.errors import ExplorerError
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair

Log = Callable[[str], None]


class TrainingError(ExplorerError, ValueError):
    """Training data that cannot be used."""


@dataclass(frozen=True)
class TrainConfig:
    """MANLI-LEARN's options (the paper's defaults)."""

    epochs: int = 50
    burn_in: int = 10
    rate: float = 1.0
    decay: float = 0.8
    seed: int = 0
    decoder: DecoderConfig = DecoderConfig()
    orders: int = 1

    def __post_init__(self) -> None:
        if self.epochs < 1 or not 0 <= self.burn_in < self.epochs:
            raise ValueError("need epochs >= 1 and 0 <= burn_in < epochs")
        if not 1 <= self.orders <= 20:
            raise ValueError("orders must be between 1 and 20")


@dataclass(frozen=True)
class Problem:
    """One training problem: its candidates' features and the gold candidates.

    Attributes:
        pair_id: the pair's id.
        features: every candidate edit (the gold blocks included).
        gold: indices of the gold aligned edits among the candidates.
        unreachable: gold SURE links no phrase alignment can express.
        n_sure: gold SURE links in all.
    """

    pair_id: str
    features: PairFeatures
    gold: np.ndarray
    unreachable: int
    n_sure: int
    gold_vector: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))


_FEATURES = FeatureConfig()
_DECODER = DecoderConfig()
_TRAIN = TrainConfig()


def gold_blocks(pair: Pair) -> tuple[list[tuple[tuple[int, int], tuple[int, int]]], int, int]:
    """The gold alignment's aligned phrase blocks, its unreachable and its SURE links."""
    if pair.gold_alignment is None:
        raise TrainingError(f"pair {pair.id} has no gold alignment")
    edits, unreachable = pair.gold_alignment.to_phrase_edits(partial=True)
    blocks = [(e.p_span, e.h_span) for e in edits if e.p_span is not None and e.h_span is not None]
    return blocks, len(unreachable), len(pair.gold_alignment.sure)  # type: ignore[return-value]


def prepare(
    pairs: Sequence[Pair], similarity: SimilarityMatrix, *, config: FeatureConfig = _FEATURES,
    log: Log | None = None,
) -> list[Problem]:
    """Features of every pair with a gold alignment, gold edits among the candidates."""
    problems: list[Problem] = []
    for n, pair in enumerate(pairs, 1):
        if pair.gold_alignment is None:
            continue
        blocks, unreachable, n_sure = gold_blocks(pair)
        analysed = analyze_pair(pair)
        if (len(analysed.text), len(analysed.hypothesis)) != (pair.gold_alignment.p_len, pair.gold_alignment.h_len):
            raise TrainingError(
                f"pair {pair.id}: gold alignment is {pair.gold_alignment.p_len} x {pair.gold_alignment.h_len} "
                f"tokens but the pair has {len(analysed.text)} x {len(analysed.hypothesis)}"
            )
        feats = extract(analysed, similarity, config=config, extra=tuple(blocks))
        gold = np.array([feats.find(p, h) for p, h in blocks], dtype=np.int64)
        problems.append(Problem(pair.id, feats, gold, unreachable, n_sure, feats.vector(gold)))
        if log and n % 100 == 0:
            log(f"features: {n}/{len(pairs)} pairs")
    if not problems:
        raise TrainingError("no pair with a gold alignment to train on")
    return problems


def train(
    problems: Sequence[Problem], *, config: TrainConfig = _TRAIN, log: Log | None = None,
    mask: np.ndarray | None = None, problem_weights: Sequence[float] | None = None,
) -> np.ndarray:
    """Averaged-perceptron weights (unit L2 norm) for the problems; with ``config.orders``
    above 1, the normalised mean of that many runs with successive shuffling seeds.

    Args:
        mask: ``(N_FEATURES,)`` 0/1: the weights training may move; the others stay 0
            (a feature set compared on the same extracted candidates).
        problem_weights: a factor per problem on its updates (one corpus counted more
            than another when both are trained on); 1 for every problem by default.
    """
    if mask is not None and np.shape(mask) != (N_FEATURES,):
        raise TrainingError(f"the mask needs {N_FEATURES} entries, not {np.shape(mask)}")
    if problem_weights is not None and len(problem_weights) != len(problems):
        raise TrainingError(f"{len(problem_weights)} problem weights for {len(problems)} problems")
    if config.orders > 1:
        runs = []
        for k in range(config.orders):
            if log:
                log(f"order {k + 1}/{config.orders} (seed {config.seed + k})")
            runs.append(train(problems, config=replace(config, seed=config.seed + k, orders=1), log=log,
                              mask=mask, problem_weights=problem_weights))
        return _unit(np.mean(runs, axis=0))
    rng = np.random.default_rng(config.seed)
    weights = np.zeros(N_FEATURES)
    kept: list[np.ndarray] = []
    order = np.arange(len(problems))
    alpha = config.rate
    for epoch in range(config.epochs):
        started = time.perf_counter()
        rng.shuffle(order)
        mistakes = 0
        for i in order.tolist():
            problem = problems[i]
            chosen, _ = decode(problem.features, weights, config=config.decoder)
            if set(chosen.tolist()) != set(problem.gold.tolist()):
                mistakes += 1
                step = alpha if problem_weights is None else alpha * problem_weights[i]
                weights = weights + (step if mask is None else step * mask) * (
                    problem.gold_vector - problem.features.vector(chosen))
        norm = float(np.linalg.norm(weights))
        if norm > 0:
            weights = weights / norm
        if epoch >= config.burn_in:
            kept.append(weights.copy())
        if log:
            log(f"epoch {epoch + 1}/{config.epochs}: {mistakes}/{len(problems)} wrong, "
                f"rate {alpha:.4g}, {time.perf_counter() - started:.1f} s")
        alpha *= config.decay
    return _unit(np.mean(kept, axis=0))


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def score_vs_gold(problems: Sequence[Problem], weights: np.ndarray, *, decoder: DecoderConfig = _DECODER) -> dict[str, float]:
    """How often the decoded alignment scores at least as high as the gold one, over all
    problems and over those whose gold is fully reachable."""
    at_least = reachable = reachable_at_least = 0
    for problem in problems:
        _, score = decode(problem.features, weights, config=decoder)
        gold_score = float(problem.gold_vector @ weights)
        ok = score >= gold_score - 1e-9
        at_least += ok
        if problem.unreachable == 0:
            reachable += 1
            reachable_at_least += ok
    return {
        "problems": len(problems),
        "decoded_ge_gold": at_least / len(problems),
        "reachable_problems": reachable,
        "decoded_ge_gold_reachable": reachable_at_least / reachable if reachable else float("nan"),
    }


def fit(
    pairs: Sequence[Pair], similarity: SimilarityMatrix, *, features: FeatureConfig = _FEATURES,
    config: TrainConfig = _TRAIN, lexical_flags: dict[str, bool] | None = None, log: Log | None = None,
) -> ManliModel:
    """Features, then perceptron: a model ready to save."""
    started = time.perf_counter()
    problems = prepare(pairs, similarity, config=features, log=log)
    unreachable = sum(p.unreachable for p in problems)
    sure = sum(p.n_sure for p in problems)
    if log:
        log(f"{len(problems)} problems; {unreachable}/{sure} gold SURE links unreachable by phrase edits")
    weights = train(problems, config=config, log=log)
    return ManliModel(
        weights, features, dict(lexical_flags or {}),
        {
            "trained_on": len(problems),
            "epochs": config.epochs,
            "burn_in": config.burn_in,
            **({"orders": config.orders} if config.orders > 1 else {}),
            "unreachable_links": unreachable,
            "sure_links": sure,
            "seconds": round(time.perf_counter() - started, 1),
        },
    )


def _flag(value: str, key: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"option {key}={value!r}: expected true or false")


#: Shorthands for groups of lexical components (ablations).
LEXICAL_GROUPS: dict[str, tuple[str, ...]] = {
    "wordnet": ("wordnet_synonyms", "hypernyms", "derivation", "ic_measure", "antonyms"),
}


def lexical_flags_without(names: Sequence[str]) -> dict[str, bool]:
    """``LexicalConfig`` keyword flags with ``names`` (or their groups) switched off.

    Raises:
        ValueError: for a name that is neither a component nor a group.
    """
    from explorer.lexical import COMPONENTS

    flags: dict[str, bool] = {}
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        parts = LEXICAL_GROUPS.get(name, (name,))
        for part in parts:
            if part not in COMPONENTS:
                raise ValueError(
                    f"unknown lexical component {name!r}; choose from: {', '.join((*LEXICAL_GROUPS, *COMPONENTS))}"
                )
            flags[part] = False
    return flags


def lexical_flags_with(names: Sequence[str]) -> dict[str, bool]:
    """``LexicalConfig`` keyword flags with ``names`` switched on (the opt-in components,
    e.g. ``embedding``).

    Raises:
        ValueError: for a name that is not a component.
    """
    from explorer.lexical import COMPONENTS

    flags: dict[str, bool] = {}
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        if name not in COMPONENTS:
            raise ValueError(f"unknown lexical component {name!r}; choose from: {', '.join(COMPONENTS)}")
        flags[name] = True
    return flags


def train_command(pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
    """The ``train manli`` command. Options: ``epochs``, ``burn_in``, ``seed``, ``orders``,
    ``max_phrase``, ``contextual`` (true/false), ``without`` (comma-separated
    lexical components to switch off, e.g. ``without=wordnet,ppdb``; ``wordnet`` stands
    for every WordNet component) and ``with`` (opt-in components to switch on:
    ``with=embedding``)."""
    from explorer.aligners.manli.model import lexical_similarity
    from explorer.training import TrainingOptionError

    known = {"epochs", "burn_in", "seed", "orders", "max_phrase", "contextual", "without", "with"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TrainingOptionError(f"unknown manli option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    try:
        epochs = int(options.get("epochs", 50))
        burn_in = int(options.get("burn_in", min(10, max(epochs - 1, 0))))
        seed = int(options.get("seed", 0))
        orders = int(options.get("orders", 1))
        max_phrase = int(options.get("max_phrase", 6))
    except ValueError as err:
        raise TrainingOptionError(f"numeric manli option expected: {err}") from None
    if not 1 <= orders <= 20:
        raise TrainingOptionError(f"option orders={orders}: expected 1 to 20 training orders")
    contextual = _flag(options.get("contextual", "true"), "contextual")
    try:
        flags = {**lexical_flags_with(options.get("with", "").split(",")),
                 **lexical_flags_without(options.get("without", "").split(","))}
    except ValueError as err:
        raise TrainingOptionError(str(err)) from None
    similarity = lexical_similarity(flags)
    model = fit(
        pairs, similarity,
        features=FeatureConfig(max_phrase=max_phrase, contextual=contextual),
        config=TrainConfig(epochs=epochs, burn_in=burn_in, seed=seed, orders=orders),
        lexical_flags=flags, log=log,
    )
    model.save(out)
