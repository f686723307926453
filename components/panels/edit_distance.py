"""Pair-page tab for the probabilistic edit distance (pFSM and pPDA, Wang & Cer 2012).

Shows each machine's predicted similarity, its best edit sequence (operations with
their posterior probabilities) and the alignment that sequence creates, side by side
so the pPDA's jumps can be compared with the pFSM's deletions and insertions.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import streamlit as st

from components import analysis, charts
from components.figures.alignment import alignment_grid
from components.figures.edit_sequence import edit_sequence_figure, reinsertion_note, reinsertions
from components.guard import attempt
from components.sections.verdicts import verdict_line
from components.text import plain
from explorer.edit_distance.model import ModelError
from explorer.edit_distance.scoring import EditDistanceResult
from explorer.preprocess import AnalyzedPair

_LABELS = {"pfsm": "pFSM", "ppda": "pPDA (jumps)"}


def _decode(kind: str, pair: AnalyzedPair) -> EditDistanceResult:
    return analysis.score_as(kind, pair, EditDistanceResult)  # the strip's result, kept per pair (else on a worker)


def _summary(result: EditDistanceResult) -> str:
    jumps = sum(1 for s in result.steps if s.op == "JUMP_F")
    return (f"predicted similarity **{result.value:.3f}** (trained on STS 2012 + SICK, about 0-5) · "
            f"log-sum over all sequences {result.log_z:.2f} · best sequence {result.best_log_score:.2f} · "
            f"{len(result.steps)} operations, {jumps} forward jump(s)")


def match_note(result: EditDistanceResult, text: Sequence[str], read: Sequence[str]) -> str:
    """Why the links call some substitutions EQ: the classes the machine counts as a match,
    with this pair's lemma matches named (``was`` -> ``is`` is S_LEMMA above, EQ below)."""
    lemma = [f"“{' '.join(text[s.text_span[0]:s.text_span[1]])}” → “{' '.join(read[s.hyp_span[0]:s.hyp_span[1]])}”"
             for s in result.steps if s.cls == "S_LEMMA" and s.text_span and s.hyp_span]
    here = (f" Here {', '.join(lemma)} {'is a lemma match' if len(lemma) == 1 else 'are lemma matches'} "
            "(S_LEMMA above: two forms of one word), hence EQ below." if lemma else "")
    return ("In the links, every substitution the machine counts as a match is EQ (equal): the same word "
            "(S_WORD), two forms of one word (S_LEMMA, e.g. “was” and “is”), punctuation (S_PUNC) and blocks; "
            "paraphrases, similar words and other substitutions are SUB." + here)


def render_edit_distance_panel(pair: AnalyzedPair, *, key: str = "edit") -> None:
    """Draw the pFSM and pPDA evidence for one pair."""
    text, hyp = pair.text.tokens, pair.hypothesis.tokens
    columns = st.columns(2)
    for column, kind in zip(columns, ("pfsm", "ppda")):
        with column:
            st.markdown(f"#### {_LABELS[kind]}")
            with st.spinner(f"decoding the {_LABELS[kind]}..."):
                result = attempt(partial(_decode, kind, pair), _LABELS[kind], catch=(ModelError, OSError))
            if result is None:
                continue
            st.markdown(_summary(result))
            st.markdown(verdict_line(kind, float(result.value), pair.pair))
            read = result.reading(hyp)  # the steps' hypothesis positions are positions as read
            if result.reordered:
                st.caption(plain("The model reads the hypothesis in the text's order (moving a word costs nothing): "
                                 + " ".join(read)))
            note = reinsertion_note(reinsertions(result.steps, text, read, result.reading_links()), kind)
            if note:
                st.caption(plain(note))
            # Keyed per method: pFSM and pPDA often draw identical figures, which Streamlit
            # would otherwise refuse as duplicate elements.
            charts.plotly_chart(
                edit_sequence_figure(result.steps, result.probabilities, text, read, title="best edit sequence"),
                width="stretch", key=f"{key}_{kind}_sequence",
            )
            charts.grid_chart(
                partial(alignment_grid, result.alignment, text, hyp, title="links of the best sequence"),
                len(text), len(hyp), links=result.alignment, width="stretch", key=f"{key}_{kind}_links",
            )
            st.caption(plain(match_note(result, text, read)))
