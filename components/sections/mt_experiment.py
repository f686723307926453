"""The MT-metric classifier experiment on loaded data, beside Finch et al.'s figures.

``render_mtmetrics_comparison(train, test)`` is meant for a comparison page: the user
picks feature sets and the protocol (train/test, or k-fold over the training data),
runs the experiment, and sees our accuracy, precision, recall and F1 beside the paper's
MSRP accuracy. Streamlit only; the work is :mod:`explorer.mtclassify`.
"""

from __future__ import annotations

import streamlit as st

from components.text import plain
from explorer.datasets import Dataset
from explorer.metrics.features import ALL_GROUPS, GROUPS


def render_mtmetrics_comparison(train: Dataset, test: Dataset | None = None, *, key: str = "mtmetrics") -> None:
    """Controls, a run button and the results table (widget keys start with ``key``)."""
    from components import workers
    from explorer.mtclassify import ClassifyError, comparison_rows
    from runtime.pool import PoolError, tasks

    st.caption("Finch, Hwang & Sumita (2005): an RBF-kernel SVM over MT-evaluation metrics. "
               "The paper's column is its MSRP test accuracy (jackknifing for k-fold 'all').")
    chosen = st.multiselect("Feature sets (each run on its own)", GROUPS + ("all",),
                            default=["per", "bleu1", "pos", "all"], key=f"{key}_sets")
    # radio options are Markdown: the names are escaped
    protocols = ["k-fold over the training data"] + ([f"train on {plain(train.name)}, test on {plain(test.name)}"]
                                                     if test else [])
    protocol = st.radio("Protocol", protocols, key=f"{key}_protocol", horizontal=True)
    folds = st.number_input("Folds", min_value=2, max_value=20, value=10, key=f"{key}_folds",
                            disabled=not protocol.startswith("k-fold"))
    if not st.button("Run the experiment", key=f"{key}_run", disabled=not chosen):
        return
    reports = []
    try:
        for name in chosen:  # one job per feature set, on the server's workers (long: a dataset each)
            groups = ALL_GROUPS if name == "all" else (name,)
            k = int(folds) if protocol.startswith("k-fold") else 0
            report = workers.run(tasks.mt_experiment, list(train.pairs), list(test.pairs) if test and not k else [],
                                 groups, k, what=f"Computing the {name} features and training", long=True)
            reports.append((name, report))
    except (ClassifyError, ValueError, PoolError) as err:
        st.error(plain(str(err)))
        return
    st.dataframe(comparison_rows(reports), hide_index=True, width="stretch")


def render_corpus_statistics(dataset: Dataset) -> None:
    """Finch et al.'s Table 1 for a dataset: mean lengths, LDR, edit distance, per task."""
    from components import workers
    from explorer.mtclassify import ClassifyError, corpus_statistics
    from runtime.pool import PoolError, cost

    pairs = list(dataset.pairs)
    try:  # a word edit distance per pair: on a worker (long for a large dataset)
        rows = workers.run(corpus_statistics, pairs, what=f"Computing the statistics of {len(pairs):,} pairs",
                           long=cost.is_long(pairs, ["wer"]))
    except ClassifyError as err:
        st.info(str(err))
        return
    except PoolError as err:
        st.error(plain(str(err)))
        return
    st.dataframe(
        [{"group": r.group, "pairs": r.n, "positive": r.positive_share, "text tokens": r.mean_text_length,
          "hypothesis tokens": r.mean_hypothesis_length, "LDR": r.mean_ldr, "word edit distance": r.mean_edit_distance}
         for r in rows],
        hide_index=True, width="stretch",
        column_config={"positive": st.column_config.NumberColumn(format="%.3f"),
                       "text tokens": st.column_config.NumberColumn(format="%.2f"),
                       "hypothesis tokens": st.column_config.NumberColumn(format="%.2f"),
                       "LDR": st.column_config.NumberColumn(format="%.3f"),
                       "word edit distance": st.column_config.NumberColumn(format="%.2f")},
    )
    st.caption("Means over pairs, in tokens. LDR = |len(text) - len(hypothesis)| / max of the two; "
               "Finch et al. found that pairs of similar length (low LDR) suit the MT metrics better.")
