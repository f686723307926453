"""Dataset page: choose the dataset (built-in sample, an uploaded file, or an installed
NLTK RTE file), browse it in a sortable, filterable table, and open a pair on the Pair
page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from components import state, uploads
from components.cutoffs import page_cutoff
from components.data import (
    DEFAULT_SAMPLE,
    MSR_ORIGIN,
    RTE_ORIGIN,
    SAMPLE_ABOUT,
    SAMPLE_DIR,
    SAMPLE_ORIGIN,
    SAMPLES,
    UPLOAD_ORIGIN,
    LoadedDataset,
    dataset_scores,
    is_scored,
    labelled_mask,
    load_file,
    load_msr,
    msr_available,
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
GOLD = "MSR gold alignments"
ALL, CORRECT, WRONG = "all", "correct", "incorrect"
#: Which source each origin of a dataset belongs to.
SOURCE_OF = {SAMPLE_ORIGIN: SAMPLE, UPLOAD_ORIGIN: UPLOAD, RTE_ORIGIN: NLTK, MSR_ORIGIN: GOLD}


#: The Dataset page's search box holds at most this many characters (it is kept in the URL).
SEARCH_MAX_CHARS = 200


def _samples(current: LoadedDataset) -> dict[str, Path]:
    """The built-in samples, and the current dataset when it is another file of the sample
    folder (the hand-written gold alignments the Aligners page opens)."""
    found = dict(SAMPLES)
    if current.origin == SAMPLE_ORIGIN and current.name not in {p.name for p in found.values()}:
        found[current.name] = SAMPLE_DIR / current.name
    return found


def _load_into(load: Callable[[], LoadedDataset]) -> None:
    """Open what a control chose (a widget callback): a file that fails to load changes
    nothing and its error is shown by the page."""
    try:
        set_dataset(load())
    except DatasetError as err:
        state.DATASET_ERROR.set(str(err))


def _chosen_source() -> None:
    """The source changed: open what its picker shows (an upload waits for its file)."""
    source = state.DATASET_SOURCE.get()
    if source == SAMPLE:
        samples = _samples(current_dataset())
        path = samples.get(str(state.DATASET_SAMPLE.get()), DEFAULT_SAMPLE)
        _load_into(lambda: load_file(path, origin=SAMPLE_ORIGIN))
    elif source == NLTK:
        files = nltk_rte_files()
        name = str(state.DATASET_RTE.get() or next(iter(files), ""))
        if name in files:
            _load_into(lambda: load_file(files[name], origin=RTE_ORIGIN))
    elif source == GOLD:
        _load_into(load_msr)


def _sync_controls(current: LoadedDataset) -> None:
    """Show the working dataset in the controls when it was opened elsewhere (another page,
    a link): the controls only change the dataset when they are used."""
    if state.SOURCE_SHOWN.get() == current.key:
        return
    state.SOURCE_SHOWN.set(current.key)
    source = SOURCE_OF.get(current.origin)
    if source is not None:
        state.DATASET_SOURCE.set(source)
    if current.origin == SAMPLE_ORIGIN:
        state.DATASET_SAMPLE.set(next(n for n, p in _samples(current).items() if p.name == current.name))
    elif current.origin == RTE_ORIGIN:
        state.DATASET_RTE.set(current.name)


def source_controls() -> None:
    """Where the data comes from. Nothing changes the working dataset but using a control
    (opening this page keeps the dataset another page opened, the MSR gold alignments of
    the Aligners page say); a file that fails to load is reported and changes nothing."""
    current = current_dataset()
    _sync_controls(current)
    rte_files = nltk_rte_files()
    options = [SAMPLE, UPLOAD] + ([NLTK] if rte_files else []) + ([GOLD] if msr_available() else [])
    state.DATASET_SOURCE.setdefault(lambda: SOURCE_OF.get(current.origin, SAMPLE))
    source = st.radio("Source", options, horizontal=True, key=state.DATASET_SOURCE.key, on_change=_chosen_source)
    if not rte_files:
        st.caption("NLTK's RTE corpus is not installed (`python -m explorer resources --download`); the sample and uploads still work.")
    if source == SAMPLE:
        samples = _samples(current)
        choice = st.selectbox("Sample", list(samples), key=state.DATASET_SAMPLE.key, on_change=lambda: _load_into(
            lambda: load_file(samples[state.DATASET_SAMPLE.value()], origin=SAMPLE_ORIGIN)))
        if samples[choice].name in SAMPLE_ABOUT:
            st.caption(SAMPLE_ABOUT[samples[choice].name])
    elif source == NLTK:
        st.selectbox("RTE file", list(rte_files), key=state.DATASET_RTE.key, on_change=lambda: _load_into(
            lambda: load_file(rte_files[state.DATASET_RTE.value()], origin=RTE_ORIGIN)))
    elif source == GOLD:
        st.caption("The MSR RTE2 dev gold alignments, the three annotators merged (800 problems; 400 carry "
                   "NLTK's RTE2 entailment labels). The Aligners page scores aligners on them.")
    else:
        _upload_control(current)


def _upload_control(current: LoadedDataset) -> None:
    formats = "; ".join(f"{info.description}" for info in LOADERS.values())

    def uploaded() -> None:
        upload = state.DATASET_UPLOAD.get()
        if upload is not None:
            _load_into(lambda: remember_upload(upload.getvalue(), upload.name))

    upload = st.file_uploader("Dataset file", key=state.DATASET_UPLOAD.key, on_change=uploaded,
                              max_upload_size=uploads.MAX_UPLOAD_MB,
                              help=f"Recognised by content and extension: {formats}. {uploads.describe_limits()}")
    if upload is None:
        if current.origin == UPLOAD_ORIGIN:
            st.caption(f"Showing the uploaded {plain(current.name)}; upload another file to replace it.")
        else:
            st.info(f"Upload a dataset file. Formats: {formats}.")


def choose_dataset() -> LoadedDataset:
    source_controls()
    error = state.DATASET_ERROR.get()
    if error is not None:
        state.DATASET_ERROR.pop()
        st.error(f"Could not load this file, so the dataset is unchanged: {plain(error)}")
    return current_dataset()


def build_table(loaded: LoadedDataset, scorer: str,
                span: tuple[int, int] | None = None) -> tuple[pd.DataFrame, float | None, str]:
    """One row per pair, with the scorer's value, its decision at the cutoff every page
    decides by (:func:`components.cutoffs.page_cutoff`) and, for labelled pairs, whether it is
    correct; the cutoff is returned only when there are labels to be correct against.
    ``span`` (first, end): only those pairs, scored alone (a page of a large dataset, whose
    cutoff is then the one every page finds without scoring the rest)."""
    first, end = span if span is not None else (0, len(loaded.dataset))
    pairs = loaded.dataset.pairs[first:end]
    scores = dataset_scores(loaded, scorer, span=span)
    table = pd.DataFrame({
        "id": [p.id for p in pairs],
        "task": [p.task or "" for p in pairs],
        "gold": [p.label or ("" if p.score is None else f"{p.score:g}") for p in pairs],
        "text": [p.text for p in pairs],
        "hypothesis": [p.hypothesis for p in pairs],
        "score": np.round(scores, 4),
    })
    choice = page_cutoff(loaded, scorer, score=span is None)
    decided = scores > choice.value
    table["decision"] = np.where(decided, "entails", "does not entail")
    how = f"cutoff {choice.value:.4f}, {plain(choice.origin)}"
    mask = labelled_mask(loaded)[first:end]
    if not loaded.binary_labels or not mask.any():
        return table, None, how + "; no entailment labels, so nothing to be correct against"
    correct = decided == np.array([bool(p.entails) for p in pairs])
    table["correct"] = pd.array([bool(c) if m else pd.NA for c, m in zip(correct, mask)], dtype="boolean")
    if not mask.all():
        how += f"; correct or not on its {int(mask.sum())} labelled pairs ({int((~mask).sum())} unlabelled left out)"
    return table, choice.value, how


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


def slice_filter(loaded: LoadedDataset, table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the slice the Groups page opened here, with a way back to every pair."""
    opened = state.DATASET_SLICE.get()
    if opened is None or opened[0] != loaded.key:
        return table
    _, name, ids = opened
    left, right = st.columns([3, 1])
    left.info(f"Showing the slice **{plain(name)}** from the Groups page ({count(len(ids), 'pair')}), "
              "with the filters above.")
    if right.button("Show every pair", key="dataset_slice_clear"):
        state.DATASET_SLICE.pop()
        st.rerun()
    return table[table["id"].isin(set(ids))]


#: Rows of the table sent to the browser at once; the others wait for their page.
PAGE_ROWS = 500
#: A dataset of more pairs is scored a page at a time until someone asks for all of it
#: (scoring 100,000 pairs takes minutes; its first page, seconds).
SCORE_ALL_MAX = 2_000


def _page(key: str, rows: int, *, draw: bool = False) -> int:
    """The page (from 1) of ``rows`` rows the table shows, kept under ``key``; ``draw``:
    with its control (below the table; the page is read before the table is built)."""
    pages = max(1, -(-rows // PAGE_ROWS))
    slot: state.Slot[int] = state.Slot(key)
    value = slot.get()
    page = min(max(1, value if isinstance(value, int) else 1), pages)
    if page != value:
        slot.set(page)
    if draw and pages > 1:
        return int(st.number_input(f"Page of {PAGE_ROWS:,} rows (of {pages:,})", 1, pages, step=1, key=key))
    return page


def _score_all_offer(loaded: LoadedDataset, scorer: str, span: tuple[int, int], shown: int) -> None:
    """The caption of a page of a large dataset, and the button that scores all of it."""
    n = len(loaded.dataset)
    left, right = st.columns([3, 1])
    left.caption(f"{shown:,} of pairs {span[0] + 1:,}-{span[1]:,} of {n:,}: a dataset this large is scored a page "
                 f"at a time, so the filters and sorting apply to this page and its cutoff is the one every page "
                 f"uses without scoring it all. Tick a row's box (its left edge) to open it on the Pair page.")
    if right.button(f"Score all {n:,} pairs", key="dataset_score_all",
                    help="For filters, sorting and a cutoff over the whole dataset; this takes minutes."):
        bar = st.progress(0.0, text=f"Scoring {n:,} pairs with {SCORERS[scorer].label}...")

        def moved(i: int, total: int) -> None:
            bar.progress(i / total)

        done = attempt(lambda: dataset_scores(loaded, scorer, progress=moved),
                       SCORERS[scorer].label, where=f"on {plain(loaded.name)}", then=".")
        if done is not None:
            st.rerun()


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
    interactive = SCORERS.names(interactive=True)
    names = interactive + [n for n in SCORERS if n not in interactive]
    left, right = st.columns([1, 3])
    scorer = left.selectbox(
        "Scorer", names, index=names.index("mbleu") if "mbleu" in names else 0,
        format_func=lambda n: SCORERS[n].label + ("" if SCORERS[n].capabilities.interactive else " (slow)"),
        key="dataset_scorer", persist_state="session", bind="query-params",
    )
    whole = len(dataset) <= SCORE_ALL_MAX or is_scored(loaded, scorer)
    page_key = f"dataset_page_{loaded.key}"
    span = None
    if not whole:
        page = _page(page_key, len(dataset))
        span = ((page - 1) * PAGE_ROWS, min(page * PAGE_ROWS, len(dataset)))
    with st.spinner(f"Scoring {count(len(dataset) if span is None else span[1] - span[0], 'pair')} with "
                    f"{SCORERS[scorer].label}..."):
        built = attempt(lambda: build_table(loaded, scorer, span), SCORERS[scorer].label,
                        where=f"on {plain(loaded.name)}", then=". Choose another scorer.")
    if built is None:  # the other scorers remain choosable
        return
    table, cutoff, how = built
    right.caption(f"Decisions: score > cutoff means entails; {how}.")
    table = with_tags(loaded, table)

    # Filters keep their values for the session, across pages (persist_state), so a
    # return from the Pair page finds the table as it was left; and they live in the URL
    # (each under its key, only when not at its default), so a reload or a link keeps them.
    f1, f2, f3 = st.columns(3)
    labels = f1.multiselect("Gold label", sorted(set(table["gold"]) - {""}), key="filter_gold", persist_state="session", bind="query-params")
    tasks = f2.multiselect("Task", list(dataset.tasks), key="filter_task", persist_state="session", bind="query-params")
    outcome = f3.radio(
        "Decision", [ALL, CORRECT, WRONG], horizontal=True, key="filter_outcome",
        disabled=cutoff is None, persist_state="session", bind="query-params",
    )
    g1, g2, g3 = st.columns(3)
    low, high = float(table["score"].min()), float(table["score"].max())
    if high <= low:
        high = low + 1e-3
    score_range = g1.slider("Score range", low, high, (low, high), format="%.3f",
                            key=f"filter_score_{scorer}_{loaded.key}" + ("" if span is None else f"_{span[0]}"),
                            persist_state="session", bind="query-params")
    known_tags = sorted(set().union(*map(pair_tags, table["tags"]))) if "tags" in table else []
    tags = g2.multiselect("Tagged with", [*known_tags, UNTAGGED], key="filter_tags", persist_state="session", bind="query-params",
                          help="Pairs carrying any of the chosen tags (tag them here or on the Pair page).")
    search = g3.text_input("Search text, hypothesis or id", key="filter_search", persist_state="session",
                           max_chars=SEARCH_MAX_CHARS, bind="query-params")
    shown = filter_table(table, labels=labels, tasks=tasks, outcome=outcome, score_range=score_range, search=search,
                         tags=tags)
    shown = slice_filter(loaded, shown)
    if span is None:
        st.caption(f"{len(shown):,} of {count(len(table), 'pair')}. Tick a row's box (its left edge) to open it on "
                   "the Pair page; click a column header to sort.")
    else:
        _score_all_offer(loaded, scorer, span, len(shown))
    if shown.empty:
        st.info("No pair passes these filters.")
        if span is not None:
            _page(page_key, len(dataset), draw=True)
        return
    filtered_ids = list(shown["id"])
    if span is None and len(shown) > PAGE_ROWS:  # the browser gets a page of rows, never the whole table
        page = _page(page_key, len(shown), draw=True)
        shown = shown.iloc[(page - 1) * PAGE_ROWS:page * PAGE_ROWS]
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
    if span is not None:
        _page(page_key, len(dataset), draw=True)
    render_bulk_tagging(loaded, filtered_ids)
    left, right = st.columns([3, 1])
    pick = left.selectbox("Or pick a pair", list(shown["id"]), key="dataset_pick")
    if right.button("Open on the Pair page", key="dataset_open") and pick is not None:
        open_pair(str(pick))


main()
