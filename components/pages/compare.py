"""Compare page: two scorers' runs on the current dataset side by side. A scatter of one
score against the other, coloured by which run decides each pair correctly; a box or
lasso selection on it filters the table of pairs below."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from components import charts, state, uploads, workers
from components.cutoffs import page_cutoff
from components.data import LoadedDataset, dataset_scores, load_uploaded
from components.figures.compare import agreement, score_scatter, selected_ids
from components.guard import attempt
from components.sections import batch_results
from components.state import current_dataset, open_pair
from components.text import count, plain
from explorer.aligners.comparison import agreement as annotator_agreement
from explorer.aligners.comparison import f1_differences
from explorer.alignment import Alignment
from explorer.scorers import SCORERS
from runtime.pool import cost, tasks

CHART = "compare_scatter"


#: Pairs per job when a whole dataset is aligned (other visitors' jobs go between two).
ALIGN_CHUNK = 20


def _aligned(loaded: LoadedDataset, name: str) -> dict[str, Alignment]:
    """Every pair's alignment by one aligner, on the server's workers a chunk at a time
    (kept for the session: aligners can be slow)."""
    store = state.COMPARE_ALIGNMENTS.setdefault(dict)
    if (loaded.key, name) not in store:
        pairs = [p for p in loaded.dataset.pairs if p.gold_alignment is not None]
        bar = st.progress(0.0, text=f"Aligning {len(pairs)} pairs with {name}...")
        out: dict[str, Alignment] = {}
        for start in range(0, len(pairs), ALIGN_CHUNK):
            chunk = pairs[start : start + ALIGN_CHUNK]
            aligned = workers.run(tasks.align_chunk, chunk, name, what=f"Aligning pairs {start + 1}-"
                                  f"{start + len(chunk)} with {name}", long=cost.is_long(chunk, [name]))
            out.update(zip((p.id for p in chunk), aligned, strict=True))
            bar.progress(len(out) / len(pairs), text=f"Aligning with {name}: {len(out)}/{len(pairs)}")
        bar.empty()
        store[(loaded.key, name)] = out
    return store[(loaded.key, name)]


def aligner_section(loaded: LoadedDataset) -> None:
    """Two aligners' per-problem F1 against the dataset's gold, largest difference first."""
    from explorer.aligners import ALIGNERS

    st.subheader("Aligners against the gold alignments")
    gold = {p.id: p.gold_alignment for p in loaded.dataset.pairs if p.gold_alignment is not None}
    if not gold:
        st.caption("The current dataset has no gold alignments (load e.g. an MSR `.align.txt` file).")
        return
    if len(ALIGNERS) < 2:
        st.caption("Comparing needs two registered aligners.")
        return
    names = list(ALIGNERS)
    left, right = st.columns(2)
    first = left.selectbox("First aligner", names, index=0, key="compare_aligner_a",
                           format_func=lambda n: ALIGNERS[n].label)
    second = right.selectbox("Second aligner", names, index=1, key="compare_aligner_b",
                             format_func=lambda n: ALIGNERS[n].label)
    if first == second:
        st.info("Choose two different aligners.")
        return
    done = state.COMPARE_ALIGNMENTS.get() or {}
    if not ((loaded.key, first) in done and (loaded.key, second) in done):
        if not st.button(f"Align the {count(len(gold), 'pair')} with both", key="compare_align_run"):
            return
    rows = attempt(lambda: f1_differences(_aligned(loaded, first), _aligned(loaded, second), gold),
                   "Aligning", where=f"with {ALIGNERS[first].label} or {ALIGNERS[second].label}")
    if rows is None:
        return
    if not rows:
        st.caption("No problem could be compared (the aligners tokenise differently from the gold).")
        return
    table = pd.DataFrame(rows).rename(columns={
        "f1_first": f"F1 {ALIGNERS[first].label}", "f1_second": f"F1 {ALIGNERS[second].label}",
        "difference": "second - first"})
    better = sum(r["difference"] > 0 for r in rows)
    worse = sum(r["difference"] < 0 for r in rows)
    st.caption(f"{len(rows)} problems: {ALIGNERS[second].label} better on {better}, worse on {worse}, "
               f"equal on {len(rows) - better - worse}. Largest differences first; tick a row's box to open it.")
    event = st.dataframe(table.round(3), hide_index=True, width="stretch", key="compare_f1_table",
                         on_select="rerun", selection_mode="single-row")
    picked = event.selection.rows if event is not None else []
    if picked:
        open_pair(str(table.iloc[picked[0]]["pair_id"]))


def annotator_section() -> None:
    """Annotators (e.g. MSR's A, B and C) as systems: their pairwise agreement."""
    st.subheader("Annotator agreement")
    files = st.file_uploader(
        "Two or more alignment files of the same problems (e.g. RTE2_dev_A/B/C.align.txt)",
        accept_multiple_files=True, key="compare_annotators", max_upload_size=uploads.MAX_UPLOAD_MB,
        help=uploads.describe_limits())
    if not files or len(files) < 2:
        st.caption("Upload the annotators' files to see how often they agree.")
        return
    from explorer.datasets import DatasetError

    systems = {}
    for upload in files:
        try:
            data = load_uploaded(upload.getvalue(), upload.name).dataset
        except DatasetError as error:
            st.error(f"{plain(upload.name)} could not be read: {plain(error)}")
            return
        systems[upload.name] = {p.id: p.gold_alignment for p in data.pairs if p.gold_alignment is not None}
    rows = annotator_agreement(systems)
    st.dataframe(pd.DataFrame([
        {"first": a.first, "second": a.second, "problems": a.problems,
         "agreement (Dice of SURE links)": round(a.dice, 3), "identical problems": f"{100 * a.exact:.1f}%"}
        for a in rows
    ]), hide_index=True, width="stretch")


def _labelled_part(loaded: LoadedDataset) -> str:
    """Which pairs can be right or wrong, when not all of them: the labelled ones."""
    pairs = loaded.dataset.pairs
    n_labelled = sum(p.entails is not None for p in pairs)
    if n_labelled == len(pairs) or not loaded.binary_labels:
        return ""
    return (f"; right or wrong on the {n_labelled} labelled pairs of {plain(loaded.name)} "
            f"({len(pairs) - n_labelled} unlabelled left out)")


def main() -> None:
    if batch_results.compare_section():  # a whole-corpus batch result is open
        return
    st.title("Compare")
    loaded = current_dataset()
    scorer_section(loaded)
    aligner_section(loaded)
    annotator_section()


#: The scorers the scatter opens on: two fast ones that spread the pairs (n-gram overlap with
#: smoothing against word alignment). Plain BLEU is 0 on most short pairs (no 4-gram in
#: common), so with it the scatter was a stripe at x = 0.
DEFAULT_AXES = ("mbleu", "bow")


def _choose_scorers() -> tuple[str, str] | None:
    """The two scorers to compare (x and y axis), or None (with a note) when there are not two."""
    names = SCORERS.names(interactive=True) + SCORERS.names(interactive=False)
    if len(names) < 2:
        st.info("Comparing needs two registered scorers.")
        return None
    left, right = st.columns(2)
    x_default, y_default = (names.index(n) if n in names else i for i, n in enumerate(DEFAULT_AXES))
    x_name = left.selectbox("First run (x axis)", names, index=x_default, key="compare_x",
                            format_func=lambda n: SCORERS[n].label)
    y_name = right.selectbox("Second run (y axis)", names, index=y_default, key="compare_y",
                             format_func=lambda n: SCORERS[n].label)
    if x_name == y_name:
        st.info("Choose two different scorers.")
        return None
    return x_name, y_name


def _correct(score: float, cutoff: float | None, gold: bool | None) -> bool | None:
    """Whether a scorer judged the pair right at its cutoff; None without a gold label or a cutoff."""
    return None if gold is None or cutoff is None else bool((score > cutoff) == gold)


def _pair_table(table: pd.DataFrame, chosen: list[str]) -> None:
    """The pairs, narrowed to the chart's selection and optionally to disagreements; a row
    picked opens its pair."""
    show_only = st.radio("Show", ["all pairs", "disagreements only"], horizontal=True, key="compare_show")
    shown = table
    if chosen:
        shown = shown[shown["id"].isin(chosen)]
        st.caption(f"{count(len(shown), 'pair')} selected on the chart (double-click the chart to clear).")
    if show_only == "disagreements only":
        shown = shown[shown["agreement"].str.startswith("only")]
    rows = st.dataframe(shown, hide_index=True, width="stretch", key="compare_table",
                        on_select="rerun", selection_mode="single-row")
    picked = rows.selection.rows if rows is not None else []
    if picked:
        open_pair(str(shown.iloc[picked[0]]["id"]))


def scorer_section(loaded: LoadedDataset) -> None:
    """Two scorers: one score against the other; a selection filters the table."""
    st.subheader("Scorers")
    chosen_names = _choose_scorers()
    if chosen_names is None:
        return
    x_name, y_name = chosen_names
    with st.spinner(f"Scoring {plain(loaded.name)} with both..."):
        # the cutoffs every page decides by (scoring the development set too, when one is chosen)
        scored = attempt(lambda: (dataset_scores(loaded, x_name), dataset_scores(loaded, y_name),
                                  page_cutoff(loaded, x_name, score=True), page_cutoff(loaded, y_name, score=True)),
                         "Scoring", where=f"on {plain(loaded.name)}", then=". Choose other scorers.")
    if scored is None:
        return
    x, y, x_choice, y_choice = scored
    pairs = loaded.dataset.pairs
    # right and wrong only where there are labels
    x_cut, y_cut = (x_choice.value, y_choice.value) if loaded.binary_labels else (None, None)
    x_label, y_label = SCORERS[x_name].label, SCORERS[y_name].label
    groups = [agreement(_correct(xs, x_cut, pair.entails), _correct(ys, y_cut, pair.entails),
                        x_name=x_label, y_name=y_label)
              for pair, xs, ys in zip(pairs, x, y, strict=True)]
    table = pd.DataFrame({
        "id": [p.id for p in pairs], "task": [p.task or "" for p in pairs],
        "gold": [p.label or "" for p in pairs],
        x_label: np.round(x, 4), y_label: np.round(y, 4), "agreement": groups,
        "text": [p.text for p in pairs], "hypothesis": [p.hypothesis for p in pairs],
    })
    counts = table["agreement"].value_counts()
    st.caption(" · ".join(f"{group}: {n}" for group, n in counts.items())
               + f" — cutoffs {x_choice.value:.4f} ({plain(x_choice.origin)}) / {y_choice.value:.4f} "
               f"({plain(y_choice.origin)})" + _labelled_part(loaded))
    figure = score_scatter(list(table["id"]), list(x), list(y), groups, x_name=x_label, y_name=y_label,
                           x_cutoff=x_choice.value, y_cutoff=y_choice.value)
    event = charts.plotly_chart(figure, key=CHART, on_select="rerun", selection_mode=("box", "lasso", "points"))
    chosen = selected_ids(event.selection.points, list(table["id"])) if event is not None and event.selection else []
    _pair_table(table, chosen)

main()
