"""Evaluate's chosen scorers are all in sight: the chip area scrolls past about four rows of
chips, so a longer choice is also listed in full below it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app.test_links import on_page

EIGHT = ("bleu", "mbleu", "bleu_pa", "wer", "per", "nist5", "bow", "embed")


def test_eight_chosen_scorers_are_named_in_full_below_the_chips() -> None:
    from components.text import plain
    from explorer.scorers import SCORERS

    labels = [SCORERS[n].label for n in EIGHT]
    at = on_page("components/pages/evaluate.py", {"evaluate_scorers": labels})
    assert at.multiselect(key="evaluate_scorers").value == list(EIGHT)
    listed = [c.value for c in at.caption if c.value.startswith("8 scorers chosen: ")]
    # Markdown source: the '&' of "BLEU (Pérez & Alfonseca)" escaped, as every label shown.
    assert listed == ["8 scorers chosen: " + ", ".join(plain(label) for label in labels) + "."]


def test_a_short_choice_is_not_listed_twice() -> None:
    at = on_page("components/pages/evaluate.py", {"evaluate_scorers": ["BLEU", "Modified BLEU"]})
    assert not [c.value for c in at.caption if "scorers chosen" in c.value]


def test_evaluate_figures_are_built_once_per_server_for_the_same_scores_and_cutoffs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class opening Evaluate on the same data gets the figures built by the first visit
    (the same figure sent again), and other scorers get a figure of their own."""
    from components.figures import evaluation

    built: list[object] = []
    real = evaluation.accuracy_curves

    def counted(*args: Any, **kwargs: Any) -> Any:
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation, "accuracy_curves", counted)
    first = on_page("components/pages/evaluate.py", {"evaluate_scorers": ["BLEU", "Modified BLEU"]})
    second = on_page("components/pages/evaluate.py", {"evaluate_scorers": ["BLEU", "Modified BLEU"]})
    assert len(built) == 1
    assert [c.proto.spec for c in first.get("plotly_chart")] == [c.proto.spec for c in second.get("plotly_chart")]
    on_page("components/pages/evaluate.py", {"evaluate_scorers": ["BLEU"]})
    assert len(built) == 2
