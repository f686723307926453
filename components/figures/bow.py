"""Figures for the bag-of-words aligner (pure Plotly, no Streamlit).

:func:`bow_contributions` shows why the bag-of-words score is what it is: one bar per
hypothesis token, its term ``idf(h) * log sim(h) / |H|`` (the bars sum to the score),
with the text token it matched, the similarity and the idf in the hover.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.aligners.bow import BowResult


def bow_contributions(result: BowResult, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str]) -> go.Figure:
    """Horizontal bars: each hypothesis token's contribution to the score.

    Raises:
        ValueError: if the result does not cover ``hypothesis_tokens``.
    """
    if len(result.similarity) != len(hypothesis_tokens):
        raise ValueError(
            f"result covers {len(result.similarity)} hypothesis tokens but {len(hypothesis_tokens)} were given"
        )
    contributions = result.contributions
    labels = [f"{h}: {token}" for h, token in enumerate(hypothesis_tokens)]
    hover = []
    for h, token in enumerate(hypothesis_tokens):
        p = result.best_text[h]
        match = f"text[{p}] <b>{text_tokens[p]}</b>" if p >= 0 else "no text token (left unaligned)"
        hover.append(
            f"<b>{token}</b> → {match}<br>similarity {result.similarity[h]:.3f} · idf {result.weights[h]:.2f}"
            f"<br>contribution {contributions[h]:+.3f}"
        )
    colours = ["#2e7d32" if s >= 0.999 else "#f9a825" if s >= 0.5 else "#c62828" for s in result.similarity]
    figure = go.Figure(go.Bar(
        x=list(contributions), y=labels, orientation="h", marker={"color": colours},
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
    ))
    figure.update_layout(
        title=f"Score {result.value:+.3f} = sum of the bars (0 is best)",
        height=max(200, 80 + 24 * len(hypothesis_tokens)),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        xaxis_title="idf(h) · log sim(h) / |H|",
    )
    figure.update_yaxes(autorange="reversed")
    return figure
