"""Log-space twins of the edit-distance kernels (:mod:`explorer.edit_distance.automaton`).

The linear kernels of :mod:`~explorer.edit_distance.automaton` are exact as long as every partial sum stays within float64's
range after the per-token shift; on long pairs (hundreds of tokens, or a long text
against a short hypothesis) some do not, and the lattice under- or overflows. The model
then reruns the pair with these kernels, which add log weights and combine alternatives
with log-sum-exp: slower (an exp and a log per edge), but free of range problems for any
length. Same edge logic, same visiting order; ``-inf`` marks an edge that does not exist.
(:data:`~explorer.edit_distance.automaton.SAFE_LOW` / ``SAFE_HIGH`` and
``LOG_SPACE_CELLS`` say when the rerun happens.) The step tables ``_DJ`` and ``_FIXED_CLASS``
are the linear kernels' own: numba freezes them into the compiled code, so a change to
them there must clear numba's cache of this module too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from explorer.edit_distance.automaton import _DJ, _FIXED_CLASS


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
    emis = np.full((6, n + 1, m + 1), -np.inf)
    cls = np.zeros((6, n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        for j in range(m + 1):
            for op in range(6):
                cls[op, i, j] = _FIXED_CLASS[op]
            if j < m:
                emis[0, i, j] = ins_lw[j]
            if i < n:
                emis[1, i, j] = del_lw[i]
            if i < n and j < m:
                emis[2, i, j] = sub_lw[i * m + j]
                cls[2, i, j] = sub_cls[i * m + j]
            if i < n and j + 1 < m:
                emis[3, i, j] = b12_lw[i * m + j]
            if i + 1 < n and j < m:
                emis[4, i, j] = b21_lw[i * m + j]
            if i + 1 < n and j + 1 < m:
                emis[5, i, j] = b22_lw[i * m + j]
    return emis, cls


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
