"""The alignment grid every aligner shares (pure Plotly, no Streamlit).

Hypothesis tokens are the rows (read top to bottom), text tokens the columns. A cell is
coloured by what the predicted alignment says about that token pair, and, when a gold
alignment is given, by how the prediction compares with it. Phrase edits are outlined
as blocks so a multi-word SUB reads as one unit. Hovering a cell names both tokens, the
edit that covers it, the edit's score and the features behind that score.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any

import plotly.graph_objects as go

from components.figures import svg_plain
from explorer.alignment import Alignment, Edit, EditKind, Link


class Cell(IntEnum):
    """What one grid cell shows; the value indexes :data:`CELL_STYLE`."""

    EMPTY = 0
    EQ = 1
    SUB = 2
    LINK = 3  # a link with no phrase edit behind it (gold or link-only aligners)
    CORRECT = 4  # predicted and SURE in gold
    POSSIBLE_HIT = 5  # predicted and POSSIBLE in gold
    SPURIOUS = 6  # predicted, not in gold
    MISSED = 7  # SURE in gold, not predicted
    GOLD_POSSIBLE = 8  # POSSIBLE in gold, not predicted


CELL_STYLE: dict[Cell, tuple[str, str]] = {
    Cell.EMPTY: ("", "#ffffff"),
    Cell.EQ: ("EQ (equal)", "#2e7d32"),
    Cell.SUB: ("SUB (substitute)", "#1565c0"),
    Cell.LINK: ("link", "#546e7a"),
    Cell.CORRECT: ("correct (gold SURE)", "#2e7d32"),
    Cell.POSSIBLE_HIT: ("correct (gold POSSIBLE)", "#81c784"),
    Cell.SPURIOUS: ("spurious (not in gold)", "#c62828"),
    Cell.MISSED: ("missed (gold SURE)", "#f9a825"),
    Cell.GOLD_POSSIBLE: ("gold POSSIBLE, not predicted", "#fff3c4"),
}


def _discrete_colorscale() -> list[tuple[float, str]]:
    """A colourscale that maps each integer code of :class:`Cell` to its colour."""
    n = len(Cell)
    scale: list[tuple[float, str]] = []
    for cell in Cell:
        colour = CELL_STYLE[cell][1]
        scale.append((cell / n, colour))
        scale.append(((cell + 1) / n, colour))
    return scale


def _edit_of_link(alignment: Alignment) -> dict[tuple[int, int], Edit]:
    covering: dict[tuple[int, int], Edit] = {}
    for edit in alignment.edits or ():
        for link in edit.links():
            covering[link] = edit
    return covering


def _cell(link: tuple[int, int], predicted: Alignment, gold: Alignment | None,
          edit: Edit | None) -> Cell:
    in_pred = link in predicted.links
    if gold is None:
        if not in_pred:
            return Cell.EMPTY
        if edit is None:
            return Cell.LINK
        return Cell.EQ if edit.kind is EditKind.EQ else Cell.SUB
    if in_pred:
        if link in gold.sure:
            return Cell.CORRECT
        return Cell.POSSIBLE_HIT if link in gold.possible else Cell.SPURIOUS
    if link in gold.sure:
        return Cell.MISSED
    return Cell.GOLD_POSSIBLE if link in gold.possible else Cell.EMPTY


def _span_text(tokens: Sequence[str], span: tuple[int, int] | None) -> str:
    return "—" if span is None else " ".join(tokens[span[0]:span[1]])


def _hover(p: int, h: int, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str],
           cell: Cell, edit: Edit | None) -> str:
    lines = [
        f"text[{p}] <b>{text_tokens[p]}</b> · hypothesis[{h}] <b>{hypothesis_tokens[h]}</b>",
        CELL_STYLE[cell][0] or "not aligned",
    ]
    if edit is not None:
        lines.append(
            f"{edit.kind.value}: “{_span_text(text_tokens, edit.p_span)}” → "
            f"“{_span_text(hypothesis_tokens, edit.h_span)}”, score {edit.score:+.3f}"
        )
        lines += [f"  {name} = {value:.3g}" for name, value in edit.features if value]
    return "<br>".join(lines)


#: Cells past which a hypothesis x text grid is not drawn (:func:`components.charts.grid_chart`).
#: A grid is built cell by cell in the server's interpreter: 20,000 cells (400 x 50 tokens)
#: take about 0.15 s and 3 MB to send; a 1,999 x 50 pair's grid about 1 s and 13 MB, for each
#: of the Pair page's grids, while every other session of that Streamlit process waits
#: (docs/BENCHMARKS.md, "A class on one server"). Past a few hundred columns no cell is
#: legible anyway.
MAX_GRID_CELLS = 20_000


def check_grid_size(p_len: int, h_len: int) -> None:
    """Refuse a grid past :data:`MAX_GRID_CELLS` before building any of it.

    Raises:
        ValueError: naming the cells, the tokens and the limit.
    """
    if p_len * h_len > MAX_GRID_CELLS:
        raise ValueError(f"a grid of {p_len * h_len:,} cells ({p_len:,} text x {h_len:,} hypothesis tokens) is "
                         f"past the {MAX_GRID_CELLS:,} cells drawn")


def alignment_grid(
    alignment: Alignment,
    text_tokens: Sequence[str],
    hypothesis_tokens: Sequence[str],
    *,
    gold: Alignment | None = None,
    title: str = "",
) -> go.Figure:
    """Draw ``alignment`` as a hypothesis x text grid, against ``gold`` when given. Tokens
    are escaped: Plotly draws tags in tick and hover labels, and a file's tokens are
    whatever it says.

    Raises:
        ValueError: if the token lists do not match the alignment's lengths, or the grid
            is past :data:`MAX_GRID_CELLS`.
    """
    check_grid_size(alignment.p_len, alignment.h_len)
    text_tokens = [svg_plain(t) for t in text_tokens]
    hypothesis_tokens = [svg_plain(t) for t in hypothesis_tokens]
    if (len(text_tokens), len(hypothesis_tokens)) != (alignment.p_len, alignment.h_len):
        raise ValueError(
            f"alignment is {alignment.p_len} x {alignment.h_len} tokens but "
            f"{len(text_tokens)} text and {len(hypothesis_tokens)} hypothesis tokens were given"
        )
    if gold is not None and (gold.p_len, gold.h_len) != (alignment.p_len, alignment.h_len):
        raise ValueError("the gold alignment covers different tokens than the prediction")
    covering = _edit_of_link(alignment)
    z: list[list[int]] = []
    hover: list[list[str]] = []
    for h in range(alignment.h_len):
        z_row: list[int] = []
        hover_row: list[str] = []
        for p in range(alignment.p_len):
            edit = covering.get((p, h))
            cell = _cell((p, h), alignment, gold, edit)
            z_row.append(int(cell))
            hover_row.append(_hover(p, h, text_tokens, hypothesis_tokens, cell, edit))
        z.append(z_row)
        hover.append(hover_row)

    figure = go.Figure()
    figure.add_trace(go.Heatmap(
        z=z, customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        zmin=0, zmax=len(Cell), colorscale=_discrete_colorscale(), showscale=False,
        xgap=1, ygap=1,
    ))
    for edit in alignment.edits or ():
        if edit.p_span is None or edit.h_span is None:
            continue
        if edit.p_span[1] - edit.p_span[0] == 1 and edit.h_span[1] - edit.h_span[0] == 1:
            continue
        figure.add_shape(
            type="rect", x0=edit.p_span[0] - 0.5, x1=edit.p_span[1] - 0.5,
            y0=edit.h_span[0] - 0.5, y1=edit.h_span[1] - 0.5,
            line={"color": "#212121", "width": 2}, fillcolor="rgba(0,0,0,0)",
        )
    # A legend made of invisible markers, one per category that occurs in the grid.
    shown = sorted({Cell(v) for row in z for v in row} - {Cell.EMPTY})
    for cell in shown:
        name, colour = CELL_STYLE[cell]
        figure.add_trace(go.Scatter(
            x=[None], y=[None], mode="markers", name=name, showlegend=True,
            marker={"symbol": "square", "size": 12, "color": colour},
        ))
    token_grid_layout(figure, text_tokens, hypothesis_tokens, title=title, background="#eeeeee")
    return figure


def token_grid_layout(figure: go.Figure, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], *,
                      title: str = "", background: str = "#ffffff") -> None:
    """Lay out a hypothesis x text grid: one row per hypothesis token, text tokens written
    slanted above the columns, the legend under the grid (shared with the similarity heatmap)."""
    p_len, h_len = len(text_tokens), len(hypothesis_tokens)
    cell_px = 26
    # The text tokens are written at the top, slanted: leave them room above the grid, put
    # the title above them and the legend under the grid so nothing overlaps.
    longest = max((len(t) for t in text_tokens), default=1)
    labels_px = 20 + 6 * min(longest, 24)
    title_px = 36 if title else 0
    figure.update_layout(
        title={"text": title, "x": 0, "xref": "paper", "y": 1, "yref": "container",
               "yanchor": "top", "pad": {"t": 8}} if title else None,
        height=max(220, 90 + labels_px + title_px + cell_px * h_len),
        margin={"l": 10, "r": 10, "t": labels_px + title_px, "b": 50},
        plot_bgcolor=background,
        legend={"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0},
    )
    figure.update_xaxes(
        tickmode="array", tickvals=list(range(p_len)), ticktext=list(text_tokens),
        tickangle=-60, side="top", showgrid=False, zeroline=False,
        range=[-0.5, p_len - 0.5],
    )
    figure.update_yaxes(
        tickmode="array", tickvals=list(range(h_len)), ticktext=list(hypothesis_tokens),
        autorange="reversed", showgrid=False, zeroline=False,
    )


def cell_counts(figure: go.Figure) -> dict[Cell, int]:
    """How many cells of each category a grid built by :func:`alignment_grid` shows."""
    counts: dict[Cell, int] = {}
    heatmap = figure.data[0]
    for row in heatmap.z or ():
        for value in row:
            counts[Cell(value)] = counts.get(Cell(value), 0) + 1
    return counts


def clickable_grid(alignment: Alignment, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], *,
                   gold: Alignment | None) -> go.Figure:
    """The shared grid plus one near-transparent marker per cell, so a click on any cell
    (linked or not) is reported as a selected point at ``(text index, hypothesis index)``."""
    figure = alignment_grid(alignment, text_tokens, hypothesis_tokens, gold=gold)
    heatmap = figure.data[0]
    xs = [p for _ in range(alignment.h_len) for p in range(alignment.p_len)]
    ys = [h for h in range(alignment.h_len) for _ in range(alignment.p_len)]
    # Heatmaps cannot be selected: the markers take the clicks, and the hover text with
    # them (the heatmap would otherwise win the hover and swallow the click).
    hover = [heatmap.customdata[h][p] for h, p in zip(ys, xs, strict=True)] if heatmap.customdata is not None else None
    heatmap.update(hoverinfo="skip", hovertemplate=None)
    figure.add_trace(go.Scatter(
        x=xs, y=ys, mode="markers", showlegend=False, name="cells", customdata=hover,
        hovertemplate="%{customdata}<extra></extra>",
        marker={"symbol": "square", "size": 22, "color": "rgba(0,0,0,0.01)"},
    ))
    figure.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")
    return figure


def clicked_links(points: Sequence[dict[str, Any]], p_len: int, h_len: int) -> set[Link]:
    """Grid cells named by a Plotly selection event's points (others ignored)."""
    links: set[Link] = set()
    for point in points:
        x, y = point.get("x"), point.get("y")
        if isinstance(x, int | float) and isinstance(y, int | float):
            p, h = int(round(x)), int(round(y))
            if 0 <= p < p_len and 0 <= h < h_len:
                links.add((p, h))
    return links
