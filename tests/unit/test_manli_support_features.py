"""MANLI's support features: function words and `be` without contextual support, numbers
that disagree or stand on one side, the context two tokens out, rivals, and the pair-shape
features (the `msr_edi` model's additions). Tiny hand-written pairs only."""

from __future__ import annotations

import pytest

from explorer import resources
from explorer.aligners.manli.evidence import SurfaceSimilarity
from explorer.aligners.manli.features import excess, extract
from explorer.aligners.manli.names import INDEX
from explorer.preprocess import analyze_pair

from .manli_blocks import block_feature, token_pair


def test_numbers_that_differ_are_flagged_and_equal_ones_are_not() -> None:
    text = ("The", "bridge", "is", "300", "metres", "long", ".")
    assert block_feature(text, ("It", "is", "200", "metres", "."), (3, 4), (2, 3), "sub:num_mismatch") == 1.0
    assert block_feature(text, ("It", "is", "300", "metres", "."), (3, 4), (2, 3), "sub:num_mismatch") == 0.0
    # A number against a word that is not a number: one side only.
    assert block_feature(text, ("It", "is", "300", "metres", "."), (4, 5), (2, 3), "sub:num_one_side") == 1.0
    assert block_feature(text, ("It", "is", "300", "metres", "."), (3, 4), (2, 3), "sub:num_one_side") == 0.0
    # A block whose numbers include the other side's is not a mismatch.
    assert block_feature(text, ("300", "metres"), (3, 5), (0, 2), "sub:num_mismatch") == 0.0


@pytest.mark.skipif(not (resources.is_available("wordnet") and resources.is_available("averaged_perceptron_tagger_eng")),
                    reason="needs WordNet lemmas and the POS tagger (to see 'is' as 'be'): ../shared or nltk.download")
def test_be_against_another_verb_is_mixed() -> None:
    text = ("The", "town", "became", "a", "city", ".")
    hyp = ("The", "town", "is", "a", "city", ".")
    assert block_feature(text, hyp, (2, 3), (2, 3), "sub:be_mixed") == 1.0
    assert block_feature(("The", "town", "was", "small"), hyp, (2, 3), (2, 3), "sub:be_mixed") == 0.0


def test_function_words_without_context_are_unsupported() -> None:
    # "of" links: the second copy sits between matching words, the first does not.
    text = ("news", "of", "today", "and", "price", "of", "oil")
    hyp = ("price", "of", "oil")
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:stop_unsupported") == 0.0
    assert block_feature(text, hyp, (1, 2), (1, 2), "sub:stop_unsupported") == 1.0
    # Both copies of "of" are equally good matches for the hypothesis's "of": a rival.
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:rival") == 1.0
    assert block_feature(text, hyp, (1, 2), (1, 2), "sub:rival_unsupported") == 1.0
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:rival_unsupported") == 0.0
    assert block_feature(text, hyp, (6, 7), (2, 3), "sub:rival") == 0.0
    # Two tokens of context on each side: price/price and the sentence ends match.
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:context2") == pytest.approx((1 + 1 + 0 + 1) / 4)


def test_excess_is_the_share_without_a_partner() -> None:
    assert excess(10, 4) == pytest.approx(0.6)
    assert excess(4, 10) == 0.0
    assert excess(0, 3) == 0.0
    feats = extract(analyze_pair(token_pair(("a", "b", "c", "d"), ("b",))), SurfaceSimilarity())
    assert feats.deleted[:, INDEX["del:excess"]] == pytest.approx([0.75] * 4)
    assert feats.inserted[:, INDEX["ins:excess"]] == pytest.approx([0.0])
    c = feats.find((1, 2), (0, 1))
    assert feats.aligned[c, INDEX["sub:weak_excess"]] == pytest.approx(0.0)  # an exact match is not weak
    c = feats.find((0, 1), (0, 1))
    assert feats.aligned[c, INDEX["sub:weak_excess"]] == pytest.approx(0.75)  # nothing alike
