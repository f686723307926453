"""Slice statistics: Wilson intervals against hand computation, slice tables on a frame
written here, and a slice's accuracy equal to ``evaluate``'s on the same pairs."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import pytest

from explorer.batch.source import read_dataset
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.evaluation import evaluate
from explorer.groups.frame import frame_from_table, group_frame
from explorer.groups.language import SliceError
from explorer.groups.stats import ScorerSliceResult, slice_results, wilson
from explorer.pairs import Pair

TYPICAL = "sample_data/typical.xml"
BLIND = "sample_data/blind_spots.xml"
FAST = ["bleu", "mbleu", "bow"]


# -- Wilson, worked by hand ------------------------------------------------------------------

def test_wilson_zero_of_five_by_hand() -> None:
    # p = 0, z^2 = 3.8415: centre = (3.8415/10) / (1 + 3.8415/5) = 0.38415 / 1.76829 = 0.21724,
    # half = 1.96 * sqrt(3.8415/100) / 1.76829 = 1.96 * 0.19600 / 1.76829 = 0.21724
    low, high = wilson(0, 5)
    assert low == 0.0
    assert high == pytest.approx(0.4345, abs=2e-4)


def test_wilson_all_right_mirrors_none_right() -> None:
    low, high = wilson(5, 5)
    assert high == 1.0
    assert low == pytest.approx(1 - 0.4345, abs=2e-4)


def test_wilson_half_of_eight_by_hand() -> None:
    # p = 0.5: centre = (0.5 + 3.8415/16) / (1 + 3.8415/8) = 0.74009 / 1.48019 = 0.5,
    # half = 1.96 * sqrt(0.25/8 + 3.8415/256) / 1.48019 = 1.96 * 0.21495 / 1.48019 = 0.28463
    low, high = wilson(4, 8)
    assert low == pytest.approx(0.5 - 0.2846, abs=2e-4)
    assert high == pytest.approx(0.5 + 0.2846, abs=2e-4)


def test_wilson_45_of_100_by_hand() -> None:
    # p = 0.45: centre = (0.45 + 0.019207) / 1.038415 = 0.451843,
    # half = 1.96 * sqrt(0.002475 + 0.000096) / 1.038415 = 1.96 * 0.050705 / 1.038415 = 0.095705
    low, high = wilson(45, 100)
    assert low == pytest.approx(0.3561, abs=2e-4)
    assert high == pytest.approx(0.5476, abs=2e-4)


def test_wilson_narrows_with_n_and_refuses_nonsense() -> None:
    assert all(math.isnan(x) for x in wilson(0, 0))
    small, large = wilson(7, 10), wilson(700, 1000)
    assert large[1] - large[0] < small[1] - small[0]
    for k, n in ((3, 2), (-1, 4), (0, -1)):
        with pytest.raises(ValueError):
            wilson(k, n)


# -- slice tables on a frame written here ---------------------------------------------------

def hand_frame() -> object:
    """Ten pairs: scorer ``bow`` right on 8 of the 9 labelled ones; the one it gets wrong
    and the one unlabelled pair are both in the "QA" task."""
    correct = [True, True, True, True, True, True, True, False, True, None]
    table = pd.DataFrame({
        "id": [f"p{i}" for i in range(10)],
        "task": ["IE"] * 6 + ["QA"] * 4,
        "label": ["entailment"] * 9 + [None],
        "gold": pd.array([True] * 9 + [None], dtype="boolean"),
        "text": ["t"] * 10, "hypothesis": ["h"] * 10, "tags": [()] * 10,
        "score:bow": [0.9] * 10,
        "entails:bow": pd.array([True] * 10, dtype="boolean"),
        "correct:bow": pd.array(correct, dtype="boolean"),
    })
    choice = CutoffChoice("bow", 0.5, "given", "", math.nan, 0, rule="")
    return frame_from_table(table, {"bow": choice}, ["bow"], phenomena_kinds={})


def test_slice_results_count_judged_pairs_only() -> None:
    frame = hand_frame()
    qa, whole = slice_results(frame, {"qa": 'task == "QA"', "all": "true"})  # type: ignore[arg-type]
    assert (qa.n, qa.ids) == (4, ("p6", "p7", "p8", "p9"))
    r = qa.results[0]
    assert (r.n, r.correct) == (3, 2)
    assert r.accuracy == pytest.approx(2 / 3)
    assert (r.ci_low, r.ci_high) == wilson(2, 3)
    assert r.whole_accuracy == pytest.approx(8 / 9)
    assert r.difference == pytest.approx(2 / 3 - 8 / 9)
    assert r.significant is False  # 8/9 lies inside the wide interval of 3 pairs
    assert whole.results[0].accuracy == pytest.approx(8 / 9) and whole.n == 10


def test_significance_is_the_whole_accuracy_outside_the_interval() -> None:
    inside = ScorerSliceResult.of("bow", 2, 3, 8, 9)
    outside = ScorerSliceResult.of("bow", 0, 30, 80, 90)
    assert not inside.significant and outside.significant
    assert outside.ci_high < outside.whole_accuracy
    empty = ScorerSliceResult.of("bow", 0, 0, 8, 9)
    assert math.isnan(empty.accuracy) and not empty.significant


def test_slice_results_parse_every_slice_before_computing() -> None:
    with pytest.raises(SliceError, match="slice 'bad': unknown name 'tsk' at column 1"):
        slice_results(hand_frame(), {"ok": "true", "bad": 'tsk == "QA"'})  # type: ignore[arg-type]
    with pytest.raises(SliceError, match="unknown scorer 'bleu'"):
        slice_results(hand_frame(), {"other scorer": "wrong(bleu)"})  # type: ignore[arg-type]


def test_json_shape() -> None:
    (qa,) = slice_results(hand_frame(), {"qa": 'task == "QA"'})  # type: ignore[arg-type]
    body = qa.to_json()
    assert set(body) >= {"name", "expression", "n", "ids", "results"}
    assert set(body["results"][0]) >= {"scorer", "accuracy", "ci_low", "ci_high", "whole_accuracy",  # type: ignore[index]
                                       "difference", "significant"}


# -- a slice's accuracy is evaluate's --------------------------------------------------------

@pytest.fixture(scope="module")
def typical() -> object:
    return read_dataset(TYPICAL)


@pytest.mark.parametrize("dev_path", [None, BLIND], ids=["own-cutoff", "dev-cutoff"])
def test_slice_accuracy_equals_evaluate(typical: object, dev_path: str | None) -> None:
    dev = read_dataset(dev_path) if dev_path else None
    evaluations = {e.scorer: e for e in evaluate(typical, FAST, dev=dev)}  # type: ignore[arg-type]
    frame = group_frame(typical, FAST, dev=dev, phenomena=[])  # type: ignore[arg-type]
    tasks = sorted(next(iter(evaluations.values())).report.by_task)  # type: ignore[union-attr]
    slices = {"all": "true", **{task: f'task == "{task}"' for task in tasks}}
    results = {s.name: s for s in slice_results(frame, slices)}
    for scorer, evaluation in evaluations.items():
        report = evaluation.report
        assert frame.cutoffs[scorer].value == report.cutoff  # type: ignore[union-attr]
        whole = results["all"].results[FAST.index(scorer)]
        assert whole.accuracy == report.accuracy  # type: ignore[union-attr]
        assert whole.n == report.n
        for task in tasks:
            mine = results[task].results[FAST.index(scorer)]
            theirs = report.by_task[task]  # type: ignore[union-attr]
            assert (mine.n, mine.accuracy) == (theirs.n, theirs.accuracy), (scorer, task)


def test_unlabelled_pairs_are_left_out_as_evaluate_leaves_them(typical: object) -> None:
    """A partly labelled file: the command line evaluates its labelled pairs; the frame
    keeps every row but counts only the labelled ones, with the same cutoff."""
    pairs = list(typical.pairs)  # type: ignore[attr-defined]
    pairs[:5] = [Pair(p.id, p.text, p.hypothesis, label=None, task=p.task) for p in pairs[:5]]
    partly = replace(typical, pairs=tuple(pairs))
    labelled = replace(typical, pairs=tuple(pairs[5:]))
    (evaluation,) = evaluate(labelled, ["bow"])  # type: ignore[arg-type]
    frame = group_frame(partly, ["bow"], phenomena=[])  # type: ignore[arg-type]
    (whole,) = slice_results(frame, {"all": "true"})
    assert whole.n == len(pairs)
    assert whole.results[0].n == len(pairs) - 5
    assert whole.results[0].accuracy == evaluation.report.accuracy  # type: ignore[union-attr]
    assert frame.cutoffs["bow"].value == evaluation.report.cutoff  # type: ignore[union-attr]
    assert frame.table["correct:bow"][:5].isna().all()
