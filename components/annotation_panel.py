"""Annotation widgets: tags and notes for the pair on the Pair page, bulk tagging from
the Dataset table, and counterfactual editing of a pair.

Pages call one function each (:func:`render_annotation_section`,
:func:`render_bulk_tagging`); a store that cannot be opened becomes a warning, never a
broken page.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components.data import LoadedDataset
from components.state import find_pair, selected_pair_id
from components.store_access import author_caption, get_store, store_dataset_id
from components.text import plain
from explorer.pairs import Pair
from explorer.preprocess import InputError, analyze_pair, make_pair
from explorer.store import StoreError

SEEN_TAGS = "explorer_seen_tags"
SAVES = "explorer_annotation_saves"
TAG_WIDGET = "annotation_tags_{key}"
NOTE_WIDGET = "annotation_note_{key}"


def _in_dataset(loaded: LoadedDataset, pair: Pair) -> bool:
    return any(p.id == pair.id and p.text == pair.text and p.hypothesis == pair.hypothesis
               for p in loaded.dataset.pairs)


def render_annotation_section(loaded: LoadedDataset, pair: Pair) -> None:
    """Tags, notes and the counterfactual editor for the pair shown on the Pair page."""
    original = next((p for p in loaded.dataset.pairs if p.id == pair.id), None) \
        if _in_dataset(loaded, pair) else None
    tab_annotate, tab_align, tab_counterfactual = st.tabs(["Tags and notes", "Alignment", "Counterfactual"])
    with tab_annotate:
        if original is None:
            st.caption("Tags and notes belong to dataset pairs; pick a pair above "
                       "(this one is edited or typed).")
        else:
            try:
                _annotation_form(loaded, original)
            except StoreError as error:
                st.warning(f"Annotations are unavailable: {error}")
    with tab_align:
        if original is None:
            st.caption("Corrected alignments belong to dataset pairs; pick a pair above.")
        else:
            from components.alignment_editor import render_alignment_editor

            try:
                render_alignment_editor(loaded, original)
            except StoreError as error:
                st.warning(f"Alignment editing is unavailable: {error}")
    with tab_counterfactual:
        # An edited pair is compared with the dataset pair it was edited from.
        render_counterfactual(original or find_pair(loaded, selected_pair_id()) or pair)


def _annotation_form(loaded: LoadedDataset, pair: Pair) -> None:
    store = get_store()
    dataset_id = store_dataset_id(loaded)
    taxonomy = [t.name for t in store.tags()]
    descriptions = {t.name: t.description for t in store.tags()}
    key = f"{loaded.key}_{pair.id}"
    # A fresh note box after each save (a form keeps a widget's typed value otherwise).
    saves: dict[str, int] = st.session_state.setdefault(SAVES, {})
    note_key = NOTE_WIDGET.format(key=f"{key}_{saves.get(key, 0)}")
    current = store.pair_tags(dataset_id, pair.id)
    seen: dict[str, list[str]] = st.session_state.setdefault(SEEN_TAGS, {})
    tag_key = TAG_WIDGET.format(key=key)
    if key not in seen or tag_key not in st.session_state:
        seen[key] = current
        st.session_state[tag_key] = current
    with st.form(f"annotate_{key}", border=False):
        left, right = st.columns([3, 1])
        chosen = left.multiselect(
            "Tags", taxonomy, key=tag_key, help="Why does the method get this pair wrong (or right)? "
            + "; ".join(f"{n}: {d}" for n, d in descriptions.items() if d),
        )
        who = author_caption(right)
        note = st.text_input("Add a note", key=note_key,
                             placeholder="What decides this pair?")
        saved = st.form_submit_button("Save annotation", type="primary")
    if saved and not who:
        st.warning("Nothing was saved: type your name in the sidebar's *Annotator* box first (it is kept with every tag and note).")
    elif saved:
        store.set_pair_tags(dataset_id, pair.id, chosen, author=who, previous=seen[key])
        if note.strip():
            store.add_note(dataset_id, pair.id, note, author=who)
        seen.pop(key, None)  # re-read what is stored now, other sessions' changes included
        saves[key] = saves.get(key, 0) + 1
        st.session_state.pop(tag_key, None)
        st.toast(f"Saved the annotation of pair {pair.id}.")
        st.rerun()
    stored = store.pair_tags(dataset_id, pair.id)
    st.caption("Stored tags: " + (", ".join(plain(t) for t in stored) if stored else "none yet"))
    notes = store.notes(dataset_id, pair.id)
    for n in notes:
        # Other annotators' words: shown as typed, never as Markdown (no remote images or links).
        st.markdown(f"- **{plain(n.author)}** ({n.created_at[:16].replace('T', ' ')}): {plain(n.body)}")


def with_tags(loaded: LoadedDataset, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (one row per pair, an ``id`` column) with a ``tags`` column from the store
    (unchanged when the store cannot be opened)."""
    try:
        tags = get_store().tags_by_pair(store_dataset_id(loaded))
    except StoreError:
        return table
    return table.assign(tags=[", ".join(tags.get(pair_id, ())) for pair_id in table["id"]])


def render_bulk_tagging(loaded: LoadedDataset, pair_ids: Sequence[str]) -> None:
    """Tag (or untag) every pair in ``pair_ids`` at once: the Dataset table's filtered rows."""
    if not pair_ids:
        return
    try:
        store = get_store()
        dataset_id = store_dataset_id(loaded)
        taxonomy = [t.name for t in store.tags()]
    except StoreError as error:
        st.warning(f"Bulk tagging is unavailable: {error}")
        return
    with st.expander(f"Tag the {len(pair_ids)} pairs shown"):
        with st.form("bulk_tagging", border=False):
            tags = st.multiselect("Tags", taxonomy, key="bulk_tags")
            who = author_caption()
            add_col, remove_col = st.columns(2)
            add = add_col.form_submit_button(f"Add to all {len(pair_ids)}", type="primary")
            remove = remove_col.form_submit_button(f"Remove from all {len(pair_ids)}")
        if (add or remove) and not tags:
            st.warning("Choose at least one tag.")
            return
        if add and not who:
            st.warning("Nothing was tagged: type your name in the sidebar's *Annotator* box first.")
            return
        try:
            if add:
                n = store.tag_pairs(dataset_id, list(pair_ids), tags, author=who)
                st.success(f"Added {n} tag(s) to {len(pair_ids)} pairs.")
            elif remove:
                n = store.untag_pairs(dataset_id, list(pair_ids), tags)
                st.success(f"Removed {n} tag(s).")
        except StoreError as error:
            st.error(f"Nothing was saved: {error}")


def render_counterfactual(pair: Pair) -> None:
    """Edit the pair in place and see each scorer's change (and each aligner's word links
    gained and lost) beside the original."""
    from explorer.aligners import ALIGNERS, get_aligner
    from explorer.counterfactual import alignment_diff, compare_scores, describe_link
    from explorer.scorers import SCORERS

    key = f"counterfactual_{pair.id}_{hash((pair.text, pair.hypothesis)) & 0xFFFFFF:x}"
    # Behind a toggle: the editors (and the second scoring) only when asked for.
    if not st.toggle("Edit a copy of this pair", key=f"{key}_on",
                     help="The original stays as it is; every method runs on both."):
        return
    left, right = st.columns(2)
    text = left.text_area("Edited text", value=pair.text, key=f"{key}_text", height=110)
    hypothesis = right.text_area("Edited hypothesis", value=pair.hypothesis, key=f"{key}_hyp", height=110)
    if text == pair.text and hypothesis == pair.hypothesis:
        st.info("Change a word above to see how every score moves.")
        return
    try:
        edited = analyze_pair(make_pair(text, hypothesis, pair_id=f"{pair.id} (edited)"))
        original = analyze_pair(pair)
    except InputError as error:
        st.error(f"Cannot score the edited pair: {error}.")
        return
    interactive = [n for n, info in SCORERS.items() if info.interactive]
    rows = compare_scores(original, edited, interactive)
    table = pd.DataFrame([
        {"method": SCORERS[r.method].label, "original": r.original, "edited": r.edited,
         "change": r.change, "error": r.error}
        for r in rows
    ])
    if not table["error"].astype(bool).any():
        table = table.drop(columns="error")
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%+.4f" if c == "change" else "%.4f")
                                for c in ("original", "edited", "change")})
    # Aligners can be slow (decoders, biparsers): only the ones asked for run.
    chosen = st.multiselect("Also compare the alignments of", list(ALIGNERS), key=f"{key}_aligners",
                            default=[n for n in ("bow",) if n in ALIGNERS],
                            format_func=lambda n: ALIGNERS[n].label)
    for name in chosen:
        info = ALIGNERS[name]
        try:
            aligner = get_aligner(name)
            before = aligner.align(original).alignment
            after = aligner.align(edited).alignment
            diff = alignment_diff(before, (original.text.tokens, original.hypothesis.tokens),
                                  after, (edited.text.tokens, edited.hypothesis.tokens))
        except Exception as error:  # one failing aligner must not hide the others
            st.error(f"{info.label} failed on the edited pair: {type(error).__name__}: {error}")
            continue
        gained = ", ".join(describe_link(link) for link in sorted(diff.gained)) or "none"
        lost = ", ".join(describe_link(link) for link in sorted(diff.lost)) or "none"
        st.markdown(f"**{info.label}**: {len(diff.kept)} word links kept; "
                    f"gained: {gained}; lost: {lost}")
