"""Figures for the Bracketing ITG (pure Plotly, no Streamlit).

:func:`tree_figure` draws a biparse tree: leaves (``x/y`` links, ``x/ε`` and ``ε/y``
null words) along the bottom in text order, each internal node above its children.
Straight nodes ``[ ]`` are blue squares joined to their children by solid lines;
inverted nodes ``⟨ ⟩`` are orange diamonds joined by dashed lines, so the places where
the hypothesis reverses the text's order stand out. Hovering a node names its rule and
the words it covers on both sides. :func:`alignment_figure` draws the shared alignment
grid with one node's block of cells outlined, which is how the Pair page links the two.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from components.figures import svg_plain
from components.figures.alignment import alignment_grid
from explorer.aligners.itg import ItgParse
from explorer.aligners.itg_tree import ItgNode, NodeKind
from explorer.alignment import Alignment

#: Marker symbol, colour and legend name per node kind.
NODE_STYLE: dict[NodeKind, tuple[str, str, str]] = {
    NodeKind.STRAIGHT: ("square", "#1565c0", "straight [A A]"),
    # Plotly reads "<...>" in names as markup, hence the mathematical angle brackets.
    NodeKind.INVERTED: ("diamond", "#ef6c00", "inverted ⟨A A⟩"),
    NodeKind.LINK: ("circle", "#2e7d32", "link x/y"),
    NodeKind.TEXT_NULL: ("circle-open", "#757575", "unaligned text word x/ε"),
    NodeKind.HYP_NULL: ("circle-open", "#ad1457", "unaligned hypothesis word ε/y"),
}


def internal_nodes(tree: ItgNode | None) -> list[ItgNode]:
    """Straight and inverted nodes, parents first (the order the panel lists them)."""
    if tree is None:
        return []
    return [n for n in tree.walk() if not n.is_leaf]


def node_label(node: ItgNode, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str],
               *, width: int = 40) -> str:
    """``[ text words | hypothesis words ]`` (``< .. >`` when inverted), shortened."""

    def words(tokens: Sequence[str], span: tuple[int, int]) -> str:
        s = " ".join(tokens[span[0]:span[1]]) or "ε"
        return s if len(s) <= width else s[: width - 1] + "…"

    if node.kind is NodeKind.LINK:
        return f"{words(text_tokens, node.p_span)}/{words(hypothesis_tokens, node.h_span)}"
    if node.kind is NodeKind.TEXT_NULL:
        return f"{words(text_tokens, node.p_span)}/ε"
    if node.kind is NodeKind.HYP_NULL:
        return f"ε/{words(hypothesis_tokens, node.h_span)}"
    open_, close = ("[", "]") if node.kind is NodeKind.STRAIGHT else ("<", ">")
    return f"{open_} {words(text_tokens, node.p_span)} | {words(hypothesis_tokens, node.h_span)} {close}"


def layout(tree: ItgNode) -> dict[int, tuple[float, float]]:
    """``id(node) -> (x, y)``: leaves at y = 0 in text order, parents above children."""
    position: dict[int, tuple[float, float]] = {}
    next_leaf = 0
    # Iterative post-order: null-word chains make trees deep.
    stack: list[tuple[ItgNode, bool]] = [(tree, False)]
    while stack:
        node, children_done = stack.pop()
        if node.is_leaf:
            position[id(node)] = (float(next_leaf), 0.0)
            next_leaf += 1
            continue
        if not children_done:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))
            continue
        xs = [position[id(c)][0] for c in node.children]
        ys = [position[id(c)][1] for c in node.children]
        position[id(node)] = (sum(xs) / len(xs), max(ys) + 1.0)
    return position


def node_at(tree: ItgNode, x: float, y: float) -> ItgNode | None:
    """The node drawn at ``(x, y)`` by :func:`tree_figure` (for click selection)."""
    position = layout(tree)
    for node in tree.walk():
        px, py = position[id(node)]
        if abs(px - x) < 1e-6 and abs(py - y) < 1e-6:
            return node
    return None


#: Where a node is drawn, by ``id(node)`` (as :func:`layout` returns it).
Positions = dict[int, tuple[float, float]]


def _edges_trace(nodes: Sequence[ItgNode], position: Positions, *, inverted: bool) -> go.Scatter:
    """The lines from the straight (or, dashed, the inverted) nodes to their children."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for node in nodes:
        if node.is_leaf or (node.kind is NodeKind.INVERTED) != inverted:
            continue
        x0, y0 = position[id(node)]
        for child in node.children:
            x1, y1 = position[id(child)]
            xs += [x0, x1, None]
            ys += [y0, y1, None]
    return go.Scatter(
        x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
        line={"color": "#ef6c00" if inverted else "#90a4ae", "width": 2,
              "dash": "dash" if inverted else "solid"},
    )


def _node_hover(node: ItgNode, name: str, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str]) -> str:
    """A node's hover text: its kind, the two spans and their words, a link's similarity."""
    p_words = svg_plain(" ".join(text_tokens[node.p_span[0]:node.p_span[1]])) or "ε"
    h_words = svg_plain(" ".join(hypothesis_tokens[node.h_span[0]:node.h_span[1]])) or "ε"
    lines = [f"<b>{name}</b>",
             f"text [{node.p_span[0]}, {node.p_span[1]}): {p_words}",
             f"hypothesis [{node.h_span[0]}, {node.h_span[1]}): {h_words}"]
    if node.kind is NodeKind.LINK:
        lines.append(f"similarity {node.similarity:.2f}")
    return "<br>".join(lines)


#: The kinds of node drawn as leaves (smaller markers).
LEAF_KINDS = (NodeKind.LINK, NodeKind.TEXT_NULL, NodeKind.HYP_NULL)


def _nodes_trace(
    kind: NodeKind, members: Sequence[ItgNode], position: Positions,
    text_tokens: Sequence[str], hypothesis_tokens: Sequence[str],
) -> go.Scatter:
    """The markers of one kind of node, in its symbol and colour, with hover text."""
    symbol, colour, name = NODE_STYLE[kind]
    return go.Scatter(
        x=[position[id(n)][0] for n in members],
        y=[position[id(n)][1] for n in members],
        mode="markers",
        marker={"symbol": symbol, "color": colour, "size": 11 if kind in LEAF_KINDS else 14,
                "line": {"color": colour, "width": 2}},
        name=name, customdata=[_node_hover(n, name, text_tokens, hypothesis_tokens) for n in members],
        hovertemplate="%{customdata}<extra></extra>",
    )


def _leaf_labels_trace(
    leaves: Sequence[ItgNode], position: Positions, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str],
) -> go.Scatter:
    """Leaf labels in two staggered rows, so neighbours' labels do not run into each other."""
    return go.Scatter(
        x=[position[id(n)][0] for n in leaves],
        y=[position[id(n)][1] - (0.5 if k % 2 == 0 else 1.2) for k, n in enumerate(leaves)],
        mode="text", text=[svg_plain(node_label(n, text_tokens, hypothesis_tokens, width=14)) for n in leaves],
        textfont={"size": 10}, hoverinfo="skip", showlegend=False,
    )


def _size_tree(figure: go.Figure, position: Positions, n_leaves: int, title: str) -> None:
    """Height by the tree's depth, width by its leaves (wide trees scroll), legend above the root."""
    height = max((p[1] for p in position.values()), default=0.0)
    figure.update_layout(
        title=title or None,
        height=int(min(950, max(340, 190 + 24 * height))),
        width=None if n_leaves <= 40 else 40 + 34 * n_leaves,
        # The legend sits in a top margin of its own, above the root (it used to cover it).
        margin={"l": 10, "r": 10, "t": 90 if title else 60, "b": 20},
        plot_bgcolor="#ffffff",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )
    figure.update_xaxes(visible=False, range=[-1, n_leaves])
    figure.update_yaxes(visible=False, range=[-1.7, height + 0.6])


def tree_figure(
    tree: ItgNode,
    text_tokens: Sequence[str],
    hypothesis_tokens: Sequence[str],
    *,
    highlight: ItgNode | None = None,
    title: str = "",
) -> go.Figure:
    """Draw a biparse tree; ``highlight`` (a node of ``tree``) is ringed.

    Raises:
        ValueError: if the tree does not span the given tokens.
    """
    if tree.p_span != (0, len(text_tokens)) or tree.h_span != (0, len(hypothesis_tokens)):
        raise ValueError(
            f"the tree spans {tree.p_span[1]} text and {tree.h_span[1]} hypothesis tokens, "
            f"but {len(text_tokens)} and {len(hypothesis_tokens)} were given"
        )
    position = layout(tree)
    nodes = tree.walk()
    figure = go.Figure()
    for inverted in (False, True):
        figure.add_trace(_edges_trace(nodes, position, inverted=inverted))
    for kind in NODE_STYLE:
        members = [n for n in nodes if n.kind is kind]
        if members:
            figure.add_trace(_nodes_trace(kind, members, position, text_tokens, hypothesis_tokens))
    leaves = [n for n in nodes if n.is_leaf]
    figure.add_trace(_leaf_labels_trace(leaves, position, text_tokens, hypothesis_tokens))
    if highlight is not None and id(highlight) in position:
        x, y = position[id(highlight)]
        figure.add_trace(go.Scatter(
            x=[x], y=[y], mode="markers", name="selected node", hoverinfo="skip",
            marker={"symbol": "circle-open", "size": 26, "color": "#c62828", "line": {"width": 3}},
        ))
    _size_tree(figure, position, len(leaves), title)
    return figure


def alignment_figure(
    parse: ItgParse,
    text_tokens: Sequence[str],
    hypothesis_tokens: Sequence[str],
    *,
    node: ItgNode | None = None,
    gold: Alignment | None = None,
    title: str = "",
) -> go.Figure:
    """The shared alignment grid of the parse, with ``node``'s block of cells outlined
    (orange for an inverted node, blue for a straight one)."""
    figure = alignment_grid(parse.alignment, text_tokens, hypothesis_tokens, gold=gold, title=title)
    if node is not None:
        (p0, p1), (h0, h1) = node.p_span, node.h_span
        colour = NODE_STYLE[node.kind][1]
        figure.add_shape(
            # An empty side gives a zero-width box: a line at the boundary it sits on.
            type="rect", x0=p0 - 0.5, x1=p1 - 0.5, y0=h0 - 0.5, y1=h1 - 0.5,
            line={"color": colour, "width": 4, "dash": "dot" if node.kind is NodeKind.INVERTED else "solid"},
            fillcolor="rgba(0,0,0,0)",
        )
    return figure
