"""Teaching mode's figures: one per step of a method's trace (pure Plotly JSON, no Streamlit).

Each builder takes a trace from :mod:`explorer.teaching` and a step index and returns a
:class:`StepFigure`: the figure as Plotly JSON (a ``{"data": [...], "layout": {...}}``
dict, what plotly.js draws) and a one-line caption the page prints above it. They build
dicts, not ``go.Figure`` objects, because a lesson sends every step's figure to the
browser at once (hundreds for an ITG chart or a MANLI walk) and Plotly's validating
constructors cost 15-30 ms a figure; ``go.Figure(step.figure)`` validates one, which the
tests do for every step of every method.

Words are HTML-escaped wherever they reach a label (Plotly renders a few tags in text);
captions are plain text (the page prints them as text). Axis labels grow the margins
(``automargin``), so a row label is never cut off; the caption, not the figure, carries
the title, so nothing prints over column labels at the top.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from plotly.colors import sequential

from components.figures import svg_plain
from components.figures.itg import tree_figure
from components.figures.legible import (
    MIN_PX,
    PLOT_WIDTH,
    band_px,
    cell_size,
    line_px,
    short_number,
    text_px,
    upright,
    word_ticks,
)
from explorer.teaching.bleu import BleuTrace
from explorer.teaching.edit import KIND_LABELS, EditTrace, EditTraceStep, class_words
from explorer.teaching.embed import EmbedTrace
from explorer.teaching.itg import RULE_MARK, ItgTrace
from explorer.teaching.manli import ManliTrace
from explorer.teaching.wer import WerTrace

GREEN, BLUE, ORANGE, RED, GREY = "#2e7d32", "#1565c0", "#ef6c00", "#c62828", "#90a4ae"
#: Streamlit's own type face, so the figures read like the page around them.
FONT = '"Source Sans", "Source Sans Pro", sans-serif'

Figure = dict[str, object]


def _scale(colours: list[str]) -> list[list[float | str]]:
    """A colour scale spelt out, light to dark (plotly.js reads a scale's name the other way)."""
    return [[k / (len(colours) - 1), c] for k, c in enumerate(colours)]


BLUES, GREENS = _scale(sequential.Blues), _scale(sequential.Greens)


class LessonStep(TypedDict):
    """One step of a lesson as the browser shows it: the step's explanation, the figure's
    caption, the figure and the name of the chapter it belongs to (consecutive steps with
    one name are one chapter the player can jump to)."""

    sentence: str
    caption: str
    figure: Figure
    chapter: str


@dataclass(frozen=True)
class StepFigure:
    """One step's figure (Plotly JSON) and its caption (plain text)."""

    caption: str
    figure: Figure


def font_size(large: bool) -> int:
    """The figures' type: never under the smallest a class reads (legible.MIN_PX)."""
    return 20 if large else MIN_PX


_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _labels(tokens: Sequence[str]) -> list[str]:
    """Unique, escaped axis labels (a repeated word keeps its own column): the word and its
    position in subscript digits, characters of the label's own type size (a ``<sub>``
    run would be drawn at 70% of it)."""
    return [f"{svg_plain(t)}{str(k + 1).translate(_SUBSCRIPT)}" for k, t in enumerate(tokens)]


def _rows_need(rows: int, size: float, *, lines: int = 1, top: float = 0.0, bottom: float = 0.0) -> int:
    """The height a grid of ``rows`` rows of ``lines`` lines of ``size`` px needs, with
    ``top`` and ``bottom`` px of labels and titles around it."""
    return int(top + bottom + 24 + rows * (line_px(size, lines) + 4 * lines))


def _axis(**extra: object) -> dict[str, object]:
    return {"automargin": True, "showgrid": False, "zeroline": False, **extra}


def _title(text: str) -> dict[str, object]:
    return {"text": text, "standoff": 6}


def _figure(data: Sequence[Mapping[str, object]], layout: Mapping[str, object], *, large: bool, height: int,
            rows: int = 0, need: int = 0) -> Figure:
    """The layout every step shares. ``rows``: the category rows of a table or grid;
    ``need``: the height in px its labels need at their size, which the player keeps when
    it fits the figure to the screen (the page scrolls past the screen rather than the
    rows overlap or the type shrinks)."""
    base: dict[str, object] = {
        "font": {"size": font_size(large), "family": FONT},
        "height": int(height * (1.15 if large else 1.0)),
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "plot_bgcolor": "#ffffff", "paper_bgcolor": "#ffffff",
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        "meta": {"rows": rows, "need": need},
    }
    return {"data": list(data), "layout": {**base, **layout}}


def _heatmap(z: Sequence[Sequence[float | None]], x: list[str], y: list[str], **extra: object) -> dict[str, object]:
    return {"type": "heatmap", "z": z, "x": x, "y": y, "showscale": False, "xgap": 1, "ygap": 1, **extra}


def _cell_font(large: bool, columns: int, widest: str) -> dict[str, int]:
    """Cell text as wide as ``widest`` that fits its column: a little under the figure's
    type, smaller for many columns, never under legible.MIN_PX."""
    return {"size": cell_size(font_size(large) - 2, columns, widest)}


def _word_axis(labels: Sequence[str], large: bool, **extra: object) -> dict[str, object]:
    """A category axis naming every word, upright when they would not fit side by side."""
    return _axis(**{"type": "category", **word_ticks(labels, font_size(large)), **extra})


def _row_axis(labels: Sequence[str], **extra: object) -> dict[str, object]:
    """A category axis of rows (top to bottom) naming every one of them."""
    return _axis(**{"type": "category", "autorange": "reversed", "tickmode": "array", "tickvals": list(labels),
                    "ticktext": list(labels), **extra})


def _top_band(labels: Sequence[str], large: bool, title: bool = True) -> float:
    """The px a top axis of ``labels`` takes, with its title."""
    return band_px(labels, font_size(large)) + (line_px(font_size(large)) + 6 if title else 0)


# -- BLEU ------------------------------------------------------------------------------------

def bleu_figure(trace: BleuTrace, index: int, *, large: bool = False) -> StepFigure:
    """Match / clip steps: per distinct hypothesis n-gram, its count in the hypothesis and
    in the text and the count that scores. Later steps: the per-order precisions and the
    final score."""
    step = trace.steps[index]
    if step.phase in ("match", "clip"):
        grams = [svg_plain(" ".join(c.gram)) for c in step.counts]
        data: list[dict[str, object]] = [
            {"type": "bar", "x": grams, "y": [c.in_hypothesis for c in step.counts], "name": "in the hypothesis",
             "marker": {"color": GREY}},
            {"type": "bar", "x": grams, "y": [c.in_text for c in step.counts], "name": "in the text",
             "marker": {"color": BLUE}},
        ]
        if step.phase == "clip":
            data.append({"type": "bar", "x": grams, "y": [c.clipped for c in step.counts],
                         "name": "counted (clipped)", "marker": {"color": GREEN}})
        layout: dict[str, object] = {
            "barmode": "group", "yaxis": _axis(title=_title("count"), dtick=1, rangemode="tozero"),
            "xaxis": _word_axis(grams, large),
        }
        if not grams:
            layout["annotations"] = [{"text": f"no {step.n}-grams: the hypothesis is too short", "showarrow": False,
                                      "x": 0.5, "y": 0.5, "xref": "paper", "yref": "paper"}]
        caption = f"{step.n}-grams of the hypothesis" + (f": precision {step.value:.3f}" if step.phase == "clip" else "")
        need = int(band_px(grams, font_size(large)) + 300)  # the bars' counts, 0-4, one line apart at least
        return StepFigure(caption, _figure(data, layout, large=large, height=max(480, need), need=need))
    orders = step.orders
    data = [{"type": "bar", "x": [f"{o.n}-gram" for o in orders], "y": [o.precision for o in orders],
             "name": "precision", "marker": {"color": GREEN}, "text": [f"{o.matched}/{o.total}" for o in orders],
             "textposition": "outside", "cliponaxis": False}]
    line, label = ((step.brevity_penalty, f"brevity penalty {step.brevity_penalty:.3f}") if step.phase == "brevity"
                   else (step.value, f"score {step.value:.3f}"))
    colour = ORANGE if step.phase == "brevity" else RED
    layout = {
        "yaxis": _axis(range=[0, 1.15], title=_title("precision")), "xaxis": _axis(),
        "shapes": [{"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": line, "y1": line,
                    "line": {"color": colour, "width": 3, "dash": "dot" if step.phase == "brevity" else "solid"}}],
        "annotations": [{"text": label, "showarrow": False, "xref": "x domain", "x": 1, "xanchor": "right",
                         "yref": "y", "y": line, "yanchor": "bottom", "font": {"color": colour}}],
    }
    caption = "Per-order precisions" + (" and the score" if step.phase == "combine" else " and the brevity penalty")
    return StepFigure(caption, _figure(data, layout, large=large, height=480))


# -- WER -------------------------------------------------------------------------------------

def wer_figure(trace: WerTrace, index: int, *, large: bool = False) -> StepFigure:
    """The edit-distance table: rows filled so far, the backtrace path so far."""
    step = trace.steps[index]
    xlabels = ["∅", *_labels(trace.hypothesis)]
    ylabels = ["∅", *_labels(trace.text)]
    z: list[list[float | None]] = [
        [float(v) if i < step.rows else None for v in row] for i, row in enumerate(trace.cost)
    ]
    text = [[str(v) if i < step.rows else "" for v in row] for i, row in enumerate(trace.cost)]
    rows = len(ylabels)
    digits = "8" * len(str(max(max(r) for r in trace.cost)))
    data: list[dict[str, object]] = [_heatmap(
        z, xlabels, ylabels, text=text, texttemplate="%{text}", colorscale=BLUES, zmin=0,
        zmax=max(max(r) for r in trace.cost) or 1, textfont=_cell_font(large, len(xlabels), digits),
        hovertemplate="text %{y} / hypothesis %{x}: %{z} edits<extra></extra>",
    )]
    if step.path:
        data.append({
            "type": "scatter", "x": [xlabels[j] for _, j in step.path], "y": [ylabels[i] for i, _ in step.path],
            "mode": "lines+markers", "line": {"color": RED, "width": 4}, "marker": {"size": 12, "color": RED},
            "name": "backtrace", "hoverinfo": "skip", "showlegend": False,
        })
    layout = {"yaxis": _row_axis(ylabels, title=_title("text")),
              "xaxis": _word_axis(xlabels, large, side="top", title=_title("hypothesis"))}
    caption = ("Edit-distance table: the fewest edits turning the first i text words into the first j "
               "hypothesis words" + ("; the backtrace in red" if step.path else ""))
    need = _rows_need(rows, font_size(large), top=_top_band(xlabels, large))
    return StepFigure(caption, _figure(data, layout, large=large, height=max(420, need), rows=rows, need=need))


# -- Bracketing ITG --------------------------------------------------------------------------

def _tree(trace: ItgTrace, *, large: bool) -> Figure:
    assert trace.parse.tree is not None
    figure: dict[str, Any] = json.loads(tree_figure(trace.parse.tree, trace.text, trace.hypothesis).to_json())  # Plotly's JSON
    layout = figure["layout"]
    layout.pop("template", None)
    layout.pop("width", None)
    layout.update(font={"size": font_size(large), "family": FONT}, paper_bgcolor="#ffffff")
    # The leaf labels stand upright under their leaves, one column each (a row of labels
    # side by side overlaps past a dozen leaves); a tree with more leaves than the screen
    # holds at that spacing is drawn wider, and the player scrolls it sideways.
    leaves = next(d for d in figure["data"] if d.get("mode") == "text")
    figure["data"].remove(leaves)
    size = max(MIN_PX, font_size(large) - 4)
    labels = list(leaves["text"])
    layout["annotations"] = [
        {"x": x, "y": 0, "xref": "x", "yref": "y", "text": label, "textangle": -90, "showarrow": False,
         "xanchor": "center", "yanchor": "top", "yshift": -12, "font": {"size": size}}
        for x, label in zip(leaves["x"], labels)]
    hang = max((text_px(label, size) for label in labels), default=0.0) + 24
    depth = layout["yaxis"]["range"][1] - 0.6
    layout["yaxis"]["range"] = [-0.3, depth + 0.6]
    layout["margin"] = {**layout["margin"], "b": int(hang)}
    spacing = line_px(size) + 8
    if len(labels) * spacing > PLOT_WIDTH + 200:
        layout["width"] = int(len(labels) * spacing + 40)
    need = int(hang + layout["margin"]["t"] + 40 + 22 * depth)
    layout["height"] = max(int(layout["height"]), need)
    layout["meta"] = {"rows": 0, "need": need}
    return figure


def itg_figure(trace: ItgTrace, index: int, *, large: bool = False) -> StepFigure:
    """The possible links, then for each text span its chart row (hypothesis span start x
    end, the best gain and the rule of each cell), then the tree."""
    step = trace.steps[index]
    if step.phase == "tree":
        if trace.parse.tree is None:
            return StepFigure("Empty parse: no word pair may link", _figure([], {}, large=large, height=340))
        return StepFigure("The best parse tree ([ ] straight, ⟨ ⟩ inverted, dashed lines)", _tree(trace, large=large))
    if step.phase == "links":
        links = [[1.0 if trace.allowed[p, h] else 0.0 for p in range(len(trace.text))]
                 for h in range(len(trace.hypothesis))]
        rows = len(trace.hypothesis)
        xl, yl = _labels(trace.text), _labels(trace.hypothesis)
        data = [_heatmap(links, xl, yl, zmin=0, zmax=1,
                         colorscale=[[0, "#f4f6f8"], [1, GREEN]], hovertemplate="%{y} · %{x}<extra></extra>")]
        layout = {"yaxis": _row_axis(yl, title=_title("hypothesis")),
                  "xaxis": _word_axis(xl, large, side="top", title=_title("text"))}
        need = _rows_need(rows, font_size(large), top=_top_band(xl, large))
        return StepFigure("Which word pairs may link (green)",
                          _figure(data, layout, large=large, height=max(400, need), rows=rows, need=need))
    h_kept = [trace.hypothesis[k] for k in trace.hypothesis_kept]
    n = len(h_kept)
    z: list[list[float | None]] = [[None] * n for _ in range(n)]
    marks = [[""] * n for _ in range(n)]
    for cell in step.cells:
        z[cell.u][cell.v - 1] = cell.gain
        marks[cell.u][cell.v - 1] = f"{cell.gain:.1f}<br>{svg_plain(RULE_MARK[cell.rule])}" if cell.gain > 1e-4 else "0"
    labels = _labels(h_kept)
    xl, yl = [f"to {lab}" for lab in labels], [f"from {lab}" for lab in labels]
    top_gain = float(trace.chart.max()) if trace.chart.size else 0.0
    cell_font = _cell_font(large, n, max(f"{top_gain:.1f}", "[ ]", key=len))  # "12.5" over "[ ]", every step alike
    data = [_heatmap(
        z, xl, yl, text=marks, texttemplate="%{text}",
        colorscale=GREENS, xgap=2, ygap=2, textfont=cell_font, zmin=0,
        zmax=max(float(trace.chart.max()), 1e-6) if trace.chart.size else 1,
        hovertemplate="hypothesis %{y} %{x}: gain %{z:.2f}<extra></extra>",
    )]
    layout = {"yaxis": _row_axis(yl, title=_title("hypothesis span")),
              "xaxis": _word_axis(xl, large, side="top")}
    words = " ".join(trace.text[k] for k in trace.text_kept[step.i:step.j])
    need = _rows_need(n, max(cell_font["size"], font_size(large) / 2), lines=2, top=_top_band(xl, large, title=False))
    return StepFigure(f"Chart cells for the text “{words}”: gain and rule ([ ] straight, < > inverted, "
                      "ε null, x/y link)",
                      _figure(data, layout, large=large, height=max(420, need), rows=n, need=need))


# -- MANLI -----------------------------------------------------------------------------------

def manli_figure(trace: ManliTrace, index: int, *, large: bool = False) -> StepFigure:
    """Left: the current alignment on the word grid. Right: the score per round so far and
    the temperature."""
    step = trace.steps[index]
    xl, yl = _labels(trace.text), _labels(trace.hypothesis)
    grid = [[0.0] * len(xl) for _ in yl]
    for p, h in step.links:
        grid[h][p] = 1.0
    shown = trace.steps[: index + 1]
    rounds = [s.round for s in shown]
    data: list[dict[str, object]] = [
        _heatmap(grid, xl, yl, colorscale=[[0, "#f4f6f8"], [1, BLUE]], zmin=0, zmax=1,
                 hovertemplate="%{y} · %{x}<extra></extra>", xaxis="x", yaxis="y"),
        {"type": "scatter", "x": rounds, "y": [s.total for s in shown], "mode": "lines", "name": "alignment score",
         "line": {"color": GREEN, "width": 3}, "xaxis": "x2", "yaxis": "y2"},
        {"type": "scatter", "x": [step.round], "y": [step.total], "mode": "markers", "name": "this round",
         "marker": {"color": RED, "size": 14}, "xaxis": "x2", "yaxis": "y2"},
        {"type": "scatter", "x": rounds, "y": [s.temperature for s in shown], "mode": "lines", "name": "temperature",
         "line": {"color": ORANGE, "dash": "dot"}, "xaxis": "x2", "yaxis": "y3"},
    ]
    totals = [s.total for s in trace.steps]
    spread = max(totals) - min(totals) or 1.0
    last = trace.steps[-1].round
    size = font_size(large)
    rows = len(yl)
    # Both value axes start a little under their lowest value: their bottom tick labels stand
    # clear of the round axis's labels at its two ends.
    hottest = max((s.temperature for s in trace.steps), default=1.0) or 1.0
    # The grid beside the score while the text's words stand upright in half the width;
    # above it, across the whole width, for a longer text (the page scrolls to the score).
    beside = len(xl) * (line_px(size) + 6) <= 0.46 * PLOT_WIDTH
    across = 0.46 * PLOT_WIDTH if beside else PLOT_WIDTH
    top = band_px(xl, size, across) + 10
    grid_px = rows * (line_px(size) + 6)
    chart_px, gap_px = 280.0, 110.0
    need = int(top + grid_px + 40 + (0 if beside else gap_px + chart_px))
    low = 0.0 if beside else (chart_px + gap_px) / (need - 20)
    layout = {
        # Every word named (tickmode array): an automatic category axis names only every
        # other one once the figure is squeezed under a longer step text.
        "xaxis": _axis(domain=[0, 0.46] if beside else [0, 1], type="category", side="top", anchor="y",
                       **word_ticks(xl, size, across)),
        "yaxis": _row_axis(yl, anchor="x", domain=[low, 1]),
        "xaxis2": _axis(domain=[0.58, 0.92] if beside else [0, 0.9], range=[-1, max(last, 1) + 2],
                        title=_title("round"), anchor="y2"),
        "yaxis2": _axis(title=_title("alignment score"), anchor="x2", showgrid=True,
                        domain=[0, 1] if beside else [0, chart_px / (need - 20)],
                        range=[min(totals) - 0.12 * spread, max(totals) + 0.05 * spread]),
        # Ticks of its own (an overlaying axis takes the score axis's gridline positions by default).
        "yaxis3": _axis(title=_title("temperature"), overlaying="y2", side="right", anchor="x2", tickmode="auto",
                        range=[-0.1 * hottest, 1.05 * hottest]),
        "legend": ({"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0.58} if beside else
                   {"orientation": "h", "yanchor": "bottom", "y": (chart_px + 20) / (need - 20), "x": 0}),
    }
    which = {"start": "the empty alignment", "final": "the final alignment"}.get(
        step.phase, f"the alignment after round {step.round}")
    where = ("Left", "Right") if beside else ("Above", "Below")
    return StepFigure(f"{where[0]}: {which} (blue: linked words). "
                      f"{where[1]}: the alignment's score and the temperature, round by round",
                      _figure(data, layout, large=large, height=max(460, need), rows=rows, need=need))


# -- pFSM / pPDA -----------------------------------------------------------------------------

def _op_style(step: EditTraceStep) -> tuple[str, str]:
    """A move's colour and its name in the legend (a display name, never a class code)."""
    from components.figures.edit_sequence import STEP_COLOURS

    if step.step is None:
        return GREY, "return after a jump"
    op = step.step.op
    if op == "JUMP_F":
        return STEP_COLOURS["JUMP_F"], "jump forward"
    if op == "JUMP_B":
        return STEP_COLOURS["JUMP_B"], "jump back"
    if op == "DEL":
        return STEP_COLOURS["DEL"], "delete a text word"
    if op == "INS":
        return STEP_COLOURS["INS"], "insert a hypothesis word"
    cls = step.step.cls if op == "SUB" else "S_BLOCK"
    return STEP_COLOURS.get(cls, BLUE), class_words(cls)


def edit_figure(trace: EditTrace, index: int, *, large: bool = False) -> StepFigure:
    """The edit lattice: a point per (text position, hypothesis position); the Viterbi path
    so far, coloured by operation, jumps dashed, the current move thick."""
    n, m = len(trace.text), len(trace.hypothesis)
    data: list[dict[str, object]] = [{
        "type": "scatter", "x": [i for i in range(n + 1) for _ in range(m + 1)],
        "y": [j for _ in range(n + 1) for j in range(m + 1)], "mode": "markers",
        "marker": {"color": "#cfd8dc", "size": 7}, "hoverinfo": "skip", "showlegend": False,
    }]
    moves = [s for s in trace.steps[: index + 1] if s.phase in ("op", "return")]
    current = moves[-1] if moves and trace.steps[index] is moves[-1] else None
    # The moves before the current one, one trace per kind of move (segments split by
    # None): a long path stays a handful of traces, which plotly.js redraws quickly.
    kinds: dict[tuple[str, str, bool], dict[str, object]] = {}
    paths: dict[tuple[str, str, bool], tuple[list[int | None], list[int | None], list[str]]] = {}
    for s in moves:
        colour, name = _op_style(s)
        jump = s.phase == "return" or (s.step is not None and s.step.op.startswith("JUMP"))
        width = 8 if s is current else 4
        key = (name, colour, s is current)
        if key not in kinds:
            xs, ys, texts = paths[key] = ([], [], [])
            kinds[key] = {
                "type": "scatter", "x": xs, "y": ys, "hovertext": texts, "mode": "lines+markers", "name": name,
                "legendgroup": name, "showlegend": False, "hoverinfo": "text", "marker": {"size": 9},
                "line": {"color": colour, "width": width, "dash": "dash" if jump else "solid"},
            }
        xs, ys, texts = paths[key]
        xs += [s.start[0], s.end[0], None]
        ys += [s.start[1], s.end[1], None]
        texts += [svg_plain(s.explain)] * 2 + [""]
    named: set[str] = set()
    for (name, _, _), group in sorted(kinds.items(), key=lambda item: item[0][2]):  # the current move on top
        group["showlegend"] = name not in named
        named.add(name)
        data.append(group)
    # A word sits between the two lattice points that reading it moves between.
    words = [svg_plain(t) for t in trace.text]
    size = font_size(large)
    layout = {
        "xaxis": _axis(tickvals=[i + 0.5 for i in range(n)], ticktext=words, tickangle=-90 if upright(words, size) else 0,
                       title=_title("text"), range=[-0.5, n + 0.5], side="top"),
        "yaxis": _axis(tickvals=[j + 0.5 for j in range(m)], ticktext=[svg_plain(t) for t in trace.hypothesis],
                       title=_title("hypothesis (as read)"), range=[m + 0.5, -0.5]),
        # The moves' legend beside a short text's lattice (one screen), under a long one's
        # (the width is the columns').
        "legend": ({"orientation": "v", "yanchor": "top", "y": 1, "xanchor": "left", "x": 1.02} if n <= 15 else
                   {"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0}),
    }
    need = _rows_need(m + 1, size, top=_top_band(words, large), bottom=0 if n <= 15 else 3 * line_px(size) + 20)
    return StepFigure(f"{KIND_LABELS[trace.kind]} edit lattice: the best path so far (the current move thick)",
                      _figure(data, layout, large=large, height=max(420, need), rows=m + 1, need=need))


# -- Static embeddings -----------------------------------------------------------------------

def _halves(large: bool) -> tuple[float, float]:
    """The gap between two tables side by side (a share of the width, room for the left
    one's widest cells to run over) and the px each table has."""
    gap = (6 * font_size(large)) / (PLOT_WIDTH + 200)
    return gap, PLOT_WIDTH * (1 - gap) / 2


def _side_by_side(left: Mapping[str, object], right: Mapping[str, object], rows: int, *,
                  large: bool) -> Figure:
    """Two heatmaps beside each other (the text's left, the hypothesis's right), each with
    its own axes and its side named above it; the first is the figure's first trace (the
    one a browser test measures). The right one's row labels stand on its right (in the
    gap, a long piece of the left one's last column ran into them), where automargin makes
    room."""
    size = font_size(large)
    gap, half = _halves(large)
    columns = [str(c) for c in left["x"]]  # type: ignore[attr-defined]
    layout = {
        "xaxis": _axis(domain=[0, (1 - gap) / 2], type="category", side="top", anchor="y", title=_title("text"),
                       **word_ticks(columns, size, half)),
        "yaxis": _row_axis(left["y"], anchor="x"),  # type: ignore[arg-type]
        "xaxis2": _axis(domain=[(1 + gap) / 2, 1], type="category", side="top", anchor="y2",
                        title=_title("hypothesis"), **word_ticks(columns, size, half)),
        "yaxis2": _row_axis(right["y"], anchor="x2", side="right"),  # type: ignore[arg-type]
    }
    need = _rows_need(rows, size, top=band_px(columns, size, half) + line_px(size) + 6)
    return _figure([left, {**right, "xaxis": "x2", "yaxis": "y2"}], layout, large=large,
                   height=max(420, need), rows=rows, need=need)


def _pieces(tokens: Sequence[str], pieces: Sequence[Sequence[str]], large: bool, across: float) -> dict[str, object]:
    width = max((len(p) for p in pieces), default=1) or 1
    columns = [f"piece {k + 1}" for k in range(width)]
    z = [[1.0 if k < len(p) else None for k in range(width)] for p in pieces]
    text = [[svg_plain(p[k]) if k < len(p) else "" for k in range(width)] for p in pieces]
    longest = max((t for row in text for t in row), key=lambda t: text_px(t, 1.0), default="x")
    return _heatmap(z, columns, _labels(tokens), text=text, texttemplate="%{text}", zmin=0, zmax=1,
                    colorscale=[[0, "#e3f2fd"], [1, "#bbdefb"]],
                    textfont={"size": cell_size(font_size(large) - 2, width, longest, across)},
                    hovertemplate="%{y}: %{text}<extra></extra>")


def _numbers(vectors: Iterable[Iterable[float]], rows: list[str], large: bool, across: float) -> dict[str, object]:
    """Numbers to two decimals without the leading zero, in type that fits ``across`` px."""
    values = [[round(float(v), 2) for v in row] for row in vectors]
    columns = len(values[0]) if values else 0
    return _heatmap(values, [str(k + 1) for k in range(columns)], rows,
                    text=[[short_number(v) for v in row] for row in values], texttemplate="%{text}",
                    colorscale="RdBu", zmid=0, textfont={"size": cell_size(font_size(large) - 2, columns, "-.88", across)},
                    hovertemplate="%{y}, number %{x}: %{z:.3f}<extra></extra>")


def embed_figure(trace: EmbedTrace, index: int, *, large: bool = False) -> StepFigure:
    """Pieces and word vectors side by side (text, hypothesis); then the word-cosine
    matrix with each side's best choices and the links marked, or the two sentence vectors
    and their products."""
    step = trace.steps[index]
    rows = max(len(trace.text), len(trace.hypothesis))
    _, half = _halves(large)
    if step.phase == "tokens":
        figure = _side_by_side(_pieces(trace.text, trace.text_pieces, large, half),
                               _pieces(trace.hypothesis, trace.hypothesis_pieces, large, half),
                               rows, large=large)
        return StepFigure("Each word's subword pieces: the text's left, the hypothesis's right", figure)
    if step.phase == "vectors":
        figure = _side_by_side(_numbers(trace.text_vectors, _labels(trace.text), large, half),
                               _numbers(trace.hypothesis_vectors, _labels(trace.hypothesis), large, half),
                               rows, large=large)
        return StepFigure(f"Each word's vector: its first {trace.text_vectors.shape[1]} of {trace.dimensions} "
                          "numbers (blue below 0, red above)", figure)
    if step.phase in ("sentence", "score"):
        vectors = trace.sentence_vectors
        names = ["text", "hypothesis"] + (["product"] if step.phase == "score" else [])
        shown = [*vectors] + ([vectors[0] * vectors[1]] if step.phase == "score" else [])
        layout = {"yaxis": _axis(autorange="reversed", type="category"),
                  "xaxis": _axis(side="top", type="category", title=_title("number"))}
        figure = _figure([_numbers(shown, names, large, PLOT_WIDTH)], layout, large=large, height=360,
                         rows=len(names))
        caption = (f"The two sentence vectors, their first {vectors.shape[1]} of {trace.dimensions} numbers"
                   + (f", and their products (all {trace.dimensions} sum to {trace.value:.3f})"
                      if step.phase == "score" else ""))
        return StepFigure(caption, figure)
    xl, yl = _labels(trace.text), _labels(trace.hypothesis)
    cosines = [[round(float(trace.similarity[i, j]), 2) for i in range(len(xl))] for j in range(len(yl))]
    n = len(yl)
    cell = _cell_font(large, len(xl), "-.88")
    data: list[dict[str, object]] = [_heatmap(
        # A negative cosine is "<0" (white, as the scale starts at 0): two characters where
        # "-.09" took four and ran into its neighbour in a 29-column grid (RTE2 dev 235).
        cosines, xl, yl, text=[[short_number(v) if v >= 0 else "<0" for v in row] for row in cosines],
        texttemplate="%{text}",
        colorscale=BLUES, zmin=0, zmax=1, textfont=cell,
        hovertemplate="hypothesis %{y} · text %{x}: cosine %{z:.2f}<extra></extra>",
    )]
    marks = {"best_for_hypothesis": ("circle-open", ORANGE, "best text word for a hypothesis word"),
             "best_for_text": ("square-open", GREEN, "best hypothesis word for a text word")}
    if step.phase in marks:  # each side's choices so far: circles, then squares
        for shown_step in trace.steps[: index + 1]:
            if shown_step.phase not in marks:
                continue
            symbol, colour, name = marks[shown_step.phase]
            cells = sorted(shown_step.marked)
            data.append({"type": "scatter", "x": [xl[i] for i, _ in cells], "y": [yl[j] for _, j in cells],
                         "mode": "markers", "name": name, "hoverinfo": "skip",
                         "marker": {"symbol": symbol, "size": 46 if shown_step.phase == "best_for_text" else 38,
                                    "color": colour, "line": {"width": 3, "color": colour}}})
    if step.links:
        cells = sorted(step.links)
        data.append({"type": "scatter", "x": [xl[i] for i, _ in cells], "y": [yl[j] for _, j in cells],
                     "mode": "markers", "name": "link", "hoverinfo": "skip",
                     "marker": {"symbol": "square-open", "size": 34, "color": RED, "line": {"width": 4, "color": RED}}})
    layout = {"yaxis": _row_axis(yl, title=_title("hypothesis")),
              "xaxis": _word_axis(xl, large, side="top", title=_title("text")),
              "legend": {"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0}}
    size = font_size(large)
    need = _rows_need(n, size, top=_top_band(xl, large), bottom=2 * line_px(size) + 20)  # the legend below
    captions = {"matrix": "Word cosines (darker = more alike)",
                "best_for_hypothesis": f"Each hypothesis word's most similar text word (cosine at least "
                                       f"{trace.min_similarity:g})",
                "best_for_text": "…and each text word's most similar hypothesis word",
                "links": "Links (red squares) where both words chose each other", "round": "Links (red squares) after another round"}
    return StepFigure(captions[step.phase], _figure(data, layout, large=large, height=max(420, need), rows=n,
                                                    need=need))


def packed(steps: Sequence[LessonStep], layouts: list[object] | None = None,
           seen: dict[str, int] | None = None) -> tuple[list[dict[str, object]], list[object]]:
    """The steps with each figure's layout replaced by an index into a list of the distinct
    layouts (most steps of a method share one, so it is sent once). ``layouts`` and
    ``seen`` carry the list on from lessons packed before (a deck shares one list)."""
    layouts = [] if layouts is None else layouts
    seen = {} if seen is None else seen
    out: list[dict[str, object]] = []
    for step in steps:
        figure = step["figure"]
        text = json.dumps(figure["layout"], sort_keys=True)
        if text not in seen:
            seen[text] = len(layouts)
            layouts.append(figure["layout"])
        out.append({**step, "figure": {"data": figure["data"], "layout": seen[text]}})
    return out, layouts
