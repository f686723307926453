"""The Groups page's "What if…" section: rewrite every pair of a slice by one rule
(:mod:`explorer.groups.rewrites`), rescore it with every chosen method on the workers, and
show the verdicts that moved; the rewritten pairs are kept in the store as counterfactuals
and open on the Pair page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from components import state, workers
from components.charts import plotly_chart
from components.data import LoadedDataset
from components.figures.groups import flip_figure
from components.guard import attempt
from components.store_access import get_store, store_dataset_id
from components.text import count, plain
from explorer.groups.frame import GroupFrame
from explorer.groups.rewrites import REWRITES, RewriteReport, rewrite_run
from explorer.groups.stats import SliceResult
from explorer.scorers import SCORERS
from explorer.store import StoreError

#: A what-if run rewrites and rescores at most this many pairs (each method scores every
#: rewrite: a larger slice is a `rewrite` command's job).
MAX_REWRITE_PAIRS = 1_000
#: The last run of this session: (dataset key, rule, slice, scorers) and its report.
LAST: state.Slot[tuple[tuple[str, str, str, tuple[str, ...]], RewriteReport]] = state.Slot("explorer_groups_rewrite")


def _accuracy(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def summary_table(report: RewriteReport) -> pd.DataFrame:
    """One row per method: verdicts flipped, and accuracy before and after where the rule
    settles the label."""
    return pd.DataFrame([{
        "method": SCORERS[r.scorer].label if r.scorer in SCORERS else r.scorer,
        "flipped": f"{r.flipped} of {report.n_rewritten}",
        "accuracy before": _accuracy(r.accuracy_before), "accuracy after": _accuracy(r.accuracy_after),
        "on pairs with a settled label": r.n_expected,
        "cutoff": f"{r.cutoff.value:.4f}",
    } for r in report.results])


def pairs_table(report: RewriteReport) -> pd.DataFrame:
    """One row per rewritten pair: what changed and each method's verdict before -> after."""
    def verdict(value: bool | None) -> str:
        return "?" if value is None else "entails" if value else "not"

    rows = []
    for row in report.rows:
        item: dict[str, object] = {"id": row.original.id, "change": row.rewritten.note or "",
                                   "hypothesis after": row.rewritten.hypothesis}
        for scorer in row.before:
            mark = " ✱" if row.flipped(scorer) else ""
            item[scorer] = f"{verdict(row.entails_before[scorer])} → {verdict(row.entails_after[scorer])}{mark}"
        rows.append(item)
    return pd.DataFrame(rows)


def _keep(loaded: LoadedDataset, report: RewriteReport) -> None:
    """The rewrites as counterfactuals in the store (replacing this rule's earlier ones)."""
    try:
        store = get_store()
        store.add_counterfactuals(store_dataset_id(loaded), report.rule.name, report.counterfactuals())
    except StoreError as error:
        st.warning(f"The rewritten pairs could not be kept in the store: {plain(error)}")


def open_rewritten(loaded: LoadedDataset, report: RewriteReport, rewritten_id: str) -> None:
    """Open a rewritten pair on the Pair page: its original, with the rewrite in the boxes."""
    row = next(r for r in report.rows if r.id == rewritten_id)
    state.PAIR_SHOWN.set((loaded.key, row.original.id))
    for widget, kept, value in ((state.TEXT_WIDGET, state.TYPED_TEXT, row.rewritten.text),
                                (state.HYPOTHESIS_WIDGET, state.TYPED_HYPOTHESIS, row.rewritten.hypothesis)):
        kept.set(value)
        widget.set(value)
    state.open_pair(row.original.id)


def _run(loaded: LoadedDataset, frame: GroupFrame, rule: str, ids: Sequence[str] | None) -> RewriteReport | None:
    def job() -> RewriteReport:
        report: RewriteReport = workers.run(
            rewrite_run, loaded.dataset, rule, list(frame.scorers), ids=None if ids is None else list(ids),
            cutoffs_given=dict(frame.cutoffs), what=f"Rewriting {count(len(ids or loaded.dataset), 'pair')} by {rule}",
            long=True)
        return report

    return attempt(job, "The rewrite", where=f"on {plain(loaded.name)}")


def render_rewrites(loaded: LoadedDataset, frame: GroupFrame, slices: Mapping[str, str],
                    results: Sequence[SliceResult]) -> None:
    """Pick a rule and a slice, rewrite and rescore, then the flips and the pairs."""
    st.subheader("What if…")
    st.caption("Rewrite every pair of a slice the same way and rescore it with the methods above, deciding with "
               "the same cutoffs: a verdict that moves is the rewrite's doing. Where the rule settles the label "
               "(an antonym in an entailed hypothesis), the accuracy before and after is shown too.")
    left, right = st.columns(2)
    rule = left.selectbox("Rule", list(REWRITES), key="groups_rule",
                          format_func=lambda n: f"{n}: {REWRITES[n].description}")
    by_name = {r.name: r for r in results}
    everything = "(every pair)"
    where = right.selectbox("Apply to", [everything, *[n for n in slices if by_name.get(n) and by_name[n].n]],
                            key="groups_rewrite_slice")
    ids = None if where == everything else list(by_name[where].ids)
    size = len(loaded.dataset) if ids is None else len(ids)
    if ids is not None and len(ids) < by_name[where].n:
        st.warning("This slice lists only its first pairs; all of them are rewritten here.")
    if size > MAX_REWRITE_PAIRS:
        st.info(f"{count(size, 'pair')} is more than a what-if run takes here ({MAX_REWRITE_PAIRS:,}): choose a "
                "smaller slice, or run `explorer rewrite` on the command line.")
        return
    key = (loaded.key, rule, where, tuple(frame.scorers))
    if st.button(f"Rewrite {count(size, 'pair')} and rescore", key="groups_rewrite_run", type="primary"):
        report = _run(loaded, frame, rule, ids)
        if report is not None:
            LAST.set((key, report))
            _keep(loaded, report)
    last = LAST.get()
    if last is None or last[0] != key:
        return
    show_report(loaded, last[1])


def show_report(loaded: LoadedDataset, report: RewriteReport) -> None:
    st.caption(f"{report.rule.name}: {report.n_rewritten} of {count(report.n_pairs, 'pair')} rewritten"
               + (f" ({report.refused} refused by the rule)" if getattr(report, "refused", 0) else "")
               + "; kept in the store as counterfactuals.")
    if not report.n_rewritten:
        st.info("The rule applies to no pair here.")
        return
    plotly_chart(flip_figure([SCORERS[r.scorer].label if r.scorer in SCORERS else r.scorer for r in report.results],
                             [r.flipped for r in report.results], report.n_rewritten, rule=report.rule.name),
                 key="groups_flips")
    st.dataframe(summary_table(report), hide_index=True, width="stretch")
    table = pairs_table(report)
    st.dataframe(table, hide_index=True, width="stretch")
    left, right = st.columns([3, 1])
    pick = left.selectbox("Open a rewritten pair on the Pair page", [r.id for r in report.rows],
                          key="groups_rewrite_pick")
    if right.button("Open it", key="groups_rewrite_open") and pick is not None:
        open_rewritten(loaded, report, str(pick))
