"""The Evaluate page's charts (pure Plotly): accuracy-vs-cutoff curves as in Szymanski's
figures 1-4, score histograms by gold label, per-task accuracy, graded-score scatter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

Floats = Sequence[float] | np.ndarray
Bools = Sequence[bool] | np.ndarray

#: Qualitative colours, one per scorer, stable by position.
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
)


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


#: How accuracy curves of several scorers share the cutoff axis.
AXES = ("shared", "separate", "normalised")
#: Scorers whose score ranges differ more than this factor are on "mixed scales".
MIXED_SCALE_RATIO = 4.0


def mixed_scales(curves: Mapping[str, tuple[Floats, Floats]]) -> bool:
    """Whether the scorers' cutoff ranges are too different to share one axis (NIST runs to
    about 10, the BLEU family to 1, bag-of-words is a negative log score): one curve
    would squash the others into a sliver."""
    spans = []
    lows, highs = [], []
    for xs, _ in curves.values():
        x = np.asarray(xs, dtype=float)
        x = x[np.isfinite(x)]
        if x.size < 2:
            continue
        lows.append(float(x.min()))
        highs.append(float(x.max()))
        spans.append(float(x.max() - x.min()))
    if len(spans) < 2:
        return False
    union = max(highs) - min(lows)
    return union > MIXED_SCALE_RATIO * max(min(spans), 1e-12)


def share_below(cutoffs: Floats, scores: Floats) -> np.ndarray:
    """For each cutoff, the share of pairs whose score is at or below it (judged "does not
    entail"): a scale every scorer shares, from 0 to 1."""
    s = np.sort(np.asarray(scores, dtype=float))
    if s.size == 0:
        raise ValueError("no scores to normalise by")
    return np.searchsorted(s, np.asarray(cutoffs, dtype=float), side="right") / s.size


def accuracy_curves(
    curves: Mapping[str, tuple[Floats, Floats]],
    cutoffs: Mapping[str, float],
    *,
    title: str = "",
    axes: str = "shared",
    scores: Mapping[str, Floats] | None = None,
) -> go.Figure:
    """Accuracy against cutoff, one step line per scorer, with each scorer's chosen cutoff
    as a dotted vertical line in the same colour.

    Args:
        curves: scorer label -> (cutoffs ascending, accuracy at each), as from
            :func:`explorer.decision.measures.sweep`. Accuracy holds from one distinct score up
            to the next, hence the step shape.
        cutoffs: scorer label -> the chosen cutoff.
        axes: "shared" (one cutoff axis), "separate" (one panel per scorer, each on its
            own scale) or "normalised" (x is the share of pairs at or below the cutoff,
            which needs ``scores``: label -> the dataset's scores).
    """
    if axes not in AXES:
        raise ValueError(f"axes={axes!r}: choose one of {', '.join(AXES)}")
    if axes == "normalised" and (scores is None or any(label not in scores for label in curves)):
        raise ValueError("normalised axes need every scorer's scores")
    labels = list(curves)
    separate = axes == "separate" and len(labels) > 1
    fig = make_subplots(rows=len(labels), cols=1, shared_xaxes=False, vertical_spacing=0.3 / len(labels),
                        subplot_titles=labels) if separate else go.Figure()
    for index, label in enumerate(labels):
        xs, ys = curves[label]
        cut = cutoffs.get(label)
        if axes == "normalised" and scores is not None:
            xs = share_below(xs, scores[label])
            cut = None if cut is None else float(share_below([cut], scores[label])[0])
        # The cutoff goes in the legend: close cutoffs would make line labels collide.
        name = f"{label} (cutoff {cutoffs[label]:.3f})" if label in cutoffs else label
        where = {"row": index + 1, "col": 1} if separate else {}
        x_hover = "share below %{x:.3f}" if axes == "normalised" else "cutoff %{x:.4f}"
        fig.add_trace(
            go.Scatter(
                x=list(xs), y=[100 * y for y in ys], mode="lines", name=name,
                line={"color": colour(index), "shape": "hv"},
                hovertemplate=x_hover + "<br>accuracy %{y:.2f}%<extra>" + label + "</extra>",
            ),
            **where,
        )
        if cut is not None:
            fig.add_vline(x=cut, line_dash="dot", line_color=colour(index), **where)
    x_title = ("share of pairs at or below the cutoff (judged 'does not entail')" if axes == "normalised"
               else "cutoff (score > cutoff means entails)")
    fig.update_layout(
        title={"text": title},
        legend={"orientation": "h", "y": -0.2 if not separate else -0.08},
        margin={"t": 60},
    )
    if separate:
        fig.update_layout(height=60 + 230 * len(labels))
        fig.update_yaxes(title_text="accuracy (%)")
        fig.update_xaxes(title_text=x_title, row=len(labels), col=1)
    else:
        fig.update_layout(xaxis={"title": {"text": x_title}}, yaxis={"title": {"text": "accuracy (%)"}})
    return fig


def score_histograms(
    scores: Mapping[str, Floats],
    gold: Bools,
    *,
    cutoffs: Mapping[str, float] | None = None,
    bins: int = 30,
) -> go.Figure:
    """One panel per scorer: overlaid histograms of the scores of entailing and
    non-entailing pairs, with the cutoff dotted."""
    names = list(scores)
    if not names:
        raise ValueError("no scores to draw")
    g = np.asarray(gold, dtype=bool)
    fig = make_subplots(rows=len(names), cols=1, subplot_titles=names, vertical_spacing=0.12 / max(1, len(names) - 1) + 0.05)
    for row, name in enumerate(names, start=1):
        s = np.asarray(scores[name], dtype=float)
        if s.shape != g.shape:
            raise ValueError(f"{name}: {s.size} scores for {g.size} gold labels")
        for value, label, c in ((True, "entails", "#2ca02c"), (False, "does not entail", "#d62728")):
            fig.add_trace(
                go.Histogram(
                    x=s[g == value], name=label, marker_color=c, opacity=0.6, nbinsx=bins,
                    legendgroup=label, showlegend=row == 1,
                ),
                row=row, col=1,
            )
        if cutoffs and name in cutoffs:
            fig.add_vline(x=cutoffs[name], line_dash="dot", line_color="black", row=row, col=1)
    fig.update_layout(barmode="overlay", height=220 * len(names) + 80, margin={"t": 40})
    fig.update_yaxes(title_text="pairs")
    return fig


def task_accuracy(
    by_task: Mapping[str, Mapping[str, float]], *, title: str = ""
) -> go.Figure:
    """Grouped bars: accuracy (%) per task, one bar group per task, one colour per scorer.

    Args:
        by_task: scorer label -> {task: accuracy in 0..1}.
    """
    fig = go.Figure()
    for index, (label, accuracies) in enumerate(by_task.items()):
        tasks = list(accuracies)
        fig.add_trace(
            go.Bar(
                x=tasks, y=[100 * accuracies[t] for t in tasks], name=label,
                marker_color=colour(index),
                hovertemplate="%{x}: %{y:.1f}%<extra>" + label + "</extra>",
            )
        )
    fig.add_hline(y=50, line_dash="dot", line_color="grey", annotation_text="chance")
    fig.update_layout(
        title={"text": title}, barmode="group",
        xaxis={"title": {"text": "task"}}, yaxis={"title": {"text": "accuracy (%)"}, "range": [0, 100]},
        margin={"t": 60},
    )
    return fig


def graded_scatter(
    scores: Mapping[str, Floats], gold: Floats, *, title: str = ""
) -> go.Figure:
    """Scorer value against the gold similarity score, one colour per scorer."""
    fig = go.Figure()
    y = list(gold)
    for index, (label, xs) in enumerate(scores.items()):
        if len(xs) != len(y):
            raise ValueError(f"{label}: {len(xs)} scores for {len(y)} gold scores")
        fig.add_trace(
            go.Scatter(
                x=list(xs), y=y, mode="markers", name=label, opacity=0.5,
                marker={"color": colour(index), "size": 5},
            )
        )
    fig.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "score"}}, yaxis={"title": {"text": "gold similarity"}},
    )
    return fig
