"""The bag-of-words panel's pure figure builder and its registration; the panel itself
runs in tests/app/test_panels.py."""

from __future__ import annotations

import pytest

from components.figures.bow import bow_contributions
from components.panels import PANELS
from explorer import resources
from explorer.aligners.bow import BowAligner
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair


def test_registered() -> None:
    assert PANELS["bow"].function == "render_bow_panel"


@pytest.mark.skipif(not resources.is_available("wordnet"), reason="needs WordNet (lemmas): ../shared or nltk.download")
def test_contribution_bars_sum_to_the_score() -> None:
    pair = Pair(id="f", text="the dog barked", hypothesis="a dog barked", text_tokens=("the", "dog", "barked"),
                hypothesis_tokens=("a", "dog", "barked"))
    result = BowAligner().align(analyze_pair(pair))
    figure = bow_contributions(result, ("the", "dog", "barked"), ("a", "dog", "barked"))
    bars = figure.data[0]
    assert list(bars.y) == ["0: a", "1: dog", "2: barked"]
    assert sum(bars.x) == pytest.approx(result.value)
    assert bars.x[1] == pytest.approx(0.0) and bars.x[2] == pytest.approx(0.0)  # found verbatim
    # "a" is closest to the lemma "bark" (1 - 3/4), not to "the" (no letter in common).
    assert "text[2] <b>barked</b>" in bars.customdata[0] and "similarity 0.250" in bars.customdata[0]


def test_contribution_bars_check_lengths() -> None:
    pair = Pair(id="f", text="a b", hypothesis="a", text_tokens=("a", "b"), hypothesis_tokens=("a",))
    result = BowAligner().align(analyze_pair(pair))
    with pytest.raises(ValueError, match="1 hypothesis tokens but 2"):
        bow_contributions(result, ("a", "b"), ("a", "x"))


