"""The Pair page's "MT metrics" tab (Finch, Hwang & Sumita 2005): Streamlit only.

Every metric with its breakdown (both directions), the pair's metric profile against
the MSRP training distribution shipped in ``explorer/models``, the WER edit script,
the PER word matching and the POS-decomposed PER bars. Figures come from
:mod:`components.figures.mtmetrics`.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from components import charts
from components.figures.mtmetrics import bag_matching, edit_sequence, metric_profile, pos_bars
from explorer.preprocess import AnalyzedPair


def metric_rows(pair: AnalyzedPair) -> tuple[list[dict[str, Any]], dict[str, float], Any, Any]:
    """Table rows (metric, value, hypothesis->text, text->hypothesis, detail), the
    feature values for the profile, and the WER and POS-PER results."""
    from explorer.metrics.bleu import bleu_both_ways
    from explorer.metrics.nist import nist_tokens
    from explorer.metrics.per import per_tokens, pos_per
    from explorer.metrics.wer import wer_tokens

    p, h = pair.text.lower, pair.hypothesis.lower
    wer = wer_tokens(p, h)
    per = per_tokens(p, h)
    rows: list[dict[str, Any]] = [
        {"metric": "WER", "value": wer.rate, "hypothesis as candidate": wer.rate_text_reference,
         "text as candidate": wer.rate_hypothesis_reference,
         "detail": f"{wer.distance} edits: {wer.substitutions} SUB, {wer.deletions} DEL, {wer.insertions} INS"},
        {"metric": "PER", "value": per.rate, "hypothesis as candidate": per.rate_text_reference,
         "text as candidate": per.rate_hypothesis_reference,
         "detail": f"unmatched: {per.text_unmatched} text, {per.hypothesis_unmatched} hypothesis words"},
    ]
    profile = {"wer": wer.rate, "per": per.rate}
    for n in range(1, 5):
        bleu = bleu_both_ways(p, h, n, with_matches=False)
        precisions = ", ".join(f"{x:.2f}" for x in bleu.hypothesis_candidate.precisions)
        rows.append({"metric": f"BLEU{n}", "value": bleu.value,
                     "hypothesis as candidate": bleu.hypothesis_candidate.value,
                     "text as candidate": bleu.text_candidate.value,
                     "detail": f"precisions (hypothesis as candidate): {precisions}"})
        profile[f"bleu{n}"] = bleu.value
    for n in range(1, 6):
        nist = nist_tokens(p, h, max_n=n)
        info = ", ".join(f"{o.info:.1f}" for o in nist.orders)
        rows.append({"metric": f"NIST{n}", "value": nist.value,
                     "hypothesis as candidate": nist.hypothesis_candidate,
                     "text as candidate": nist.text_candidate,
                     "detail": f"matched information (bits) per order: {info}; weights: {nist.weights_source}"})
        profile[f"nist{n}"] = nist.value
    pos = pos_per(pair, stem=True)
    rows.append({"metric": "POS-PER matched share", "value": pos.value, "hypothesis as candidate": None,
                 "text as candidate": None, "detail": "nouns and verbs compared by lemma"})
    return rows, profile, wer, pos


def render_mtmetrics_panel(pair: AnalyzedPair, *, key: str = "mtmetrics") -> None:
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
    with st.expander("WER edit script as an alignment grid"):
        charts.plotly_chart(alignment_grid(wer.alignment, pair.text.tokens, pair.hypothesis.tokens,
                                       title="WER edit script"), width="stretch", key=f"{key}_wer_grid")
    charts.plotly_chart(bag_matching(pos, pair.text.tokens, pair.hypothesis.tokens), width="stretch", key=f"{key}_per")
    charts.plotly_chart(pos_bars(pos), width="stretch", key=f"{key}_pos_per")
