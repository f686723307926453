"""The bag-of-words aligner's tab on the Pair page: its alignment grid (against gold
when the dataset has one) and the per-word contributions to its score."""

from __future__ import annotations

import streamlit as st

from components import analysis, charts
from explorer.preprocess import AnalyzedPair


def render_bow_panel(pair: AnalyzedPair, *, key: str = "bow") -> None:
    from components.figures.alignment import alignment_grid
    from components.figures.bow import bow_contributions
    from components.panels.shared import fitting_gold
    from explorer.aligners.bow import BowResult

    result = analysis.align_as("bow", pair, BowResult)  # on a worker, kept per pair: reruns do not align again
    text_tokens, hypothesis_tokens = pair.text.tokens, pair.hypothesis.tokens
    st.caption(
        "Each hypothesis word is linked to the text word whose lemma is most similar: in "
        "Levenshtein distance (MacCartney et al. 2008's baseline) or, where it says more, by "
        "static word embeddings (see the Embeddings & similarity tab). The score averages "
        "idf × log similarity over the hypothesis words: 0 when every word is found verbatim."
    )
    st.metric("Bag-of-words score", f"{result.value:+.3f}")
    gold = fitting_gold(pair.pair, result.alignment.p_len, result.alignment.h_len)
    charts.grid_chart(
        lambda: alignment_grid(result.alignment, text_tokens, hypothesis_tokens, gold=gold,
                               title="Bag-of-words alignment" + (" vs gold" if gold is not None else "")),
        len(text_tokens), len(hypothesis_tokens), links=result.alignment, key=f"{key}_grid",
    )
    charts.plotly_chart(bow_contributions(result, text_tokens, hypothesis_tokens), key=f"{key}_contributions")
