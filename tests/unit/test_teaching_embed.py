"""The static-embeddings lesson: it ends on the embed aligner's or scorer's own value, its
links are the aligner's, and each step's figure draws what the sentence says."""

from __future__ import annotations

import numpy as np
import pytest

from components.teach_methods import TEACH_METHODS
from explorer.aligners.embed import EmbedAligner, EmbedScorer
from explorer.preprocess import AnalyzedPair, analyze_pair, make_pair
from explorer.teaching.embed import SHOWN_DIMENSIONS, trace_embed

PAIRS = (
    ("The chef bought a large car last spring.", "A cook purchased a big automobile."),
    ("Tomas met Anka", "Anka met Tomas"),
    ("Rain fell over the quiet harbour town all night.", "Rain"),
)


@pytest.fixture(scope="module", params=range(len(PAIRS)), ids=["synonyms", "swap", "one-word"])
def pair(request: pytest.FixtureRequest) -> AnalyzedPair:
    return analyze_pair(make_pair(*PAIRS[request.param]))


def test_the_links_lesson_ends_on_the_aligners_value_and_links(pair: AnalyzedPair) -> None:
    trace = trace_embed(pair, result="links")
    result = EmbedAligner().align(pair)
    assert trace.value == result.value and trace.steps[-1].value == result.value
    assert trace.steps[-1].links == result.alignment.links
    assert [s.phase for s in trace.steps][:3] == ["tokens", "vectors", "matrix"]
    assert np.allclose(trace.similarity, EmbedAligner().similarity(pair))


def test_the_score_lesson_ends_on_the_scorers_value(pair: AnalyzedPair) -> None:
    trace = trace_embed(pair, result="score")
    value = EmbedScorer().score(pair).value
    assert trace.value == value == trace.steps[-1].value
    assert f"{value:.3f}" in trace.steps[-1].explain
    # What the last step's figure multiplies: the two sentence vectors' first numbers.
    products = TEACH_METHODS["embed"].step_figure(trace, len(trace.steps) - 1).figure["data"][0]["z"][2]
    assert len(products) == SHOWN_DIMENSIONS
    assert products == [round(float(a * b), 2) for a, b in zip(*trace.sentence_vectors)]


def test_each_side_chooses_its_best_word_and_a_link_is_a_mutual_choice() -> None:
    pair = analyze_pair(make_pair(*PAIRS[0]))
    trace = trace_embed(pair)
    by_phase = {s.phase: s for s in trace.steps}
    for_h, for_t = by_phase["best_for_hypothesis"].marked, by_phase["best_for_text"].marked
    assert len({j for _, j in for_h}) == len(for_h) and len({i for i, _ in for_t}) == len(for_t)
    assert by_phase["links"].links == for_h & for_t
    # Synonyms no classic string match links: the embedding does ("purchased" ~ "bought").
    bought, purchased = pair.text.tokens.index("bought"), pair.hypothesis.tokens.index("purchased")
    assert (bought, purchased) in by_phase["links"].links
    assert "“bought”" in by_phase["matrix"].explain or "“car”" in by_phase["matrix"].explain
    figure = TEACH_METHODS["embed"].step_figure(trace, trace.steps.index(by_phase["best_for_text"])).figure
    assert [t["name"] for t in figure["data"][1:]] == ["best text word for a hypothesis word",
                                                       "best hypothesis word for a text word"]


def test_the_pieces_step_shows_each_words_pieces() -> None:
    pair = analyze_pair(make_pair("An unbelievably tall tower.", "A tower."))
    trace = trace_embed(pair)
    figure = TEACH_METHODS["embed"].step_figure(trace, 0).figure
    text_side = figure["data"][0]
    row = pair.text.tokens.index("unbelievably")
    assert [p for p in text_side["text"][row] if p] == list(trace.text_pieces[row])
    assert len(trace.text_pieces[row]) > 1 and "is “▁" in trace.steps[0].explain


def test_an_unknown_result_is_refused() -> None:
    with pytest.raises(ValueError, match="result must be one of links, score"):
        trace_embed(analyze_pair(make_pair("a b", "a")), result="both")  # type: ignore[arg-type]
