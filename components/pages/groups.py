"""Groups page: which kinds of pairs each method gets wrong, whether that is real, and what a
rewrite of the pairs would change.

A slice is a filter over the pairs (:mod:`explorer.groups.language`): the built-in phenomena
are offered as ready slices, saved slices come from the store, and a typed one is kept in the
URL (``?slice=``). Verdicts are the Pair page's: the same scores and the same cutoff
(:func:`components.cutoffs.page_cutoff`, the one resolver), so a pair counted wrong here is
shown wrong there. Each slice's accuracy has a 95% Wilson interval; a slice opens its pairs
on the Dataset page.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from components import state
from components.charts import plotly_chart
from components.cutoffs import page_cutoff, session_dev
from components.data import LoadedDataset, dataset_scores
from components.figures.groups import SliceMark, slice_accuracy_figure
from components.guard import attempt
from components.sections import batch_results
from components.sections.group_rewrites import render_rewrites
from components.state import current_dataset
from components.store_access import get_store, store_dataset_id
from components.text import count, plain
from explorer.batch.query import BatchResult
from explorer.decision.cutoffs import CutoffChoice
from explorer.groups.batch_slices import batch_slice_results, result_names
from explorer.groups.frame import GroupFrame, frame_from_table
from explorer.groups.language import SliceError
from explorer.groups.phenomena import FAST, PHENOMENA, PHENOMENON_ALIGNERS, Value, builtin_slices, phenomena_table
from explorer.groups.stats import SliceResult, slice_results
from explorer.pairs import Pair
from explorer.scorers import SCORERS
from explorer.store import StoreError

#: The scorers a first look compares (fast, and different in kind: n-grams, words, vectors).
DEFAULT_SCORERS = ("bleu", "mbleu", "bow", "embed")
#: The URL's typed slice.
SLICE_PARAM = "slice"
#: The typed slice: the text box, and what it held (kept across pages).
TYPED_WIDGET: state.Slot[str] = state.Slot("groups_typed")
TYPED: state.Slot[str] = state.Slot("explorer_groups_typed")


def scorer_controls() -> list[str]:
    interactive = SCORERS.names(interactive=True)
    names = interactive + [n for n in SCORERS if n not in interactive]
    chosen = st.multiselect(
        "Methods", names, default=[n for n in DEFAULT_SCORERS if n in names], key="groups_scorers",
        format_func=lambda n: SCORERS[n].label + ("" if SCORERS[n].capabilities.interactive else " (slow)"),
        persist_state="session",
        help="Each method's verdicts are the Pair page's: its score against the cutoff the one resolver chooses.",
    )
    return list(chosen)


def _aligner_phenomena(aligners: Sequence[str]) -> list[str]:
    return [n for n, p in PHENOMENA.items() if p.slow and any(n.endswith(f"_{a}") for a in aligners)]


def phenomena_of(loaded: LoadedDataset, aligners: Sequence[str]) -> pd.DataFrame:
    """The fast phenomena and the chosen aligners' ones, computed once per dataset (on the
    worker pool, with progress), kept on disk by the library and for the server here."""
    from components import analysis, workers
    from runtime.pool import tasks

    names = (*FAST, *_aligner_phenomena(aligners))

    def run_chunk(pairs: Sequence[Pair], wanted: Sequence[str]) -> Mapping[str, Sequence[Value]]:
        done: Mapping[str, Sequence[Value]] = workers.run(
            tasks.phenomena_chunk, list(pairs), list(wanted), what="Finding phenomena",
            long=bool(set(wanted) - set(FAST)))
        return done

    def compute() -> pd.DataFrame:
        bar = st.progress(0.0, text="Finding the phenomena of each pair…")

        def shown(i: int, n: int) -> None:
            bar.progress(i / max(n, 1), text=f"Phenomena of {i:,} of {n:,} pairs")

        found = phenomena_table(loaded.dataset.pairs, names, run_chunk=run_chunk, progress=shown)
        bar.empty()
        return found

    table: pd.DataFrame = analysis.kept(("phenomena", loaded.key, names), compute)
    return table


def scored_columns(loaded: LoadedDataset, scorers: Sequence[str]) -> tuple[dict[str, object], dict[str, CutoffChoice]]:
    """Each scorer's score, verdict and correctness columns, decided as the Pair page does."""
    gold = pd.array([p.entails for p in loaded.dataset.pairs], dtype="boolean")
    columns: dict[str, object] = {}
    cutoffs: dict[str, CutoffChoice] = {}
    bar = st.progress(0.0, text="Scoring…")
    for index, name in enumerate(scorers):
        label = SCORERS[name].label

        def step(i: int, n: int, label: str = label, index: int = index) -> None:
            bar.progress((index + i / max(n, 1)) / len(scorers), text=f"Scoring with {label}: {i:,} of {n:,} pairs")

        def scored(name: str = name, step: Callable[[int, int], None] = step) -> np.ndarray:
            return dataset_scores(loaded, name, progress=step)

        scores = attempt(scored, label, where=f"on {plain(loaded.name)}", then="; it is left out of the table.")
        if scores is None:
            continue
        choice = page_cutoff(loaded, name, score=True)
        judged = np.isfinite(scores)
        said = pd.array(np.where(judged, scores > choice.value, False), dtype="boolean")
        said[~judged] = pd.NA
        columns[f"score:{name}"] = scores
        columns[f"entails:{name}"] = said
        columns[f"correct:{name}"] = said == gold
        cutoffs[name] = choice
    bar.empty()
    return columns, cutoffs


def build_frame(loaded: LoadedDataset, scorers: Sequence[str], aligners: Sequence[str]) -> GroupFrame:
    pairs = loaded.dataset.pairs
    try:
        tags = get_store().tags_by_pair(store_dataset_id(loaded))
    except StoreError:
        tags = {}
    table = pd.DataFrame({
        "id": [p.id for p in pairs], "task": [p.task for p in pairs],
        "gold": pd.array([p.entails for p in pairs], dtype="boolean"), "label": [p.label for p in pairs],
        "text": [p.text for p in pairs], "hypothesis": [p.hypothesis for p in pairs],
        "tags": [tuple(sorted(tags.get(p.id, ()))) for p in pairs],
    })
    found = phenomena_of(loaded, aligners).drop(columns=["task"], errors="ignore")
    columns, cutoffs = scored_columns(loaded, scorers)
    table = pd.concat([table, found.set_axis(table.index), pd.DataFrame(columns, index=table.index)], axis=1)
    return frame_from_table(table, cutoffs, list(cutoffs))


def _saved() -> dict[str, str]:
    try:
        return {s.name: s.expression for s in get_store().saved_slices()}
    except StoreError:
        return {}


def slice_controls(frame: GroupFrame) -> dict[str, str]:
    """The slices to show: ready (built-in) ones, saved ones, and the typed one (in the URL)."""
    ready_all = {n: e for n, e in builtin_slices().items() if _usable(frame, e)}
    saved = _saved()
    left, right = st.columns(2)
    ready = left.multiselect("Ready slices (the built-in phenomena)", list(ready_all), default=list(ready_all),
                             key="groups_ready", persist_state="session")
    kept = right.multiselect("Saved slices", list(saved), default=list(saved), key="groups_saved",
                             persist_state="session")
    # The typed slice outlives a page switch (a widget's own state does not) and is kept in
    # the URL, so a reload or a shared link reopens it.
    TYPED_WIDGET.setdefault(lambda: TYPED.get() or str(st.query_params.get(SLICE_PARAM, "")))
    typed = st.text_input(
        "Your slice", key=TYPED_WIDGET.key,
        placeholder='e.g. negation_only_in_h and overlap < 0.6   or   wrong(bleu) and not wrong(bow)',
        help="Names: " + ", ".join(frame.names) + ". Functions: wrong(m), right(m), entails(m), score(m), "
             'tagged("tag"). Combine with and / or / not, compare with == != < <= > >= and in [...].',
    ).strip()
    TYPED.set(typed)
    slices = {**{n: ready_all[n] for n in ready}, **{n: saved[n] for n in kept}}
    if typed:
        st.query_params[SLICE_PARAM] = typed
    else:
        st.query_params.pop(SLICE_PARAM, None)
    if typed:
        try:
            frame.parse(typed)
        except SliceError as error:
            st.error(f"This slice cannot be read: {plain(error)}")
        else:
            slices = {"your slice": typed, **slices}
            save_box(typed)
    return slices


def _usable(frame: GroupFrame, expression: str) -> bool:
    try:
        frame.parse(expression)
    except SliceError:
        return False
    return True


def save_box(expression: str) -> None:
    with st.form("groups_save", border=False):
        left, right = st.columns([3, 1])
        name = left.text_input("Save it as", key="groups_save_name", max_chars=80)
        if right.form_submit_button("Save slice") and name.strip():
            try:
                get_store().save_slice(name, expression)
                st.toast(f"Saved the slice {plain(name.strip())}.")
            except StoreError as error:
                st.error(plain(error))


def marks_of(results: Sequence[SliceResult]) -> list[SliceMark]:
    def number(value: float) -> float | None:
        return None if math.isnan(value) else value

    return [SliceMark(f"{r.name} ({r.n})", SCORERS[s.scorer].label if s.scorer in SCORERS else s.scorer, s.n,
                      number(s.accuracy), number(s.ci_low), number(s.ci_high), number(s.whole_accuracy), s.significant)
            for r in results for s in r.results]


def results_table(results: Sequence[SliceResult]) -> pd.DataFrame:
    rows = []
    for r in results:
        row: dict[str, object] = {"slice": r.name, "pairs": r.n}
        for s in r.results:
            if s.n == 0:
                row[s.scorer] = "no judged pair"
                continue
            mark = " ◆" if s.significant else ""
            row[s.scorer] = (f"{s.accuracy:.1%} [{s.ci_low:.0%}, {s.ci_high:.0%}] "
                             f"{s.difference:+.1%}{mark}")
        row["expression"] = r.expression
        rows.append(row)
    return pd.DataFrame(rows)


def open_slice_box(loaded: LoadedDataset, results: Sequence[SliceResult]) -> None:
    """Open one slice's pairs on the Dataset page (its table filtered to them)."""
    left, right = st.columns([3, 1])
    names = [r.name for r in results if r.n]
    pick = left.selectbox("Open a slice's pairs on the Dataset page", names, key="groups_open_pick")
    if right.button("Open its pairs", key="groups_open") and pick is not None:
        chosen = next(r for r in results if r.name == pick)
        state.DATASET_SLICE.set((loaded.key, chosen.name, tuple(chosen.ids)))
        st.switch_page("components/pages/dataset.py")


def batch_groups(result: BatchResult) -> None:
    """The open batch result's slices, counted in one DuckDB pass over its chunks."""
    names = list(result.manifest.scorers)
    chosen = st.multiselect("Methods", names, default=names[:4], key="groups_batch_scorers",
                            format_func=lambda n: SCORERS[n].label if n in SCORERS else n)
    if not chosen:
        st.info("Choose at least one method.")
        return
    known = result_names(result)
    ready = {n: e for n, e in builtin_slices().items() if all(w in known for w in _words(e))}
    typed = st.text_input("Your slice", value=str(st.query_params.get(SLICE_PARAM, "")), key="groups_batch_typed",
                          max_chars=1000, help="Names: " + ", ".join(known))
    slices = {**({"your slice": typed.strip()} if typed.strip() else {}), **ready}
    if not slices:
        st.info("This result has no phenomenon columns (a result written before they were added): type a slice.")
        return
    found = attempt(lambda: batch_slice_results(result, chosen, slices,
                                                cutoffs={s: page_cutoff(result, s) for s in chosen}),
                    "The slices", where="on the batch result")
    if found is None:
        return
    results, _ = found
    plotly_chart(slice_accuracy_figure(marks_of(results), title="Accuracy per slice"), key="groups_batch_figure")
    st.dataframe(results_table(results), hide_index=True, width="stretch")


def _words(expression: str) -> list[str]:
    return [w for w in expression.replace("(", " ").replace(")", " ").split() if w.isidentifier()
            and w not in ("and", "or", "not", "true", "false")]


def main() -> None:
    st.title("Groups")
    st.caption("Which kinds of pairs does a method get wrong, is the difference real, and what would a rewrite change? "
               "Each slice is a group of pairs; its accuracy comes with a 95% Wilson interval, and ◆ marks a slice "
               "whose interval excludes the method's accuracy on the whole set.")
    result = batch_results.active()
    if result is not None:  # a whole-corpus batch result is open: its slices in DuckDB
        batch_groups(result)
        return
    loaded = current_dataset()
    if not loaded.binary_labels:
        st.info(f"{plain(loaded.name)} has no entailment labels, so no method can be right or wrong on it: "
                "open a labelled dataset on the Dataset page.")
        return
    scorers = scorer_controls()
    if not scorers:
        st.info("Choose at least one method.")
        return
    aligners = st.multiselect(
        "Aligner phenomena", list(PHENOMENON_ALIGNERS), default=["bow"], key="groups_aligners", persist_state="session",
        help="Hypothesis content words each aligner leaves unaligned, and whether it links an antonym pair "
             "(MANLI and ITG run on the workers: slower on a first look).")
    dev = session_dev(loaded.key)
    st.caption(f"**{plain(loaded.name)}**, {count(len(loaded.dataset), 'pair')}; cutoffs "
               + (f"chosen on the development set **{plain(dev.name)}** (Evaluate page)" if dev
                  else "as on the Pair page (choose a development set on the Evaluate page)") + ".")
    frame = build_frame(loaded, scorers, aligners)
    if not frame.scorers:
        return
    slices = slice_controls(frame)
    if not slices:
        st.info("Choose a ready slice, a saved one, or type one.")
        return
    results = attempt(lambda: slice_results(frame, slices), "The slices", where=f"on {plain(loaded.name)}")
    if results is None:
        return
    plotly_chart(slice_accuracy_figure(marks_of(results), title=f"Accuracy per slice on {loaded.name}"),
                 key="groups_figure")
    st.dataframe(results_table(results), hide_index=True, width="stretch")
    open_slice_box(loaded, results)
    render_rewrites(loaded, frame, slices, results)



main()
