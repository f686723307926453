"""The dynamic programmes over the edit automata of Wang & Cer (2012): numba kernels.

Wang & Cer, "Probabilistic Edit Distance Metrics for STS" (SemEval-2012, §2-3) score a
sentence pair by summing, over every edit sequence that turns the text into the
hypothesis, the product of the sequence's edge weights. An edge is one edit operation:
its weight ``exp(T[previous class, current class] + w·φ(operation, words))`` combines a
transition score between the classes of consecutive operations and a log-linear score
of the words the operation touches.

Both machines here share one representation: a small table of *control states*
(:class:`explorer.edit_distance.states.Automaton`) that says, for each state and operation, where the operation leads
and how far it moves in the text. The pFSM has one mode; the pPDA adds jump modes
(``build_automaton("ppda", max_jump)``; the jump rules are in the package docstring). The kernels below walk the
lattice ``(hypothesis position, text position, control state)`` in a topological order
that the table provides, so the forward, backward and Viterbi passes are written once.

Weights are kept in linear space with a per-token shift (every complete edit sequence
consumes exactly ``|text| + |hypothesis|`` tokens, so dividing each token-consuming edge
by ``exp(shift)`` per token rescales every path alike and keeps the sums in range for
sentence-length pairs). Long or lopsided pairs (hundreds of tokens, or a long text
against a short hypothesis) can still leave float64's range, so each kernel has a
log-space twin (:func:`forward_log`, :func:`backward_counts_log`, :func:`viterbi_log`)
that the model uses for lattices over :data:`LOG_SPACE_CELLS` cells and for any pair
whose linear result leaves ``[SAFE_LOW, SAFE_HIGH]``.

Cost: every pass visits ``(|h| + 1)(|t| + 1)`` cells times the control states (5 for
the pFSM, 37 for the pPDA with jumps of up to 5) times their operations; memory is one
``(|h| + 1, |t| + 1, states)`` float64 table per pass, plus 12 bytes per node of
back-pointers for the log-space Viterbi (48 for the linear one). The limits in
:mod:`explorer.limits` bound both before a pair is scored.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Linear results outside this range are recomputed in log space (see the model's log_z).
SAFE_LOW = 1e-200
SAFE_HIGH = 1e200
#: Lattices with more cells than this, ``(|t| + 1)(|h| + 1)``, go to log space at once:
#: their shifted sums often leave float64's range, and the log-space forward pass costs
#: only about 1.5 times the linear one (bench/bench_limits.py). Typical sentence pairs
#: (tens of tokens a side) stay on the linear kernels.
LOG_SPACE_CELLS = 20_000


# -- kernels --------------------------------------------------------------------------------

_DJ = np.array([1, 0, 1, 2, 1, 2], dtype=np.int64)
_FIXED_CLASS = np.array([0, 1, -1, 8, 8, 8], dtype=np.int64)


@njit(cache=True)
def _op_tables(absent, n, m, sub_w, sub_cls, b12_w, b21_w, b22_w, ins_w, del_w):  # type: ignore[no-untyped-def]
    """Dense ``[op, i, j]`` weight and class tables of a pair's six token operations,
    ``absent`` where an operation would run past either sentence (the linear and the
    log-space kernels differ only in that value: 0 or ``-inf``)."""
    emis = np.full((6, n + 1, m + 1), absent)
    cls = np.zeros((6, n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        for j in range(m + 1):
            for op in range(6):
                cls[op, i, j] = _FIXED_CLASS[op]
            if j < m:
                emis[0, i, j] = ins_w[j]
            if i < n:
                emis[1, i, j] = del_w[i]
            if i < n and j < m:
                emis[2, i, j] = sub_w[i * m + j]
                cls[2, i, j] = sub_cls[i * m + j]
            if i < n and j + 1 < m:
                emis[3, i, j] = b12_w[i * m + j]
            if i + 1 < n and j < m:
                emis[4, i, j] = b21_w[i * m + j]
            if i + 1 < n and j + 1 < m:
                emis[5, i, j] = b22_w[i * m + j]
    return emis, cls


@njit(cache=True)
def tables(n, m, sub_w, sub_cls, b12_w, b21_w, b22_w, ins_w, del_w):  # type: ignore[no-untyped-def]
    """Dense ``[op, i, j]`` weight and class tables of a pair's six token operations,
    zero where an operation would run past either sentence."""
    return _op_tables(0.0, n, m, sub_w, sub_cls, b12_w, b21_w, b22_w, ins_w, del_w)


# The edge logic is written out in each kernel rather than called: numba does not
# inline a tuple-returning helper well, and the call costs five times the loop body.
# Measured with one shared ``@njit(inline="always")`` edge helper for all
# six kernels (bench/bench_edit_distance.py): forward per pair 0.92 ms against 0.14 ms
# (pFSM) and 14.3 ms against 0.54 ms (pPDA), so the repetition stays.

@njit(cache=True)
def forward(n, m, emis, cls_table, jump_w, trans, last, order, rank_ptr, next_state, text_move,
            start, final, ops, alpha):  # type: ignore[no-untyped-def]
    """Fill ``alpha[j, i, q]`` (shape at least ``(m+1, n+1, Q)``) and return Z.

    Z is the (shifted) total weight of complete edit sequences, including the END
    transition from each final state.
    """
    n_states = last.shape[0]
    alpha[: m + 1, : n + 1, :] = 0.0
    alpha[0, 0, start] = 1.0
    n_ranks = rank_ptr.shape[0] - 1
    for j in range(m + 1):
        for r in range(n_ranks):
            for i in range(n + 1):
                for s in range(rank_ptr[r], rank_ptr[r + 1]):
                    q = order[s]
                    a = alpha[j, i, q]
                    if a == 0.0:
                        continue
                    prev = last[q]
                    for k in range(ops[q, 0]):
                        op = ops[q, k + 1]
                        if op < 6:
                            w = emis[op, i, j]
                            if w == 0.0:
                                continue
                            cls = cls_table[op, i, j]
                            dj = _DJ[op]
                        elif op == 6:
                            w, cls, dj = 1.0, 10, 0
                        else:
                            if i + op - 6 >= n:
                                continue
                            w, cls, dj = jump_w[op - 7], 9, 0
                        match = 1 if (cls == 2 or cls == 3 or cls == 4 or cls == 8) else 0
                        tq = next_state[q, op, match]
                        ti = i + text_move[q, op]
                        if tq < 0 or ti < 0 or ti > n:
                            continue
                        alpha[j + dj, ti, tq] += a * w * trans[prev, cls]
    z = 0.0
    for q in range(n_states):
        if final[q]:
            z += alpha[m, n, q] * trans[last[q], 11]
    return z


@njit(cache=True)
def backward_counts(n, m, emis, cls_table, jump_w, trans, last, order, rank_ptr, next_state,
                    text_move, final, ops, alpha, beta, z,
                    c_sub, c_b12, c_b21, c_b22, c_ins, c_del, c_jump, c_trans):  # type: ignore[no-untyped-def]
    """Fill ``beta`` and add every edge's posterior probability to the count arrays.

    ``c_sub`` etc. are indexed like the weight tables (``[i * m + j]``);
    ``c_trans[prev, class]`` counts transitions (END included); ``c_jump[k-1]`` counts
    forward jumps of distance k. Nodes the forward pass never reached are skipped.
    Returns beta at the start node, which equals Z.
    """
    n_states = last.shape[0]
    beta[: m + 1, : n + 1, :] = 0.0
    for q in range(n_states):
        if final[q]:
            beta[m, n, q] = trans[last[q], 11]
            c_trans[last[q], 11] += alpha[m, n, q] * beta[m, n, q] / z
    n_ranks = rank_ptr.shape[0] - 1
    for j in range(m, -1, -1):
        for r in range(n_ranks - 1, -1, -1):
            for i in range(n, -1, -1):
                for s in range(rank_ptr[r + 1] - 1, rank_ptr[r] - 1, -1):
                    q = order[s]
                    a = alpha[j, i, q]
                    if a == 0.0:
                        continue
                    prev = last[q]
                    total = beta[j, i, q]
                    for k in range(ops[q, 0]):
                        op = ops[q, k + 1]
                        if op < 6:
                            w = emis[op, i, j]
                            if w == 0.0:
                                continue
                            cls = cls_table[op, i, j]
                            dj = _DJ[op]
                        elif op == 6:
                            w, cls, dj = 1.0, 10, 0
                        else:
                            if i + op - 6 >= n:
                                continue
                            w, cls, dj = jump_w[op - 7], 9, 0
                        match = 1 if (cls == 2 or cls == 3 or cls == 4 or cls == 8) else 0
                        tq = next_state[q, op, match]
                        ti = i + text_move[q, op]
                        if tq < 0 or ti < 0 or ti > n:
                            continue
                        b = beta[j + dj, ti, tq]
                        if b == 0.0:
                            continue
                        w = w * trans[prev, cls]
                        total += w * b
                        p = a * w * b / z
                        c_trans[prev, cls] += p
                        if op == 0:
                            c_ins[j] += p
                        elif op == 1:
                            c_del[i] += p
                        elif op == 2:
                            c_sub[i * m + j] += p
                        elif op == 3:
                            c_b12[i * m + j] += p
                        elif op == 4:
                            c_b21[i * m + j] += p
                        elif op == 5:
                            c_b22[i * m + j] += p
                        elif op >= 7:
                            c_jump[op - 7] += p
                    beta[j, i, q] = total
    return beta[0, 0, 0]


@njit(cache=True)
def viterbi(n, m, emis, cls_table, jump_w, trans, last, order, rank_ptr, next_state, text_move,
            start, final, ops):  # type: ignore[no-untyped-def]
    """The best edit sequence as rows ``(op, i, j, class, edge weight)`` from the start,
    and its (shifted) weight; no rows and weight 0 when no sequence exists."""
    n_states = last.shape[0]
    best = np.zeros((m + 1, n + 1, n_states))
    back = np.full((m + 1, n + 1, n_states, 6), -1.0)  # op, i, j, q, class, weight
    best[0, 0, start] = 1.0
    n_ranks = rank_ptr.shape[0] - 1
    for j in range(m + 1):
        for r in range(n_ranks):
            for i in range(n + 1):
                for s in range(rank_ptr[r], rank_ptr[r + 1]):
                    q = order[s]
                    a = best[j, i, q]
                    if a == 0.0:
                        continue
                    prev = last[q]
                    for k in range(ops[q, 0]):
                        op = ops[q, k + 1]
                        if op < 6:
                            w = emis[op, i, j]
                            if w == 0.0:
                                continue
                            cls = cls_table[op, i, j]
                            dj = _DJ[op]
                        elif op == 6:
                            w, cls, dj = 1.0, 10, 0
                        else:
                            if i + op - 6 >= n:
                                continue
                            w, cls, dj = jump_w[op - 7], 9, 0
                        match = 1 if (cls == 2 or cls == 3 or cls == 4 or cls == 8) else 0
                        tq = next_state[q, op, match]
                        ti = i + text_move[q, op]
                        if tq < 0 or ti < 0 or ti > n:
                            continue
                        w = w * trans[prev, cls]
                        if a * w > best[j + dj, ti, tq]:
                            best[j + dj, ti, tq] = a * w
                            back[j + dj, ti, tq, 0] = op
                            back[j + dj, ti, tq, 1] = i
                            back[j + dj, ti, tq, 2] = j
                            back[j + dj, ti, tq, 3] = q
                            back[j + dj, ti, tq, 4] = cls
                            back[j + dj, ti, tq, 5] = w
    end_q = -1
    end_w = 0.0
    for q in range(n_states):
        if final[q] and best[m, n, q] * trans[last[q], 11] > end_w:
            end_w = best[m, n, q] * trans[last[q], 11]
            end_q = q
    if end_q < 0:
        return np.zeros((0, 5)), 0.0
    count = 0
    i, j, q = n, m, end_q
    while back[j, i, q, 0] >= 0:
        count += 1
        i, j, q = int(back[j, i, q, 1]), int(back[j, i, q, 2]), int(back[j, i, q, 3])
    steps = np.zeros((count, 5))
    i, j, q = n, m, end_q
    for s in range(count - 1, -1, -1):
        row = back[j, i, q]
        steps[s, 0] = row[0]
        steps[s, 1] = row[1]
        steps[s, 2] = row[2]
        steps[s, 3] = row[4]
        steps[s, 4] = row[5]
        i, j, q = int(row[1]), int(row[2]), int(row[3])
    return steps, end_w


@njit(cache=True)
def run_batch(n, m, off_cell, off_ins, off_del, sub_w, sub_cls, b12_w, b21_w, b22_w, ins_w, del_w,
               jump_w, trans, last, order, rank_ptr, next_state, text_move, start, final, ops, want_counts,
               c_sub, c_b12, c_b21, c_b22, c_ins, c_del, c_jump, c_trans, skip):  # type: ignore[no-untyped-def]
    """Forward (and, with ``want_counts``, backward) over many pairs whose tables are
    stacked with row offsets; returns every pair's shifted Z and fills the counts.
    Pairs with ``skip[p]`` are left out (Z = 0: the caller scores them in log space).

    Kept in this module so numba's on-disk cache is invalidated with the kernels.
    """
    n_pairs = n.shape[0]
    z = np.zeros(n_pairs)
    q_count = last.shape[0]
    n_max, m_max = 0, 0
    for p in range(n_pairs):
        if not skip[p]:
            n_max, m_max = max(n_max, n[p]), max(m_max, m[p])
    alpha = np.zeros((m_max + 1, n_max + 1, q_count))
    beta = np.zeros_like(alpha) if want_counts else np.zeros((1, 1, 1))
    for p in range(n_pairs):
        if skip[p]:
            continue
        cs, ce = off_cell[p], off_cell[p + 1]
        is_, ie = off_ins[p], off_ins[p + 1]
        ds, de = off_del[p], off_del[p + 1]
        emis, cls_table = tables(n[p], m[p], sub_w[cs:ce], sub_cls[cs:ce], b12_w[cs:ce], b21_w[cs:ce],
                                     b22_w[cs:ce], ins_w[is_:ie], del_w[ds:de])
        zp = forward(n[p], m[p], emis, cls_table, jump_w, trans, last, order, rank_ptr, next_state,
                         text_move, start, final, ops, alpha)
        z[p] = zp
        # Outside the safe range the caller reruns the pair in log space (counts too).
        if want_counts and SAFE_LOW <= zp <= SAFE_HIGH:
            backward_counts(n[p], m[p], emis, cls_table, jump_w, trans, last, order, rank_ptr,
                                next_state, text_move, final, ops, alpha, beta, zp,
                                c_sub[cs:ce], c_b12[cs:ce], c_b21[cs:ce], c_b22[cs:ce], c_ins[is_:ie],
                                c_del[ds:de], c_jump[p], c_trans[p])
    return z


# -- log-space kernels ------------------------------------------------------------------------
#
# The linear kernels above are exact as long as every partial sum stays within float64's
# range after the per-token shift; on long pairs (hundreds of tokens, or a long text
# against a short hypothesis) some do not, and the lattice under- or overflows. The model
# then reruns the pair with these kernels, which add log weights and combine alternatives
# with log-sum-exp: slower (an exp and a log per edge), but free of range problems for any
# length. Same edge logic, same visiting order; ``-inf`` marks an edge that does not exist.
# (SAFE_LOW / SAFE_HIGH, defined with the linear kernels, say when the rerun happens.)

@njit(cache=True)
def _logadd(x: float, y: float) -> float:
    if x == -np.inf:
        return y
    if y == -np.inf:
        return x
    if x > y:
        return x + np.log1p(np.exp(y - x))
    return y + np.log1p(np.exp(x - y))


@njit(cache=True)
def log_tables(n, m, sub_lw, sub_cls, b12_lw, b21_lw, b22_lw, ins_lw, del_lw):  # type: ignore[no-untyped-def]
    """:func:`tables` with log weights: ``-inf`` where an operation does not exist."""
    return _op_tables(-np.inf, n, m, sub_lw, sub_cls, b12_lw, b21_lw, b22_lw, ins_lw, del_lw)


@njit(cache=True)
def forward_log(n, m, emis, cls_table, jump_lw, trans, last, order, rank_ptr, next_state, text_move,
                start, final, ops, alpha):  # type: ignore[no-untyped-def]
    """:func:`forward` in log space: fills ``alpha`` with log sums and returns log Z.
    ``emis``, ``jump_lw`` and ``trans`` are log weights."""
    n_states = last.shape[0]
    alpha[: m + 1, : n + 1, :] = -np.inf
    alpha[0, 0, start] = 0.0
    n_ranks = rank_ptr.shape[0] - 1
    for j in range(m + 1):
        for r in range(n_ranks):
            for i in range(n + 1):
                for s in range(rank_ptr[r], rank_ptr[r + 1]):
                    q = order[s]
                    a = alpha[j, i, q]
                    if a == -np.inf:
                        continue
                    prev = last[q]
                    for k in range(ops[q, 0]):
                        op = ops[q, k + 1]
                        if op < 6:
                            w = emis[op, i, j]
                            if w == -np.inf:
                                continue
                            cls = cls_table[op, i, j]
                            dj = _DJ[op]
                        elif op == 6:
                            w, cls, dj = 0.0, 10, 0
                        else:
                            if i + op - 6 >= n:
                                continue
                            w, cls, dj = jump_lw[op - 7], 9, 0
                        match = 1 if (cls == 2 or cls == 3 or cls == 4 or cls == 8) else 0
                        tq = next_state[q, op, match]
                        ti = i + text_move[q, op]
                        if tq < 0 or ti < 0 or ti > n:
                            continue
                        alpha[j + dj, ti, tq] = _logadd(alpha[j + dj, ti, tq], a + w + trans[prev, cls])
    z = -np.inf
    for q in range(n_states):
        if final[q]:
            z = _logadd(z, alpha[m, n, q] + trans[last[q], 11])
    return z


@njit(cache=True)
def backward_counts_log(n, m, emis, cls_table, jump_lw, trans, last, order, rank_ptr, next_state,
                        text_move, final, ops, alpha, beta, log_z,
                        c_sub, c_b12, c_b21, c_b22, c_ins, c_del, c_jump, c_trans):  # type: ignore[no-untyped-def]
    """:func:`backward_counts` in log space (``alpha`` from :func:`forward_log`); the
    counts are posterior probabilities as there. Returns log beta at the start node.

    Each node's outgoing edges are summed with one shared maximum, so an edge costs one
    ``exp`` (reused for its posterior) and a node one ``log``.
    """
    n_states = last.shape[0]
    beta[: m + 1, : n + 1, :] = -np.inf
    for q in range(n_states):
        if final[q]:
            beta[m, n, q] = trans[last[q], 11]
            if alpha[m, n, q] > -np.inf:
                c_trans[last[q], 11] += np.exp(alpha[m, n, q] + beta[m, n, q] - log_z)
    n_ranks = rank_ptr.shape[0] - 1
    width = ops.shape[1]
    edge_x = np.empty(width)  # log weight x beta of each outgoing edge
    edge_op = np.empty(width, dtype=np.int64)
    edge_cls = np.empty(width, dtype=np.int64)
    for j in range(m, -1, -1):
        for r in range(n_ranks - 1, -1, -1):
            for i in range(n, -1, -1):
                for s in range(rank_ptr[r + 1] - 1, rank_ptr[r] - 1, -1):
                    q = order[s]
                    a = alpha[j, i, q]
                    if a == -np.inf:
                        continue
                    prev = last[q]
                    count = 0
                    top = beta[j, i, q]  # the END edge, already in beta for final states
                    for k in range(ops[q, 0]):
                        op = ops[q, k + 1]
                        if op < 6:
                            w = emis[op, i, j]
                            if w == -np.inf:
                                continue
                            cls = cls_table[op, i, j]
                            dj = _DJ[op]
                        elif op == 6:
                            w, cls, dj = 0.0, 10, 0
                        else:
                            if i + op - 6 >= n:
                                continue
                            w, cls, dj = jump_lw[op - 7], 9, 0
                        match = 1 if (cls == 2 or cls == 3 or cls == 4 or cls == 8) else 0
                        tq = next_state[q, op, match]
                        ti = i + text_move[q, op]
                        if tq < 0 or ti < 0 or ti > n:
                            continue
                        b = beta[j + dj, ti, tq]
                        if b == -np.inf:
                            continue
                        x = w + trans[prev, cls] + b
                        edge_x[count] = x
                        edge_op[count] = op
                        edge_cls[count] = cls
                        count += 1
                        if x > top:
                            top = x
                    if count == 0:
                        continue
                    total = np.exp(beta[j, i, q] - top) if beta[j, i, q] > -np.inf else 0.0
                    scale = np.exp(a + top - log_z)
                    for e in range(count):
                        rel = np.exp(edge_x[e] - top)
                        total += rel
                        p = scale * rel
                        op = edge_op[e]
                        c_trans[prev, edge_cls[e]] += p
                        if op == 0:
                            c_ins[j] += p
                        elif op == 1:
                            c_del[i] += p
                        elif op == 2:
                            c_sub[i * m + j] += p
                        elif op == 3:
                            c_b12[i * m + j] += p
                        elif op == 4:
                            c_b21[i * m + j] += p
                        elif op == 5:
                            c_b22[i * m + j] += p
                        elif op >= 7:
                            c_jump[op - 7] += p
                    beta[j, i, q] = top + np.log(total)
    return beta[0, 0, 0]


@njit(cache=True)
def viterbi_log(n, m, emis, cls_table, jump_lw, trans, last, order, rank_ptr, next_state, text_move,
                start, final, ops):  # type: ignore[no-untyped-def]
    """:func:`viterbi` in log space: rows ``(op, i, j, class, edge log weight)`` and the
    best log score (``-inf`` and no rows when no sequence exists).

    Back-pointers are ``(op, i, state)`` of the predecessor as int32 (the predecessor's
    hypothesis position follows from the operation), 12 bytes per lattice node.
    """
    n_states = last.shape[0]
    best = np.full((m + 1, n + 1, n_states), -np.inf)
    back = np.full((m + 1, n + 1, n_states, 3), -1, dtype=np.int32)
    best[0, 0, start] = 0.0
    n_ranks = rank_ptr.shape[0] - 1
    for j in range(m + 1):
        for r in range(n_ranks):
            for i in range(n + 1):
                for s in range(rank_ptr[r], rank_ptr[r + 1]):
                    q = order[s]
                    a = best[j, i, q]
                    if a == -np.inf:
                        continue
                    prev = last[q]
                    for k in range(ops[q, 0]):
                        op = ops[q, k + 1]
                        if op < 6:
                            w = emis[op, i, j]
                            if w == -np.inf:
                                continue
                            cls = cls_table[op, i, j]
                            dj = _DJ[op]
                        elif op == 6:
                            w, cls, dj = 0.0, 10, 0
                        else:
                            if i + op - 6 >= n:
                                continue
                            w, cls, dj = jump_lw[op - 7], 9, 0
                        match = 1 if (cls == 2 or cls == 3 or cls == 4 or cls == 8) else 0
                        tq = next_state[q, op, match]
                        ti = i + text_move[q, op]
                        if tq < 0 or ti < 0 or ti > n:
                            continue
                        x = a + w + trans[prev, cls]
                        if x > best[j + dj, ti, tq]:
                            best[j + dj, ti, tq] = x
                            back[j + dj, ti, tq, 0] = op
                            back[j + dj, ti, tq, 1] = i
                            back[j + dj, ti, tq, 2] = q
    end_q = -1
    end_w = -np.inf
    for q in range(n_states):
        if final[q] and best[m, n, q] + trans[last[q], 11] > end_w:
            end_w = best[m, n, q] + trans[last[q], 11]
            end_q = q
    if end_q < 0:
        return np.zeros((0, 5)), -np.inf
    count = 0
    i, j, q = n, m, end_q
    while back[j, i, q, 0] >= 0:
        count += 1
        op = back[j, i, q, 0]
        i, j, q = back[j, i, q, 1], j - (_DJ[op] if op < 6 else 0), back[j, i, q, 2]
    steps = np.zeros((count, 5))
    i, j, q = n, m, end_q
    for s in range(count - 1, -1, -1):
        op = back[j, i, q, 0]
        pi = back[j, i, q, 1]
        pj = j - (_DJ[op] if op < 6 else 0)
        pq = back[j, i, q, 2]
        if op < 6:
            w = emis[op, pi, pj]
            cls = cls_table[op, pi, pj]
        elif op == 6:
            w, cls = 0.0, 10
        else:
            w, cls = jump_lw[op - 7], 9
        steps[s, 0] = op
        steps[s, 1] = pi
        steps[s, 2] = pj
        steps[s, 3] = cls
        steps[s, 4] = w + trans[last[pq], cls]
        i, j, q = pi, pj, pq
    return steps, end_w
