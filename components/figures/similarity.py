"""The word-similarity heatmap under an aligner's links (pure Plotly, no Streamlit).

Rows are hypothesis tokens and columns text tokens, as in the alignment grid
(:mod:`components.figures.alignment`). Each cell's colour is the similarity the aligner
reads (darker = more similar); the aligner's links are drawn on top as open squares and
the gold SURE links, when given, as dots, so a student sees which similar cells became
links and which did not. Hovering a cell names both tokens, the similarity, the component
it came from (WordNet, PPDB, embedding, spelling, ...) and whether the cell is linked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from components.figures import svg_plain
from components.figures.alignment import check_grid_size, token_grid_layout
from explorer.alignment import Alignment

LINK_COLOUR = "#c62828"
GOLD_COLOUR = "#212121"


def _check_shapes(
    matrix: np.ndarray, sources: Sequence[Sequence[str]], p_len: int, h_len: int, *,
    links: Alignment | None, gold: Alignment | None,
) -> None:
    """Raise ValueError unless the matrix, the sources and both alignments cover
    ``p_len`` x ``h_len`` tokens."""
    if matrix.shape != (p_len, h_len):
        raise ValueError(f"a {matrix.shape} similarity matrix for {p_len} text and {h_len} hypothesis tokens")
    if len(sources) != p_len or any(len(row) != h_len for row in sources):
        raise ValueError("the sources must have one name per cell of the matrix")
    for name, alignment in (("links", links), ("gold", gold)):
        if alignment is not None and (alignment.p_len, alignment.h_len) != (p_len, h_len):
            raise ValueError(f"the {name} cover {alignment.p_len} x {alignment.h_len} tokens, not {p_len} x {h_len}")


def similarity_heatmap(
    values: np.ndarray,
    sources: Sequence[Sequence[str]],
    text_tokens: Sequence[str],
    hypothesis_tokens: Sequence[str],
    *,
    links: Alignment | None = None,
    gold: Alignment | None = None,
    title: str = "",
) -> go.Figure:
    """A hypothesis x text heatmap of ``values`` (text rows x hypothesis columns, as the
    library returns them), with ``sources`` (display names, same shape) on hover and the
    predicted ``links`` and ``gold`` SURE links drawn on top.

    Raises:
        ValueError: when the shapes of the matrix, the sources, the tokens and the
            alignments disagree, or the grid is past :data:`components.figures.alignment.MAX_GRID_CELLS`.
    """
    p_len, h_len = len(text_tokens), len(hypothesis_tokens)
    check_grid_size(p_len, h_len)
    matrix = np.asarray(values, dtype=float)
    _check_shapes(matrix, sources, p_len, h_len, links=links, gold=gold)
    text_tokens = [svg_plain(t) for t in text_tokens]  # for the axes and the hover: shown as given
    hypothesis_tokens = [svg_plain(t) for t in hypothesis_tokens]
    linked = links.links if links is not None else frozenset()
    sure = gold.sure if gold is not None else frozenset()
    hover = [
        [
            f"text[{i}] <b>{text_tokens[i]}</b> · hypothesis[{j}] "
            f"<b>{hypothesis_tokens[j]}</b><br>"
            f"similarity {matrix[i, j]:.3f} · from: {sources[i][j]}"
            + ("<br>linked" if (i, j) in linked else "")
            + ("<br>gold SURE link" if (i, j) in sure else "")
            for i in range(p_len)
        ]
        for j in range(h_len)
    ]
    low = min(0.0, float(matrix.min())) if matrix.size else 0.0
    figure = go.Figure(go.Heatmap(
        z=matrix.T.tolist(), customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        zmin=low, zmax=1.0, colorscale="Blues", xgap=1, ygap=1,
        colorbar={"title": {"text": "similarity"}, "thickness": 12},
    ))
    for cells, name, marker in (
        (sorted(linked), "link (this aligner)", {"symbol": "square-open", "size": 18, "color": LINK_COLOUR,
                                                  "line": {"width": 2}}),
        (sorted(sure), "gold SURE link", {"symbol": "circle", "size": 7, "color": GOLD_COLOUR}),
    ):
        if not cells:
            continue
        figure.add_trace(go.Scatter(
            x=[i for i, _ in cells], y=[j for _, j in cells], mode="markers", name=name, marker=marker,
            hoverinfo="skip",
        ))
    token_grid_layout(figure, text_tokens, hypothesis_tokens, title=title)
    return figure
