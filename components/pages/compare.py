"""Compare page: two scorers' runs on the current dataset side by side. A scatter of one
score against the other, coloured by which run decides each pair correctly; a box or
lasso selection on it filters the table of pairs below."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from components.compare_figures import agreement, score_scatter, selected_ids
from components.data import dataset_best_cutoff, dataset_scores
from components.state import current_dataset, open_pair
from explorer.scorers import SCORERS

CHART = "compare_scatter"


def main() -> None:
    st.title("Compare")
    loaded = current_dataset()
    names = [n for n, info in SCORERS.items() if info.interactive] + \
        [n for n, info in SCORERS.items() if not info.interactive]
    if len(names) < 2:
        st.info("Comparing needs two registered scorers.")
        return
    left, right = st.columns(2)
    x_name = left.selectbox("First run (x axis)", names, index=0, key="compare_x",
                            format_func=lambda n: SCORERS[n].label)
    y_default = names.index("mbleu") if "mbleu" in names and names[0] != "mbleu" else 1
    y_name = right.selectbox("Second run (y axis)", names, index=y_default, key="compare_y",
                             format_func=lambda n: SCORERS[n].label)
    if x_name == y_name:
        st.info("Choose two different scorers.")
        return
    try:
        with st.spinner(f"Scoring {loaded.name} with both..."):
            x = dataset_scores(loaded, x_name)
            y = dataset_scores(loaded, y_name)
    except Exception as error:  # a failing scorer: say which
        st.error(f"Scoring failed: {type(error).__name__}: {error}. Choose other scorers.")
        return
    pairs = loaded.dataset.pairs
    x_best, y_best = dataset_best_cutoff(loaded, x_name), dataset_best_cutoff(loaded, y_name)
    x_cut = None if x_best is None else x_best[0]
    y_cut = None if y_best is None else y_best[0]
    x_label, y_label = SCORERS[x_name].label, SCORERS[y_name].label
    groups = []
    for pair, xs, ys in zip(pairs, x, y, strict=True):
        gold = pair.entails
        x_ok = None if gold is None or x_cut is None else bool((xs > x_cut) == gold)
        y_ok = None if gold is None or y_cut is None else bool((ys > y_cut) == gold)
        groups.append(agreement(x_ok, y_ok, x_name=x_label, y_name=y_label))
    table = pd.DataFrame({
        "id": [p.id for p in pairs], "task": [p.task or "" for p in pairs],
        "gold": [p.label or "" for p in pairs],
        x_label: np.round(x, 4), y_label: np.round(y, 4), "agreement": groups,
        "text": [p.text for p in pairs], "hypothesis": [p.hypothesis for p in pairs],
    })
    counts = table["agreement"].value_counts()
    st.caption(" · ".join(f"{group}: {n}" for group, n in counts.items())
               + ("" if x_cut is None else f" — cutoffs {x_cut:.4f} / {y_cut:.4f}, best on {loaded.name}"))
    figure = score_scatter(list(table["id"]), list(x), list(y), groups, x_name=x_label, y_name=y_label,
                           x_cutoff=x_cut, y_cutoff=y_cut)
    event = st.plotly_chart(figure, key=CHART, on_select="rerun", selection_mode=("box", "lasso", "points"))
    chosen = selected_ids(event.selection.points) if event is not None and event.selection else []
    show_only = st.radio("Show", ["all pairs", "disagreements only"], horizontal=True, key="compare_show")
    shown = table
    if chosen:
        shown = shown[shown["id"].isin(chosen)]
        st.caption(f"{len(shown)} pairs selected on the chart (double-click the chart to clear).")
    if show_only == "disagreements only":
        shown = shown[shown["agreement"].str.startswith("only")]
    rows = st.dataframe(shown, hide_index=True, width="stretch", key="compare_table",
                        on_select="rerun", selection_mode="single-row")
    picked = rows.selection.rows if rows is not None else []
    if picked:
        open_pair(str(shown.iloc[picked[0]]["id"]))


main()
