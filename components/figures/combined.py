"""Figures for the combined classifier (pure Plotly, no Streamlit).

:func:`push_bars` shows why the classifier decided as it did: one bar per feature, its
term ``weight * (value - mean) / scale`` in the logit (green towards entailment, red
against), largest first; the intercept and the terms add up to the decision.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.combined import Contribution


def push_bars(contributions: Sequence[Contribution], intercept: float, *, top: int = 12) -> go.Figure:
    """Horizontal bars of the ``top`` largest pushes (the rest summed in one bar)."""
    shown = list(contributions[:top])
    rest = sum(c.contribution for c in contributions[top:])
    labels = [c.feature for c in shown] + (["other features"] if len(contributions) > top else []) + ["intercept"]
    values = [c.contribution for c in shown] + ([rest] if len(contributions) > top else []) + [intercept]
    hover = [f"<b>{c.feature}</b><br>value {c.value:.4g}<br>push {c.contribution:+.3f}" for c in shown]
    hover += ([f"{len(contributions) - top} more features<br>push {rest:+.3f}"] if len(contributions) > top else [])
    hover += [f"intercept {intercept:+.3f}"]
    colours = ["#2e7d32" if v > 0 else "#c62828" for v in values[:-1]] + ["#9e9e9e"]
    total = intercept + sum(c.contribution for c in contributions)
    figure = go.Figure(go.Bar(
        x=values, y=labels, orientation="h", marker={"color": colours},
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
    ))
    figure.update_layout(
        title=f"What pushed the decision (logit {total:+.3f}: {'entails' if total > 0 else 'does not entail'})",
        xaxis_title="push on the logit (+ towards entailment)",
        yaxis={"autorange": "reversed"}, height=120 + 26 * len(labels), margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return figure
