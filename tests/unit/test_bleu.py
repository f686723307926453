import math

import pytest

from explorer.metrics.bleu import (
    OrderStats,
    bleu_tokens,
    brevity_penalty,
    combine,
    modified_precision,
    ngram_matches,
)
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import get_scorer

T = tuple


@pytest.mark.parametrize(
    "candidate, reference, n, matched, total",
    [
        pytest.param("the the the the".split(), "the cat is here".split(), 1, 1, 4, id="clipping"),
        pytest.param("a b c".split(), "a b x c".split(), 2, 1, 2, id="bigram-one-of-two"),
        pytest.param("a b".split(), "a b c".split(), 3, 0, 0, id="shorter-than-order"),
        pytest.param("x y".split(), "a b".split(), 1, 0, 2, id="no-match"),
    ],
)
def test_modified_precision(candidate, reference, n, matched, total):
    assert modified_precision(T(candidate), T(reference), n) == OrderStats(n, matched, total)


@pytest.mark.parametrize(
    "c, r, expected",
    [
        pytest.param(5, 4, 1.0, id="longer"),
        pytest.param(4, 4, 1.0, id="equal"),  # e^(1 - 1) = 1
        pytest.param(2, 4, math.exp(-1.0), id="half"),
        pytest.param(0, 4, 0.0, id="empty"),
    ],
)
def test_brevity_penalty(c, r, expected):
    assert brevity_penalty(c, r) == pytest.approx(expected)


def test_hand_computed_pair_all_variants():
    # hypothesis "the cat sat on the mat" (6) vs text "the cat sat on a mat today" (7)
    h = T("the cat sat on the mat".split())
    p = T("the cat sat on a mat today".split())
    # unigrams: the(2, clipped to 1) cat sat on mat -> 5/6
    # bigrams: the-cat cat-sat sat-on on-the the-mat -> 3/5
    # trigrams: the-cat-sat cat-sat-on sat-on-the on-the-mat -> 2/4
    # 4-grams: the-cat-sat-on cat-sat-on-the sat-on-the-mat -> 1/3
    precisions = (5 / 6, 3 / 5, 2 / 4, 1 / 3)
    bp = math.exp(1 - 7 / 6)
    geo = math.exp(sum(math.log(x) for x in precisions) / 4)
    lin = sum(precisions) / 4
    assert bleu_tokens(h, p, variant="bleu").value == pytest.approx(bp * geo)
    assert bleu_tokens(h, p, variant="mbleu").value == pytest.approx(lin)
    assert bleu_tokens(h, p, variant="bleu_pa").value == pytest.approx(bp * lin)
    assert bleu_tokens(h, p).precisions == pytest.approx(precisions)


def test_zero_order_kills_bleu_but_not_mbleu():
    h = T("cats sleep often".split())  # no 4-gram at all, one unigram match
    p = T("dogs and cats bark".split())
    result = bleu_tokens(h, p, variant="bleu")
    assert result.value == 0.0
    assert bleu_tokens(h, p, variant="mbleu").value == pytest.approx((1 / 3) / 4)


def test_mbleu_ignores_brevity():
    p = T("a b c d e f g h i j".split())
    short = bleu_tokens(T("a b".split()), p, variant="mbleu")
    assert short.brevity_penalty < 0.02
    assert short.value == pytest.approx((1 + 1 + 0 + 0) / 4)


def test_combine_rejects_nothing_and_handles_empty():
    assert combine((), 1.0, "bleu") == 0.0


def test_unknown_variant_is_an_error():
    with pytest.raises(ValueError, match="unknown BLEU variant"):
        bleu_tokens(T("a".split()), T("a".split()), variant="nope")  # type: ignore[arg-type]


def test_ngram_matches_positions():
    matches = ngram_matches(T("x a b".split()), T("a b a".split()), 4)
    assert {(m.n, m.h_start, m.p_starts) for m in matches} == {
        (1, 1, (0, 2)), (1, 2, (1,)), (2, 1, (0,)),
    }


def test_scorer_compares_lower_cased_tokens():
    pair = analyze_pair(make_pair("The Cat sleeps.", "the cat sleeps."))
    assert get_scorer("mbleu").score(pair).value == pytest.approx(1.0)


def test_agrees_with_nltk_without_smoothing():
    from nltk.translate.bleu_score import sentence_bleu

    h = "the quick brown fox jumps over the lazy dog today".split()
    p = "a quick brown fox jumped over the lazy dog yesterday".split()
    ours = bleu_tokens(T(h), T(p), variant="bleu").value
    assert ours == pytest.approx(sentence_bleu([p], h), abs=1e-9)
