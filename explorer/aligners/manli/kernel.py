"""Compiled search kernels of MANLI's decoder (see :mod:`explorer.aligners.manli`).

MacCartney, Galley & Manning (2008), §4 (MANLI-ALIGN). :func:`anneal_walk` is the
simulated-annealing walk over candidate edits: each round scores every successor -- the
alignment reached by adding one candidate (dropping the edits it conflicts with) or by
dropping one chosen edit -- samples one with probability proportional to
``exp(score / T)`` and cools ``T``; past the last round it climbs greedily from the best
alignment seen. :func:`climb` then improves that alignment with compound moves.

Both take the candidates with a positive gain only (an edit's gain is its score minus
the DEL / INS scores of the tokens it covers), as ``(K,)`` arrays of spans and gains, and
their cost is linear in ``K`` per round: the walk runs ``iterations + 2K + 2`` rounds at
most, and the climb looks only at the :data:`CLIMB_CANDIDATES` highest gains.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Candidates (highest gains) considered by the final climb.
CLIMB_CANDIDATES = 256


# The walk and the climb change which edit holds each token in the same two steps, so they
# share these helpers; ``inline="always"`` puts their bodies in place at compile time.

@njit(cache=True, nogil=True, inline="always")
def _hold(
    c: int, owner: int, p_start: np.ndarray, p_end: np.ndarray, h_start: np.ndarray, h_end: np.ndarray,
    owner_p: np.ndarray, owner_h: np.ndarray,
) -> None:
    """Mark candidate ``c``'s text and hypothesis tokens as held by ``owner`` (-1: free)."""
    owner_p[p_start[c] : p_end[c]] = owner
    owner_h[h_start[c] : h_end[c]] = owner


@njit(cache=True, nogil=True, inline="always")
def _drop(
    c: int, chosen: np.ndarray, gain: np.ndarray, p_start: np.ndarray, p_end: np.ndarray, h_start: np.ndarray,
    h_end: np.ndarray, owner_p: np.ndarray, owner_h: np.ndarray,
) -> float:
    """Take chosen candidate ``c`` out of the alignment and free its tokens; returns its gain
    (what the alignment's score loses)."""
    chosen[c] = False
    _hold(c, -1, p_start, p_end, h_start, h_end, owner_p, owner_h)
    return gain[c]


@njit(cache=True, nogil=True)
def anneal_walk(
    p_start: np.ndarray, p_end: np.ndarray, h_start: np.ndarray, h_end: np.ndarray, gain: np.ndarray,
    p_len: int, h_len: int, iterations: int, t0: float, rate: float, seed: int,
    log: np.ndarray, log_chosen: np.ndarray,
) -> np.ndarray:
    """The walk over candidates ``0..K-1`` (all with positive gain); returns the chosen
    mask of the best alignment seen.

    ``log`` (rounds x 3) and ``log_chosen`` (rounds x K) record, for each of their rows'
    rounds, the temperature, the score after the move and the move (candidate ``c`` added,
    or ``K + c`` dropped), and the alignment after the move: teaching mode's trace. The
    decoder passes zero-row arrays, so nothing is recorded.
    """
    np.random.seed(seed)
    k = gain.size
    chosen = np.zeros(k, dtype=np.bool_)
    owner_p = np.full(p_len, -1, dtype=np.int64)
    owner_h = np.full(h_len, -1, dtype=np.int64)
    best = chosen.copy()
    best_score = 0.0
    current = 0.0
    succ = np.empty(2 * k, dtype=np.float64)
    temperature = t0
    for rnd in range(iterations + 2 * k + 2):
        greedy = rnd >= iterations
        t_used = temperature
        if rnd == iterations:
            # The final climb starts from the best alignment seen.
            chosen[:] = best
            current = best_score
            owner_p[:] = -1
            owner_h[:] = -1
            for c in range(k):
                if chosen[c]:
                    _hold(c, c, p_start, p_end, h_start, h_end, owner_p, owner_h)
        # Successor scores: add candidate c (dropping conflicts) or drop chosen edit c.
        top = -1e300
        top_i = -1
        for c in range(k):
            lost = 0.0
            last = -1
            for i in range(p_start[c], p_end[c]):
                o = owner_p[i]
                if o >= 0 and o != last:
                    lost += gain[o]
                    last = o
            for j in range(h_start[c], h_end[c]):
                o = owner_h[j]
                if o >= 0 and o != last:
                    # Counted already when it also overlaps c's text span.
                    if not (p_start[o] < p_end[c] and p_start[c] < p_end[o]):
                        lost += gain[o]
                    last = o
            s = current + gain[c] - lost
            succ[c] = s
            if s > top:
                top = s
                top_i = c
            if chosen[c]:
                succ[k + c] = current - gain[c]
            else:
                succ[k + c] = -1e300
        if greedy:
            if top <= current + 1e-12:
                break
            pick = top_i
        else:
            # exp((s - top) / T), sampled by inverse CDF
            total = 0.0
            for c in range(2 * k):
                if succ[c] > -1e299:
                    succ[c] = np.exp((succ[c] - top) / temperature)
                    total += succ[c]
                else:
                    succ[c] = 0.0
            u = np.random.random() * total
            acc = 0.0
            pick = 2 * k - 1
            for c in range(2 * k):
                acc += succ[c]
                if acc >= u and succ[c] > 0.0:
                    pick = c
                    break
            temperature *= rate
        # Apply the move.
        if pick >= k:
            current -= _drop(pick - k, chosen, gain, p_start, p_end, h_start, h_end, owner_p, owner_h)
        else:
            c = pick
            for i in range(p_start[c], p_end[c]):
                o = owner_p[i]
                if o >= 0 and chosen[o]:
                    current -= _drop(o, chosen, gain, p_start, p_end, h_start, h_end, owner_p, owner_h)
            for j in range(h_start[c], h_end[c]):
                o = owner_h[j]
                if o >= 0 and chosen[o]:
                    current -= _drop(o, chosen, gain, p_start, p_end, h_start, h_end, owner_p, owner_h)
            chosen[c] = True
            current += gain[c]
            _hold(c, c, p_start, p_end, h_start, h_end, owner_p, owner_h)
        if current > best_score + 1e-12:
            best_score = current
            best[:] = chosen
        if rnd < log.shape[0]:
            log[rnd, 0] = t_used
            log[rnd, 1] = current
            log[rnd, 2] = pick
            log_chosen[rnd, :] = chosen
    return best


@njit(cache=True, nogil=True)
def _compound(
    c: int, p_start: np.ndarray, p_end: np.ndarray, h_start: np.ndarray, h_end: np.ndarray, gain: np.ndarray,
    order: np.ndarray, chosen: np.ndarray, occ_p: np.ndarray, occ_h: np.ndarray, tmp_p: np.ndarray,
    tmp_h: np.ndarray, apply: bool,
) -> float:
    """Score gain of the compound move for ``c`` (and make it when ``apply``)."""
    tmp_p[:] = occ_p
    tmp_h[:] = occ_h
    delta = gain[c]
    # Drop the conflicting edits.
    for side in range(2):
        lo = p_start[c] if side == 0 else h_start[c]
        hi = p_end[c] if side == 0 else h_end[c]
        for i in range(lo, hi):
            o = tmp_p[i] if side == 0 else tmp_h[i]
            if o >= 0:
                delta -= gain[o]
                _hold(o, -1, p_start, p_end, h_start, h_end, tmp_p, tmp_h)
                if apply:
                    chosen[o] = False
    _hold(c, c, p_start, p_end, h_start, h_end, tmp_p, tmp_h)
    if apply:
        chosen[c] = True
    # Refill freed tokens.
    for d in order:
        if chosen[d] or d == c:
            continue
        free = True
        for i in range(p_start[d], p_end[d]):
            if tmp_p[i] >= 0:
                free = False
                break
        if free:
            for j in range(h_start[d], h_end[d]):
                if tmp_h[j] >= 0:
                    free = False
                    break
        if free:
            delta += gain[d]
            _hold(d, d, p_start, p_end, h_start, h_end, tmp_p, tmp_h)
            if apply:
                chosen[d] = True
    return float(delta)


@njit(cache=True, nogil=True)
def climb(
    p_start: np.ndarray, p_end: np.ndarray, h_start: np.ndarray, h_end: np.ndarray, gain: np.ndarray,
    p_len: int, h_len: int, chosen: np.ndarray,
) -> np.ndarray:
    """Local search from ``chosen`` with compound moves: add one candidate, drop the
    edits it conflicts with, then refill the freed tokens greedily (highest gain
    first); take the best improving move until none is left. Only the
    :data:`CLIMB_CANDIDATES` highest-gain candidates take part, which bounds the cost
    when early perceptron weights make thousands of edits look good."""
    k = gain.size
    order = np.argsort(-gain)[:CLIMB_CANDIDATES]
    chosen = chosen.copy()
    occ_p = np.full(p_len, -1, dtype=np.int64)
    occ_h = np.full(h_len, -1, dtype=np.int64)
    tmp_p = occ_p.copy()
    tmp_h = occ_h.copy()
    for _ in range(4 * k + 4):
        occ_p[:] = -1
        occ_h[:] = -1
        for c in range(k):
            if chosen[c]:
                _hold(c, c, p_start, p_end, h_start, h_end, occ_p, occ_h)
        best_delta = 1e-12
        best_c = -1
        for c in order:
            if chosen[c]:
                continue
            delta = _compound(c, p_start, p_end, h_start, h_end, gain, order, chosen, occ_p, occ_h, tmp_p, tmp_h, False)
            if delta > best_delta:
                best_delta = delta
                best_c = c
        if best_c < 0:
            break
        _compound(best_c, p_start, p_end, h_start, h_end, gain, order, chosen, occ_p, occ_h, tmp_p, tmp_h, True)
    return chosen
