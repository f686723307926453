"""The control states of the pFSM and the pPDA (Wang & Cer, SemEval-2012, §2-3).

Both machines share one representation: a small table of *control states*, each naming
the class of the last operation, the machine's mode (the pPDA's jump modes) and how far it
moves in the text. The pFSM has one mode; the pPDA adds jump modes. The kernels of
:mod:`explorer.edit_distance.automaton` walk the lattice ``(hypothesis position, text
position, control state)`` in the topological order this table provides, so the forward,
backward and Viterbi passes are written once for both machines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
