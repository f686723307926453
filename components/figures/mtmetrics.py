"""Figures for the MT-metric features (Finch, Hwang & Sumita 2005): pure Plotly.

* :func:`metric_profile` — one pair's metric values against their distributions in a
  dataset, split by class (box per metric and class, the pair as a marker).
* :func:`edit_sequence` — the WER edit script as two aligned rows of words.
* :func:`pos_bars` — the POS-decomposed PER: matched words up, unmatched words down,
  one bar pair per Penn tag present.
* :func:`bag_matching` — the PER view: each sentence's words coloured matched / unmatched.

WER/PER enter the profile as error rates (lower = more similar), BLEU and NIST as
scores; each metric gets its own small panel because their scales differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from explorer.alignment import EditKind
from explorer.metrics.per import PosPerResult
from explorer.metrics.wer import WerResult

EDIT_COLOURS: dict[EditKind, str] = {
    EditKind.EQ: "#2e7d32",
    EditKind.SUB: "#1565c0",
    EditKind.DEL: "#c62828",
    EditKind.INS: "#f9a825",
}
MATCH_COLOUR, MISS_COLOUR = "#2e7d32", "#c62828"
CLASS_COLOURS = {"positive": "#2e7d32", "negative": "#c62828"}

#: A distribution summary: ``{metric: {"positive": [values...], "negative": [...]}}`` or
#: quantiles ``{metric: {"positive": {"q05":..,"q25":..,"q50":..,"q75":..,"q95":..}}}``.
Distributions = Mapping[str, Mapping[str, Sequence[float] | Mapping[str, float]]]


def metric_profile(
    values: Mapping[str, float], distributions: Distributions | None = None, *,
    class_names: tuple[str, str] = ("paraphrase", "not paraphrase"), title: str = "",
) -> go.Figure:
    """One small panel per metric: the dataset's distribution per class and the pair.

    Args:
        values: the pair's metric values, in display order.
        distributions: per metric and class (``positive``/``negative``) either raw
            values or quantiles ``q05, q25, q50, q75, q95``; None draws the pair only.
        class_names: display names of the positive and negative class.
    """
    names = list(values)
    if not names:
        raise ValueError("no metric values to draw")
    # One x/y axis pair per metric, laid out side by side. Built as one dict and validated
    # once (make_subplots + add_trace(row, col) re-validates the layout per trace).
    gap = 0.02
    width = (1 - gap * (len(names) - 1)) / len(names)
    layout: dict[str, object] = {
        "title": title or None, "height": 340, "margin": {"l": 30, "r": 10, "t": 60, "b": 20},
        "boxmode": "group", "legend": {"orientation": "h", "y": -0.05}, "annotations": [],
    }
    traces: list[go.Box | go.Scatter] = []
    for col, name in enumerate(names, start=1):
        suffix = "" if col == 1 else str(col)
        left = (col - 1) * (width + gap)
        layout[f"xaxis{suffix}"] = {"domain": [round(left, 6), min(1.0, round(left + width, 6))], "anchor": f"y{suffix}", "showticklabels": False}
        layout[f"yaxis{suffix}"] = {"anchor": f"x{suffix}"}
        layout["annotations"].append({  # type: ignore[attr-defined]
            "text": name, "x": left + width / 2, "y": 1.0, "xref": "paper", "yref": "paper",
            "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": 16}})
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        for cls, label in zip(("positive", "negative"), class_names):
            spread = (distributions or {}).get(name, {}).get(cls)
            if spread is None:
                continue
            box: dict[str, object] = {"name": label, "marker_color": CLASS_COLOURS[cls],
                                      "legendgroup": cls, "showlegend": col == 1, "boxpoints": False, **axes}
            if isinstance(spread, Mapping):
                box.update(q1=[spread["q25"]], median=[spread["q50"]], q3=[spread["q75"]],
                           lowerfence=[spread["q05"]], upperfence=[spread["q95"]], x=[label])
            else:
                box.update(y=list(spread))
            traces.append(go.Box(**box))
        traces.append(go.Scatter(
            x=[class_names[0]] if distributions else [name], y=[values[name]], mode="markers",
            marker={"symbol": "diamond", "size": 13, "color": "#212121"},
            name="this pair", legendgroup="pair", showlegend=col == 1,
            hovertemplate=f"{name}: %{{y:.4f}}<extra>this pair</extra>", **axes,
        ))
    return go.Figure(data=traces, layout=layout)


def edit_sequence(result: WerResult, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], *,
                  title: str = "") -> go.Figure:
    """The WER edit script: text words on the top row, hypothesis words below, one
    column per edit, coloured EQ / SUB / DEL / INS."""
    edits = result.alignment.edits or ()
    if len(text_tokens) != result.text_length or len(hypothesis_tokens) != result.hypothesis_length:
        raise ValueError("token lists do not match the WER result's sentence lengths")
    figure = go.Figure()
    for kind in EditKind:
        xs, ys, labels, hovers = [], [], [], []
        for column, edit in enumerate(edits):
            if edit.kind is not kind:
                continue
            for row, span, tokens in ((1, edit.p_span, text_tokens), (0, edit.h_span, hypothesis_tokens)):
                word = tokens[span[0]] if span is not None else "·"
                xs.append(column)
                ys.append(row)
                labels.append(word)
                hovers.append(f"{kind.value}: {'text' if row else 'hypothesis'} word {word!r}")
        if xs:
            figure.add_trace(go.Scatter(
                x=xs, y=ys, mode="markers+text", text=labels, textposition="middle center",
                marker={"symbol": "square", "size": 34, "color": EDIT_COLOURS[kind], "opacity": 0.25},
                textfont={"color": EDIT_COLOURS[kind]}, name=kind.value, hovertext=hovers, hoverinfo="text",
            ))
    figure.update_yaxes(tickvals=[0, 1], ticktext=["hypothesis", "text"], range=[-0.6, 1.6])
    figure.update_xaxes(visible=False)
    summary = (f"distance {result.distance} = {result.substitutions} SUB + {result.deletions} DEL + "
               f"{result.insertions} INS; WER {result.rate:.3f}")
    figure.update_layout(title=title or summary, height=230, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                         legend={"orientation": "h"})
    return figure


def pos_bars(result: PosPerResult, *, title: str = "") -> go.Figure:
    """Matched (up) and unmatched (down) word shares per Penn tag present in the pair."""
    present = [i for i, (a, b) in enumerate(zip(result.matched, result.unmatched)) if a or b]
    tags = [result.tags[i] for i in present]
    figure = go.Figure()
    figure.add_trace(go.Bar(x=tags, y=[result.matched[i] for i in present], name="f+ matched",
                            marker_color=MATCH_COLOUR, hovertemplate="%{x}: %{y:.3f}<extra>matched</extra>"))
    figure.add_trace(go.Bar(x=tags, y=[-result.unmatched[i] for i in present], name="f- unmatched",
                            marker_color=MISS_COLOUR,
                            customdata=[result.unmatched[i] for i in present],
                            hovertemplate="%{x}: %{customdata:.3f}<extra>unmatched</extra>"))
    figure.update_layout(barmode="relative", title=title or "POS-decomposed PER (share of words, mean of both sentences)",
                         height=320, margin={"l": 30, "r": 10, "t": 50, "b": 30}, legend={"orientation": "h"},
                         yaxis_title="share of sentence")
    return figure


def bag_matching(result: PosPerResult, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], *,
                 title: str = "") -> go.Figure:
    """Each sentence's words in order, green when matched anywhere in the other
    sentence (PER ignores order), red when not; synonym matches are outlined."""
    figure = go.Figure()
    synonyms_p = {p for p, _ in result.synonym_links}
    synonyms_h = {h for _, h in result.synonym_links}
    for row, tokens, partners, tags, synonyms in (
        (1, text_tokens, result.text_partner, result.text_tags, synonyms_p),
        (0, hypothesis_tokens, result.hypothesis_partner, result.hypothesis_tags, synonyms_h),
    ):
        if len(tokens) != len(partners):
            raise ValueError("token lists do not match the POS-PER result")
        colours = [MISS_COLOUR if partner is None else MATCH_COLOUR for partner in partners]
        hovers = [f"{w} ({t}): " + ("unmatched" if partner is None else f"matched word {partner + 1}"
                                    + (" (synonym)" if i in synonyms else ""))
                  for i, (w, t, partner) in enumerate(zip(tokens, tags, partners))]
        figure.add_trace(go.Scatter(
            x=list(range(len(tokens))), y=[row] * len(tokens), mode="text", text=list(tokens),
            textfont={"color": colours, "size": 14}, hovertext=hovers, hoverinfo="text", showlegend=False,
        ))
    figure.update_yaxes(tickvals=[0, 1], ticktext=["hypothesis", "text"], range=[-0.6, 1.6])
    figure.update_xaxes(visible=False)
    figure.update_layout(title=title or "PER matching (green: matched, red: unmatched)", height=200,
                         margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return figure
