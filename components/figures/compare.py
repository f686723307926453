"""Figures for the Compare page: one run's scores against another's (pure Plotly)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from components.figures import svg_plain

BOTH_RIGHT = "both correct"
BOTH_WRONG = "both wrong"
ONLY_X = "only {x} correct"
ONLY_Y = "only {y} correct"
NO_GOLD = "no gold label"
COLOURS = {BOTH_RIGHT: "#9aa5b1", BOTH_WRONG: "#d64545", "x": "#2f80ed", "y": "#f2994a", NO_GOLD: "#6c757d"}


def agreement(x_correct: bool | None, y_correct: bool | None, *, x_name: str, y_name: str) -> str:
    """Which of the two runs got a pair right ("no gold label" when unknown)."""
    if x_correct is None or y_correct is None:
        return NO_GOLD
    if x_correct and y_correct:
        return BOTH_RIGHT
    if not x_correct and not y_correct:
        return BOTH_WRONG
    return ONLY_X.format(x=x_name) if x_correct else ONLY_Y.format(y=y_name)


def score_scatter(
    pair_ids: Sequence[str], x: Sequence[float], y: Sequence[float], groups: Sequence[str], *,
    x_name: str, y_name: str, x_cutoff: float | None = None, y_cutoff: float | None = None,
) -> go.Figure:
    """A scatter of ``y`` against ``x``, one trace per agreement group, the pair's position
    in ``pair_ids`` as each point's ``customdata`` (:func:`selected_ids` maps it back), its
    id in the hover as text (escaped: Plotly draws tags in hover labels), and the two
    cutoffs as lines (a pair's quadrant is the two decisions)."""
    if not (len(pair_ids) == len(x) == len(y) == len(groups)):
        raise ValueError("pair ids, both scores and groups must have the same length")
    figure = go.Figure()
    order = [BOTH_RIGHT, ONLY_X.format(x=x_name), ONLY_Y.format(y=y_name), BOTH_WRONG, NO_GOLD]
    for group in [g for g in order if g in set(groups)] + sorted(set(groups) - set(order)):
        index = [i for i, g in enumerate(groups) if g == group]
        colour = (COLOURS["x"] if group == order[1] else COLOURS["y"] if group == order[2]
                  else COLOURS.get(group, "#333333"))
        figure.add_trace(go.Scatter(
            x=[x[i] for i in index], y=[y[i] for i in index], mode="markers", name=group,
            customdata=index, text=[svg_plain(pair_ids[i]) for i in index],
            marker={"color": colour, "size": 7, "opacity": 0.8},
            hovertemplate=f"pair %{{text}}<br>{x_name} %{{x:.4f}}<br>{y_name} %{{y:.4f}}<extra>{group}</extra>",
        ))
    if x_cutoff is not None:
        figure.add_vline(x=x_cutoff, line_dash="dot", line_color="#555", annotation_text=f"{x_name} cutoff")
    if y_cutoff is not None:
        figure.add_hline(y=y_cutoff, line_dash="dot", line_color="#555", annotation_text=f"{y_name} cutoff")
    figure.update_layout(
        # Dragging zooms (double-click resets); a click selects a point, and the modebar's box
        # and lasso select many: a lasso by default caught every casual drag.
        xaxis_title=x_name, yaxis_title=y_name, dragmode="zoom", clickmode="event+select", height=520,
        legend={"orientation": "h", "y": -0.15}, margin={"l": 40, "r": 20, "t": 30, "b": 40},
    )
    return figure


def selected_ids(points: Sequence[dict[str, object]], pair_ids: Sequence[str]) -> list[str]:
    """The pair ids (from the ``pair_ids`` the scatter was drawn with) of the points a
    Streamlit Plotly selection event reports."""
    ids = []
    for point in points:
        data = point.get("customdata")
        if isinstance(data, list | tuple):
            data = data[0] if data else None
        if isinstance(data, int | float) and 0 <= int(data) < len(pair_ids):
            ids.append(pair_ids[int(data)])
    return list(dict.fromkeys(ids))
