"""Figures for batch results (pure Plotly): histograms from pre-binned counts, so a
500k-pair result sends a few hundred bars to the browser, not 500k values."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

#: Gold group -> colour, as the dataset-size histograms colour them.
GROUP_COLOURS = {"entailment": "#2ca02c", "not entailment": "#d62728", "unlabelled": "#6c757d"}


def binned_histograms(
    histograms: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]],
    *,
    cutoffs: Mapping[str, float] | None = None,
) -> go.Figure:
    """One panel per scorer: overlaid bars of pair counts per score bin, one trace per
    gold group, the cutoff dotted.

    Args:
        histograms: scorer label -> {group: (bin edges, counts)}, with ``len(edges) ==
            len(counts) + 1`` (as :meth:`explorer.batch.query.BatchResult.histogram`).
    """
    names = list(histograms)
    if not names:
        raise ValueError("no histograms to draw")
    fig = make_subplots(rows=len(names), cols=1, subplot_titles=names,
                        vertical_spacing=0.12 / max(1, len(names) - 1) + 0.05)
    shown: set[str] = set()
    for row, name in enumerate(names, start=1):
        for group, (edges, counts) in histograms[name].items():
            edges = np.asarray(edges, dtype=float)
            counts = np.asarray(counts)
            if edges.size != counts.size + 1:
                raise ValueError(f"{name}/{group}: {edges.size} edges for {counts.size} counts")
            fig.add_trace(
                go.Bar(
                    x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges), name=group,
                    marker_color=GROUP_COLOURS.get(group, "#333333"), opacity=0.6,
                    legendgroup=group, showlegend=group not in shown,
                    hovertemplate="%{x:.4f}: %{y} pairs<extra>" + group + "</extra>",
                ),
                row=row, col=1,
            )
            shown.add(group)
        if cutoffs and name in cutoffs:
            fig.add_vline(x=cutoffs[name], line_dash="dot", line_color="black", row=row, col=1)
    fig.update_layout(barmode="overlay", bargap=0, height=220 * len(names) + 80, margin={"t": 40})
    fig.update_yaxes(title_text="pairs")
    return fig
