"""The Pair page's "Similarity" tab: the static-embedding methods (the ``embed`` scorer's
sentence cosine and the ``embed`` aligner's grid, against gold when the pair has one), then
the word-similarity matrix behind any aligner's links, with the source of each cell."""

from __future__ import annotations

import streamlit as st

from components import analysis, charts, workers
from components.sections.verdicts import verdict_line
from explorer.aligners.similarity_view import SimilarityView
from explorer.preprocess import AnalyzedPair
from runtime.pool import cost, tasks


def render_similarity_panel(pair: AnalyzedPair, *, key: str = "embed") -> None:
    from components.figures.alignment import alignment_grid
    from components.figures.similarity import similarity_heatmap
    from components.guard import attempt
    from components.panels.shared import fitting_gold
    from explorer.aligners import ALIGNERS

    text_tokens, hypothesis_tokens = pair.text.tokens, pair.hypothesis.tokens
    st.markdown("#### Static embeddings")
    st.caption(
        "Every token gets a fixed vector from a small table of subword vectors (WordLlama's, shipped "
        "with the app: no model runs, nothing is downloaded); a word's vector is the mean of its "
        "subwords'. The scorer compares the two sentences' mean vectors (cosine); the aligner links "
        "two words when each is the other's most similar word (SimAlign's argmax)."
    )
    scored = attempt(lambda: analysis.score("embed", pair), "Static embeddings (cosine)")
    if scored is not None:
        st.metric("Sentence cosine", f"{scored.value:.3f}")
        st.markdown(verdict_line("embed", float(scored.value), pair.pair))
    aligned = attempt(lambda: analysis.align("embed", pair), "Static-embedding aligner")
    if aligned is not None:
        gold = fitting_gold(pair.pair, aligned.alignment.p_len, aligned.alignment.h_len)
        charts.grid_chart(
            lambda: alignment_grid(aligned.alignment, text_tokens, hypothesis_tokens, gold=gold,
                                   title="Static-embedding alignment" + (" vs gold" if gold is not None else "")),
            len(text_tokens), len(hypothesis_tokens), links=aligned.alignment, key=f"{key}_embed_grid",
        )

    st.markdown("#### The similarity behind the links")
    names = list(ALIGNERS)  # every aligner reads its links off a word similarity (word_similarity())
    name = st.selectbox("Aligner", names, index=names.index("embed") if "embed" in names else 0,
                        format_func=lambda n: ALIGNERS[n].label, key=f"{key}_aligner")
    st.caption(
        "Each cell is the word similarity this aligner reads (darker = more similar); its links are the "
        "red squares, the gold links (when the pair has them) the dots. Hover a cell to see which "
        "resource gave its similarity: the same word, spelling, a number, WordNet, PPDB or the embedding."
    )
    result = attempt(lambda: analysis.align(name, pair), ALIGNERS[name].label)
    view = attempt(lambda: _similarity(name, pair), f"{ALIGNERS[name].label}: similarity matrix")
    if view is None:
        return
    links = result.alignment if result is not None else None
    gold = fitting_gold(pair.pair, len(text_tokens), len(hypothesis_tokens))
    charts.grid_chart(
        lambda: similarity_heatmap(
            view.values, [[view.label(i, j) for j in range(len(hypothesis_tokens))] for i in range(len(text_tokens))],
            text_tokens, hypothesis_tokens, links=links, gold=gold,
            title=f"{ALIGNERS[name].label}: word similarity and links"),
        len(text_tokens), len(hypothesis_tokens), links=links, key=f"{key}_heatmap_{name}",
    )


def _similarity(name: str, pair: AnalyzedPair) -> SimilarityView:
    """The aligner's similarity matrix, on a worker, kept per pair for the whole server."""
    from explorer.aligners import ALIGNERS

    def compute() -> SimilarityView:
        view = workers.run(tasks.similarity_matrix, pair.pair, name,
                           what=f"{ALIGNERS[name].label}: word similarities",
                           long=cost.is_long([pair.pair], [name]))
        if not isinstance(view, SimilarityView):
            raise TypeError(f"{name!r} gave a {type(view).__name__}, not a similarity matrix")
        return view

    return analysis.kept(("similarity", name, *analysis.pair_key(pair.pair)), compute)
