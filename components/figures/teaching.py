"""Teaching mode's figures: one per step of a method's trace (pure Plotly, no Streamlit).

Each builder takes a trace from :mod:`explorer.teaching` and a step index and returns one
figure; ``large=True`` sets presentation-sized type. Words are HTML-escaped wherever they
reach a label (Plotly renders a few tags in text).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from components.figures.itg import tree_figure
from explorer.teaching.bleu import BleuTrace
from explorer.teaching.edit import EditTrace
from explorer.teaching.itg import RULE_MARK, ItgTrace
from explorer.teaching.manli import ManliTrace
from explorer.teaching.wer import WerTrace

GREEN, BLUE, ORANGE, RED, GREY = "#2e7d32", "#1565c0", "#ef6c00", "#c62828", "#90a4ae"


def font_size(large: bool) -> int:
    return 22 if large else 13


def _labels(tokens: Sequence[str]) -> list[str]:
    """Unique, escaped axis labels (a repeated word keeps its own column)."""
    return [f"{html.escape(t)}<sub>{k + 1}</sub>" for k, t in enumerate(tokens)]


def _finish(figure: go.Figure, *, large: bool, title: str, height: int = 520) -> go.Figure:
    # Column labels on top (tables, charts, lattices) need room between them and the title.
    top_axis = figure.layout.xaxis.side == "top"
    top = (60 if title else 20) + ((90 if large else 70) if top_axis else 0)
    figure.update_layout(
        title=title or None, font={"size": font_size(large)},
        height=int(height * (1.15 if large else 1.0)) + (top - 60 if top_axis else 0),
        margin={"l": 10, "r": 10, "t": top, "b": 10},
        plot_bgcolor="#ffffff", legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )
    return figure


# -- BLEU ------------------------------------------------------------------------------------

def bleu_figure(trace: BleuTrace, index: int, *, large: bool = False) -> go.Figure:
    """Match / clip steps: per distinct hypothesis n-gram, its count in the hypothesis and
    in the text and the count that scores. Later steps: the per-order precisions and the
    final score."""
    step = trace.steps[index]
    figure = go.Figure()
    if step.phase in ("match", "clip"):
        grams = [html.escape(" ".join(c.gram)) for c in step.counts]
        in_h = [c.in_hypothesis for c in step.counts]
        in_t = [c.in_text for c in step.counts]
        figure.add_bar(x=grams, y=in_h, name="in the hypothesis", marker_color=GREY)
        figure.add_bar(x=grams, y=in_t, name="in the text", marker_color=BLUE)
        if step.phase == "clip":
            figure.add_bar(x=grams, y=[c.clipped for c in step.counts], name="counted (clipped)",
                           marker_color=GREEN)
        figure.update_layout(barmode="group")
        figure.update_yaxes(title="count", dtick=1, rangemode="tozero")
        title = f"{step.n}-grams of the hypothesis" + (f": precision {step.value:.3f}" if step.phase == "clip" else "")
        if not grams:
            figure.add_annotation(text=f"no {step.n}-grams: the hypothesis is too short", showarrow=False,
                                  x=0.5, y=0.5, xref="paper", yref="paper")
        return _finish(figure, large=large, title=title)
    orders = step.orders
    figure.add_bar(x=[f"{o.n}-gram" for o in orders], y=[o.precision for o in orders], name="precision",
                   marker_color=GREEN, text=[f"{o.matched}/{o.total}" for o in orders], textposition="outside")
    if step.phase == "brevity":
        figure.add_hline(y=step.brevity_penalty, line_dash="dot", line_color=ORANGE,
                         annotation_text=f"brevity penalty {step.brevity_penalty:.3f}")
    else:
        figure.add_hline(y=step.value, line_color=RED, line_width=3, annotation_text=f"score {step.value:.3f}")
    figure.update_yaxes(range=[0, 1.15], title="precision")
    return _finish(figure, large=large, title="Per-order precisions" + (" and the score" if step.phase == "combine" else ""))


# -- WER -------------------------------------------------------------------------------------

def wer_figure(trace: WerTrace, index: int, *, large: bool = False) -> go.Figure:
    """The edit-distance table: rows filled so far, the backtrace path so far."""
    step = trace.steps[index]
    rows = [["∅", *_labels(trace.hypothesis)]]
    ylabels = ["∅", *_labels(trace.text)]
    xlabels = rows[0]
    z: list[list[float | None]] = [
        [float(v) if i < step.rows else None for v in row] for i, row in enumerate(trace.cost)
    ]
    text = [[str(v) if i < step.rows else "" for v in row] for i, row in enumerate(trace.cost)]
    figure = go.Figure(go.Heatmap(
        z=z, x=xlabels, y=ylabels, text=text, texttemplate="%{text}", colorscale="Blues", showscale=False,
        hovertemplate="text %{y} / hypothesis %{x}: %{z} edits<extra></extra>", xgap=1, ygap=1,
        textfont={"size": font_size(large)},
    ))
    if step.path:
        figure.add_trace(go.Scatter(
            x=[xlabels[j] for _, j in step.path], y=[ylabels[i] for i, _ in step.path],
            mode="lines+markers", line={"color": RED, "width": 4}, marker={"size": 14, "color": RED},
            name="backtrace", hoverinfo="skip",
        ))
    figure.update_yaxes(autorange="reversed", type="category", title="text")
    figure.update_xaxes(side="top", type="category", title="hypothesis")
    size = 34 * (len(trace.text) + 2) + 120
    return _finish(figure, large=large, title="", height=max(420, min(1000, size)))


# -- Bracketing ITG --------------------------------------------------------------------------

def itg_figure(trace: ItgTrace, index: int, *, large: bool = False) -> go.Figure:
    """The possible links, then for each text span its chart row (hypothesis span start x
    end, the best gain and the rule of each cell), then the tree."""
    step = trace.steps[index]
    if step.phase == "tree":
        if trace.parse.tree is None:
            return _finish(go.Figure(), large=large, title="empty parse")
        figure = tree_figure(trace.parse.tree, trace.text, trace.hypothesis)
        return figure.update_layout(font={"size": font_size(large)})
    if step.phase == "links":
        links = [[1.0 if trace.allowed[p, h] else 0.0 for p in range(len(trace.text))]
                 for h in range(len(trace.hypothesis))]
        figure = go.Figure(go.Heatmap(
            z=links, x=_labels(trace.text), y=_labels(trace.hypothesis), colorscale=[[0, "#f4f6f8"], [1, GREEN]],
            zmin=0, zmax=1,
            showscale=False, xgap=1, ygap=1, hovertemplate="%{y} · %{x}<extra></extra>",
        ))
        figure.update_yaxes(autorange="reversed", type="category", title="hypothesis")
        figure.update_xaxes(side="top", type="category", title="text")
        return _finish(figure, large=large, title="Which word pairs may link")
    h_kept = [trace.hypothesis[k] for k in trace.hypothesis_kept]
    n = len(h_kept)
    z: list[list[float | None]] = [[None] * n for _ in range(n)]
    marks = [[""] * n for _ in range(n)]
    for cell in step.cells:
        z[cell.u][cell.v - 1] = cell.gain
        marks[cell.u][cell.v - 1] = f"{cell.gain:.1f}<br>{html.escape(RULE_MARK[cell.rule])}" if cell.gain > 1e-4 else "0"
    labels = _labels(h_kept)
    figure = go.Figure(go.Heatmap(
        z=z, x=[f"to {lab}" for lab in labels], y=[f"from {lab}" for lab in labels], text=marks,
        texttemplate="%{text}", colorscale="Greens", showscale=False, xgap=2, ygap=2,
        hovertemplate="hypothesis %{y} %{x}: gain %{z:.2f}<extra></extra>", textfont={"size": font_size(large) - 2},
        zmin=0, zmax=max(float(trace.chart.max()), 1e-6) if trace.chart.size else 1,
    ))
    figure.update_yaxes(autorange="reversed", type="category")
    figure.update_xaxes(side="top", type="category")
    words = " ".join(html.escape(trace.text[k]) for k in trace.text_kept[step.i:step.j])
    return _finish(figure, large=large, title=f"Chart cells for text “{words}” ([ ] straight, < > inverted, ε null, x/y link)",
                   height=max(420, 40 * n + 160))


# -- MANLI -----------------------------------------------------------------------------------

def manli_figure(trace: ManliTrace, index: int, *, large: bool = False) -> go.Figure:
    """Left: the current alignment on the word grid. Right: the score per round so far and
    the temperature."""
    step = trace.steps[index]
    figure = make_subplots(rows=1, cols=2, column_widths=[0.5, 0.5], horizontal_spacing=0.12,
                           specs=[[{}, {"secondary_y": True}]],
                           subplot_titles=("current alignment", "score and temperature per round"))
    xl, yl = _labels(trace.text), _labels(trace.hypothesis)
    grid = [[0.0] * len(xl) for _ in yl]
    for p, h in step.links:
        grid[h][p] = 1.0
    figure.add_trace(go.Heatmap(z=grid, x=xl, y=yl, colorscale=[[0, "#f4f6f8"], [1, BLUE]], showscale=False,
                                zmin=0, zmax=1, xgap=1, ygap=1, hovertemplate="%{y} · %{x}<extra></extra>"),
                     row=1, col=1)
    shown = trace.steps[: index + 1]
    rounds = [s.round for s in shown]
    figure.add_trace(go.Scatter(x=rounds, y=[s.total for s in shown], mode="lines", name="score",
                                line={"color": GREEN, "width": 3}), row=1, col=2)
    figure.add_trace(go.Scatter(x=[step.round], y=[step.total], mode="markers", name="now",
                                marker={"color": RED, "size": 14}), row=1, col=2)
    figure.add_trace(go.Scatter(x=rounds, y=[s.temperature for s in shown], mode="lines", name="temperature",
                                line={"color": ORANGE, "dash": "dot"}), row=1, col=2, secondary_y=True)
    last = trace.steps[-1].round
    figure.update_xaxes(range=[0, max(last, 1)], title="round", row=1, col=2)
    figure.update_yaxes(autorange="reversed", type="category", row=1, col=1)
    figure.update_xaxes(type="category", tickangle=-45, row=1, col=1)
    figure.update_yaxes(title="alignment score", row=1, col=2, secondary_y=False)
    figure.update_yaxes(title="temperature", row=1, col=2, secondary_y=True, rangemode="tozero")
    _finish(figure, large=large, title="", height=580)
    return figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0.55})


# -- pFSM / pPDA -----------------------------------------------------------------------------

def _op_colour(step: Any) -> str:
    from components.figures.edit_sequence import STEP_COLOURS

    if step.step is None:
        return GREY
    key = step.step.op if step.step.op in ("DEL", "INS", "JUMP_F", "JUMP_B") else step.step.cls
    return STEP_COLOURS.get(key, BLUE)


def edit_figure(trace: EditTrace, index: int, *, large: bool = False) -> go.Figure:
    """The edit lattice: a point per (text position, hypothesis position); the Viterbi path
    so far, coloured by operation, jumps dashed, the current move thick."""
    n, m = len(trace.text), len(trace.hypothesis)
    figure = go.Figure()
    figure.add_trace(go.Scatter(
        x=[i for i in range(n + 1) for _ in range(m + 1)], y=[j for _ in range(n + 1) for j in range(m + 1)],
        mode="markers", marker={"color": "#cfd8dc", "size": 7}, hoverinfo="skip", showlegend=False,
    ))
    moves = [s for s in trace.steps[: index + 1] if s.phase in ("op", "return")]
    for k, s in enumerate(moves):
        jump = s.phase == "return" or (s.step is not None and s.step.op.startswith("JUMP"))
        current = k == len(moves) - 1 and trace.steps[index] is s
        figure.add_trace(go.Scatter(
            x=[s.start[0], s.end[0]], y=[s.start[1], s.end[1]], mode="lines+markers", showlegend=False,
            line={"color": _op_colour(s), "width": 7 if current else 4, "dash": "dash" if jump else "solid"},
            marker={"size": 9}, hovertext=html.escape(s.explain), hoverinfo="text",
        ))
    # A word sits between the two lattice points that reading it moves between.
    figure.update_xaxes(tickvals=[i + 0.5 for i in range(n)], ticktext=[html.escape(t) for t in trace.text],
                        title="text", range=[-0.5, n + 0.5], side="top", showgrid=False)
    figure.update_yaxes(tickvals=[j + 0.5 for j in range(m)], ticktext=[html.escape(t) for t in trace.hypothesis],
                        title="hypothesis", range=[m + 0.5, -0.5], showgrid=False)
    return _finish(figure, large=large, title=f"{trace.kind} edit lattice: the best path so far",
                   height=max(420, 40 * m + 180))


BUILDERS: dict[str, Callable[..., go.Figure]] = {"bleu": bleu_figure, "wer": wer_figure, "itg": itg_figure, "manli": manli_figure, "edit": edit_figure}


def step_figure(trace: Any, index: int, *, large: bool = False) -> go.Figure:
    """The figure of step ``index`` of any teaching trace (by its ``method``)."""
    if not 0 <= index < len(trace.steps):
        raise IndexError(f"step {index} of a {len(trace.steps)}-step trace")
    return BUILDERS[trace.method](trace, index, large=large)
