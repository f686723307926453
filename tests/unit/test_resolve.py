"""The one precedence of a scorer's cutoff (explorer/decision/resolve.py): given > the
model's own > a development set by the rule > the data's own > the shipped default > 0.5."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer.decision import cutoffs
from explorer.decision.measures import EvaluationError
from explorer.decision.resolve import FALLBACK_CUTOFF, Scored, reported_source, resolve_cutoff
from explorer.decision.rules import choose_cutoff
from explorer.scorers import SCORERS

#: Written for this test: the only best split on DEV is above 0.4 (accuracy 5/6), the next
#: distinct score is 0.6, so ``best`` says 0.4 and ``midpoint`` 0.5.
DEV = Scored.of("dev.xml", [0.1, 0.2, 0.4, 0.6, 0.7, 0.15], [False, False, False, True, True, True])
OWN = Scored.of("data.xml", [0.05, 0.15, 0.9, 0.95], [False, False, True, True])
CLASSIFIER = next(n for n in SCORERS if SCORERS[n].cutoff is not None)


def test_a_development_set_decides_by_the_midpoint_rule_and_says_so() -> None:
    choice = resolve_cutoff("mbleu", dev=DEV, own=OWN)
    assert (choice.source, choice.rule, choice.value) == ("dev", "midpoint", pytest.approx(0.5))
    assert choice.value == choose_cutoff(DEV.scores, DEV.gold, "midpoint")
    assert choice.detail == "midpoint on dev.xml (6 pairs, 83.3%)" and choice.n == 6
    assert choice.origin.startswith("development set: midpoint on dev.xml")
    assert resolve_cutoff("mbleu", dev=DEV, rule="best").value == pytest.approx(0.4)


def test_the_first_source_that_applies_wins() -> None:
    assert resolve_cutoff("mbleu", given=0.77, dev=DEV, own=OWN).source == "given"
    model = resolve_cutoff(CLASSIFIER, dev=DEV, own=OWN)
    assert (model.source, model.value) == ("model", SCORERS[CLASSIFIER].cutoff)
    own = resolve_cutoff("mbleu", own=OWN)
    assert (own.source, own.rule, own.value) == ("dataset", "best", pytest.approx(0.15))
    assert own.origin == "this dataset: best on data.xml (4 pairs, 100.0%)" and not own.one_sided
    kept = cutoffs.CutoffChoice("mbleu", 0.3, cutoffs.DATASET, "best on a batch result", 0.6, 10)
    assert resolve_cutoff("mbleu", own=kept) is kept
    assert resolve_cutoff("mbleu", dev=DEV, own=kept).source == "dev"
    assert resolve_cutoff("mbleu") == cutoffs.default_cutoffs()["mbleu"]
    nothing = resolve_cutoff("not_registered")
    assert (nothing.source, nothing.value) == ("none", FALLBACK_CUTOFF) and math.isnan(nothing.accuracy)
    assert nothing.origin.startswith("no cutoff known")


def test_a_set_no_pair_of_which_was_scored_gives_no_cutoff() -> None:
    refused = Scored.of("dev.xml", [np.nan, np.nan], [True, False])
    assert resolve_cutoff("mbleu", dev=refused, own=OWN).source == "dataset"
    partly = Scored.of("dev.xml", [*DEV.scores, np.nan], [*DEV.gold, True])
    choice = resolve_cutoff("mbleu", dev=partly)
    assert choice.value == pytest.approx(0.5) and choice.refused == 1 and "1 refused" in choice.detail


def test_an_unknown_rule_is_refused_even_without_a_development_set() -> None:
    with pytest.raises(EvaluationError, match="unknown cutoff rule 'middle'"):
        resolve_cutoff("mbleu", rule="middle")


@pytest.mark.parametrize(("source", "reported"), [("dataset", "self"), ("dev", "dev"), ("model", "model"),
                                                  ("given", "given")])
def test_reports_name_the_data_s_own_cutoff_self(source: str, reported: str) -> None:
    assert reported_source(cutoffs.CutoffChoice("x", 0.0, source, "", 0.0, 0)) == reported
