"""The bag-of-words Pair-page tab: its figure builder without Streamlit, and the panel
under AppTest."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.bow_figures import bow_contributions
from components.method_panels import PANELS
from explorer.aligners.bow import BowAligner
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair


def test_registered() -> None:
    assert PANELS["bow"].function == "render_bow_panel"


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


def _panel_script() -> None:
    from components.bow_panel import render_bow_panel
    from explorer.alignment import Alignment
    from explorer.pairs import Pair
    from explorer.preprocess import analyze_pair

    gold = Alignment.from_links(4, 3, {(0, 0), (1, 1), (3, 2)})
    pair = Pair(id="g", text="Kim bought red bikes", hypothesis="Kim purchased bikes",
                text_tokens=("Kim", "bought", "red", "bikes"), hypothesis_tokens=("Kim", "purchased", "bikes"),
                gold_alignment=gold)
    render_bow_panel(analyze_pair(pair))


def test_panel_draws_grid_against_gold_and_contributions() -> None:
    at = AppTest.from_function(_panel_script, default_timeout=60).run()
    assert not at.exception, at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["bow_grid", "bow_contributions"]
    assert at.metric[0].label == "Bag-of-words score"
