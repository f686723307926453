"""The Pair page's "ITG parse" tab: the Bracketing ITG tree linked to the alignment grid."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from components import analysis, charts, state, workers
from components.figures.itg import alignment_figure, internal_nodes, node_at, node_label, tree_figure
from components.panels.shared import fitting_gold
from components.sections.verdicts import verdict_line
from explorer.aligners.itg import MAX_CHART_CELLS, VARIANTS, ItgParse
from explorer.aligners.itg_tree import ItgNode, NodeKind
from explorer.preprocess import AnalyzedPair
from runtime.pool import cost, tasks

#: Trees with more leaves than this are summarised instead of drawn (unreadable).
MAX_DRAWN_LEAVES = 160


def _parse(variant: str, pair: AnalyzedPair) -> ItgParse:
    """The biparse, on a worker (the method's limits are checked there first), kept per
    pair for the whole server (:func:`components.analysis.kept`; a refusal is not kept)."""
    def compute() -> ItgParse:
        parse = workers.run(tasks.itg_parse, pair.pair, variant, what="Biparsing with the ITG",
                            long=cost.is_long([pair.pair], [variant]))
        if not isinstance(parse, ItgParse):
            raise TypeError(f"{variant!r} gave a {type(parse).__name__}, not an ITG parse")
        return parse

    return analysis.kept(("itg_parse", variant, *analysis.pair_key(pair.pair)), compute)


def itg_controls(key: str) -> str:
    """The user's choice of ITG configuration."""
    return str(st.selectbox(
        "ITG configuration", list(VARIANTS), key=f"{key}_variant",
        format_func=lambda name: f"{VARIANTS[name][0]} — {VARIANTS[name][1]}",
    ))


def _select_clicked_node(tree: ItgNode, nodes: Sequence[ItgNode], chart: str,
                         chosen: state.Slot[int]) -> Callable[[], None]:
    """A callback for clicks on the tree: make the clicked node the selectbox's choice
    (callbacks run before the rerun, so the selectbox may still be changed)."""

    def callback() -> None:
        event = state.chart_event(chart).get()
        points = (event or {}).get("selection", {}).get("points", []) if event else []
        for point in points:
            node = node_at(tree, float(point.get("x", -1)), float(point.get("y", -1)))
            if node is not None and not node.is_leaf:
                chosen.set(next(k for k, n in enumerate(nodes) if n is node))
                return

    return callback


def render_itg_panel(pair: AnalyzedPair, *, key: str = "itg") -> None:
    """Draw the best biparse of ``pair``: score, tree, and the chosen node's block."""
    variant = itg_controls(key)
    text, hyp = pair.text, pair.hypothesis
    parse = _parse(variant, pair)
    if parse.tree is None:
        st.info("Both sides are empty: there is nothing to parse.")
        return
    links = len(parse.alignment.sure)
    columns = st.columns(4)
    columns[0].metric("ITG score", f"{parse.value:.3f}", help="1 - cost / cost of leaving every word unaligned")
    columns[1].metric("cost", f"{parse.cost:.2f}", help=f"of {parse.null_cost:.2f} with no links at all")
    columns[2].metric("links", links)
    columns[3].metric("inversions", parse.inversions)
    st.markdown(verdict_line(variant, float(parse.value), pair.pair))
    if parse.approximation:
        st.warning(
            f"This pair is too large for the exact parse (more than {MAX_CHART_CELLS:,} chart "
            f"cells after removing words that cannot link), so the parser approximated: "
            f"{parse.approximation}."
        )
    else:
        st.caption(
            f"Exact Viterbi parse over {parse.parsed_size[0]} text and {parse.parsed_size[1]} "
            "hypothesis words that have a link candidate; the others are attached as "
            "unaligned words. Blue squares are straight nodes [ ] (same order on both sides), "
            "orange diamonds with dashed edges are inverted nodes ⟨ ⟩ (the hypothesis "
            "reverses the order)."
        )

    nodes = internal_nodes(parse.tree)
    selected = None
    chosen = state.itg_node(key, variant)
    if nodes:
        if (chosen.get() or 0) >= len(nodes):  # a different pair was loaded
            chosen.pop()
        default = next((k for k, n in enumerate(nodes) if n.kind is NodeKind.INVERTED), 0)
        index = st.selectbox(
            "Node to outline in the alignment grid (or click a node in the tree)",
            range(len(nodes)), index=default, key=chosen.key,
            format_func=lambda k: node_label(nodes[k], text.tokens, hyp.tokens),
        )
        selected = nodes[int(index)]

    n_leaves = len(parse.tree.leaves())
    if n_leaves <= MAX_DRAWN_LEAVES:
        charts.plotly_chart(
            tree_figure(parse.tree, text.tokens, hyp.tokens, highlight=selected),
            key=f"{key}_tree", on_select=_select_clicked_node(parse.tree, nodes, f"{key}_tree", chosen),
            selection_mode="points",
        )
    else:
        st.info(f"The tree has {n_leaves} leaves, too many to draw legibly; in bracket notation:")
        st.code(parse.tree.bracketed(text.tokens, hyp.tokens), language=None)

    gold = fitting_gold(pair.pair, len(text), len(hyp))
    st.markdown("**ITG alignment**" + (" against the gold alignment" if gold else "")
                + " — the selected node's block is outlined")
    charts.grid_chart(
        lambda: alignment_figure(parse, text.tokens, hyp.tokens, node=selected, gold=gold),
        len(text), len(hyp), links=parse.alignment, key=f"{key}_alignment",
    )
