"""The jobs the app sends to the worker pool: module-level functions of picklable arguments.

Each takes a :class:`~explorer.pairs.Pair` (a few hundred bytes to pickle), not an
analysed pair: the worker analyses it with its own caches. Each returns frozen results, the
same objects an in-process call returns (the tests compare them), a few kB pickled.

A job that runs several methods reports each one as it finishes through
:func:`runtime.pool.worker.emit` (an :class:`Outcome`), so a job stopped by its time
budget still delivers the methods it finished, and one failing method is an outcome with an
error, not the end of the job.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, cast

from explorer.groups.phenomena import phenomena_chunk as phenomena_chunk  # a chunk's phenomena (per-aligner ones)
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from runtime.pool.worker import emit, portable

if TYPE_CHECKING:
    import numpy as np
    from explorer.similarity_view import SimilarityView

    from explorer.aligners.itg import ItgParse
    from explorer.aligners.manli import ManliAligner
    from explorer.alignment import Alignment
    from explorer.api import AlignResult, ScoreResult
    from explorer.counterfactual import AlignmentDiff, ScoreChange
    from explorer.metrics.features import MetricBreakdown
    from explorer.mtclassify import Report


class Outcome(NamedTuple):
    """One method's result on a pair, or the error it raised (exactly one is not None)."""

    name: str
    result: ScoreResult | None
    error: BaseException | None


def score_pair(pair: Pair, names: Sequence[str]) -> None:
    """Each registered scorer in ``names`` on the pair, emitted as an :class:`Outcome` when done."""
    from explorer.scorers import get_scorer

    analyzed = analyze_pair(pair)
    for name in names:
        try:
            result = get_scorer(name).score(analyzed)
        except Exception as err:  # one failing scorer must not hide the others
            emit(Outcome(name, None, portable(err)))
        else:
            emit(Outcome(name, result, None))


def align_pair(pair: Pair, name: str) -> AlignResult:
    """The registered aligner's result on the pair."""
    from explorer.aligners import get_aligner

    return get_aligner(name).align(analyze_pair(pair))


def align_chunk(pairs: Sequence[Pair], name: str) -> list[Alignment]:
    """The registered aligner's alignment of each pair (the Compare page's F1 per problem)."""
    from explorer.aligners import get_aligner

    aligner = get_aligner(name)
    return [aligner.align(analyze_pair(pair)).alignment for pair in pairs]


def run_aligner_chunk(pairs: Sequence[Pair], name: str, model: str = "") -> tuple[list[Alignment], list[float]]:
    """The aligner's alignment of each pair and the seconds each took
    (:func:`explorer.aligners.evaluation.run_aligner`; ``model``: a shipped MANLI model by name,
    for ``manli``), for the Aligners page."""
    from explorer.aligners import get_aligner
    from explorer.aligners.evaluation import run_aligner
    from explorer.aligners.manli import DEFAULT_MODEL_NAME

    aligner = get_aligner(name)
    if name == "manli" and model and model != DEFAULT_MODEL_NAME:
        aligner = _manli_with(model)
    return run_aligner(aligner, pairs)


@lru_cache(maxsize=4)
def _manli_with(model: str) -> ManliAligner:
    from explorer.aligners import get_aligner
    from explorer.aligners.manli import ManliAligner

    return cast(ManliAligner, get_aligner("manli")).with_model(model)


def itg_parse(pair: Pair, variant: str) -> ItgParse:
    """The best biparse of the pair under one ITG configuration (the ITG panel's tree)."""
    from explorer.aligners.itg import ItgScorer
    from explorer.scorers import get_scorer

    scorer = get_scorer(variant)
    if not isinstance(scorer, ItgScorer):
        raise TypeError(f"{variant!r} is registered as a {type(scorer).__name__}, not an ItgScorer")
    analyzed = analyze_pair(pair)
    scorer.check_limits(analyzed.text, analyzed.hypothesis)
    return scorer.parser.parse_analyses(analyzed.text, analyzed.hypothesis)


def similarity_matrix(pair: Pair, name: str) -> SimilarityView:
    """The word-similarity matrix aligner ``name`` reads its links off, with each cell's
    source (the Pair page's similarity heatmap)."""
    from explorer.aligners import get_aligner
    from explorer.aligners.similarity_view import similarity_view

    return similarity_view(get_aligner(name), analyze_pair(pair))


def mt_metrics(pair: Pair) -> MetricBreakdown:
    """Every MT metric of the pair with its breakdown (the MT-metrics panel's table)."""
    from explorer.metrics.features import metric_breakdown

    return metric_breakdown(analyze_pair(pair))


def manli_on_alignment(pair: Pair, alignment: Alignment) -> tuple[float, int]:
    """MANLI's entailment value for a given (hand-edited) alignment of the pair, and how
    many links it had to leave out (the alignment editor's line)."""
    from explorer.aligners import get_aligner
    from explorer.aligners.manli import ManliAligner

    aligner = get_aligner("manli")
    if not isinstance(aligner, ManliAligner):
        raise TypeError(f"'manli' is registered as a {type(aligner).__name__}, not a ManliAligner")
    edited, dropped = aligner.score_alignment(analyze_pair(pair), alignment)
    return float(edited.value), dropped


def counterfactual_scores(original: Pair, edited: Pair, names: Sequence[str]) -> list[ScoreChange]:
    """Each scorer on the original and the edited pair (:func:`explorer.counterfactual.compare_scores`)."""
    from explorer.counterfactual import compare_scores

    return compare_scores(analyze_pair(original), analyze_pair(edited), names)


def counterfactual_links(original: Pair, edited: Pair, name: str) -> AlignmentDiff:
    """One aligner's word links kept, gained and lost from the original to the edited pair."""
    from explorer.aligners import get_aligner
    from explorer.counterfactual import alignment_diff

    aligner = get_aligner(name)
    before, after = analyze_pair(original), analyze_pair(edited)
    return alignment_diff(aligner.align(before).alignment, (before.text.tokens, before.hypothesis.tokens),
                          aligner.align(after).alignment, (after.text.tokens, after.hypothesis.tokens))


def mt_experiment(train: Sequence[Pair], test: Sequence[Pair], groups: Sequence[str], folds: int) -> Report:
    """Finch et al.'s SVM over MT-metric features: ``folds``-fold cross-validation on
    ``train`` (``folds`` > 0), else trained on ``train`` and tested on ``test``."""
    from explorer.mtclassify import cross_validate, train_test

    if folds:
        return cross_validate(train, tuple(groups), folds=folds)
    return train_test(train, test, tuple(groups))


def score_chunk(pairs: Sequence[Pair], name: str) -> np.ndarray:
    """One scorer's values on a chunk of a dataset's pairs (the Evaluate page's scan)."""
    from explorer.decision.evaluation import score_pairs

    return score_pairs(pairs, name)
