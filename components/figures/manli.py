"""MANLI's breakdown as data and figures (pure: pandas and Plotly, no Streamlit).

An alignment's score is the sum of its edits' scores, and each edit's score is the sum
of its features' contributions (weight x value). :func:`edit_rows` lists the edits with
those numbers, :func:`contribution_figure` draws them as bars that add up to the total.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.alignment import Edit, EditKind

KIND_COLOUR = {
    EditKind.EQ: "#2e7d32",
    EditKind.SUB: "#1565c0",
    EditKind.DEL: "#8d6e63",
    EditKind.INS: "#ef6c00",
}


def _span(tokens: Sequence[str], span: tuple[int, int] | None) -> str:
    return "" if span is None else " ".join(tokens[span[0] : span[1]])


def edit_label(edit: Edit, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str]) -> str:
    """``SUB very few -> poorly represented``, ``DEL most``, ``INS Women``."""
    p, h = _span(text_tokens, edit.p_span), _span(hypothesis_tokens, edit.h_span)
    if edit.kind is EditKind.DEL:
        return f"DEL {p}"
    if edit.kind is EditKind.INS:
        return f"INS {h}"
    return f"{edit.kind.value} {p} \u2192 {h}"


def top_contributions(edit: Edit, weights: dict[str, float], n: int = 3) -> str:
    """The ``n`` features that move the edit's score most, as ``name +0.12`` text."""
    parts = sorted(((name, weights.get(name, 0.0) * value) for name, value in edit.features), key=lambda x: -abs(x[1]))
    return ", ".join(f"{name} {value:+.3f}" for name, value in parts[:n] if value)


def edit_rows(
    edits: Sequence[Edit], text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], weights: dict[str, float],
) -> list[dict[str, object]]:
    """One row per edit: kind, phrases, score and its main feature contributions;
    aligned edits first (in hypothesis order), then DEL and INS."""
    rank = {EditKind.EQ: 0, EditKind.SUB: 0, EditKind.DEL: 1, EditKind.INS: 2}

    def order(edit: Edit) -> tuple[int, int, int]:
        return (rank[edit.kind], (edit.h_span or (0, 0))[0], (edit.p_span or (0, 0))[0])

    return [
        {
            "edit": edit.kind.value,
            "text": _span(text_tokens, edit.p_span),
            "hypothesis": _span(hypothesis_tokens, edit.h_span),
            "score": round(edit.score, 4),
            "main features": top_contributions(edit, weights),
        }
        for edit in sorted(edits, key=order)
    ]


def contribution_figure(
    edits: Sequence[Edit], text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], *, title: str = "",
) -> go.Figure:
    """A waterfall of the edits' scores: the bars add up to the alignment's total."""
    rank = {EditKind.EQ: 0, EditKind.SUB: 0, EditKind.DEL: 1, EditKind.INS: 2}
    ordered = sorted(edits, key=lambda e: (rank[e.kind], (e.h_span or (0, 0))[0], (e.p_span or (0, 0))[0]))
    labels = [edit_label(e, text_tokens, hypothesis_tokens) for e in ordered]
    # Plotly joins identical category labels; number repeated ones.
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    total = sum(e.score for e in ordered)
    figure = go.Figure(go.Waterfall(
        x=[*unique, "total"],
        y=[e.score for e in ordered] + [total],
        measure=["relative"] * len(ordered) + ["total"],
        text=[f"{e.score:+.3f}" for e in ordered] + [f"{total:+.3f}"],
        textposition="outside",
        increasing={"marker": {"color": KIND_COLOUR[EditKind.EQ]}},
        decreasing={"marker": {"color": KIND_COLOUR[EditKind.INS]}},
        totals={"marker": {"color": "#424242"}},
        hovertemplate="%{x}: %{y:+.4f}<extra></extra>",
    ))
    figure.update_layout(
        title=title or None, showlegend=False, height=360,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        yaxis_title="score",
    )
    figure.update_xaxes(tickangle=-50)
    return figure
