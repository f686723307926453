"""MANLI step by step: the simulated-annealing walk round by round (temperature, the
alignment after the move, its score), then the final greedy climb.

The walk is the decoder's own compiled walk (:func:`explorer.aligners.manli.anneal_logged`
with ``record=True``: it writes each round into arrays), on the aligner's own candidate
edits and gains. The walk maximises the alignment's total score; each step also shows the
``manli`` scorer's entailment value of its alignment
(:func:`~explorer.aligners.manli.entailment_score`), so the last step is exactly
:class:`~explorer.aligners.manli.ManliScorer`'s value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer.aligners.manli import HYPOTHESIS_SCORE_WEIGHT, ManliAligner, ManliResult, anneal_logged, entailment_score
from explorer.alignment import Alignment, Edit
from explorer.preprocess import AnalyzedPair
from explorer.teaching import PairTrace, check_size, words

__all__ = ["ManliStep", "ManliTrace", "trace_manli"]


@dataclass(frozen=True)
class ManliStep:
    """One round of the walk (``anneal``: sampled at ``temperature``; ``greedy``: the
    zero-temperature climb from the best alignment seen) or the ``final`` alignment.
    ``total`` is the alignment's score (what the walk maximises), ``value`` the ``manli``
    scorer's entailment value of the same alignment."""

    phase: Literal["start", "anneal", "greedy", "final"]
    round: int
    temperature: float
    total: float
    value: float
    links: frozenset[tuple[int, int]]
    explain: str


@dataclass(frozen=True)
class ManliTrace(PairTrace):
    n_candidates: int
    steps: tuple[ManliStep, ...]
    value: float


def _edit_text(edit: Edit, p: tuple[str, ...], h: tuple[str, ...]) -> str:
    return f"{words(p, edit.p_span)} ↔ {words(h, edit.h_span)}"


def _amount(change: float) -> str:
    """A change of score: two decimals, a third when two would print 0.00."""
    size = abs(change)
    if size >= 0.005:
        return f"{size:.2f}"
    return f"{size:.3f}" if size >= 0.0005 else "less than 0.001"


def _nothing_changed(quiet: list[tuple[int, float]]) -> str:
    """One sentence for a run of walk rounds that left the alignment as it was (each picked
    an edit it already had, or a move it turned down), folded into the next step's."""
    if not quiet:
        return ""
    (first, hot), (last, cool) = quiet[0], quiet[-1]
    if len(quiet) == 1:
        return f"Round {first} (temperature {hot:.2g}) changed nothing. "
    return (f"Rounds {first}-{last}: {len(quiet)} proposals changed nothing, temperature {hot:.2g} -> "
            f"{cool:.2g}. ")


def trace_manli(pair: AnalyzedPair, *, aligner: ManliAligner | None = None) -> ManliTrace:
    """The steps of the MANLI decoder (shipped weights unless ``aligner`` is given)."""
    check_size(pair)
    aligner = aligner or ManliAligner()
    weights = aligner.model.weights
    feats = aligner.features(pair)
    base, gain = feats.gains(weights)
    final, log = anneal_logged(gain, feats.spans(), config=aligner.decoder, record=True)
    assert log is not None  # record=True
    n_tokens = max(feats.p_len + feats.h_len, 1)
    p, h = pair.text.tokens, pair.hypothesis.tokens

    def scored(chosen: np.ndarray, total: float) -> tuple[frozenset[tuple[int, int]], float]:
        """The alignment's links and its entailment value (the scorer's own function)."""
        alignment = Alignment.from_edits(feats.p_len, feats.h_len, feats.edits(chosen, weights))
        result = ManliResult(alignment, total, total / n_tokens, len(feats))
        return frozenset(alignment.sure), entailment_score(pair, result).value

    k = int(log.useful.size)
    steps = [ManliStep(
        "start", 0, float(log.temperature[0]) if log.temperature.size else aligner.decoder.t0, base,
        scored(np.zeros(0, dtype=np.int64), base)[1], frozenset(),
        f"Start with no links: every word deleted or inserted, score {base:.2f}. {k} candidate phrase edits "
        f"could raise it. Each round the walk picks one move at random, adding or dropping an edit, favouring "
        f"moves that raise the score; while the temperature is high it often takes a worse one too, and as it "
        f"cools it settles on a peak.",
    )]
    iterations = aligner.decoder.iterations
    candidate_edits = feats.edits(log.useful, weights)
    by_span = {(e.p_span, e.h_span): e for e in candidate_edits}

    def describe(c: int) -> str:
        span = ((int(feats.p_start[c]), int(feats.p_end[c])), (int(feats.h_start[c]), int(feats.h_end[c])))
        edit = by_span.get(span)
        return _edit_text(edit, p, h) if edit is not None else f"{words(p, span[0])} ↔ {words(h, span[1])}"

    before = np.zeros(k, dtype=np.bool_)
    previous = base
    best_seen = base
    quiet: list[tuple[int, float]] = []  # (round, temperature) of walk rounds that changed nothing, not yet said
    for r in range(log.temperature.size):
        move = int(log.move[r])
        c = int(log.useful[move % k])
        total = base + float(log.score[r])
        after = log.chosen[r]
        if r == iterations:  # the climb starts again from the best alignment the walk saw
            before = log.walk_best.copy() if log.walk_best.size == k else before
            previous = best_seen
        if move >= k:
            what = f"drops {describe(c)}"
        elif before[move]:
            what = f"picks {describe(c)}, which the alignment already has, so nothing changes"
        else:
            what = f"adds {describe(c)}"
            replaced = [describe(int(log.useful[o])) for o in np.flatnonzero(before & ~after) if o != move]
            if replaced:
                what += (f", replacing {' and '.join(replaced)} (a word belongs to at most one edit, so the "
                         f"earlier edit{'s' if len(replaced) > 1 else ''} had to go)")
        change = total - previous
        if r < iterations:
            if change < -1e-9:
                why = (f"score {total:.2f}, down {_amount(change)}: a worse alignment, accepted by chance (the walk "
                       f"sometimes steps down, more often while the temperature is high, so it can leave a small peak)")
            else:
                why = f"score {total:.2f}, up {_amount(change)}" if change > 1e-9 else f"score {total:.2f}, unchanged"
            explain = f"Round {r + 1}, temperature {log.temperature[r]:.3g}: the walk {what}; {why}."
            phase: Literal["anneal", "greedy"] = "anneal"
        else:
            start = (f" It starts again from the best alignment the walk saw (score {best_seen:.2f})."
                     if r == iterations else "")
            explain = (f"Greedy round {r + 1 - iterations}: the best single move {what}; score {total:.2f}, "
                       f"up {_amount(change)}.{start}")
            phase = "greedy"
        links, value = scored(log.useful[after], total)
        if r < iterations and abs(change) <= 1e-9 and links == steps[-1].links:
            quiet.append((r + 1, float(log.temperature[r])))  # one line for the whole run, with the next move
        else:
            steps.append(ManliStep(phase, r + 1, float(log.temperature[r]), total, value, links,
                                   _nothing_changed(quiet) + explain))
            quiet = []
        if r < iterations:
            best_seen = max(best_seen, total)
        before = after
        previous = total
    total = base + float(gain[final].sum())
    alignment = Alignment.from_edits(feats.p_len, feats.h_len, feats.edits(final, weights))
    score = entailment_score(pair, ManliResult(alignment, total, total / n_tokens, len(feats)))
    greedy_rounds = log.temperature.size > iterations
    start = "" if greedy_rounds else f", starting from the best alignment the walk saw (score {best_seen:.2f})"
    steps.append(ManliStep(
        "final", int(log.temperature.size) + 1, 0.0, total, score.value, frozenset(alignment.sure),
        f"{_nothing_changed(quiet)}Final alignment, after a last climb that takes every move still raising the score{start}: "
        f"{len(final)} phrase edit(s), alignment score {total:.2f}. The entailment value is the share of the "
        f"hypothesis's content words linked plus {HYPOTHESIS_SCORE_WEIGHT:g} x the hypothesis side's score per "
        f"word: {score.content_coverage:.2f} + {HYPOTHESIS_SCORE_WEIGHT:g} x {score.hypothesis_score:.2f} "
        f"= {score.value:.3f}.",
    ))
    return ManliTrace("manli", p, h, k, tuple(steps), score.value)
