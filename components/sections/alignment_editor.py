"""Alignment editing on the Pair page: click cells of the shared alignment grid (or pick
two tokens) to add or remove links, watch precision / recall / F1 against the dataset's
gold alignment change, and save the result as a corrected alignment in the store.

The grid is :func:`components.figures.alignment.clickable_grid` (the shared alignment
grid with one invisible, clickable marker per cell on top); a click arrives as a Plotly
selection event. The editor is a fragment (a click reruns the editor alone, not the Pair
page), and it reads the event *before* drawing: the click toggles that link and the grid is
drawn once, under a new key, so the old selection is not applied twice and no second run
is needed. The working copy lives in :func:`components.state.alignment_editor`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from components import analysis, charts, state, workers
from components.cutoffs import page_cutoff
from components.data import LoadedDataset
from components.figures.alignment import clickable_grid, clicked_links
from components.guard import attempt, guarded
from components.panels.shared import fitting_gold
from components.state import Slot
from components.store_access import author, get_store, store_dataset_id
from components.text import plain
from explorer.aligners.evaluation import score_pair
from explorer.alignment import Alignment, Link
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.store import GoldAlignmentRecord, Store, StoreError
from runtime.pool import tasks

EMPTY = "empty grid"
STORED = "saved correction"
GOLD = "the dataset's gold alignment"


def pair_tokens(pair: Pair) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tokens links index: the dataset's own when it gives them, else ours."""
    if pair.text_tokens is not None and pair.hypothesis_tokens is not None:
        return pair.text_tokens, pair.hypothesis_tokens
    analyzed = analyze_pair(pair)
    return analyzed.text.tokens, analyzed.hypothesis.tokens


def toggle(links: frozenset[Link], changes: set[Link]) -> frozenset[Link]:
    """Links with each of ``changes`` added when absent and removed when present."""
    return frozenset(links ^ changes)


@st.fragment
def render_alignment_editor(loaded: LoadedDataset, pair: Pair) -> None:
    """The editor for one dataset pair (a fragment: its widgets rerun only it). A fragment
    rerun runs outside the page's handlers, so the editor has its own: a store that cannot
    be opened is a warning, anything else a one-line error, never a traceback."""

    def body() -> None:
        try:
            _render_editor(loaded, pair)
        except StoreError as error:
            st.warning(f"Alignment editing is unavailable: {error}")

    guarded(body, what="the alignment editor")


def _render_editor(loaded: LoadedDataset, pair: Pair) -> None:
    from explorer.aligners import ALIGNERS

    key = f"align_edit_{loaded.key}_{pair.id}"
    # Behind a toggle: the grid (and any aligner run) only when the user wants to edit.
    if not st.toggle("Edit this pair's alignment", key=f"{key}_on",
                     help="Start from the saved correction, the dataset's gold or an aligner; "
                          "click cells to add or remove links; save as a corrected alignment."):
        return
    store = get_store()
    dataset_id = store_dataset_id(loaded)
    p_tokens, h_tokens = pair_tokens(pair)
    gold = fitting_gold(pair, len(p_tokens), len(h_tokens))
    saved = _fitting_saved(store.gold_alignment(dataset_id, pair.id), len(p_tokens), len(h_tokens))

    # Aligners last: the default start must not cost a decode on every pair opened.
    starts = ([STORED] if saved else []) + ([GOLD] if gold else []) + [EMPTY] + list(ALIGNERS)
    start = st.selectbox("Start from", starts, key=f"{key}_start",
                         format_func=lambda s: ALIGNERS[s].label + " aligner" if s in ALIGNERS else s)
    editing = state.alignment_editor(key)
    current = editing.get()
    if current is None or current.start != start:
        begin = _starting_alignment(start, pair, (len(p_tokens), len(h_tokens)),
                                    saved=saved.alignment if saved else None, gold=gold)
        current = state.EditorState(start, begin, begin.sure, begin.possible)
        editing.set(current)

    # Two tokens and a button: the same edit without the mouse (and for keyboard users).
    c1, c2, c3 = st.columns([2, 2, 1])
    p = c1.selectbox("Text token", range(len(p_tokens)), key=f"{key}_p",
                     format_func=lambda i: f"{i}: {p_tokens[i]}")
    h = c2.selectbox("Hypothesis token", range(len(h_tokens)), key=f"{key}_h",
                     format_func=lambda i: f"{i}: {h_tokens[i]}")
    if c3.button("Add / remove link", key=f"{key}_toggle") and p is not None and h is not None:
        current = _toggled(editing, current, {(p, h)})

    # A click on the grid drawn last time: apply it now, then draw the grid once under a
    # new key (so this selection is never applied twice).
    changes = _clicked(state.chart_event(f"{key}_grid_{current.version}").get(), len(p_tokens), len(h_tokens))
    if changes:
        current = _toggled(editing, current, changes)
    working = Alignment(len(p_tokens), len(h_tokens), sure=current.links, possible=current.possible - current.links)
    figure = clickable_grid(working, p_tokens, h_tokens, gold=gold)
    charts.plotly_chart(figure, key=f"{key}_grid_{current.version}", on_select="rerun", selection_mode="points")
    st.caption("Click a cell to add or remove that link"
               + (" (colours compare with the dataset's gold alignment)." if gold else "."))

    _edit_metrics(pair, working, current.begin, gold, h_len=len(h_tokens))
    _render_manli_decision(loaded, pair, working)
    _save_controls(key, store, dataset_id, pair, working, (p_tokens, h_tokens), saved)


def _fitting_saved(saved: GoldAlignmentRecord | None, p_len: int, h_len: int) -> GoldAlignmentRecord | None:
    """The saved correction, unless it was made on other tokens than the pair has now."""
    if saved is not None and (saved.alignment.p_len, saved.alignment.h_len) != (p_len, h_len):
        return None
    return saved


def _starting_alignment(
    start: str, pair: Pair, shape: tuple[int, int], *, saved: Alignment | None, gold: Alignment | None,
) -> Alignment:
    """The alignment an edit begins from: the saved correction, the gold alignment, an
    aligner's output (empty, with a warning, when it fails or tokenises differently) or
    an empty grid."""
    from explorer.aligners import ALIGNERS

    empty = Alignment(*shape)
    if start == STORED and saved is not None:
        return saved
    if start == GOLD and gold is not None:
        return gold
    if start not in ALIGNERS:
        return empty
    aligned = attempt(lambda: analysis.align(start, analyze_pair(pair)).alignment,
                      ALIGNERS[start].label, where="on this pair", level="warning",
                      then="; starting from an empty grid.")
    if aligned is None:
        return empty
    if (aligned.p_len, aligned.h_len) != shape:
        st.warning("This aligner tokenises differently from the dataset; starting from an empty grid.")
        return empty
    return aligned


def _toggled(editing: Slot[state.EditorState], current: state.EditorState, changes: set[Link]) -> state.EditorState:
    """The working copy with ``changes`` toggled, under a new version (so the grid is drawn
    under a new key), stored in the session."""
    current = replace(current, links=toggle(current.links, changes), version=current.version + 1)
    editing.set(current)
    return current


def _edit_metrics(pair: Pair, working: Alignment, begin: Alignment, gold: Alignment | None, *, h_len: int) -> None:
    """Links and coverage of the edited alignment; with a gold alignment, its precision,
    recall and F1 against it (the change since the start as the delta)."""
    covered = len({h for _, h in working.links})
    cols = st.columns(4)
    cols[0].metric("Links", len(working.links), delta=len(working.links) - len(begin.links) or None)
    cols[1].metric("Hypothesis tokens aligned", f"{covered} / {h_len}")
    if gold is not None:
        now, before = score_pair(pair.id, working, gold), score_pair(pair.id, begin, gold)
        cols[2].metric("Precision / recall", f"{now.precision:.2f} / {now.recall:.2f}")
        cols[3].metric("F1 against gold", f"{now.f1:.3f}", delta=round(now.f1 - before.f1, 3) or None)


def _save_controls(
    key: str, store: Store, dataset_id: int, pair: Pair, working: Alignment,
    tokens: tuple[tuple[str, ...], tuple[str, ...]], saved: GoldAlignmentRecord | None,
) -> None:
    """The save button (for a named annotator) and what is saved now."""
    who = author()
    if st.button("Save as corrected alignment", key=f"{key}_save", type="primary", disabled=not who,
                 help=None if who else "Type your name in the sidebar's Annotator box first."):
        store.add_gold_alignment(dataset_id, pair.id, working, author=who,
                                 text_tokens=tokens[0], hypothesis_tokens=tokens[1])
        st.success(f"Saved {len(working.links)} links for pair {plain(pair.id)}.")
        saved = store.gold_alignment(dataset_id, pair.id)
    if saved is not None:
        st.caption(f"Saved correction: {len(saved.alignment.links)} links, by {plain(saved.author)} "
                   f"({saved.created_at[:16].replace('T', ' ')}).")


def _clicked(event: Any, p_len: int, h_len: int) -> set[Link]:
    """The cells a chart's selection event names (none without an event)."""
    if not event:
        return set()
    selection = event.get("selection") if isinstance(event, dict) else getattr(event, "selection", None)
    if not selection:
        return set()
    points = selection.get("points") if isinstance(selection, dict) else getattr(selection, "points", None)
    return clicked_links(points or [], p_len, h_len)


def _render_manli_decision(loaded: LoadedDataset, pair: Pair, working: Alignment) -> None:
    """The entailment decision MANLI's weights give the alignment being edited, beside the
    decision for the alignment MANLI itself decodes; it follows every click."""
    analysed = analyze_pair(pair)
    if (len(analysed.text), len(analysed.hypothesis)) != (working.p_len, working.h_len):
        st.caption("MANLI cannot score this alignment: the dataset's tokens differ from the explorer's.")
        return
    # On a worker, per click: the manli scorer's entailment value for this alignment.
    edited, dropped = workers.run(tasks.manli_on_alignment, pair, working, what="Scoring the edited alignment with MANLI")
    # MANLI's own alignment does not change while links are edited: decode it once per pair.
    decoded_score = state.manli_decoded(loaded.key, pair.id).setdefault(
        lambda: float(analysis.align("manli", analysed).value))
    cut = page_cutoff(loaded, "manli", typed=pair.source == "typed")
    verdict = "entails" if edited > cut.value else "does not entail"
    gold_note = ""
    if pair.entails is not None:
        gold_note = f" — gold: {pair.label} ({'right' if (edited > cut.value) == pair.entails else 'wrong'})"
    st.markdown(
        f"**MANLI on this alignment**: entailment score {edited:.4f} "
        f"({'>' if edited > cut.value else '≤'} cutoff {cut.value:.3f}, {plain(cut.origin)}): "
        f"**{verdict}**{gold_note}. MANLI's own alignment scores {decoded_score:.4f}."
    )
    if dropped:
        st.caption(f"{dropped} link(s) cannot be held by one-to-one phrase edits and were left out of this score.")
