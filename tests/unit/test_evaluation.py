import math

import numpy as np
import pytest

from explorer.decision.measures import (
    EvaluationError,
    accuracy,
    average_precision,
    best_cutoff,
    classification_report,
    confidence_weighted_score,
    correlations,
    sweep,
)
from explorer.pairs import ENTAILMENT, NON_ENTAILMENT, Pair

SCORES = [0.9, 0.1, 0.5, 0.5, 0.3]
GOLD = [True, False, True, False, False]


def test_sweep_by_hand():
    cutoffs, accuracies = sweep(SCORES, GOLD)
    # cutoff 0.1 -> predicted pos for 0.9,0.5,0.5,0.3 -> correct: 0.9,0.1,0.5(T) = 3/5
    # cutoff 0.3 -> pos 0.9,0.5,0.5 -> correct: 0.9, 0.5T, 0.1, 0.3 = 4/5
    # cutoff 0.5 -> pos 0.9 -> correct 0.9, 0.1, 0.5F, 0.3 = 4/5
    # cutoff 0.9 -> none pos -> 3/5
    # first candidate: below every score (everything entailed, 2/5) by the gap 0.1 -> 0.3
    assert cutoffs.tolist() == pytest.approx([-0.1, 0.1, 0.3, 0.5, 0.9])
    assert accuracies.tolist() == pytest.approx([0.4, 0.6, 0.8, 0.8, 0.6])


def test_sweep_tries_everything_entailed():
    cutoff, acc = best_cutoff([0.1, 0.5, 0.9], [True] * 3)
    assert acc == 1.0 and cutoff < 0.1
    cutoff, acc = best_cutoff([0.4, 0.4], [True, True])
    assert acc == 1.0 and cutoff < 0.4


def test_best_cutoff_ties_go_to_the_lowest():
    assert best_cutoff(SCORES, GOLD) == (0.3, pytest.approx(0.8))


def test_accuracy_uses_strict_greater():
    assert accuracy([0.5], [True], 0.5) == 0.0
    assert accuracy([0.51], [True], 0.5) == 1.0


def test_cws_by_hand():
    # cutoff 0.35: confidences |s-0.35| = .55 .25 .15 .15 .05 ; correct = T T T F T
    # order (ties stable): 0.9(T) 0.1(T) 0.5(T) 0.5(F) 0.3(T)
    # running correct/i: 1, 1, 1, 3/4, 4/5 -> mean
    expected = (1 + 1 + 1 + 0.75 + 0.8) / 5
    assert confidence_weighted_score(SCORES, GOLD, 0.35) == pytest.approx(expected)


def test_average_precision_by_hand():
    # ranking by score: 0.9(T) 0.5(T) 0.5(F) 0.3(F) 0.1(F) -> precision at positives: 1, 1
    assert average_precision(SCORES, GOLD) == pytest.approx(1.0)
    # ranking .9(F) .8(F) .7(F) .5(T) .1(T): positives at ranks 4 and 5 -> (1/4 + 2/5) / 2
    assert average_precision([0.1, 0.9, 0.5, 0.8, 0.7], GOLD) == pytest.approx((0.25 + 0.4) / 2)
    assert average_precision([0.1, 0.2], [False, False]) == 0.0


def test_errors():
    with pytest.raises(EvaluationError, match="2 scores for 1 gold"):
        sweep([0.1, 0.2], [True])
    with pytest.raises(EvaluationError, match="no pairs"):
        sweep([], [])
    with pytest.raises(EvaluationError, match="finite"):
        sweep([math.nan], [True])


def test_report_per_task_and_dev_cutoff():
    pairs = [
        Pair(str(i), "t", "h", label=ENTAILMENT if g else NON_ENTAILMENT, task="AB"[i % 2])
        for i, g in enumerate(GOLD)
    ]
    own = classification_report(SCORES, pairs)
    assert own.cutoff_source == "self" and own.cutoff == 0.3 and own.accuracy == pytest.approx(0.8)
    assert set(own.by_task) == {"A", "B"} and own.by_task["A"].n == 3
    fixed = classification_report(SCORES, pairs, cutoff=0.0)
    assert fixed.cutoff_source == "dev" and fixed.accuracy == pytest.approx(0.4)


def test_report_needs_labels():
    with pytest.raises(EvaluationError, match="no entailment label"):
        classification_report([0.1], [Pair("1", "t", "h")])


def test_correlations():
    pearson, spearman = correlations([1, 2, 3, 4], [2, 4, 6, 9])
    assert spearman == pytest.approx(1.0) and 0.98 < pearson < 1.0
    assert all(np.isnan(correlations([1, 1], [1, 2])))
