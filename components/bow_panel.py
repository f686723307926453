"""The bag-of-words aligner's tab on the Pair page: its alignment grid (against gold
when the dataset has one) and the per-word contributions to its score."""

from __future__ import annotations

import streamlit as st

from explorer.preprocess import AnalyzedPair


def render_bow_panel(pair: AnalyzedPair) -> None:
    from components.alignment_figures import alignment_grid
    from components.bow_figures import bow_contributions
    from explorer.aligners import get_aligner
    from explorer.aligners.bow import BowAligner

    aligner = get_aligner("bow")  # the registry's instance, shared with align-eval and the editor
    assert isinstance(aligner, BowAligner)
    result = aligner.align(pair)
    text_tokens, hypothesis_tokens = pair.text.tokens, pair.hypothesis.tokens
    st.caption(
        "Each hypothesis word is linked to the text word whose lemma is closest in "
        "Levenshtein distance (MacCartney et al. 2008's baseline). The score averages "
        "idf × log similarity over the hypothesis words: 0 when every word is found verbatim."
    )
    st.metric("Bag-of-words score", f"{result.value:+.3f}")
    gold = pair.pair.gold_alignment
    if gold is not None and (gold.p_len, gold.h_len) != (result.alignment.p_len, result.alignment.h_len):
        gold = None
    st.plotly_chart(
        alignment_grid(result.alignment, text_tokens, hypothesis_tokens, gold=gold,
                       title="Bag-of-words alignment" + (" vs gold" if gold is not None else "")),
        key="bow_grid",
    )
    st.plotly_chart(bow_contributions(result, text_tokens, hypothesis_tokens), key="bow_contributions")
