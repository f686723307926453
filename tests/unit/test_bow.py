"""The bag-of-words aligner and scorer on hand-computed pairs."""

from __future__ import annotations

import math

import pytest

from explorer import resources
from explorer.aligners import ALIGNERS, get_aligner
from explorer.aligners import bow as bow_module
from explorer.aligners.bow import SIM_FLOOR, BowAligner, idf
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.scorers import SCORERS, get_scorer


@pytest.fixture
def idf_table(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    table = {"": 500.0, "the": 0.0, "a": 1.0, "dog": 2.0, "cat": 1.5}
    monkeypatch.setattr(bow_module, "brown_idf", lambda: table)
    return table


def aligned(text: str, hypothesis: str, **kwargs: float) -> bow_module.BowResult:
    pair = Pair(id="t", text=text, hypothesis=hypothesis, text_tokens=tuple(text.split()), hypothesis_tokens=tuple(hypothesis.split()))
    return BowAligner(**kwargs).align(analyze_pair(pair))


def test_registered_as_aligner_and_scorer() -> None:
    assert "bow" in ALIGNERS and "bow" in SCORERS
    assert get_aligner("bow").name == get_scorer("bow").name == "bow"


@pytest.mark.skipif(not resources.is_available("wordnet"), reason="needs WordNet (lemmas): ../shared or nltk.download")
def test_verbatim_hypothesis_scores_zero_and_links_every_word(idf_table: dict[str, float]) -> None:
    result = aligned("the cat sat on the mat", "the cats sat")
    assert result.value == pytest.approx(0.0)
    # "the" occurs twice; the first is taken. "cats" matches "cat" through its lemma.
    assert result.alignment.sure == {(0, 0), (1, 1), (2, 2)}
    body = result.to_json()
    assert body["value"] == result.value and "score" not in body  # one name per quantity


def test_hand_computed_score(idf_table: dict[str, float]) -> None:
    # "a" is closest to "cat" (lev 2 over 3 letters: sim 1/3); "dog" shares no letter
    # with any text word (sim 0, floored), so it stays unaligned.
    result = aligned("the cat sat", "a dog")
    expected = (1.0 * math.log(1 / 3) + 2.0 * math.log(SIM_FLOOR)) / 2
    assert result.value == pytest.approx(expected)
    assert result.alignment.sure == {(1, 0)}
    assert result.best_text == (1, -1)
    assert sum(result.contributions) == pytest.approx(result.value)


def test_min_similarity_leaves_weak_matches_unaligned(idf_table: dict[str, float]) -> None:
    result = aligned("the cat sat", "a dog", min_similarity=0.5)
    assert result.alignment.sure == frozenset()
    assert result.value == pytest.approx(aligned("the cat sat", "a dog").value)


def test_min_similarity_is_checked() -> None:
    with pytest.raises(ValueError, match="min_similarity"):
        BowAligner(min_similarity=2.0)


def test_more_of_the_hypothesis_found_scores_higher(idf_table: dict[str, float]) -> None:
    assert aligned("the dog barked", "the dog").value > aligned("the cat barked", "the dog").value


def test_unseen_words_weigh_most(idf_table: dict[str, float]) -> None:
    assert idf("zyzzyva") == pytest.approx(math.log(501))
    assert idf("The") == 0.0


def test_without_brown_every_word_weighs_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bow_module, "brown_idf", lambda: {})
    assert idf("anything") == 1.0


def test_empty_hypothesis() -> None:
    pair = Pair(id="e", text="a b", hypothesis="x", text_tokens=("a", "b"), hypothesis_tokens=())
    result = BowAligner().align(analyze_pair(pair))
    assert result.value == 0.0 and result.alignment.sure == frozenset()
