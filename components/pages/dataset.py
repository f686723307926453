"""Dataset page: choose the dataset (built-in sample, an uploaded file, or an installed
NLTK RTE file), browse it in a sortable, filterable table, and open a pair on the Pair
page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from components import state, uploads
from components.data import (
    SAMPLE_ABOUT,
    SAMPLES,
    LoadedDataset,
    dataset_best_cutoff,
    dataset_scores,
    labelled_mask,
    load_file,
    nltk_rte_files,
    remember_upload,
)
from components.guard import attempt
from components.sections import batch_results
from components.sections.bulk_tagging import render_bulk_tagging, with_tags
from components.state import current_dataset, open_pair, set_dataset
from components.text import count, label_kind, plain
from explorer.datasets import LOADERS, DatasetError
from explorer.scorers import SCORERS

SAMPLE = "Built-in sample"
UPLOAD = "Upload a file"
NLTK = "NLTK RTE corpus"
ALL, CORRECT, WRONG = "all", "correct", "incorrect"


def source_controls() -> LoadedDataset | None:
    """Where the data comes from; returns a newly chosen dataset, or None to keep the
    current one. A file that fails to load is reported and changes nothing."""
    current = current_dataset()
    rte_files = nltk_rte_files()
    options = [SAMPLE, UPLOAD] + ([NLTK] if rte_files else [])
    by_origin = {"built-in sample": SAMPLE, "uploaded file": UPLOAD, "NLTK RTE corpus": NLTK}
    state.DATASET_SOURCE.setdefault(lambda: by_origin.get(current.origin, SAMPLE))
    source = st.radio("Source", options, horizontal=True, key=state.DATASET_SOURCE.key)
    if not rte_files:
        st.caption("NLTK's RTE corpus is not installed (`python -m explorer resources --download`); the sample and uploads still work.")
    if source == SAMPLE:
        names = list(SAMPLES)
        index = next((i for i, n in enumerate(names) if SAMPLES[n].name == current.name), 0)
        choice = st.selectbox("Sample", names, index=index, key="dataset_sample")
        if SAMPLES[choice].name in SAMPLE_ABOUT:
            st.caption(SAMPLE_ABOUT[SAMPLES[choice].name])
        return load_file(SAMPLES[choice], origin="built-in sample")
    if source == NLTK:
        names = list(rte_files)
        index = names.index(current.name) if current.name in names else 0
        choice = st.selectbox("RTE file", names, index=index, key="dataset_nltk")
        return load_file(rte_files[choice], origin="NLTK RTE corpus")
    formats = "; ".join(f"{info.description}" for info in LOADERS.values())
    upload = st.file_uploader("Dataset file", key="dataset_upload", max_upload_size=uploads.MAX_UPLOAD_MB,
                              help=f"Recognised by content and extension: {formats}. {uploads.describe_limits()}")
    if upload is None:
        if current.origin == "uploaded file":
            st.caption(f"Showing the uploaded {plain(current.name)}; upload another file to replace it.")
        else:
            st.info(f"Upload a dataset file. Formats: {formats}.")
        return None
    return remember_upload(upload.getvalue(), upload.name)


def choose_dataset() -> LoadedDataset:
    try:
        chosen = source_controls()
    except DatasetError as err:
        st.error(f"Could not load this file, so the dataset is unchanged: {plain(err)}")
        return current_dataset()
    if chosen is not None:
        set_dataset(chosen)
    return current_dataset()


def build_table(loaded: LoadedDataset, scorer: str) -> tuple[pd.DataFrame, float | None, str]:
    """One row per pair, with the scorer's value and, for labelled data, the decision at
    the best cutoff on this dataset and whether it is correct."""
    pairs = loaded.dataset.pairs
    scores = dataset_scores(loaded, scorer)
    table = pd.DataFrame({
        "id": [p.id for p in pairs],
        "task": [p.task or "" for p in pairs],
        "gold": [p.label or ("" if p.score is None else f"{p.score:g}") for p in pairs],
        "text": [p.text for p in pairs],
        "hypothesis": [p.hypothesis for p in pairs],
        "score": np.round(scores, 4),
    })
    best = dataset_best_cutoff(loaded, scorer)
    if best is None:
        return table, None, "no entailment labels, so no decisions"
    cutoff = best[0]
    decided = scores > cutoff
    table["decision"] = np.where(decided, "entails", "does not entail")
    mask = labelled_mask(loaded)
    correct = decided == np.array([bool(p.entails) for p in pairs])
    table["correct"] = pd.array([bool(c) if m else pd.NA for c, m in zip(correct, mask)], dtype="boolean")
    where = "this dataset" if mask.all() else f"its {int(mask.sum())} labelled pairs ({int((~mask).sum())} unlabelled left out)"
    return table, cutoff, f"cutoff {cutoff:.4f}, best on {where} ({100 * best[1]:.1f}% accuracy)"


#: The table's columns, left to right: what decides and what was decided first, the
#: sentences last (they are wide, and used to push decision, correct and tags off-screen).
COLUMN_ORDER = ("id", "task", "gold", "decision", "correct", "score", "tags", "hypothesis", "text")
#: The tag filter's choice for pairs without any tag.
UNTAGGED = "(no tag)"


def pair_tags(cell: str) -> set[str]:
    """The tags in a ``tags`` cell ("a, b")."""
    return {t.strip() for t in cell.split(",") if t.strip()}


def filter_table(
    table: pd.DataFrame, *, labels: list[str], tasks: list[str], outcome: str,
    score_range: tuple[float, float], search: str, tags: list[str] | None = None,
) -> pd.DataFrame:
    """The rows that pass every filter (an empty selection means no filter). ``tags``
    keeps pairs carrying any of them; :data:`UNTAGGED` stands for pairs with none."""
    keep = pd.Series(True, index=table.index)
    if labels:
        keep &= table["gold"].isin(labels)
    if tasks:
        keep &= table["task"].isin(tasks)
    if tags and "tags" in table:
        wanted = set(tags)
        keep &= table["tags"].map(lambda cell: bool(pair_tags(cell) & wanted) or (UNTAGGED in wanted and not pair_tags(cell)))
    if outcome != ALL and "correct" in table:
        keep &= (table["correct"] == (outcome == CORRECT)).fillna(False).astype(bool)  # unlabelled: neither
    keep &= table["score"].between(score_range[0], score_range[1])
    needle = search.strip().lower()
    if needle:
        haystack = table["id"].str.lower() + "\n" + table["text"].str.lower() + "\n" + table["hypothesis"].str.lower()
        keep &= haystack.str.contains(needle, regex=False)
    return table[keep]


def main() -> None:
    st.title("Dataset")
    if batch_results.dataset_section():  # a whole-corpus batch result is open
        return
    loaded = choose_dataset()
    dataset = loaded.dataset
    st.caption(
        f"**{plain(loaded.name)}** ({loaded.origin}): {count(len(dataset), 'pair')}, "
        + label_kind(dataset.kind, int(labelled_mask(loaded).sum()), len(dataset))
        + (f", tasks {plain(', '.join(dataset.tasks))}" if dataset.tasks else "")
        + f"; read as {LOADERS[dataset.format].description}."
    )
    for note in dataset.notes:
        st.caption(plain(note))
    interactive = [n for n, info in SCORERS.items() if info.interactive]
    names = interactive + [n for n in SCORERS if n not in interactive]
    left, right = st.columns([1, 3])
    scorer = left.selectbox(
        "Scorer", names, index=names.index("mbleu") if "mbleu" in names else 0,
        format_func=lambda n: SCORERS[n].label + ("" if SCORERS[n].interactive else " (slow)"),
        key="dataset_scorer", persist_state="session",
    )
    with st.spinner(f"Scoring {len(dataset)} pairs with {SCORERS[scorer].label}..."):
        built = attempt(lambda: build_table(loaded, scorer), SCORERS[scorer].label, where=f"on {plain(loaded.name)}",
                        then=". Choose another scorer.")
    if built is None:  # the other scorers remain choosable
        return
    table, cutoff, how = built
    right.caption(f"Decisions: score > cutoff means entails; {how}.")
    table = with_tags(loaded, table)

    # Filters keep their values for the session, across pages (persist_state), so a
    # return from the Pair page finds the table as it was left.
    f1, f2, f3 = st.columns(3)
    labels = f1.multiselect("Gold label", sorted(set(table["gold"]) - {""}), key="filter_gold", persist_state="session")
    tasks = f2.multiselect("Task", list(dataset.tasks), key="filter_task", persist_state="session")
    outcome = f3.radio(
        "Decision", [ALL, CORRECT, WRONG], horizontal=True, key="filter_outcome",
        disabled=cutoff is None, persist_state="session",
    )
    g1, g2, g3 = st.columns(3)
    low, high = float(table["score"].min()), float(table["score"].max())
    if high <= low:
        high = low + 1e-3
    score_range = g1.slider("Score range", low, high, (low, high), format="%.3f",
                            key=f"filter_score_{scorer}_{loaded.key}", persist_state="session")
    known_tags = sorted(set().union(*map(pair_tags, table["tags"]))) if "tags" in table else []
    tags = g2.multiselect("Tagged with", [*known_tags, UNTAGGED], key="filter_tags", persist_state="session",
                          help="Pairs carrying any of the chosen tags (tag them here or on the Pair page).")
    search = g3.text_input("Search text, hypothesis or id", key="filter_search", persist_state="session")
    shown = filter_table(table, labels=labels, tasks=tasks, outcome=outcome, score_range=score_range, search=search,
                         tags=tags)
    st.caption(f"{len(shown):,} of {count(len(table), 'pair')}. Click a row to open it on the Pair page; "
               "click a column header to sort.")
    if shown.empty:
        st.info("No pair passes these filters.")
        return
    event = st.dataframe(
        shown, key=state.DATASET_TABLE.key, on_select="rerun", selection_mode="single-row", hide_index=True, width="stretch",
        column_order=[c for c in COLUMN_ORDER if c in shown.columns],
        column_config={
            "score": st.column_config.NumberColumn(format="%.4f"),
            "text": st.column_config.TextColumn(width="large"),
            "hypothesis": st.column_config.TextColumn(width="large"),
            "decision": st.column_config.TextColumn(width=115),
            "correct": st.column_config.CheckboxColumn(width="small"),
        },
    )
    rows = event.selection.rows if event is not None else []
    if rows:
        open_pair(str(shown.iloc[rows[0]]["id"]))
    render_bulk_tagging(loaded, list(shown["id"]))
    left, right = st.columns([3, 1])
    pick = left.selectbox("Or pick a pair", list(shown["id"]), key="dataset_pick")
    if right.button("Open on the Pair page", key="dataset_open") and pick is not None:
        open_pair(str(pick))


main()
