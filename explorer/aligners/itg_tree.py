"""Bracketing ITG biparse trees: the nodes, their construction, the chart read back.

:class:`ItgNode` is one node of a biparse (:mod:`explorer.aligners.itg`); the helpers
build trees from the parser's float32 chart (:class:`ChartReader`, a Viterbi read-back with a
tolerance for float32 ties) and put the words removed before parsing back into the tree
(:func:`expand`). Trees are built and walked iteratively: the null chains of long pairs
make them deep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from explorer.errors import ExplorerError

__all__ = [
    "TIE", "ChartReader", "ItgError", "ItgNode", "NodeKind", "Span", "expand", "join", "leaf_hyp", "leaf_text",
    "null_chain", "wrap",
]

Span = tuple[int, int]

#: Tolerance when reading the float32 chart back.
TIE = 1e-4


class ItgError(ExplorerError, ValueError):
    """A pair or a configuration the ITG parser cannot handle; the message says why."""


class NodeKind(StrEnum):
    """The rule at a node of a Bracketing ITG tree."""

    STRAIGHT = "straight"  # [A A]
    INVERTED = "inverted"  # <A A>
    LINK = "link"  # x/y
    TEXT_NULL = "text_null"  # x/ε
    HYP_NULL = "hyp_null"  # ε/y


def _tree_from_rows(rows: Sequence[tuple[NodeKind, Span, Span, int, float]]) -> ItgNode:
    """The tree :meth:`ItgNode.__reduce__` flattened (children before parents, last child first)."""
    stack: list[ItgNode] = []
    for kind, p_span, h_span, n_children, similarity in rows:
        children = tuple(stack.pop() for _ in range(n_children))
        stack.append(ItgNode(kind, p_span, h_span, children, similarity))
    return stack[-1]


@dataclass(frozen=True, eq=False)
class ItgNode:
    """One node of a biparse tree.

    Attributes:
        kind: the rule used at this node.
        p_span: ``[start, end)`` in the text (``start == end`` when empty).
        h_span: ``[start, end)`` in the hypothesis (likewise).
        children: two children for STRAIGHT and INVERTED, none for leaves.
        similarity: for a LINK, the lexical similarity of its two words.
    """

    kind: NodeKind
    p_span: Span
    h_span: Span
    # Identity equality and no recursive repr: trees with long null chains are deep.
    children: tuple[ItgNode, ...] = field(default=(), repr=False)
    similarity: float = 0.0

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def walk(self) -> list[ItgNode]:
        """This node and its descendants, parents before children (iterative)."""
        out: list[ItgNode] = []
        stack: list[ItgNode] = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def leaves(self) -> list[ItgNode]:
        return [n for n in self.walk() if n.is_leaf]

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled flat (the app's worker processes send parses back): pickle's own
        # recursion overflows on the deep null chains of long pairs.
        rows = [(n.kind, n.p_span, n.h_span, len(n.children), n.similarity) for n in reversed(self.walk())]
        return _tree_from_rows, (rows,)

    def bracketed(self, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str]) -> str:
        """The tree in ITG bracket notation: ``[..]`` straight, ``<..>`` inverted."""

        def leaf(node: ItgNode) -> str:
            if node.kind is NodeKind.LINK:
                return f"{text_tokens[node.p_span[0]]}/{hypothesis_tokens[node.h_span[0]]}"
            if node.kind is NodeKind.TEXT_NULL:
                return f"{text_tokens[node.p_span[0]]}/ε"
            return f"ε/{hypothesis_tokens[node.h_span[0]]}"

        # Iterative: null chains make trees deep.
        parts: list[str] = []
        stack: list[ItgNode | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
            elif item.is_leaf:
                parts.append(leaf(item))
            else:
                open_, close = ("[", "]") if item.kind is NodeKind.STRAIGHT else ("<", ">")
                left, right = item.children
                stack += [close, right, " ", left, open_]
        return "".join(parts)


# -- tree construction helpers -------------------------------------------------------

def leaf_text(p: int, h_at: int) -> ItgNode:
    return ItgNode(NodeKind.TEXT_NULL, (p, p + 1), (h_at, h_at))


def leaf_hyp(h: int, p_at: int) -> ItgNode:
    return ItgNode(NodeKind.HYP_NULL, (p_at, p_at), (h, h + 1))


def join(left: ItgNode, right: ItgNode) -> ItgNode:
    return ItgNode(NodeKind.STRAIGHT, (left.p_span[0], right.p_span[1]),
                   (left.h_span[0], right.h_span[1]), (left, right))


def null_chain(p_span: Span, h_span: Span) -> ItgNode | None:
    """A right-growing straight chain of null leaves covering both spans."""
    node: ItgNode | None = None
    for p in range(*p_span):
        leaf = leaf_text(p, h_span[0])
        node = leaf if node is None else join(node, leaf)
    for h in range(*h_span):
        leaf = leaf_hyp(h, p_span[1])
        node = leaf if node is None else join(node, leaf)
    return node


def wrap(core: ItgNode, p_span: Span, h_span: Span) -> ItgNode:
    """Attach the null words of ``p_span`` x ``h_span`` around ``core`` by straight rules."""
    node = core
    for p in range(core.p_span[1], p_span[1]):
        node = join(node, leaf_text(p, node.h_span[1]))
    for h in range(node.h_span[1], h_span[1]):
        node = join(node, leaf_hyp(h, node.p_span[1]))
    for p in reversed(range(p_span[0], core.p_span[0])):
        node = join(leaf_text(p, node.h_span[0]), node)
    for h in reversed(range(h_span[0], node.h_span[0])):
        node = join(leaf_hyp(h, node.p_span[0]), node)
    return node


class ChartReader:
    """Reads the Viterbi tree back out of a filled chart (compressed coordinates)."""

    def __init__(self, chart: np.ndarray, gain: np.ndarray, allowed: np.ndarray,
                 inversion: float) -> None:
        self.chart = chart
        self.gain = gain
        self.allowed = allowed
        self.inversion = inversion

    def read(self, i: int, j: int, u: int, v: int) -> ItgNode | None:
        """The best tree of ``text[i:j]`` x ``hypothesis[u:v]``.

        Null boundary words are peeled off in a loop (their chains can be hundreds of
        words long); only splits recurse, and each split shortens both sides.
        """
        c = self.chart
        before: list[ItgNode] = []  # peeled off the front, outermost first
        after: list[ItgNode] = []  # peeled off the back, outermost first
        core: ItgNode | None
        while True:
            if i == j or u == v:
                core = null_chain((i, j), (u, v))
                break
            g = c[i, j, u, v] - TIE
            if c[i + 1, j, u, v] >= g:
                before.append(leaf_text(i, u))
                i += 1
            elif c[i, j - 1, u, v] >= g:
                after.append(leaf_text(j - 1, v))
                j -= 1
            elif c[i, j, u + 1, v] >= g:
                before.append(leaf_hyp(u, i))
                u += 1
            elif c[i, j, u, v - 1] >= g:
                after.append(leaf_hyp(v - 1, j))
                v -= 1
            elif j - i == 1 and v - u == 1:
                core = ItgNode(NodeKind.LINK, (i, j), (u, v))
                break
            else:
                core = self._split(i, j, u, v)
                break
        node = core
        for leaf in reversed(after):
            node = leaf if node is None else join(node, leaf)
        for leaf in reversed(before):
            node = leaf if node is None else join(leaf, node)
        return node

    def _split(self, i: int, j: int, u: int, v: int) -> ItgNode:
        """Both children non-empty on both sides (see itg_kernel's normal form)."""
        c = self.chart
        straight = c[i, i + 1:j, u, u + 1:v] + c[i + 1:j, j, u + 1:v, v]
        inverted = c[i, i + 1:j, u + 1:v, v] + c[i + 1:j, j, u, u + 1:v] - np.float32(self.inversion)
        s_best = np.unravel_index(int(np.argmax(straight)), straight.shape)
        i_best = np.unravel_index(int(np.argmax(inverted)), inverted.shape)
        if straight[s_best] >= inverted[i_best] - TIE:
            s, w = i + 1 + int(s_best[0]), u + 1 + int(s_best[1])
            kind, left, right = NodeKind.STRAIGHT, self.read(i, s, u, w), self.read(s, j, w, v)
        else:
            s, w = i + 1 + int(i_best[0]), u + 1 + int(i_best[1])
            kind, left, right = NodeKind.INVERTED, self.read(i, s, w, v), self.read(s, j, u, w)
        if left is None or right is None:
            raise ItgError(f"chart read-back found an empty child at {(i, j, u, v)}")
        return ItgNode(kind, (i, j), (u, v), (left, right))


def expand(node: ItgNode, p_keep: Sequence[int], h_keep: Sequence[int],
            p_len: int, h_len: int, sim: np.ndarray) -> ItgNode:
    """Map a tree over the kept words back to all words, attaching the removed ones.

    Compressed boundary ``k`` maps to the original position of kept word ``k`` (0 at the
    start, the sentence length at the end), so each removed word joins the leaf of the
    kept word before it (or the first leaf).
    """

    def bp(k: int) -> int:
        return 0 if k == 0 else p_len if k == len(p_keep) else p_keep[k]

    def bh(k: int) -> int:
        return 0 if k == 0 else h_len if k == len(h_keep) else h_keep[k]

    def leaf(n: ItgNode) -> ItgNode:
        p_span = (bp(n.p_span[0]), bp(n.p_span[1]))
        h_span = (bh(n.h_span[0]), bh(n.h_span[1]))
        if n.kind is NodeKind.LINK:
            p, h = p_keep[n.p_span[0]], h_keep[n.h_span[0]]
            core = ItgNode(NodeKind.LINK, (p, p + 1), (h, h + 1), similarity=float(sim[p, h]))
        elif n.kind is NodeKind.TEXT_NULL:
            core = leaf_text(p_keep[n.p_span[0]], h_span[0])
        else:
            core = leaf_hyp(h_keep[n.h_span[0]], p_span[0])
        return wrap(core, p_span, h_span)

    # Iterative post-order: trees with long null chains are deep.
    done: dict[int, ItgNode] = {}
    stack: list[tuple[ItgNode, bool]] = [(node, False)]
    while stack:
        n, children_done = stack.pop()
        if n.is_leaf:
            done[id(n)] = leaf(n)
        elif not children_done:
            stack.append((n, True))
            stack.extend((child, False) for child in n.children)
        else:
            left, right = (done.pop(id(child)) for child in n.children)
            done[id(n)] = ItgNode(n.kind, (bp(n.p_span[0]), bp(n.p_span[1])),
                                  (bh(n.h_span[0]), bh(n.h_span[1])), (left, right))
    return done[id(node)]
