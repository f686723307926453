"""Alignment editing on the Pair page: click cells of the shared alignment grid (or pick
two tokens) to add or remove links, watch precision / recall / F1 against the dataset's
gold alignment change, and save the result as a corrected alignment in the store.

The grid is :func:`components.alignment_figures.alignment_grid` with one invisible,
clickable marker per cell on top; a click arrives as a Plotly selection event, toggles
that link, and the chart is redrawn under a new key so the old selection is not applied
twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from components.alignment_figures import alignment_grid
from components.data import LoadedDataset
from components.store_access import author, get_store, store_dataset_id
from components.text import plain
from explorer.alignment import Alignment, Link
from explorer.alignment_eval import score_pair
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair

EMPTY = "empty grid"
STORED = "saved correction"
GOLD = "the dataset's gold alignment"


def pair_tokens(pair: Pair) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tokens links index: the dataset's own when it gives them, else ours."""
    if pair.text_tokens is not None and pair.hypothesis_tokens is not None:
        return pair.text_tokens, pair.hypothesis_tokens
    analyzed = analyze_pair(pair)
    return analyzed.text.tokens, analyzed.hypothesis.tokens


def clickable_grid(alignment: Alignment, text_tokens: Sequence[str], hypothesis_tokens: Sequence[str], *,
                   gold: Alignment | None) -> go.Figure:
    """The shared grid plus one near-transparent marker per cell, so a click on any cell
    (linked or not) is reported as a selected point at ``(text index, hypothesis index)``."""
    figure = alignment_grid(alignment, text_tokens, hypothesis_tokens, gold=gold)
    heatmap = figure.data[0]
    xs = [p for _ in range(alignment.h_len) for p in range(alignment.p_len)]
    ys = [h for h in range(alignment.h_len) for _ in range(alignment.p_len)]
    # Heatmaps cannot be selected: the markers take the clicks, and the hover text with
    # them (the heatmap would otherwise win the hover and swallow the click).
    hover = [heatmap.customdata[h][p] for h, p in zip(ys, xs, strict=True)] if heatmap.customdata is not None else None
    heatmap.update(hoverinfo="skip", hovertemplate=None)
    figure.add_trace(go.Scatter(
        x=xs, y=ys, mode="markers", showlegend=False, name="cells", customdata=hover,
        hovertemplate="%{customdata}<extra></extra>",
        marker={"symbol": "square", "size": 22, "color": "rgba(0,0,0,0.01)"},
    ))
    figure.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")
    return figure


def clicked_links(points: Sequence[dict[str, Any]], p_len: int, h_len: int) -> set[Link]:
    """Grid cells named by a Plotly selection event's points (others ignored)."""
    links: set[Link] = set()
    for point in points:
        x, y = point.get("x"), point.get("y")
        if isinstance(x, int | float) and isinstance(y, int | float):
            p, h = int(round(x)), int(round(y))
            if 0 <= p < p_len and 0 <= h < h_len:
                links.add((p, h))
    return links


def toggle(links: frozenset[Link], changes: set[Link]) -> frozenset[Link]:
    """Links with each of ``changes`` added when absent and removed when present."""
    return frozenset(links ^ changes)


def render_alignment_editor(loaded: LoadedDataset, pair: Pair) -> None:
    from explorer.aligners import ALIGNERS, get_aligner

    key = f"align_edit_{loaded.key}_{pair.id}"
    # Behind a toggle: the grid (and any aligner run) only when the user wants to edit.
    if not st.toggle("Edit this pair's alignment", key=f"{key}_on",
                     help="Start from the saved correction, the dataset's gold or an aligner; "
                          "click cells to add or remove links; save as a corrected alignment."):
        return
    store = get_store()
    dataset_id = store_dataset_id(loaded)
    p_tokens, h_tokens = pair_tokens(pair)
    gold = pair.gold_alignment
    if gold is not None and (gold.p_len, gold.h_len) != (len(p_tokens), len(h_tokens)):
        gold = None
    saved = store.gold_alignment(dataset_id, pair.id)
    if saved is not None and (saved.alignment.p_len, saved.alignment.h_len) != (len(p_tokens), len(h_tokens)):
        saved = None

    # Aligners last: the default start must not cost a decode on every pair opened.
    starts = ([STORED] if saved else []) + ([GOLD] if gold else []) + [EMPTY] + list(ALIGNERS)
    start = st.selectbox("Start from", starts, key=f"{key}_start",
                         format_func=lambda s: ALIGNERS[s].label + " aligner" if s in ALIGNERS else s)
    if st.session_state.get(f"{key}_from") != start or f"{key}_links" not in st.session_state:
        if start == STORED and saved is not None:
            begin = saved.alignment
        elif start == GOLD and gold is not None:
            begin = gold
        elif start in ALIGNERS:
            try:
                with st.spinner(f"Aligning with {ALIGNERS[start].label}..."):
                    begin = get_aligner(start).align(analyze_pair(pair)).alignment
            except Exception as error:  # a failing aligner: say so, edit from an empty grid
                st.warning(f"{ALIGNERS[start].label} failed on this pair ({type(error).__name__}: {error}); "
                           "starting from an empty grid.")
                begin = Alignment(len(p_tokens), len(h_tokens))
            if (begin.p_len, begin.h_len) != (len(p_tokens), len(h_tokens)):
                st.warning("This aligner tokenises differently from the dataset; starting from an empty grid.")
                begin = Alignment(len(p_tokens), len(h_tokens))
        else:
            begin = Alignment(len(p_tokens), len(h_tokens))
        st.session_state[f"{key}_from"] = start
        st.session_state[f"{key}_begin"] = begin
        st.session_state[f"{key}_links"] = begin.sure
        st.session_state[f"{key}_possible"] = begin.possible
        st.session_state[f"{key}_version"] = 0
    begin = st.session_state[f"{key}_begin"]
    links: frozenset[Link] = st.session_state[f"{key}_links"]
    version: int = st.session_state[f"{key}_version"]

    # Two tokens and a button: the same edit without the mouse (and for keyboard users).
    c1, c2, c3 = st.columns([2, 2, 1])
    p = c1.selectbox("Text token", range(len(p_tokens)), key=f"{key}_p",
                     format_func=lambda i: f"{i}: {p_tokens[i]}")
    h = c2.selectbox("Hypothesis token", range(len(h_tokens)), key=f"{key}_h",
                     format_func=lambda i: f"{i}: {h_tokens[i]}")
    if c3.button("Add / remove link", key=f"{key}_toggle") and p is not None and h is not None:
        links = toggle(links, {(p, h)})
        st.session_state[f"{key}_links"] = links
        version += 1
        st.session_state[f"{key}_version"] = version

    possible = st.session_state[f"{key}_possible"] - links
    working = Alignment(len(p_tokens), len(h_tokens), sure=links, possible=possible)
    figure = clickable_grid(working, p_tokens, h_tokens, gold=gold)
    event = st.plotly_chart(figure, key=f"{key}_grid_{version}", on_select="rerun", selection_mode="points")
    changes = clicked_links(event.selection.points, len(p_tokens), len(h_tokens)) \
        if event is not None and event.selection else set()
    if changes:
        st.session_state[f"{key}_links"] = toggle(links, changes)
        st.session_state[f"{key}_version"] = version + 1
        st.rerun()  # redraw under a new key, so this click is applied once
    st.caption("Click a cell to add or remove that link"
               + (" (colours compare with the dataset's gold alignment)." if gold else "."))

    covered = len({h for _, h in working.links})
    cols = st.columns(4)
    cols[0].metric("Links", len(working.links), delta=len(working.links) - len(begin.links) or None)
    cols[1].metric("Hypothesis tokens aligned", f"{covered} / {len(h_tokens)}")
    if gold is not None:
        now, before = score_pair(pair.id, working, gold), score_pair(pair.id, begin, gold)
        cols[2].metric("Precision / recall", f"{now.precision:.2f} / {now.recall:.2f}")
        cols[3].metric("F1 against gold", f"{now.f1:.3f}", delta=round(now.f1 - before.f1, 3) or None)
    _render_manli_decision(loaded, pair, working)
    who = author()
    if st.button("Save as corrected alignment", key=f"{key}_save", type="primary", disabled=not who,
                 help=None if who else "Type your name in the sidebar's Annotator box first."):
        store.add_gold_alignment(dataset_id, pair.id, working, author=who,
                                 text_tokens=p_tokens, hypothesis_tokens=h_tokens)
        st.success(f"Saved {len(working.links)} links for pair {pair.id}.")
        saved = store.gold_alignment(dataset_id, pair.id)
    if saved is not None:
        st.caption(f"Saved correction: {len(saved.alignment.links)} links, by {plain(saved.author)} "
                   f"({saved.created_at[:16].replace('T', ' ')}).")


def _render_manli_decision(loaded: LoadedDataset, pair: Pair, working: Alignment) -> None:
    """The entailment decision MANLI's weights give the alignment being edited, beside the
    decision for the alignment MANLI itself decodes; it follows every click."""
    from components.data import default_cutoff
    from explorer.aligners import get_aligner
    from explorer.aligners.manli import ManliAligner

    analysed = analyze_pair(pair)
    if (len(analysed.text), len(analysed.hypothesis)) != (working.p_len, working.h_len):
        st.caption("MANLI cannot score this alignment: the dataset's tokens differ from the explorer's.")
        return
    aligner = get_aligner("manli")
    assert isinstance(aligner, ManliAligner)
    # MANLI's own alignment does not change while links are edited: decode it once per pair.
    decoded_key = f"manli_decoded_{loaded.key}_{pair.id}"
    with st.spinner("Scoring the edited alignment with MANLI..."):
        edited, dropped = aligner.score_alignment(analysed, working)
        if decoded_key not in st.session_state:
            st.session_state[decoded_key] = aligner.align(analysed).normalized
    decoded_score: float = st.session_state[decoded_key]
    cut = default_cutoff(loaded, "manli")
    verdict = "entails" if edited.normalized > cut.value else "does not entail"
    gold_note = ""
    if pair.entails is not None:
        gold_note = f" — gold: {pair.label} ({'right' if (edited.normalized > cut.value) == pair.entails else 'wrong'})"
    st.markdown(
        f"**MANLI on this alignment**: score {edited.normalized:.4f} per token "
        f"({'>' if edited.normalized > cut.value else '≤'} cutoff {cut.value:.3f}, {cut.source}): "
        f"**{verdict}**{gold_note}. MANLI's own alignment scores {decoded_score:.4f}."
    )
    if dropped:
        st.caption(f"{dropped} link(s) cannot be held by one-to-one phrase edits and were left out of this score.")
