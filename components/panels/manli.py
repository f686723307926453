"""MANLI's tab on the Pair page: the phrase alignment as a grid (against gold when the
pair has one), and the edit list whose scores add up to the alignment's score."""

from __future__ import annotations

import streamlit as st

from components import analysis, charts
from components.sections.verdicts import verdict_line
from explorer.preprocess import AnalyzedPair


def render_manli_panel(pair: AnalyzedPair, *, key: str = "manli") -> None:
    from components.figures.alignment import alignment_grid
    from components.figures.manli import contribution_figure, edit_rows
    from components.panels.shared import fitting_gold
    from explorer.aligners.manli import ManliResult, ManliScore

    result = analysis.align_as("manli", pair, ManliResult)  # on a worker, kept per pair (one decode)
    text_tokens, hypothesis_tokens = pair.text.tokens, pair.hypothesis.tokens
    st.caption(
        "MANLI (MacCartney, Galley & Manning 2008) aligns phrases: EQ and SUB link a text "
        "phrase to a hypothesis phrase, DEL and INS leave a token unaligned. Simulated "
        "annealing searches for the alignment with the highest score; each edit's score is "
        "its learned feature weights times its features (hover a cell to see them)."
    )
    decision = analysis.score_as("manli", pair, ManliScore)  # the strip's entailment score of this alignment
    left, middle, right = st.columns(3)
    left.metric("Alignment score", f"{result.total:+.3f}", help=f"per token of the problem (the paper's score): {result.normalized:+.4f}")
    middle.metric("Entailment score", f"{decision.value:.4f}",
                  help="share of hypothesis content words aligned, plus 0.1 x the hypothesis side's score per hypothesis token")
    right.metric("Hypothesis content words aligned", f"{decision.content_coverage:.0%}")
    if decision.unaligned_content:
        from components.text import plain

        words = plain(", ".join(hypothesis_tokens[j] for j in decision.unaligned_content))
        st.caption(f"Hypothesis content words left unaligned: {words}")
    st.markdown(verdict_line("manli", float(decision.value), pair.pair))
    gold = fitting_gold(pair.pair, result.alignment.p_len, result.alignment.h_len)
    if gold is None and pair.pair.gold_alignment is not None:
        st.info("The gold alignment covers other tokens than this pair's; it is not overlaid.")
    charts.grid_chart(
        lambda: alignment_grid(result.alignment, text_tokens, hypothesis_tokens, gold=gold,
                               title="MANLI alignment" + (" vs gold" if gold is not None else "")),
        len(text_tokens), len(hypothesis_tokens), links=result.alignment, key=f"{key}_grid",
    )
    weights = dict(result.weights)
    rows = edit_rows(result.edits, text_tokens, hypothesis_tokens, weights)
    st.markdown(f"**Edits** — their scores add up to the total, {result.total:+.3f}")
    st.dataframe(rows, hide_index=True, key=f"{key}_edits")
    charts.plotly_chart(contribution_figure(result.edits, text_tokens, hypothesis_tokens), key=f"{key}_contributions")
