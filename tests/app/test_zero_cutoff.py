"""A cutoff of 0 is explained on screen: what a score of 0 means and how common it is."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from components.sections.verdicts import ZERO_CUTOFF, Verdict, zero_cutoff_note
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_the_pair_page_says_why_bleus_cutoff_is_zero() -> None:
    at = AppTest.from_file(APP, default_timeout=DEADLINE)
    at.query_params.update({"method": "bleu"})
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="decision_scorer").value == "bleu"
    notes = [c.value for c in at.caption if "Why the cutoff is 0" in c.value]
    assert notes and "no common 4-gram" in notes[0]


def test_the_note_gives_the_share_of_zeros_when_at_hand() -> None:
    note = zero_cutoff_note("bleu", "BLEU", (32, 56, "typical.xml"))
    assert "32 of 56 pairs score 0" in note and "typical.xml" in note
    assert "pairs score 0" not in zero_cutoff_note("bleu", "BLEU", None)


def test_a_verdict_at_a_zero_cutoff_says_what_zero_means() -> None:
    verdict = Verdict("bleu", "BLEU", 0.0, 0.0, "shipped default", entails=False, gold=None)
    assert ZERO_CUTOFF in verdict.reason
