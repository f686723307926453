"""Errors page: the current dataset's tags cross-tabulated by task, gold label and
correct/incorrect under a chosen scorer; the tagged pairs behind each count; exports
(CSV, JSON; corrected alignments as MSR and sureAlign JSON); the tag taxonomy editor."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.cutoffs import page_cutoff
from components.data import LoadedDataset
from components.guard import attempt
from components.sections import batch_results
from components.sections.batch_results import BatchRuns
from components.state import current_dataset, open_pair
from components.store_access import get_store, scorer_run, store_dataset_id
from components.text import count, plain
from explorer.decision.cutoffs import CutoffChoice
from explorer.scorers import SCORERS
from explorer.store import Store, StoreError
from explorer.store.crosstab import DIMENSIONS, OUTCOMES, CrossTab, annotated_pairs, crosstab
from explorer.store.exports import (
    annotations_to_csv,
    annotations_to_json,
    stored_gold_alignments,
    to_msr,
    to_sure_align_json,
)

NO_RUN = "(no scorer: count tags only)"
ANY = "(any)"


def run_controls(loaded_name: str, stored: list[str] | None = None) -> str | None:
    """The scorer whose decisions say correct / incorrect (None: no decisions); ``stored``:
    the scorers of a batch result's runs, when one is open."""
    interactive = SCORERS.names(interactive=True)
    options = [NO_RUN, *(stored if stored is not None else interactive)]
    default = options.index("mbleu") if "mbleu" in options else 0
    choice = st.selectbox(
        "Correct / incorrect under", options, index=default, key="errors_scorer",
        format_func=lambda n: n if n == NO_RUN or n not in SCORERS else SCORERS[n].label,
        help=f"The scorer's decision on {plain(loaded_name)} (score > the cutoff every page decides by: the "
             "development set's chosen on the Evaluate page, else the model's own or the data's) against the gold "
             "label. The run is recorded in the store the first time.",
    )
    return None if choice == NO_RUN else choice


def taxonomy_editor() -> None:
    store = get_store()
    with st.expander("Edit the tag taxonomy"):
        # Additions first, so the table and the picker below already list a new tag.
        with st.form("taxonomy_add", border=False):
            left, right = st.columns([1, 2])
            name = left.text_input("New tag", key="taxonomy_new")
            description = right.text_input("What it means", key="taxonomy_description")
            if st.form_submit_button("Add tag"):
                try:
                    store.add_tag(name, description)
                    st.success(f"Added {plain(name.strip().lower())}.")
                except StoreError as error:
                    st.error(plain(error))
        tags = store.tags()
        st.dataframe(pd.DataFrame([{"tag": t.name, "description": t.description} for t in tags]),
                     hide_index=True, width="stretch")
        with st.form("taxonomy_change", border=False):
            left, mid, right = st.columns(3)
            old = left.selectbox("Tag", [t.name for t in tags], key="taxonomy_pick")
            new = mid.text_input("Rename to", key="taxonomy_rename")
            force = right.checkbox("Also remove it from pairs", key="taxonomy_force")
            rename, delete = st.columns(2)
            renamed = rename.form_submit_button("Rename")
            deleted = delete.form_submit_button("Delete")
        try:
            if renamed and old:
                store.rename_tag(old, new)
                st.toast(f"Renamed {plain(old)} to {plain(new.strip().lower())}.")
                st.rerun()  # the table and the tag pickers above list the old name
            if deleted and old:
                n = store.delete_tag(old, force=force)
                st.toast(f"Deleted {plain(old)}" + (f" and removed it from {n} pairs." if n else "."))
                st.rerun()
        except StoreError as error:
            st.error(plain(error))


#: One download: button label, contents, file-name suffix, MIME type, widget key.
Download = tuple[str, str, str, str, str]


def _downloads(name: str, *downloads: Download) -> None:
    """Download buttons side by side, each file named after the dataset."""
    stem = name.rsplit(".", 1)[0]
    for column, (label, data, suffix, mime, key) in zip(st.columns(len(downloads)), downloads, strict=True):
        column.download_button(label, data, f"{stem}{suffix}", mime, key=key)


def _run_of(scorer: str | None, batch: BatchRuns | None, loaded: LoadedDataset, name: str) -> tuple[int, CutoffChoice] | None:
    """The store's run of ``scorer`` (the batch result's, or one recorded now by scoring the
    dataset) and the cutoff every page decides it by (:func:`components.cutoffs.page_cutoff`);
    None without a scorer or when scoring fails, which is reported."""
    if scorer is None:
        return None
    result = batch_results.active() if batch else None

    def run() -> tuple[int, CutoffChoice]:
        run_id = batch.runs[scorer] if batch else scorer_run(loaded, scorer)
        return run_id, page_cutoff(result if result is not None else loaded, scorer, score=True)

    with st.spinner(f"Scoring {name} with {SCORERS[scorer].label}..."):
        # A failing scorer is reported; counting still works without it.
        return attempt(run, SCORERS[scorer].label, where=f"on {plain(name)}")


def _crosstab_section(table: CrossTab, by: str, name: str) -> None:
    """The tags pivoted by the chosen dimension, every cell, and the cross-tab downloads."""
    if not table.rows:
        st.info("No pair of this dataset is tagged yet. Open a pair and tag it, or tag the "
                "filtered rows of the Dataset table at once.")
        return
    columns, records = table.pivot(by=by)
    frame = pd.DataFrame(records, columns=["tag", *columns, "total"])
    st.subheader("Tags by " + by)
    st.caption("A pair with several tags counts once under each; the last row counts every pair.")
    st.dataframe(frame, hide_index=True, width="stretch", key="errors_pivot")
    detail = pd.DataFrame(table.to_records())
    with st.expander("Every cell (tag x task x label x outcome)"):
        st.dataframe(detail, hide_index=True, width="stretch")
    _downloads(name, ("Cross-tab as CSV", table.to_csv(), "-crosstab.csv", "text/csv", "errors_csv"),
               ("Cross-tab as JSON", table.to_json(), "-crosstab.json", "application/json", "errors_json"))


def _annotated_section(store: Store, dataset_id: int, run: tuple[int, CutoffChoice] | None, name: str,
                       batch: BatchRuns | None) -> None:
    """The tagged pairs, filtered by tag and outcome; a row picked opens its pair."""
    st.subheader("Annotated pairs")
    f1, f2 = st.columns(2)
    tag = f1.selectbox("Tag", [ANY, *[t.name for t in store.tags()]], key="errors_tag")
    outcome = f2.selectbox("Outcome", [ANY, *OUTCOMES], key="errors_outcome")
    run_id, cut = (run[0], run[1].value) if run is not None else (None, None)
    records = annotated_pairs(store, dataset_id, run_id, cutoff=cut, tag=None if tag == ANY else tag,
                              outcome=None if outcome == ANY else outcome)
    if not records:
        st.caption("No annotated pair matches.")
        return
    pairs = pd.DataFrame(records).assign(tags=lambda d: d["tags"].map(", ".join))
    event = st.dataframe(pairs, hide_index=True, width="stretch", key="errors_pairs",
                         on_select="rerun", selection_mode="single-row")
    st.caption("Tick a row's box (its left edge) to open the pair.")
    rows = event.selection.rows if event is not None else []
    if rows:
        (batch_results.open_batch_pair if batch else open_pair)(str(pairs.iloc[rows[0]]["pair_id"]))
    _downloads(name, ("Annotations as CSV", annotations_to_csv(records), "-annotations.csv", "text/csv",
                      "annotations_csv"),
               ("Annotations as JSON", annotations_to_json(records), "-annotations.json", "application/json",
                "annotations_json"))


def _alignment_exports(store: Store, dataset_id: int, name: str) -> None:
    """Downloads of the corrected alignments, when the dataset has any."""
    try:
        aligned = stored_gold_alignments(store, dataset_id)
    except StoreError as error:
        st.warning(f"Corrected alignments cannot be exported: {error}")
        aligned = []
    if not aligned:
        return
    st.subheader("Corrected alignments")
    st.caption(f"{count(len(aligned), 'pair')} {'has' if len(aligned) == 1 else 'have'} a corrected alignment (the latest of each is exported).")
    _downloads(name, ("MSR format", to_msr(aligned), ".align.txt", "text/plain", "msr_export"),
               ("sureAlign JSON lines", to_sure_align_json(aligned), ".sure.jsonl", "application/json", "sure_export"))


def main() -> None:
    st.title("Errors")
    loaded = current_dataset()
    batch = batch_results.errors_runs()  # a registered batch result is open: its dataset and runs
    name = batch.name if batch else loaded.name
    try:
        store = get_store()
        dataset_id = batch.dataset_id if batch else store_dataset_id(loaded)
    except StoreError as error:
        st.error(f"The annotation store cannot be opened: {error}")
        return
    # Not the store's path: on a shared server that is the server's file system, no reader's business.
    st.caption(f"Tags recorded on **{plain(name)}** in this app's annotation store. Tag pairs on the Pair page, "
               "or many at once under the Dataset table.")
    left, right = st.columns([2, 1])
    with left:
        scorer = run_controls(name, list(batch.runs) if batch else None)
    by = right.radio("Columns", DIMENSIONS, index=DIMENSIONS.index("outcome"), horizontal=True, key="errors_by")
    run = _run_of(scorer, batch, loaded, name)
    table = crosstab(store, dataset_id, None if run is None else run[0], cutoff=None if run is None else run[1].value)
    if run is not None and scorer is not None:
        st.caption(f"Run #{run[0]}: {SCORERS[scorer].label}, cutoff {run[1].value:.4f} (entails when score > "
                   f"cutoff; {plain(run[1].origin)}), as on every page.")
    _crosstab_section(table, by, name)
    _annotated_section(store, dataset_id, run, name, batch)
    _alignment_exports(store, dataset_id, name)
    taxonomy_editor()

main()
