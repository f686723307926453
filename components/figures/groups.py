"""Figures for the Groups page: each slice's accuracy per method with its 95% interval (pure Plotly).

One row per slice, one marker per method, the interval as whiskers and the method's accuracy
on the whole set as a dotted line of its colour: a slice whose whiskers miss that line is a
group on which the method really does better or worse. Such markers are filled, the others
hollow, so the eye finds the real differences first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from components.figures import svg_plain

#: One colour per method, in the order the methods are chosen (wraps after eight).
PALETTE = ("#2f80ed", "#f2994a", "#27ae60", "#9b51e0", "#d64545", "#219ebc", "#8d6e63", "#555555")

#: Vertical room per slice row, in pixels, and the figure's height bounds.
ROW_PX = 34
MIN_HEIGHT, MAX_HEIGHT = 260, 1400


@dataclass(frozen=True)
class SliceMark:
    """One method's accuracy on one slice.

    Attributes:
        slice: the slice's name (a row of the figure).
        scorer: the method's label.
        n: pairs of the slice the accuracy counts (labelled, scored).
        accuracy: correct / n; None when n is 0.
        ci_low, ci_high: the 95% interval of ``accuracy``.
        whole: the method's accuracy on the whole set.
        significant: ``whole`` lies outside the interval.
    """

    slice: str
    scorer: str
    n: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None
    whole: float | None
    significant: bool


def slice_accuracy_figure(marks: Sequence[SliceMark], *, title: str = "", interval: str = "Wilson") -> go.Figure:
    """Each slice's accuracy per method with whiskers, the whole-set accuracy as a dotted line.

    Args:
        marks: one per (slice, method); slices are drawn top to bottom in their first
            appearance's order, methods side by side within a row.
        title: the figure's title (plain text).
        interval: the interval's name for the hover text.
    """
    slices = list(dict.fromkeys(m.slice for m in marks))
    scorers = list(dict.fromkeys(m.scorer for m in marks))
    colour = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(scorers)}
    # Methods side by side inside a slice's row: offsets in row units, centred on the row.
    step = 0.7 / max(1, len(scorers))
    offset = {s: ((len(scorers) - 1) / 2 - i) * step for i, s in enumerate(scorers)}  # the first on top
    row = {name: len(slices) - 1 - i for i, name in enumerate(slices)}  # first slice on top
    figure = go.Figure()
    for scorer in scorers:
        _add_scorer(figure, [m for m in marks if m.scorer == scorer and m.accuracy is not None],
                    row, offset[scorer], colour[scorer], interval)
        whole = next((m.whole for m in marks if m.scorer == scorer and m.whole is not None), None)
        if whole is not None:
            figure.add_vline(x=whole, line_dash="dot", line_color=colour[scorer], line_width=1.5)
    figure.update_layout(
        title=svg_plain(title) if title else None,
        xaxis={"title": "accuracy (dotted: the whole set)", "range": [-0.02, 1.02], "tickformat": ".0%"},
        yaxis={"tickvals": [row[s] for s in slices], "ticktext": [svg_plain(s) for s in slices],
               "range": [-0.6, len(slices) - 0.4], "automargin": True},
        height=max(MIN_HEIGHT, min(MAX_HEIGHT, 120 + ROW_PX * len(slices) * max(1, len(scorers)) // 2)),
        legend={"orientation": "h", "y": -0.12}, margin={"l": 10, "r": 20, "t": 40 if title else 20, "b": 40},
        hovermode="closest",
    )
    return figure


def _add_scorer(figure: go.Figure, marks: Sequence[SliceMark], row: dict[str, int], offset: float,
                colour: str, interval: str) -> None:
    """One method's markers: filled where the slice differs from the whole set, hollow elsewhere."""
    for significant in (True, False):
        chosen = [m for m in marks if m.significant == significant]
        if not chosen:
            continue
        accuracy = [float(m.accuracy or 0.0) for m in chosen]
        figure.add_trace(go.Scatter(
            x=accuracy, y=[row[m.slice] + offset for m in chosen], mode="markers",
            name=svg_plain(chosen[0].scorer), legendgroup=chosen[0].scorer, showlegend=significant or not any(
                m.significant for m in marks),
            marker={"color": colour if significant else "white", "size": 10, "symbol": "circle",
                    "line": {"color": colour, "width": 2}},
            error_x={"type": "data", "symmetric": False, "color": colour, "thickness": 1.5, "width": 4,
                     "array": [float(m.ci_high or 0.0) - a for m, a in zip(chosen, accuracy, strict=True)],
                     "arrayminus": [a - float(m.ci_low or 0.0) for m, a in zip(chosen, accuracy, strict=True)]},
            text=[_hover(m, interval) for m in chosen], hovertemplate="%{text}<extra></extra>",
        ))


def _hover(mark: SliceMark, interval: str) -> str:
    differs = "differs from the whole set" if mark.significant else "within the interval of the whole set"
    whole = "" if mark.whole is None else f"<br>whole set {mark.whole:.1%}"
    return (f"<b>{svg_plain(mark.slice)}</b> · {svg_plain(mark.scorer)}<br>accuracy {float(mark.accuracy or 0):.1%} "
            f"of {mark.n} pairs<br>95% {interval} [{float(mark.ci_low or 0):.1%}, {float(mark.ci_high or 0):.1%}]"
            f"{whole}<br>{differs}")


def flip_figure(scorers: Sequence[str], flipped: Sequence[int], total: int, *, rule: str) -> go.Figure:
    """Verdicts a rewrite rule flipped, per method, as bars out of the pairs rewritten."""
    if len(scorers) != len(flipped):
        raise ValueError("one flipped count per method")
    share = [f / total if total else 0.0 for f in flipped]
    figure = go.Figure(go.Bar(
        x=list(share), y=[svg_plain(s) for s in scorers], orientation="h",
        marker_color=[PALETTE[i % len(PALETTE)] for i in range(len(scorers))],
        text=[f"{f} of {total}" for f in flipped], textposition="auto",
        hovertemplate="%{y}: %{text} verdicts flipped<extra></extra>",
    ))
    figure.update_layout(
        title=f"Verdicts flipped by {svg_plain(rule)}", xaxis={"range": [0, 1], "tickformat": ".0%"},
        height=max(MIN_HEIGHT // 2, 60 + 34 * len(scorers)), margin={"l": 10, "r": 20, "t": 40, "b": 30},
        yaxis={"automargin": True},
    )
    return figure
