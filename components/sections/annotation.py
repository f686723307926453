"""The Pair page's annotation section: tags and notes for a dataset pair, its corrected
alignment (:mod:`components.sections.alignment_editor`) and a counterfactual copy
(:mod:`components.sections.counterfactual`), one tab each.

A store that cannot be opened becomes a warning, never a broken page.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from components import state
from components.data import LoadedDataset
from components.sections.counterfactual import render_counterfactual
from components.state import find_pair, selected_pair_id
from components.store_access import author_caption, get_store, store_dataset_id
from components.text import plain
from explorer.pairs import Pair
from explorer.store import MAX_AUTHOR_CHARS, MAX_NOTE_CHARS, StoreError


def _in_dataset(loaded: LoadedDataset, pair: Pair) -> bool:
    return any(p.id == pair.id and p.text == pair.text and p.hypothesis == pair.hypothesis
               for p in loaded.dataset.pairs)


def render_annotation_section(loaded: LoadedDataset, pair: Pair) -> None:
    """Tags, notes and the counterfactual editor for the pair shown on the Pair page."""
    original = next((p for p in loaded.dataset.pairs if p.id == pair.id), None) \
        if _in_dataset(loaded, pair) else None
    from components.sections.alignment_editor import render_alignment_editor

    tab_annotate, tab_align, tab_counterfactual = st.tabs(["Tags and notes", "Alignment", "Counterfactual"])
    stored_tabs: tuple[tuple[object, str, Callable[[LoadedDataset, Pair], None], str], ...] = (
        (tab_annotate, "Tags and notes belong to dataset pairs; pick a pair above (this one is edited or typed).",
         _annotation_form, "Annotations are unavailable"),
        (tab_align, "Corrected alignments belong to dataset pairs; pick a pair above.",
         render_alignment_editor, "Alignment editing is unavailable"),
    )
    for tab, without_pair, draw, unavailable in stored_tabs:
        with tab:  # type: ignore[attr-defined]
            if original is None:
                st.caption(without_pair)
                continue
            try:
                draw(loaded, original)
            except StoreError as error:
                st.warning(f"{unavailable}: {error}")
    with tab_counterfactual:
        # An edited pair is compared with the dataset pair it was edited from.
        base = original or find_pair(loaded, selected_pair_id()) or pair
        render_counterfactual(base, stored=_stored_rewrites(loaded, base))


def _stored_rewrites(loaded: LoadedDataset, pair: Pair) -> dict[str, tuple[str, str]]:
    """The what-if rewrites of ``pair`` kept in the store (the Groups page's, or
    ``rewrite --save``'s): rule -> (text, hypothesis); empty when the store cannot be read."""
    try:
        records = get_store().counterfactuals(store_dataset_id(loaded), original_id=pair.id)
    except StoreError:
        return {}
    return {r.rule: (r.text, r.hypothesis) for r in records}


def _annotation_form(loaded: LoadedDataset, pair: Pair) -> None:
    store = get_store()
    dataset_id = store_dataset_id(loaded)
    taxonomy = [t.name for t in store.tags()]
    descriptions = {t.name: t.description for t in store.tags()}
    key = f"{loaded.key}_{pair.id}"
    # A fresh note box after each save (a form keeps a widget's typed value otherwise).
    saves = state.ANNOTATION_SAVES.setdefault(dict)
    note_widget = state.annotation_note(key, saves.get(key, 0))
    current = store.pair_tags(dataset_id, pair.id)
    seen = state.SEEN_TAGS.setdefault(dict)
    tag_widget = state.annotation_tags(key)
    if key not in seen or not tag_widget.present():
        seen[key] = current
        tag_widget.set(current)
    with st.form(f"annotate_{key}", border=False):
        left, right = st.columns([3, 1])
        chosen = left.multiselect(
            "Tags", taxonomy, key=tag_widget.key, help="Why does the method get this pair wrong (or right)? "
            + "; ".join(f"{plain(n)}: {plain(d)}" for n, d in descriptions.items() if d),
        )
        who = author_caption(right)
        # max_chars: the browser stops typing there and Streamlit cuts anything longer a client sends
        note = st.text_input("Add a note", key=note_widget.key, max_chars=MAX_NOTE_CHARS,
                             placeholder="What decides this pair?",
                             help=f"At most {MAX_NOTE_CHARS:,} characters: everyone who opens this pair reads it.")
        saved = st.form_submit_button("Save annotation", type="primary")
    if saved and not who:
        st.warning("Nothing was saved: type your name in the sidebar's *Annotator* box first (it is kept with every tag and note).")
    elif saved:
        store.set_pair_tags(dataset_id, pair.id, chosen, author=who, previous=seen[key])
        if note.strip():
            store.add_note(dataset_id, pair.id, note, author=who)
        seen.pop(key, None)  # re-read what is stored now, other sessions' changes included
        saves[key] = saves.get(key, 0) + 1
        tag_widget.pop()
        st.toast(f"Saved the annotation of pair {plain(pair.id)}.")
        st.rerun()
    stored = store.pair_tags(dataset_id, pair.id)
    st.caption("Stored tags: " + (", ".join(plain(t) for t in stored) if stored else "none yet"))
    notes = store.notes(dataset_id, pair.id)
    for n in notes:
        # Other annotators' words: shown as typed, never as Markdown (no remote images or links).
        st.markdown(f"- **{plain(n.author[:MAX_AUTHOR_CHARS])}** ({n.created_at[:16].replace('T', ' ')}): "
                    f"{plain(_shown_note(n.body))}")


def _shown_note(body: str) -> str:
    """A note as the page shows it: one written before the store bounded notes is cut at
    :data:`MAX_NOTE_CHARS` (the export keeps it whole)."""
    if len(body) <= MAX_NOTE_CHARS:
        return body
    return f"{body[:MAX_NOTE_CHARS]} ... ({len(body) - MAX_NOTE_CHARS:,} more characters, in the annotation export)"
