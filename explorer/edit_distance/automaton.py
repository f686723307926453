"""The edit automata of Wang & Cer (2012) and their dynamic programmes.

Wang & Cer, "Probabilistic Edit Distance Metrics for STS" (SemEval-2012, §2-3) score a
sentence pair by summing, over every edit sequence that turns the text into the
hypothesis, the product of the sequence's edge weights. An edge is one edit operation:
its weight ``exp(T[previous class, current class] + w·φ(operation, words))`` combines a
transition score between the classes of consecutive operations and a log-linear score
of the words the operation touches.

Both machines here share one representation: a small table of *control states*
(:class:`Automaton`) that says, for each state and operation, where the operation leads
and how far it moves in the text. The pFSM has one mode; the pPDA adds jump modes
(``build_automaton("ppda", max_jump)``; the jump rules are in the package docstring). The kernels below walk the
lattice ``(hypothesis position, text position, control state)`` in a topological order
that the table provides, so the forward, backward and Viterbi passes are written once.

Weights are kept in linear space with a per-token shift (every complete edit sequence
consumes exactly ``|text| + |hypothesis|`` tokens, so dividing each token-consuming edge
by ``exp(shift)`` per token rescales every path alike and keeps the sums in range for
sentence-length pairs). Long or lopsided pairs (hundreds of tokens, or a long text
against a short hypothesis) can still leave float64's range, so each kernel has a
log-space twin (:mod:`explorer.edit_distance.log_kernels`)
that the model uses for lattices over :data:`LOG_SPACE_CELLS` cells and for any pair
whose linear result leaves ``[SAFE_LOW, SAFE_HIGH]``.

Cost: every pass visits ``(|h| + 1)(|t| + 1)`` cells times the control states (5 for
the pFSM, 37 for the pPDA with jumps of up to 5) times their operations; memory is one
``(|h| + 1, |t| + 1, states)`` float64 table per pass, plus 12 bytes per node of
back-pointers for the log-space Viterbi (48 for the linear one). The limits in
:mod:`explorer.limits` bound both before a pair is scored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

# -- operations and classes -------------------------------------------------------------

#: Operations, in the order the kernels use. ``JUMP_F`` stands for jumps of every
#: distance: operation ``JUMP_F + k - 1`` jumps ``k`` tokens forward in the text.
INS, DEL, SUB, B12, B21, B22, JUMP_B, JUMP_F = range(8)
OP_NAMES = ("INS", "DEL", "SUB", "B12", "B21", "B22", "JUMP_B", "JUMP_F")
#: Tokens each operation consumes in the text and in the hypothesis (jumps: none).
OP_TEXT = (0, 1, 1, 1, 2, 2, 0)
OP_HYP = (1, 0, 1, 2, 1, 2, 0)

#: The *current* class of an operation, as in the paper's state names. Substitutions
#: take their class from the word pair (exact word, lemma, punctuation, PPDB
#: paraphrase, WordNet-style lexical similarity, anything else).
CLASSES = (
    "INS", "DEL", "S_WORD", "S_LEMMA", "S_PUNC", "S_PARA", "S_SYN", "S_OTHER",
    "S_BLOCK", "JUMP_F", "JUMP_B", "END",
)
C_INS, C_DEL, C_WORD, C_LEMMA, C_PUNC, C_PARA, C_SYN, C_OTHER, C_BLOCK, C_JUMP_F, C_JUMP_B, C_END = range(12)
SUB_CLASSES = (C_WORD, C_LEMMA, C_PUNC, C_PARA, C_SYN, C_OTHER)
MATCH_CLASSES = frozenset((C_WORD, C_LEMMA, C_PUNC, C_BLOCK))

#: The *previous* class a control state remembers (coarser than :data:`CLASSES` so the
#: lattice stays small): substitutions are either matches (word, lemma, punctuation,
#: block) or not. Inside a jump, and right after one, the previous class is JUMP.
LAST = ("START", "INS", "DEL", "MATCH", "SUB", "JUMP")
L_START, L_INS, L_DEL, L_MATCH, L_SUB, L_JUMP = range(6)

N_CLASSES = len(CLASSES)
N_LAST = len(LAST)


def is_match(cls: int) -> bool:
    return cls in MATCH_CLASSES


@dataclass(frozen=True)
class Automaton:
    """Control states and the operation table of an edit machine.

    Attributes:
        name: ``pfsm`` or ``ppda``.
        max_jump: the largest jump distance (0 for the pFSM).
        states: one descriptive tuple per control state (for display and tests).
        last: the previous-operation class (:data:`LAST`) of each state.
        order: state indices grouped by rank; ``rank_ptr[r]:rank_ptr[r+1]`` is rank r.
            Edges that stay in the same hypothesis position go to a later rank, or to
            the same rank further right in the text, so this order is topological.
        next_state: ``[state, op, match]`` -> next state or -1 (``match`` is 1 when a
            substitution's word pair is a match class; other operations ignore it).
        text_move: ``[state, op]`` -> the text offset the operation moves (jumps and the
            automatic return at the end of a swapped region included).
        start: the initial state; ``final``: 1 for states that may end a sequence.
        ops: ``[state, 0]`` = how many operations the state allows, followed by them.
    """

    name: str
    max_jump: int
    states: tuple[tuple[object, ...], ...]
    last: np.ndarray
    order: np.ndarray
    rank_ptr: np.ndarray
    next_state: np.ndarray
    text_move: np.ndarray
    start: int
    final: np.ndarray
    ops: np.ndarray

    @property
    def n_ops(self) -> int:
        return JUMP_F + self.max_jump

    @property
    def n_states(self) -> int:
        return len(self.states)


# -- building automata --------------------------------------------------------------------

# Modes of the pushdown machine; rank = position in the topological order within one
# hypothesis position (see Automaton.order).
MODE_FREE, MODE_LANDED, MODE_AHEAD, MODE_BACK_FRESH, MODE_BACK = range(5)
_RANK = {4: 0, 0: 1, 1: 2, 2: 3, 3: 4}  # mode -> rank
MODE_RANK = _RANK


def build_automaton(name: str, max_jump: int) -> Automaton:
    """Enumerate the reachable control states of the pFSM (``max_jump=0``) or pPDA.

    A state is ``(mode, k, d, a, b, last)``:

    * ``MODE_FREE`` (0): ordinary editing; a forward jump of ``k <= max_jump`` text
      tokens (skipping them for now) enters MODE_LANDED.
    * ``MODE_LANDED`` (1, ``k``): right after a forward jump only substitutions are
      allowed.
    * ``MODE_AHEAD`` (2, ``k``, ``d`` = tokens consumed since landing): any edit; once
      at least one substitution was made (always true here) the machine may jump back
      to the skipped tokens, provided the whole excursion ``k + d`` stays within
      ``max_jump`` (our reading: the backward jump obeys the same distance limit).
    * ``MODE_BACK_FRESH`` (3, ``a`` = skipped tokens left, ``b`` = remembered distance
      from the landing point to the end): right after the backward jump, no deletion
      until a substitution has been made.
    * ``MODE_BACK`` (4, ``a``, ``b``): any edit but jumps; the operation that reaches the
      landing point moves on to the remembered end and returns to MODE_FREE.
    """
    if max_jump < 0:
        raise ValueError("max_jump must be >= 0")
    n_ops = JUMP_F + max_jump
    start_state = (MODE_FREE, 0, 0, 0, 0, L_START)
    index: dict[tuple[int, ...], int] = {start_state: 0}
    states: list[tuple[int, ...]] = [start_state]
    edges: dict[tuple[int, int, int], tuple[tuple[int, ...], int]] = {}
    frontier: list[tuple[int, ...]] = [start_state]

    def text_ops() -> list[int]:
        return [DEL, SUB, B12, B21, B22]

    while frontier:
        state = frontier.pop()
        mode, k, d, a, b, _last = state
        out: list[tuple[int, int, tuple[int, ...], int]] = []  # op, match, next, move
        for op in (INS, *text_ops()):
            t = OP_TEXT[op]
            for match in (0, 1):
                if op == SUB:
                    after = L_MATCH if match else L_SUB
                elif op in (B12, B21, B22):
                    if not match:
                        continue
                    after = L_MATCH
                else:
                    after = L_INS if op == INS else L_DEL
                substitution = op in (SUB, B12, B21, B22)
                if mode == MODE_FREE:
                    out.append((op, match, (MODE_FREE, 0, 0, 0, 0, after), t))
                elif mode == MODE_LANDED:
                    if substitution and k + t <= max_jump:
                        out.append((op, match, (MODE_AHEAD, k, t, 0, 0, L_JUMP), t))
                elif mode == MODE_AHEAD:
                    if k + d + t <= max_jump:
                        out.append((op, match, (MODE_AHEAD, k, d + t, 0, 0, L_JUMP), t))
                elif mode in (MODE_BACK_FRESH, MODE_BACK):
                    if op == INS:
                        out.append((op, match, (mode, 0, 0, a, b, L_JUMP), 0))
                    elif mode == MODE_BACK_FRESH and not substitution:
                        continue
                    elif t < a:
                        out.append((op, match, (MODE_BACK, 0, 0, a - t, b, L_JUMP), t))
                    elif t == a:
                        out.append((op, match, (MODE_FREE, 0, 0, 0, 0, L_JUMP), t + b))
        if mode == MODE_FREE:
            for jump in range(1, max_jump + 1):
                for match in (0, 1):
                    out.append((JUMP_F + jump - 1, match, (MODE_LANDED, jump, 0, 0, 0, L_JUMP), jump))
        if mode == MODE_AHEAD:
            for match in (0, 1):
                out.append((JUMP_B, match, (MODE_BACK_FRESH, 0, 0, k, d, L_JUMP), -(k + d)))
        for op, match, nxt, move in out:
            if nxt not in index:
                index[nxt] = len(states)
                states.append(nxt)
                frontier.append(nxt)
            edges[(index[state], op, match)] = (nxt, move)

    n_states = len(states)
    next_state = np.full((n_states, n_ops, 2), -1, dtype=np.int64)
    text_move = np.zeros((n_states, n_ops), dtype=np.int64)
    for (q, op, match), (nxt, move) in edges.items():
        next_state[q, op, match] = index[nxt]
        text_move[q, op] = move
    ranks = np.array([_RANK[s[0]] for s in states])
    order = np.argsort(ranks, kind="stable").astype(np.int64)
    rank_ptr = np.searchsorted(ranks[order], np.arange(6)).astype(np.int64)
    last = np.array([s[5] for s in states], dtype=np.int64)
    final = np.array([1 if s[0] == MODE_FREE else 0 for s in states], dtype=np.int64)
    ops = np.zeros((n_states, n_ops + 1), dtype=np.int64)
    for q in range(n_states):
        allowed = [op for op in range(n_ops) if next_state[q, op].max() >= 0]
        ops[q, 0] = len(allowed)
        ops[q, 1 : len(allowed) + 1] = allowed
    return Automaton(
        name=name, max_jump=max_jump, states=tuple(states), last=last, order=order,
        rank_ptr=rank_ptr, next_state=next_state, text_move=text_move, start=0, final=final, ops=ops,
    )


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
def tables(n, m, sub_w, sub_cls, b12_w, b21_w, b22_w, ins_w, del_w):  # type: ignore[no-untyped-def]
    """Dense ``[op, i, j]`` weight and class tables of a pair's six token operations,
    zero where an operation would run past either sentence."""
    emis = np.zeros((6, n + 1, m + 1))
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
