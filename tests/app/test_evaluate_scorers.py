"""Evaluate's chosen scorers are all in sight: the chip area scrolls past about four rows of
chips, so a longer choice is also listed in full below it."""

from __future__ import annotations

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
