"""MANLI-ALIGN: the simulated-annealing decoder.

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
(:mod:`explorer.aligners.manli.kernel`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from explorer.aligners.manli.features import CandidateSpans
from explorer.aligners.manli.kernel import anneal_walk, climb
from explorer.aligners.manli.model import DecoderConfig

if TYPE_CHECKING:
    from explorer.aligners.manli.features import PairFeatures


def anneal(
    gain: np.ndarray,
    spans: CandidateSpans,
    *,
    config: DecoderConfig = DecoderConfig(),
) -> np.ndarray:
    """MANLI-ALIGN over candidates with the given gains.

    Returns:
        The indices (into the given arrays) of the aligned edits of the best alignment
        found; tokens outside them are DEL / INS.
    """
    return anneal_logged(gain, spans, config=config)[0]


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
    spans: CandidateSpans,
    *,
    config: DecoderConfig = DecoderConfig(),
    record: bool = False,
) -> tuple[np.ndarray, AnnealLog | None]:
    """:func:`anneal`, and with ``record=True`` the walk's log (the same compiled walk,
    writing each round into arrays it is given)."""
    p_start, p_end, h_start, h_end, p_len, h_len = spans
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
    chosen = anneal(gain, features.spans(), config=config)
    return chosen, base + float(gain[chosen].sum())
