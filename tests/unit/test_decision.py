"""Cutoff rules, transfer rows and the bootstrap (explorer/decision/rules.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.decision.measures import EvaluationError, accuracy
from explorer.decision.rules import (
    CUTOFF_RULES,
    MAX_BOOTSTRAP,
    bootstrap_transfer,
    choose_cutoff,
    cutoff_best,
    cutoff_logistic,
    cutoff_midpoint,
    cutoff_plateau,
    cutoff_prior,
    paired_difference,
    transfer,
    transfer_table,
)

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"

SCORES = [0.9, 0.1, 0.5, 0.5, 0.3]
GOLD = [True, False, True, False, False]


def test_best_is_the_lowest_best_score_and_midpoint_moves_into_the_gap() -> None:
    assert cutoff_best(SCORES, GOLD) == 0.3
    assert cutoff_midpoint(SCORES, GOLD) == pytest.approx(0.4)  # halfway to 0.5
    assert accuracy(SCORES, GOLD, 0.4) == pytest.approx(0.8)


def test_plateau_takes_the_middle_of_the_best_run() -> None:
    # Best accuracy 0.8 at cutoffs 0.3 and 0.5: the run spans 0.3 .. (0.5 + 0.9) / 2.
    assert cutoff_plateau(SCORES, GOLD) == pytest.approx((0.3 + 0.7) / 2)
    assert accuracy(SCORES, GOLD, cutoff_plateau(SCORES, GOLD)) == pytest.approx(0.8)


def test_prior_labels_the_gold_share_entailed() -> None:
    scores = np.arange(10, dtype=float)
    gold = np.array([False] * 7 + [True] * 3)
    cut = cutoff_prior(scores, gold)
    assert int(np.sum(scores > cut)) == 3
    assert cutoff_prior([1.0, 2.0], [True, True]) < 1.0  # everything entailed


def test_logistic_crosses_one_half_between_the_classes() -> None:
    rng = np.random.default_rng(0)
    neg, pos = rng.normal(0, 1, 300), rng.normal(2, 1, 300)
    cut = cutoff_logistic(np.concatenate([neg, pos]), [False] * 300 + [True] * 300)
    assert 0.7 < cut < 1.3
    # A score that ranks the classes the wrong way falls back to the midpoint rule.
    assert cutoff_logistic([3.0, 2.0, 1.0], [False, False, True]) == cutoff_midpoint([3.0, 2.0, 1.0], [False, False, True])


def test_every_rule_handles_one_class() -> None:
    for name in CUTOFF_RULES:
        cut = choose_cutoff([0.2, 0.4, 0.6], [True, True, True], name)
        assert accuracy([0.2, 0.4, 0.6], [True] * 3, cut) == 1.0, name


def test_unknown_rule_is_refused() -> None:
    with pytest.raises(EvaluationError, match="unknown cutoff rule 'median'; choose from: best"):
        choose_cutoff(SCORES, GOLD, "median")


def test_transfer_applies_the_source_cutoff_to_the_target() -> None:
    row = transfer(SCORES, GOLD, [0.35, 0.2, 0.8], [False, False, True], rule="best", scorer="x")
    assert row.cutoff == 0.3
    assert row.source_accuracy == pytest.approx(0.8)
    assert row.target_accuracy == pytest.approx(2 / 3)  # 0.35 > 0.3 is a false positive
    assert row.target_best_accuracy == 1.0
    assert row.loss == pytest.approx(1 / 3)
    assert row.target_average_precision == 1.0
    assert row.to_json()["loss"] == pytest.approx(1 / 3)
    rows = transfer_table({"x": (SCORES, [0.35, 0.2, 0.8])}, GOLD, [False, False, True], rule="best")
    assert rows == [row]


def test_bootstrap_spreads_and_is_reproducible() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(0, 1, 200)
    ga = a + rng.normal(0, 1, 200) > 0
    b = rng.normal(0, 1, 200)
    gb = b + rng.normal(0, 1, 200) > 0
    first = bootstrap_transfer(a, ga, b, gb, rule="midpoint", resamples=50, seed=3)
    assert first == bootstrap_transfer(a, ga, b, gb, rule="midpoint", resamples=50, seed=3)
    assert first.cutoff[0] <= first.cutoff[1] <= first.cutoff[2]
    assert first.cutoff[0] < first.cutoff[2]  # resampling moves the cutoff
    assert 0.5 < first.target_accuracy[1] < 0.9
    with pytest.raises(EvaluationError, match="resamples must be in"):
        bootstrap_transfer(a, ga, b, gb, resamples=MAX_BOOTSTRAP + 1)


def test_paired_difference_brackets_the_observed_difference() -> None:
    rng = np.random.default_rng(2)
    a = rng.random(400) < 0.7
    b = rng.random(400) < 0.6
    d = paired_difference(a, b, resamples=500, seed=1)
    assert d.difference == pytest.approx(a.mean() - b.mean())
    assert d.low < d.difference < d.high
    assert d.high - d.low < 0.2
    assert d == paired_difference(a, b, resamples=500, seed=1)
    same = paired_difference(a, a, resamples=50)
    assert (same.difference, same.low, same.high) == (0.0, 0.0, 0.0)
    # one method right on every pair the other gets wrong: the interval excludes 0
    assert paired_difference(np.ones(100, bool), np.zeros(100, bool), resamples=50).low == 1.0
    with pytest.raises(EvaluationError, match="400 judgements of the first method for 10 of the second"):
        paired_difference(a, b[:10])
    with pytest.raises(EvaluationError, match="no pairs"):
        paired_difference([], [])
    with pytest.raises(EvaluationError, match="level"):
        paired_difference(a, b, level=1.5)
    with pytest.raises(EvaluationError, match="no pairs"):
        paired_difference([], [])


def test_evaluate_cli_takes_a_cutoff_rule(capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from explorer.cli import main

    sample = str(SAMPLE_DATA / "typical.xml")
    csv = str(SAMPLE_DATA / "pairs.csv")
    cutoffs = {}
    for rule in ("best", "midpoint"):
        assert main(["evaluate", csv, "--dev", sample, "--scorer", "mbleu", "--rule", rule, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["rule"] == rule
        cutoffs[rule] = out["results"][0]["cutoff"]
    assert cutoffs["midpoint"] > cutoffs["best"]
    assert main(["evaluate", csv, "--dev", sample, "--scorer", "mbleu", "--rule", "median"]) == 2
    assert "unknown cutoff rule 'median'" in capsys.readouterr().err


def test_evaluate_refuses_an_unlabelled_dev_set(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from explorer.cli import main

    dev = tmp_path / "graded.tsv"
    dev.write_text("5.0\tA dog runs.\tA dog runs.\n1.0\tPrices rose.\tThe choir sang.\n")
    sample = str(SAMPLE_DATA / "typical.xml")
    assert main(["evaluate", sample, "--dev", str(dev), "--scorer", "mbleu"]) == 2
    err = capsys.readouterr().err
    assert "graded.tsv has 2 pairs without an entailment label" in err and "Traceback" not in err


def test_a_classifier_keeps_its_own_cutoff() -> None:
    from explorer.scorers import SCORERS

    assert SCORERS["combined"].cutoff == 0.5 and SCORERS["manli"].cutoff is None
    row = transfer([0.1, 0.9], [False, True], [0.4, 0.6], [False, True], fixed_cutoff=0.5, rule="best")
    assert row.rule == "model" and row.cutoff == 0.5 and row.target_accuracy == 1.0
    rows = transfer_table({"c": ([0.1, 0.9], [0.4, 0.6])}, [False, True], [False, True], fixed={"c": 0.5})
    assert rows[0].rule == "model"


def test_evaluate_applies_a_classifiers_own_cutoff(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from explorer import scorers
    from explorer.datasets import load
    from explorer.decision.evaluation import evaluate

    data = load(SAMPLE_DATA / "typical.xml")
    info = replace(scorers.SCORERS["mbleu"], cutoff=0.25)
    monkeypatch.setitem(scorers.SCORERS, "mbleu", info)
    report = evaluate(data, ["mbleu"], dev=data)[0].report
    assert report.cutoff == 0.25 and report.cutoff_source == "model"  # type: ignore[union-attr]
