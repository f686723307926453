"""Batch results in the app: open a folder written by ``python -m explorer batch`` and
browse it on the Dataset, Evaluate and Compare pages without loading it.

Every table is one page of rows from DuckDB (filter, sort and paging done there);
curves, reports and histograms come from one scorer's stored values (a float and a
label per pair); scatter plots draw a random sample. A pair opened from the table shows
on the Pair page with the pairs of the page it was on, and the cutoffs chosen on the
whole result.

The pages call :func:`dataset_section`, :func:`evaluate_section` and
:func:`compare_section` first; each draws the batch view and returns True when a batch
result is open.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from components import charts, state
from components.batch_folders import FolderRefused, allowed, roots
from components.cutoffs import page_cutoff
from components.data import BATCH_ORIGIN, KNOWN_CUTOFFS, KNOWN_SCORES, LoadedDataset
from components.figures import batch as batch_figures
from components.figures import evaluation as figures
from components.figures.compare import agreement, score_scatter, selected_ids
from components.state import open_pair
from components.text import label_kind, plain, svg_plain
from explorer.batch.query import (
    ALL,
    CORRECT,
    FIRST_PAGE,
    INCORRECT,
    NO_LABEL,
    REFUSED,
    BatchResult,
    Filters,
    first_page_columns,
)
from explorer.batch.schema import BatchError, finished_chunks
from explorer.datasets import Dataset
from explorer.decision.cutoffs import DATASET, CutoffChoice
from explorer.pairs import Pair
from explorer.scorers import SCORERS
from explorer.store import default_path
from runtime import memory_budget

PAGE_SIZE = FIRST_PAGE
SAMPLE_SIZE = 5000


@st.cache_resource(show_spinner=False, max_entries=8)
def _open(directory: str, chunks: int, mtime: float) -> BatchResult:
    # keyed by the number of finished chunks and the manifest's time, so a result that
    # is still being written is reopened as it grows
    result = BatchResult.open(directory)
    result.warm()
    return result


# Open results hold DuckDB connections and their buffers, counted by Streamlit in entries, not
# bytes: the memory budget clears them after every cache that knows its size.
memory_budget.register("open batch results", lambda: 0, _open.clear, last=True)


def open_result(directory: str) -> BatchResult:
    """The batch result in ``directory`` (shared by sessions while it does not change).

    Raises:
        BatchError: when the folder holds no readable result, or lies outside the batch
            result roots (:func:`components.batch_folders.allowed`).
    """
    try:
        path = allowed(directory)
    except FolderRefused as err:
        raise BatchError(str(err)) from None
    manifest = path / "batch.json"
    mtime = manifest.stat().st_mtime if manifest.exists() else 0.0
    return _open(str(path.resolve()), len(finished_chunks(path)), mtime)


def active() -> BatchResult | None:
    """The batch result this session browses, if one is open (the working dataset)."""
    if not state.batch_open():
        return None
    directory = str(state.BATCH_DIR.get())
    try:
        return open_result(directory)
    except (BatchError, OSError) as err:
        st.error(f"The batch result {plain(directory)} cannot be read any more: {plain(err)}")
        close()
        return None


def close() -> None:
    state.set_batch(None)


def _label(scorer: str) -> str:
    info = SCORERS.get(scorer)
    return info.label if info else scorer


def _header(result: BatchResult) -> None:
    m = result.manifest
    rows = result.count()
    state = "complete" if m.complete else f"partial: {rows:,} of {m.n_pairs:,} pairs scored so far"
    st.caption(
        f"Batch result **{plain(m.dataset)}** ({plain(result.directory)}): {m.n_pairs:,} pairs, {label_kind(m.kind)}, "
        f"scorers {plain(', '.join(m.scorers))}; {state}."
        + ("" if not any(m.refused.values()) else
           " Refused pairs (no value): " + ", ".join(f"{plain(s)} {n:,}" for s, n in m.refused.items() if n) + ".")
    )


def opener() -> bool:
    """The control that opens or closes a batch result; True when one is open."""
    with st.expander("Batch result (a whole corpus scored with `python -m explorer batch`)",
                     expanded=bool(state.BATCH_DIR.get()), key="batch_expander"):
        current = state.BATCH_DIR.get()
        if current:
            st.caption(f"Open: {plain(current)}. The pages browse it instead of the dataset chosen below.")
            if st.button("Close the batch result", key="batch_close"):
                close()
                st.rerun()
            return True
        left, right = st.columns([4, 1])
        bases = roots()
        folder = left.text_input("Result folder (the --out of `batch`)", key="batch_folder",
                                 placeholder=f"{bases[0]}/result",
                                 help="A folder under " + " or ".join(plain(str(b)) for b in bases)
                                 + "; a relative path is taken from the first.")
        right.write("")
        if right.button("Open the result", key="batch_open") and folder.strip():
            try:
                open_result(folder.strip())
            except (BatchError, OSError) as err:
                st.error(f"Cannot open {plain(folder.strip())}: {plain(err)}")
                return False
            state.set_batch(str(allowed(folder.strip())))
            st.rerun()
    return False


#: Text columns a pair may lack (SNLI has no task): shown empty, not as "None".
OPTIONAL_TEXT = ("task", "label")


def _blank_missing(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with a missing task or label as an empty cell."""
    present = [c for c in OPTIONAL_TEXT if c in rows.columns]
    return rows.assign(**{c: rows[c].fillna("") for c in present}) if present else rows


def _judged(result: BatchResult, choice: CutoffChoice) -> float | None:
    """The cutoff pairs are judged right or wrong at: the one every page decides by, on a
    result with entailment labels (None without: nothing to be right against)."""
    return choice.value if result.manifest.kind in ("binary", "three_way") else None


#: Pages of batch pairs kept for the Pair page (their cutoffs and scores), at most this many.
MAX_WINDOWS = 64


def _window(result: BatchResult, rows: pd.DataFrame, pair_id: str) -> None:
    """Remember the pairs of the page a pair was opened from, for the Pair page, with the
    cutoffs chosen on the whole result and the scores the batch stored for them."""
    if rows.empty:
        return
    m = result.manifest
    found = result.pairs(list(rows["id"]), m.scorers)
    pairs = [
        Pair(id=str(r.id), text=r.text, hypothesis=r.hypothesis, label=r.label if isinstance(r.label, str) else None,
             task=r.task if isinstance(r.task, str) else None,
             score=None if pd.isna(r.gold_score) else float(r.gold_score), source=m.dataset)
        for r in found.itertuples(index=False)
    ]
    if not any(p.id == pair_id for p in pairs):
        return
    key = f"batch:{m.fingerprint[-12:]}:{','.join(p.id for p in pairs)[:64]}:{len(pairs)}"
    name = f"{m.dataset} (a page of the batch result)"
    loaded = LoadedDataset(Dataset(name=name, format=m.format, pairs=tuple(pairs)), key, BATCH_ORIGIN)
    for kept in (KNOWN_CUTOFFS, KNOWN_SCORES):
        if len(kept) >= MAX_WINDOWS:
            kept.clear()
    KNOWN_CUTOFFS[key] = {s: c for s in m.scorers if (c := result.cutoff(s)).source == DATASET}
    KNOWN_SCORES[key] = {
        s: {str(i): float(v) for i, v in zip(found["id"], found[s], strict=True) if pd.notna(v)} for s in m.scorers
    }
    state.BATCH_WINDOW.set(loaded)
    # Tags and notes on these pairs go to the result's dataset in the store, when the
    # batch was registered in the store this app uses.
    if m.store_dataset_id is not None and m.store == str(default_path()):
        state.STORE_DATASET_IDS.setdefault(dict)[key] = (m.store, m.store_dataset_id)


def ensure_window() -> None:
    """While a batch result is the working dataset, the page of its pairs that the Pair
    page (and every page that needs pairs in memory) works on: the page a pair was opened
    from; else, reached from the sidebar or a link, the result's first page, with the pair
    the URL names added when the result has it (a pair it lacks is the Pair page's to
    report)."""
    result = active()
    if result is None:
        return
    wanted = state.selected_pair_id()
    window = state.BATCH_WINDOW.get()
    if window is not None and (wanted is None or any(p.id == wanted for p in window.dataset.pairs)):
        return
    ids = [str(i) for i in result.page(Filters(), limit=PAGE_SIZE, columns=["id"]).rows["id"]]
    if wanted is not None and wanted not in ids and result.pair(wanted) is not None:
        ids = [*ids[: PAGE_SIZE - 1], wanted]
    if window is not None and wanted not in ids:
        return  # keep the page shown; the Pair page says the pair is not in the result
    if ids:
        _window(result, pd.DataFrame({"id": ids}), wanted if wanted in ids else ids[0])


def size() -> int | None:
    """How many pairs the open batch result has (None when none is open)."""
    result = active()
    return None if result is None else result.count()


# ----------------------------------------------------------------- Dataset page

def dataset_section() -> bool:
    """The Dataset page's batch view; True when a batch result is open (and drawn)."""
    if not opener():
        return False
    result = active()
    if result is None:
        return False
    _header(result)
    m = result.manifest
    left, right = st.columns([1, 3])
    scorer = left.selectbox("Scorer", m.scorers, key="batch_scorer", format_func=_label)
    choice = page_cutoff(result, scorer, score=True)  # the cutoff every page decides by
    cutoff = _judged(result, choice)
    right.caption(f"Decisions: score > cutoff means entails; cutoff {choice.value:.4f}, {plain(choice.origin)}.")
    f1, f2, f3 = st.columns(3)
    label_options = result.distinct("label")
    if result.count(Filters(labels=(NO_LABEL,))):  # e.g. SNLI pairs without consensus
        label_options.append(NO_LABEL)
    labels = f1.multiselect("Gold label", label_options, key="batch_filter_label")
    tasks = f2.multiselect("Task", result.distinct("task"), key="batch_filter_task")
    outcome = f3.radio("Decision", [ALL, CORRECT, INCORRECT, REFUSED], horizontal=True, key="batch_filter_outcome",
                       disabled=cutoff is None)
    g1, g2 = st.columns(2)
    bounds = result.value_range(scorer)
    score_range = None
    if bounds is not None and bounds[1] > bounds[0]:
        chosen = g1.slider("Score range", bounds[0], bounds[1], bounds, format="%.3f",
                           key=f"batch_filter_range_{scorer}_{m.fingerprint[-8:]}")
        if tuple(chosen) != bounds:
            score_range = (float(chosen[0]), float(chosen[1]))
    search = g2.text_input("Search text, hypothesis or id", key="batch_filter_search")
    filters = Filters(labels=tuple(labels), tasks=tuple(tasks), scorer=scorer,
                      cutoff=cutoff, outcome=outcome if cutoff is not None or outcome == REFUSED else ALL,
                      score_range=score_range, search=search)
    s1, s2, s3 = st.columns([2, 1, 1])
    sortable = ["position", "id", "task", "label", *m.scorers]
    sort = s1.selectbox("Sort by", sortable, index=sortable.index(scorer), key="batch_sort")
    descending = s2.toggle("Descending", value=True, key="batch_desc")
    total = result.count(filters)
    pages = max(1, -(-total // PAGE_SIZE))
    page_no = s3.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, value=1, step=1, key="batch_page")
    shown_columns = first_page_columns(scorer)
    page = result.page(filters, sort=sort, descending=descending, offset=(int(page_no) - 1) * PAGE_SIZE,
                       limit=PAGE_SIZE, columns=shown_columns)
    rows = _blank_missing(page.rows)
    if not rows.empty:
        rows.insert(4, "decision", np.where(rows[scorer] > choice.value, "entails", "does not entail"))
        rows.loc[rows[scorer].isna(), "decision"] = "refused"
    st.caption(f"{total:,} of {result.count():,} pairs pass the filters; showing {len(rows)} from row "
               f"{page.offset + 1:,}. Tick a row's box (its left edge) to open it on the Pair page.")
    if rows.empty:
        st.info("No pair passes these filters.")
        return True
    event = st.dataframe(
        rows, key=state.BATCH_TABLE.key, on_select="rerun", selection_mode="single-row", hide_index=True, width="stretch",
        column_config={scorer: st.column_config.NumberColumn(format="%.4f"),
                       "text": st.column_config.TextColumn(width="large")},
    )
    result.save_figures()  # what this paint computed, for the next server (best effort)
    picked = event.selection.rows if event is not None else []
    if picked:
        pair_id = str(rows.iloc[picked[0]]["id"])
        _window(result, rows, pair_id)
        open_pair(pair_id)
    return True


# ---------------------------------------------------------------- Evaluate page

def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None or not np.isfinite(value):
        return "–"
    return f"{100 * value:.2f}%" if percent else f"{value:.4f}"


def _graded_summary(result: BatchResult, names: list[str]) -> None:
    """Graded (or unlabelled) data: each scorer's correlation with the gold score, and a
    scatter of a sample against it."""
    label = {n: _label(n) for n in names}
    rows = []
    for n in names:
        pearson, spearman = result.correlations(n)
        rows.append({"scorer": label[n], "n": int(result.scores(n).values.size),
                     "Pearson": _fmt(pearson), "Spearman": _fmt(spearman)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    sample = result.sample([*names, "gold_score"], n=SAMPLE_SIZE, seed=0)
    sample = sample.dropna(subset=["gold_score"])
    if not sample.empty:
        charts.plotly_chart(figures.graded_scatter({label[n]: sample[n].fillna(0.0) for n in names},
                                               list(sample["gold_score"]),
                                               title=f"Score against gold similarity ({len(sample):,}-pair sample)"),
                        key="batch_graded_scatter")


def _task_row(task: str, names: list[str], reports: dict[str, dict[str, Any]]) -> dict[str, object]:
    """One task's accuracy, CWS and AP per scorer ("–" where a scorer has none for it)."""
    row: dict[str, object] = {"task": task}
    for n in names:
        f = reports[n]["by_task"].get(task)
        row["n"] = f["n"] if f else row.get("n", 0)
        row[f"{_label(n)} accuracy"] = _fmt(f["accuracy"], True) if f else "–"
        row[f"{_label(n)} CWS"] = _fmt(f["cws"]) if f else "–"
        row[f"{_label(n)} AP"] = _fmt(f["average_precision"]) if f else "–"
    return row


def _task_section(names: list[str], reports: dict[str, dict[str, Any]]) -> None:
    """Per-task accuracy as a figure and a table, when the result has tasks."""
    tasks = sorted({t for r in reports.values() for t in r["by_task"]})
    if not tasks:
        return
    st.subheader("By task")
    by_task = {_label(n): {svg_plain(t): f["accuracy"] for t, f in reports[n]["by_task"].items()} for n in names}
    charts.plotly_chart(figures.task_accuracy(by_task, title="Accuracy per task"), key="batch_task_accuracy")
    st.dataframe(pd.DataFrame([_task_row(task, names, reports) for task in tasks]), hide_index=True, width="stretch")


def _classification_summary(result: BatchResult, names: list[str]) -> None:
    """Labelled data: summary table, accuracy curves, histograms and per-task figures."""
    m = result.manifest
    label = {n: _label(n) for n in names}
    # the cutoff every page decides by: a trained classifier's own, else the development
    # set's chosen on the Evaluate page, else the best on the whole result
    reports = {n: result.report(n, cutoff=page_cutoff(result, n, score=True).value) for n in names}
    st.subheader("Summary")
    st.dataframe(pd.DataFrame([{
        "scorer": label[n], "n": r["n"], "refused": r["refused"], "accuracy": _fmt(r["accuracy"], True),
        "CWS": _fmt(r["cws"]), "AP": _fmt(r["average_precision"]), "cutoff": _fmt(r["cutoff"]),
    } for n, r in reports.items()]), hide_index=True, width="stretch")
    st.subheader("Accuracy against cutoff")
    cutoffs = {label[n]: reports[n]["cutoff"] for n in names}
    charts.plotly_chart(figures.accuracy_curves({label[n]: result.curve(n) for n in names}, cutoffs,
                                            title=f"{html.escape(m.dataset)}: the cutoffs every page decides by"),
                    key="batch_accuracy_curves")
    st.subheader("Scores by gold label")
    charts.plotly_chart(batch_figures.binned_histograms({label[n]: result.histogram(n) for n in names}, cutoffs=cutoffs),
                    key="batch_histograms")
    _task_section(names, reports)


def evaluate_section() -> bool:
    """The Evaluate page on a batch result: curves, reports, histograms and per-task
    figures from the stored values; True when a batch result is open."""
    result = active()
    if result is None:
        return False
    st.title("Evaluate")
    _header(result)
    st.caption("Browsing a batch result (close it on the Dataset page). Cutoffs are the ones every page decides "
               "by: a trained classifier's own, else the development set chosen on this page for a loaded "
               "dataset, else the best on the whole result.")
    m = result.manifest
    names = st.multiselect("Scorers", m.scorers, default=m.scorers[:3], key="batch_evaluate_scorers",
                           format_func=_label)
    if not names:
        st.info("Choose at least one scorer.")
        return True
    if m.kind == "graded" or m.kind == "unlabelled":
        _graded_summary(result, names)
        return True
    _classification_summary(result, names)
    result.save_figures()  # what this paint computed, for the next server (best effort)
    return True


# ----------------------------------------------------------------- Compare page

def compare_section() -> bool:
    """Two scorers of a batch result on a sample scatter; True when a batch is open."""
    result = active()
    if result is None:
        return False
    st.title("Compare")
    _header(result)
    m = result.manifest
    if len(m.scorers) < 2:
        st.info("This batch result has one scorer; comparing needs two.")
        return True
    left, right = st.columns(2)
    x_name = left.selectbox("First run (x axis)", m.scorers, index=0, key="batch_compare_x", format_func=_label)
    y_name = right.selectbox("Second run (y axis)", m.scorers, index=1, key="batch_compare_y", format_func=_label)
    if x_name == y_name:
        st.info("Choose two different scorers.")
        return True
    x_cut, y_cut = (_judged(result, page_cutoff(result, n, score=True)) for n in (x_name, y_name))
    sample = result.sample([x_name, y_name, "entails", "task", "label", "text", "hypothesis"],
                           n=min(SAMPLE_SIZE, result.count()), seed=0).dropna(subset=[x_name, y_name])
    x_label, y_label = _label(x_name), _label(y_name)
    groups = []
    golds = [None if pd.isna(g) else bool(g) for g in sample["entails"]]
    for xs, ys, gold in zip(sample[x_name], sample[y_name], golds, strict=True):
        if gold is None or x_cut is None or y_cut is None:
            groups.append(agreement(None, None, x_name=x_label, y_name=y_label))
            continue
        groups.append(agreement(bool((xs > x_cut) == gold), bool((ys > y_cut) == gold),
                                x_name=x_label, y_name=y_label))
    sample = sample.assign(agreement=groups)
    st.caption(f"A random sample of {len(sample):,} of {result.count():,} pairs (the whole result is on the "
               "Dataset page). " + " · ".join(f"{g}: {n}" for g, n in sample["agreement"].value_counts().items()))
    figure = score_scatter(list(sample["id"]), list(sample[x_name]), list(sample[y_name]), groups,
                           x_name=x_label, y_name=y_label, x_cutoff=x_cut, y_cutoff=y_cut)
    event = charts.plotly_chart(figure, key="batch_compare_scatter", on_select="rerun",
                            selection_mode=("box", "lasso", "points"))
    chosen = selected_ids(event.selection.points, list(sample["id"])) if event is not None and event.selection else []
    shown = sample[sample["id"].isin(chosen)] if chosen else sample
    if st.radio("Show", ["all sampled pairs", "disagreements only"], horizontal=True,
                key="batch_compare_show") == "disagreements only":
        shown = shown[shown["agreement"].str.startswith("only")]
    table = _blank_missing(shown.drop(columns=["entails"]).head(1000))
    rows = st.dataframe(table, hide_index=True, width="stretch", key="batch_compare_table",
                        on_select="rerun", selection_mode="single-row")
    picked = rows.selection.rows if rows is not None else []
    if picked:
        pair_id = str(table.iloc[picked[0]]["id"])
        _window(result, table.head(PAGE_SIZE) if pair_id in set(table.head(PAGE_SIZE)["id"])
                else table[table["id"] == pair_id], pair_id)
        open_pair(pair_id)
    return True


@dataclass(frozen=True)
class BatchRuns:
    """A batch result registered in the app's store: its dataset and runs there."""

    name: str
    dataset_id: int
    runs: dict[str, int]


def errors_runs() -> BatchRuns | None:
    """For the Errors page: the open batch result's stored dataset and runs, when it was
    registered in the store this app uses (else None, with a note saying so)."""
    result = active()
    if result is None:
        return None
    m = result.manifest
    if m.store_dataset_id is None or m.store != str(default_path()) or not m.runs:
        st.info(f"The open batch result {plain(m.dataset)} is not registered in this app's store, so this page "
                "shows the dataset chosen on the Dataset page. Register it by running `batch` again "
                "without --no-register (and with --store pointing at this store).")
        return None
    return BatchRuns(m.dataset, m.store_dataset_id, dict(m.runs))


def open_batch_pair(pair_id: str) -> None:
    """Open one pair of the open batch result on the Pair page."""
    result = active()
    if result is not None:
        _window(result, pd.DataFrame({"id": [pair_id]}), pair_id)
    open_pair(pair_id)


def describe() -> str | None:
    """The sidebar's line for the open batch result (None when none is open)."""
    result = active()
    if result is None:
        return None
    m = result.manifest
    return (f"Dataset: **{plain(m.dataset)}** ({m.n_pairs:,} pairs, {label_kind(m.kind)}; a batch result, "
            f"folder {plain(result.directory.name)})")
