"""The Pair page's n-gram match grid (pure Plotly): hypothesis tokens as rows, text
tokens as columns, cells on longer matched n-grams darker."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.metrics.bleu import NgramMatch

#: Grid cell colours: no match, then the longest matched n-gram order 1..4+.
_GRID_COLOURS = ("#f4f4f4", "#9ecae1", "#4292c6", "#2171b5", "#08306b")


def match_matrix(
    matches: Sequence[NgramMatch], h_len: int, p_len: int
) -> np.ndarray:
    """An ``h_len x p_len`` matrix: for each (hypothesis token, text token) cell, the
    longest matched n-gram that runs through it (0 when the tokens do not match)."""
    grid = np.zeros((h_len, p_len), dtype=int)
    for match in matches:
        for p_start in match.p_starts:
            for k in range(match.n):
                h, p = match.h_start + k, p_start + k
                if h < h_len and p < p_len and grid[h, p] < match.n:
                    grid[h, p] = match.n
    return grid


def ngram_grid(
    matches: Sequence[NgramMatch],
    text_tokens: Sequence[str],
    hypothesis_tokens: Sequence[str],
    *,
    title: str = "",
) -> go.Figure:
    """The n-gram match grid: hypothesis tokens as rows, text tokens as columns.

    A cell is coloured when the two tokens match (as unigrams); cells on a longer matched
    n-gram are darker, so a matched bigram, trigram or 4-gram shows as a diagonal run.
    """
    h_len, p_len = len(hypothesis_tokens), len(text_tokens)
    grid = match_matrix(matches, h_len, p_len)
    top = len(_GRID_COLOURS) - 1
    # Token labels must be unique for categorical axes; prefix the position.
    x = [f"{j}:{t}" for j, t in enumerate(text_tokens)]
    y = [f"{i}:{t}" for i, t in enumerate(hypothesis_tokens)]
    hover = [
        [
            f"hypothesis {i}: {h}<br>text {j}: {p}<br>"
            + (f"longest matched n-gram: {grid[i, j]}" if grid[i, j] else "no match")
            for j, p in enumerate(text_tokens)
        ]
        for i, h in enumerate(hypothesis_tokens)
    ]
    # Discrete colour scale: value k (0..top) gets its own band.
    scale: list[list[float | str]] = []
    for k, c in enumerate(_GRID_COLOURS):
        scale.append([k / (top + 1), c])
        scale.append([(k + 1) / (top + 1), c])
    fig = go.Figure(
        go.Heatmap(
            z=np.minimum(grid, top),
            x=x,
            y=y,
            zmin=-0.5,
            zmax=top + 0.5,
            colorscale=scale,
            text=hover,
            hoverinfo="text",
            xgap=1,
            ygap=1,
            colorbar={
                "title": {"text": "matched n-gram"},
                "tickvals": list(range(top + 1)),
                "ticktext": ["none", "1", "2", "3", "4+"][: top + 1],
            },
        )
    )
    fig.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "text"}, "side": "top", "tickangle": -60, "type": "category"},
        yaxis={"title": {"text": "hypothesis"}, "autorange": "reversed", "type": "category"},
        height=max(260, 28 * h_len + 200),
        margin={"l": 10, "r": 10, "t": 120, "b": 10},
    )
    return fig
