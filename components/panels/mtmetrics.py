"""The Pair page's "MT metrics" tab (Finch, Hwang & Sumita 2005): Streamlit only.

Every metric with its breakdown (both directions), the pair's metric profile against
the MSRP training distribution shipped in ``explorer/models``, the WER edit script,
the PER word matching and the POS-decomposed PER bars. Figures come from
:mod:`components.figures.mtmetrics`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from components import analysis, charts, workers
from components.figures.mtmetrics import bag_matching, edit_sequence, metric_profile, pos_bars
from explorer.preprocess import AnalyzedPair
from runtime.pool import cost, tasks

if TYPE_CHECKING:
    from explorer.metrics.per import PosPerResult
    from explorer.metrics.wer import WerResult


def metric_rows(pair: AnalyzedPair) -> tuple[list[dict[str, object]], dict[str, float], WerResult, PosPerResult]:
    """Table rows (metric, value, hypothesis->text, text->hypothesis, detail), the
    feature values for the profile, and the WER and POS-PER results: computed on a worker
    (:func:`explorer.metrics.features.metric_breakdown`), kept per pair."""
    breakdown = analysis.kept(
        ("mt_metrics", *analysis.pair_key(pair.pair)),
        lambda: workers.run(tasks.mt_metrics, pair.pair, what="Computing the MT metrics",
                            long=cost.is_long([pair.pair], ["wer", "pos_per"])))
    return [dict(row) for row in breakdown.rows], dict(breakdown.profile), breakdown.wer, breakdown.pos


def render_mtmetrics_panel(pair: AnalyzedPair, *, key: str = "bleu") -> None:
    """Draw every MT metric of one pair, with its breakdown."""
    from components.figures.alignment import alignment_grid
    from explorer.mtclassify import load_profile

    if not len(pair.text) or not len(pair.hypothesis):
        st.info("Both sentences need at least one word for the MT metrics.")
        return
    rows, values, wer, pos = metric_rows(pair)
    st.caption(
        "Finch, Hwang & Sumita (2005): MT-evaluation metrics as paraphrase features, each computed "
        "with either sentence as the candidate and averaged. WER and PER are error rates (lower = more "
        "similar); BLEU has no brevity penalty; NIST weighs n-grams by their information in the Brown corpus."
    )
    st.dataframe(rows, hide_index=True, width="stretch", key=f"{key}_table",
                 column_config={"value": st.column_config.NumberColumn(format="%.4f"),
                                "hypothesis as candidate": st.column_config.NumberColumn(format="%.4f"),
                                "text as candidate": st.column_config.NumberColumn(format="%.4f")})
    profile = load_profile()
    distributions = profile["features"] if profile else None
    charts.plotly_chart(metric_profile(values, distributions,
                                   title="This pair against " + (profile["source"] if profile else "no reference data")),
                    width="stretch", key=f"{key}_profile")
    charts.plotly_chart(edit_sequence(wer, pair.text.tokens, pair.hypothesis.tokens), width="stretch", key=f"{key}_wer")
    # Drawn only once opened (a rerun): closed, it cost every run of the Pair page a grid
    # build (about 25 ms of the process a class shares) that nobody looked at.
    grid = st.expander("WER edit script as an alignment grid", key=f"{key}_wer_grid_open", on_change="rerun")
    if grid.open:
        with grid:
            charts.grid_chart(lambda: alignment_grid(wer.alignment, pair.text.tokens, pair.hypothesis.tokens,
                                                     title="WER edit script"),
                              len(pair.text.tokens), len(pair.hypothesis.tokens), links=wer.alignment,
                              width="stretch", key=f"{key}_wer_grid")
    charts.plotly_chart(bag_matching(pos, pair.text.tokens, pair.hypothesis.tokens), width="stretch", key=f"{key}_per")
    charts.plotly_chart(pos_bars(pos), width="stretch", key=f"{key}_pos_per")
