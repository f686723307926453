"""The embed scorer and aligner (explorer.aligners.embed): SimAlign-style argmax and
itermax on hand-made matrices, and the methods on the shipped table."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.aligners.embed import EmbedAligner, EmbedScorer, itermax, mutual_argmax
from explorer.lexical.embedding import is_available
from explorer.limits import LimitError, Limits
from explorer.preprocess import analyze_pair, make_pair

needs_table = pytest.mark.skipif(not is_available(), reason="the wordllama package (its shipped table) is not installed")

# Text words (rows) x hypothesis words (columns).
SIMS = np.array([
    [0.9, 0.1, 0.0],
    [0.8, 0.2, 0.1],   # row 1's best is column 0, but column 0 prefers row 0
    [0.0, 0.3, 0.7],
])


def test_mutual_argmax_links_cells_that_are_best_in_their_row_and_column() -> None:
    assert {tuple(c) for c in np.argwhere(mutual_argmax(SIMS))} == {(0, 0), (2, 2)}


def test_mutual_argmax_of_an_empty_or_zero_matrix_links_nothing() -> None:
    assert not mutual_argmax(np.zeros((0, 3))).any()
    assert not mutual_argmax(np.zeros((2, 2))).any()


def test_itermax_adds_links_for_words_still_unaligned_with_a_discount() -> None:
    rounds = itermax(SIMS, iterations=1, discount=0.9, min_similarity=0.1)
    # Round 1: cells of two aligned words are out; cells with one aligned word are
    # discounted: (1, 0) 0.8 -> 0.72 and (2, 1) 0.3 -> 0.27 are then mutual maxima.
    linked = {(int(i), int(j)): int(rounds[i, j]) for i, j in np.argwhere(rounds >= 0)}
    assert linked == {(0, 0): 0, (2, 2): 0, (1, 0): 1, (2, 1): 1}
    assert itermax(SIMS, iterations=0, min_similarity=0.1).max() == 0  # argmax alone


def test_the_least_similarity_keeps_weak_cells_out() -> None:
    assert {tuple(c) for c in np.argwhere(itermax(SIMS, iterations=0, min_similarity=0.8) >= 0)} == {(0, 0)}


@pytest.mark.parametrize("kwargs", [{"iterations": -1}, {"discount": 0.0}, {"min_similarity": 2.0}],
                         ids=["negative rounds", "zero discount", "cosine above 1"])
def test_bad_settings_are_refused(kwargs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        EmbedAligner(**kwargs)


@needs_table
def test_the_aligner_links_paraphrased_words_and_reports_hypothesis_coverage() -> None:
    pair = analyze_pair(make_pair("The firm purchased a large automobile .", "A company bought a big car ."))
    result = EmbedAligner().align(pair)
    text, hyp = pair.text.lower, pair.hypothesis.lower
    links = {(text[i], hyp[j]) for i, j in result.alignment.links}
    assert ("automobile", "car") in links and ("purchased", "bought") in links and (".", ".") in links
    assert 0.0 < result.value <= 1.0
    assert {(i, j) for i, j, _ in result.rounds} == result.alignment.links


@needs_table
def test_the_scorer_ranks_a_paraphrase_above_an_unrelated_sentence() -> None:
    scorer = EmbedScorer()
    close = scorer.score(analyze_pair(make_pair("A man is playing a guitar.", "A person plays the guitar.")))
    far = scorer.score(analyze_pair(make_pair("A man is playing a guitar.", "Stock prices fell sharply.")))
    assert close.value > far.value
    assert close.text_tokens >= 6 and close.hypothesis_tokens >= 5


def test_both_refuse_a_pair_past_the_limits_before_loading_anything() -> None:
    pair = analyze_pair(make_pair("a b c d e f", "a b c"))
    small = Limits(max_tokens=3)
    with pytest.raises(LimitError, match="max_tokens"):
        EmbedScorer().score(pair, limits=small)
    with pytest.raises(LimitError, match="max_tokens"):
        EmbedAligner().align(pair, limits=small)
