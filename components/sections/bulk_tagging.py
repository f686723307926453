"""Bulk tagging under the Dataset table: tag (or untag) every pair the filters show at
once, and the stored tags as a column of the table."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components.data import LoadedDataset
from components.store_access import author_caption, get_store, known_dataset_id, store_dataset_id
from components.text import count
from explorer.store import StoreError


def with_tags(loaded: LoadedDataset, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (one row per pair, an ``id`` column) with a ``tags`` column from the store
    (unchanged when the store cannot be opened). A dataset not in the store has no tags
    yet: it is not registered for them (tagging registers it)."""
    try:
        dataset_id = known_dataset_id(loaded)
        tags = get_store().tags_by_pair(dataset_id) if dataset_id is not None else {}
    except StoreError:
        return table
    return table.assign(tags=[", ".join(tags.get(pair_id, ())) for pair_id in table["id"]])


def render_bulk_tagging(loaded: LoadedDataset, pair_ids: Sequence[str], *, key: str = "bulk") -> None:
    """Tag (or untag) every pair in ``pair_ids`` at once: the Dataset table's filtered rows
    (widget keys start with ``key``)."""
    if not pair_ids:
        return
    try:
        store = get_store()
        taxonomy = [t.name for t in store.tags()]
    except StoreError as error:
        st.warning(f"Bulk tagging is unavailable: {error}")
        return
    with st.expander(f"Tag the {count(len(pair_ids), 'pair')} shown"):
        with st.form(f"{key}_tagging", border=False):
            tags = st.multiselect("Tags", taxonomy, key=f"{key}_tags")
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
            if add:  # the dataset is registered in the store when first tagged
                n = store.tag_pairs(store_dataset_id(loaded), list(pair_ids), tags, author=who)
                st.success(f"Added {count(n, 'tag')} to {count(len(pair_ids), 'pair')}.")
            elif remove:
                dataset_id = known_dataset_id(loaded)
                n = store.untag_pairs(dataset_id, list(pair_ids), tags) if dataset_id is not None else 0
                st.success(f"Removed {count(n, 'tag')}.")
        except StoreError as error:
            st.error(f"Nothing was saved: {error}")
