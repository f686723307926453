"""Numbers in other formats read as one value: the parser
(:func:`explorer.lexical.numbers.token_number`, :func:`span_number`) and MANLI's
``sub:num_value_eq`` / ``sub:num_value_clash`` features. Tiny hand-written pairs only."""

from __future__ import annotations

import json
import time

import pytest

from explorer import resources
from explorer.aligners.manli import SHIPPED_MODELS
from explorer.aligners.manli.evidence import SurfaceSimilarity
from explorer.aligners.manli.features import extract
from explorer.aligners.manli.names import INDEX
from explorer.aligners.manli.number_features import MAX_SPAN_READ
from explorer.lexical.numbers import MAX_NUMBER_CHARS, MAX_NUMBER_SPAN, span_number, token_number
from explorer.preprocess import analyze_pair

from .manli_blocks import block_feature, token_pair


@pytest.mark.parametrize(
    ("token", "values", "percent"),
    [
        ("7", (7,), False), ("2,500", (2500,), False), ("eleven", (11,), False),
        ("12%", (12,), True), ("%", (), True), ("Percent", (), True),
        ("$3,000", (3000,), False), ("4m", (4e6,), False), ("3bn", (3e9,), False), ("8k", (8000,), False),
        ("3/4", (0.75,), False), ("3/0", (), False),
        ("63-year-old", (63,), False), ("12-foot-high", (12,), False), ("30-40", (30, 40), False),
        ("thirty-one", (31,), False), ("40-percent", (40,), True),
        ("Agent99", (), False), ("km", (), False), ("-", (), False), ("x-ray", (), False), ("", (), False),
    ],
)
def test_token_number(token: str, values: tuple[float, ...], percent: bool) -> None:
    assert token_number(token) == (tuple(float(v) for v in values), percent)


def test_token_number_refuses_long_tokens_cheaply() -> None:
    assert token_number("9" * MAX_NUMBER_CHARS) != ((), False)
    started = time.perf_counter()
    for _ in range(1000):
        assert token_number("9" * 100_000) == ((), False)
        assert token_number("1-" * 50_000) == ((), False)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("tokens", "values", "percent"),
    [
        (["12.5", "million"], {12_500_000}, False), (["12,500,000"], {12_500_000}, False),
        (["three", "hundred", "thousand"], {300_000}, False), (["thirty", "one"], {31}, False),
        (["7", "percent"], {7}, True), (["7", "per", "cent"], {7}, True), (["7", "%"], {7}, True),
        (["the", "7", "boats"], {7}, False), (["7", "9"], {7, 9}, False), (["percent"], set(), True),
        (["$", "40"], {40}, False), (["2.25", "billion"], {2.25e9}, False),
    ],
)
def test_span_number(tokens: list[str], values: set[float], percent: bool) -> None:
    assert span_number(tokens) == (frozenset(float(v) for v in values), percent)


def test_span_number_none_without_a_number_or_past_the_span_limit() -> None:
    assert span_number(["the", "boats"]) is None
    assert span_number(["million"]) is None
    assert span_number(["1"] * (MAX_NUMBER_SPAN + 1)) is None
    assert span_number(["1"] * MAX_NUMBER_SPAN) == (frozenset({1.0}), False)
    assert MAX_SPAN_READ == MAX_NUMBER_SPAN


@pytest.mark.skipif(not resources.is_available("averaged_perceptron_tagger_eng"),
                    reason="needs the POS tagger (number words such as 'million' and 'four' are read only when tagged CD): "
                           "../shared or nltk.download")
def test_a_number_written_two_ways_is_one_value() -> None:
    text = ("Profits", "reached", "12,500,000", "euros", ".")
    hyp = ("Profits", "were", "12.5", "million", "euros", ".")
    assert block_feature(text, hyp, (2, 3), (2, 4), "sub:num_value_eq") == 1.0
    assert block_feature(text, hyp, (2, 3), (2, 4), "sub:num_value_clash") == 0.0
    # Half of the hypothesis's number is another value.
    assert block_feature(text, hyp, (2, 3), (2, 3), "sub:num_value_eq") == 0.0
    assert block_feature(text, hyp, (2, 3), (2, 3), "sub:num_value_clash") == 1.0
    # No number on one side: neither feature.
    assert block_feature(text, hyp, (3, 4), (2, 4), "sub:num_value_eq") == 0.0
    assert block_feature(text, hyp, (3, 4), (2, 4), "sub:num_value_clash") == 0.0


_NEEDS_TAGGER = pytest.mark.skipif(
    not resources.is_available("averaged_perceptron_tagger_eng"),
    reason="needs the POS tagger (number words such as 'four' and 'percent' are read only when tagged CD): "
           "../shared or nltk.download")


@pytest.mark.parametrize("text, hyp", [
    # Digits only: read without the tagger.
    (("3", "1,000", "7", "2", "40-50", "9"), ("1000", "3", "45", "7", "2.0")),
    pytest.param(("3", "1,000", "7", "2", "percent", "9"), ("1000", "3", "%", "7", "four"), marks=_NEEDS_TAGGER),
])
def test_a_pair_full_of_numbers_compares_value_sets_in_bulk(text: tuple[str, ...], hyp: tuple[str, ...]) -> None:
    # Every block has numbers on both sides; the features must agree with reading each
    # block's two spans directly.
    feats = extract(analyze_pair(token_pair(text, hyp)), SurfaceSimilarity())
    checked = 0
    for c in range(len(feats)):
        ps, pe, hs, he = (int(x) for x in (feats.p_start[c], feats.p_end[c], feats.h_start[c], feats.h_end[c]))
        a, b = span_number([t.lower() for t in text[ps:pe]]), span_number([t.lower() for t in hyp[hs:he]])
        if a is None or b is None or not a[0] or not b[0]:
            assert feats.aligned[c, INDEX["sub:num_value_clash"]] == 0.0
            continue
        checked += 1
        clash = not (a[0] <= b[0] or b[0] <= a[0])
        assert feats.aligned[c, INDEX["sub:num_value_clash"]] == float(clash), (text[ps:pe], hyp[hs:he])
        same = a[0] == b[0] and text[ps:pe] != hyp[hs:he]
        assert feats.aligned[c, INDEX["sub:num_value_eq"]] == float(same), (text[ps:pe], hyp[hs:he])
    assert checked > 50


def test_number_mismatch_in_bulk_agrees_with_reading_each_block() -> None:
    # sub:num_mismatch compares the blocks' token-value sets as arrays; it must
    # agree with the per-block definition, including blocks past the phrase bound.
    text = ("3", "1,000", "7", "2", "cats", "9", "3")
    hyp = ("1000", "3", "dogs", "7", "4", "3")
    feats = extract(analyze_pair(token_pair(text, hyp)), SurfaceSimilarity(), extra=(((0, 7), (0, 6)), ((1, 3), (0, 6))))
    values = {"3": 3.0, "1,000": 1000.0, "1000": 1000.0, "7": 7.0, "2": 2.0, "9": 9.0, "4": 4.0}
    checked = 0
    for c in range(len(feats)):
        ps, pe, hs, he = (int(x) for x in (feats.p_start[c], feats.p_end[c], feats.h_start[c], feats.h_end[c]))
        a = {values[t] for t in text[ps:pe] if t in values}
        b = {values[t] for t in hyp[hs:he] if t in values}
        expected = bool(a and b and not (a <= b or b <= a))
        assert feats.aligned[c, INDEX["sub:num_mismatch"]] == float(expected), (text[ps:pe], hyp[hs:he])
        checked += expected
    assert checked > 10
    assert feats.aligned[feats.find((0, 7), (0, 6)), INDEX["sub:num_mismatch"]] == 1.0  # {3,1000,7,2,9} vs {1000,3,7,4}


def test_hyphenated_ages_and_percent_words() -> None:
    assert block_feature(("A", "63-year-old", "won"), ("A", "man", "of", "63", "won"), (1, 2), (3, 4), "sub:num_value_eq") == 1.0
    assert block_feature(("A", "63-year-old", "won"), ("A", "man", "of", "64", "won"), (1, 2), (3, 4), "sub:num_value_clash") == 1.0
    text, hyp = ("Costs", "fell", "7", "percent"), ("Costs", "fell", "7", "%")
    assert block_feature(text, hyp, (3, 4), (3, 4), "sub:num_value_eq") == 1.0
    assert block_feature(text, hyp, (2, 4), (2, 4), "sub:num_value_eq") == 1.0


@pytest.mark.skipif(not resources.is_available("averaged_perceptron_tagger_eng"),
                    reason="needs the POS tagger (to tell 'one' the number from 'one' the noun): ../shared or nltk.download")
def test_the_same_words_are_left_to_the_identity_features() -> None:
    text, hyp = ("It", "cost", "7", "euros"), ("It", "cost", "7", "euros")
    assert block_feature(text, hyp, (2, 3), (2, 3), "sub:num_value_eq") == 0.0
    assert block_feature(text, hyp, (2, 3), (2, 3), "sub:num_value_clash") == 0.0
    # "one" that the tagger does not call a number (NN here) is no number; tagged CD it is.
    assert block_feature(("No", "one", "came", "."), ("It", "is", "1", "."), (1, 2), (2, 3), "sub:num_value_eq") == 0.0
    assert block_feature(("No", "one", "came", "."), ("It", "is", "1", "."), (1, 2), (2, 3), "sub:num_value_clash") == 0.0
    assert block_feature(("This", "one", "is", "red"), ("It", "is", "1", "."), (1, 2), (2, 3), "sub:num_value_eq") == 1.0


def test_shipped_models_carry_the_number_format_features_at_weight_0() -> None:
    for shipped in SHIPPED_MODELS.values():
        weights = json.loads(shipped.path.read_text())["weights"]
        assert weights["sub:num_value_eq"] == 0.0, shipped.file
        assert weights["sub:num_value_clash"] == 0.0, shipped.file
