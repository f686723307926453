"""The Pair page's "Download the full analysis (HTML)" button.

The file is built only when the button is clicked (Streamlit runs the callable on its own
thread, after the page is drawn), so the Pair page pays nothing for it: the cutoffs and
results are the page's own, the figures of every method are drawn then, on one of the
server's workers (:mod:`components.report`, :mod:`components.workers`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import streamlit as st

from components import workers
from components.data import LoadedDataset
from components.panels import report_methods
from components.report import ScoreRow, pair_report, report_html
from explorer.decision.cutoffs import CutoffChoice
from explorer.preprocess import AnalyzedPair
from explorer.scorers import SCORERS
from runtime.pool import PoolError, cost

if TYPE_CHECKING:
    from components.sections.verdicts import PageScore


def score_rows(results: Mapping[str, PageScore], cutoffs: Mapping[str, CutoffChoice]) -> list[ScoreRow]:
    rows = []
    for name, result in results.items():
        cut = cutoffs[name]
        value = float(result.value)
        info = SCORERS.get(name)
        rows.append(ScoreRow(info.label if info else name, value, cut.value, value > cut.value, cut.origin,
                             info.description if info else ""))
    return rows


def file_name(loaded: LoadedDataset, analyzed: AnalyzedPair) -> str:
    pair = analyzed.pair
    stem = "typed-pair" if pair.source == "typed" else f"{loaded.name}-pair-{pair.id}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", stem)[:80] + ".html"


def render_report_download(loaded: LoadedDataset, analyzed: AnalyzedPair, results: Mapping[str, PageScore],
                           cutoffs: Mapping[str, CutoffChoice]) -> None:
    pair = analyzed.pair
    where = "a typed pair" if pair.source == "typed" else f"pair {pair.id} of {loaded.name}"
    rows = score_rows(results, cutoffs)
    missing = [SCORERS[n].label for n in SCORERS if n not in results]
    notes = [f"Not in the table (not run on this page yet): {', '.join(missing)}."] if missing else []

    # One report in flight per browser session (its own slot: a download does not stop the page's jobs).
    session = f"{workers.session_id()}:report"

    def build() -> str:
        try:
            return workers.run(pair_report, pair, where=where, rows=rows, notes=notes, what="Building the report",
                               long=cost.is_long([pair], report_methods()), session=session)
        except PoolError as err:  # past its budget, say: the file says so instead of failing
            return report_html(text=pair.text, hypothesis=pair.hypothesis, gold_label=pair.label, gold=pair.entails,
                               where=where, rows=rows, figures=[], notes=[*notes, f"No figures: {err}"])

    st.download_button(
        "Download the full analysis (HTML)", data=build, file_name=file_name(loaded, analyzed), mime="text/html",
        on_click="ignore", key="pair_report",
        help="One self-contained file: the pair, every verdict and score, and every method's figures "
             "(each with PNG and SVG buttons). It opens offline; building it takes a few seconds.",
    )
