"""Alignment evaluation on hand-computed cases, and the align-eval command's contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.aligners.evaluation import PairScore, harmonic_mean, reachability, report, score_pair
from explorer.alignment import Alignment
from explorer.cli import main
from explorer.pairs import Pair


def test_pair_score_counts_sure_links_only() -> None:
    gold = Alignment.from_links(4, 3, {(0, 0), (1, 1), (2, 2)}, possible={(3, 2)})
    predicted = Alignment.from_links(4, 3, {(0, 0), (1, 1), (3, 2), (3, 0)})
    score = score_pair("x", predicted, gold)
    # 4 predicted, 3 gold SURE, 2 correct: a link to a POSSIBLE gold link is not credited.
    assert (score.predicted, score.gold, score.correct) == (4, 3, 2)
    assert score.precision == pytest.approx(0.5)
    assert score.recall == pytest.approx(2 / 3)
    assert score.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert not score.exact


@pytest.mark.parametrize(
    ("predicted", "gold", "precision", "recall", "exact"),
    [(0, 3, 1.0, 0.0, False), (2, 0, 0.0, 1.0, False), (0, 0, 1.0, 1.0, True)],
    ids=["nothing-predicted", "nothing-gold", "both-empty"],
)
def test_empty_sides(predicted: int, gold: int, precision: float, recall: float, exact: bool) -> None:
    score = PairScore("x", predicted, gold, 0)
    assert (score.precision, score.recall, score.exact) == (precision, recall, exact)


def test_macro_average_and_the_two_f1s() -> None:
    # Problem a: P=1, R=1/2. Problem b: P=1/4, R=1. Problem c: exact, P=R=1.
    scores = [PairScore("a", 2, 4, 2), PairScore("b", 4, 1, 1), PairScore("c", 3, 3, 3)]
    result = report(scores)
    p, r = (1 + 0.25 + 1) / 3, (0.5 + 1 + 1) / 3
    assert result.precision == pytest.approx(0.75)
    assert result.recall == pytest.approx(r)
    assert result.f1 == pytest.approx(2 * p * r / (p + r))
    pair_f1 = [2 / 3, 0.4, 1.0]
    assert result.mean_pair_f1 == pytest.approx(sum(pair_f1) / 3)
    assert result.exact == pytest.approx(1 / 3)
    assert result.n == 3


def test_harmonic_mean_of_zeros() -> None:
    assert harmonic_mean(0.0, 0.0) == 0.0


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="problem q: prediction is 2x2 tokens, gold 3x2"):
        score_pair("q", Alignment(2, 2), Alignment(3, 2))


def test_empty_report_is_refused() -> None:
    with pytest.raises(ValueError, match="no problems"):
        report([])


def test_reachability_counts() -> None:
    reachable = Alignment.from_links(3, 2, {(0, 0), (1, 0), (2, 1)})
    split = Alignment.from_links(4, 2, {(0, 0), (3, 0), (1, 1)})  # h0 linked to p0 and p3
    pairs = [
        Pair(id="r", text="a b c", hypothesis="x y", gold_alignment=reachable),
        Pair(id="s", text="a b c d", hypothesis="x y", gold_alignment=split),
    ]
    result = reachability(pairs)
    assert (result.gold_links, result.unreachable_whole, result.unreachable, result.problems) == (6, 2, 1, 1)
    assert result.examples[0][0] == "s"


# -- the command ------------------------------------------------------------------------------

GOLD = (
    "# sentence pair 1\n"
    "Kim bought three red bikes .\n"
    "NULL ({ / / }) Kim ({ 1 / / }) bought ({ 2 / / }) bikes ({ 5 / / })\n"
    "# sentence pair 2\n"
    "The mill closed in 1990 .\n"
    "NULL ({ / / }) The ({ 1 / / }) mill ({ 2 / / }) closed ({ 3 / / }) .  ({ 6 / / })\n"
)


def test_align_eval_json_contract_and_predictions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "toy.align.txt"
    gold.write_text(GOLD, encoding="utf-8")
    out = tmp_path / "pred.json"
    assert main(["align-eval", str(gold), "--aligner", "bow", "--json", "--out", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result) == ["gold", "aligner", "n", "precision", "recall", "f1", "mean_pair_f1", "exact",
                            "seconds_per_pair_median", "signature"]
    assert result["signature"]["method"] == "bow" and "model" not in result["signature"]
    assert result["aligner"] == "bow" and result["n"] == 2
    # Every hypothesis word occurs verbatim in its text: bow aligns them all correctly.
    assert result["precision"] == result["recall"] == result["exact"] == 1.0
    predictions = json.loads(out.read_text())
    assert predictions[0] == {"id": "1", "source": "Kim bought three red bikes .", "target": "Kim bought bikes", "sureAlign": "0-0 1-1 4-2"}


def test_align_eval_reachability_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "toy.align.txt"
    gold.write_text(GOLD.replace("bikes ({ 5 / / })", "bikes ({ 3 5 / / })"), encoding="utf-8")
    assert main(["align-eval", str(gold), "--reachability", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["reachability"] == {"gold_links": 8, "unreachable": 1, "unreachable_whole_components": 2, "problems": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["align-eval", "missing.align.txt", "--aligner", "bow"], "missing.align.txt: no such file"),
        (["align-eval", "GOLD", "--aligner", "nope"], "unknown aligner 'nope'"),
        (["align-eval", "GOLD"], "give --aligner NAME"),
        (["align-eval", "GOLD", "--aligner", "bow", "--model", "m.json"], "aligner 'bow' takes no --model"),
    ],
    ids=["missing-file", "unknown-aligner", "no-aligner", "no-model-support"],
)
def test_align_eval_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    gold = tmp_path / "toy.align.txt"
    gold.write_text(GOLD, encoding="utf-8")
    args = [str(gold) if a == "GOLD" else a for a in args]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_align_eval_refuses_to_merge_non_msr_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "toy.align.txt"
    gold.write_text(GOLD, encoding="utf-8")
    other = tmp_path / "pairs.jsonl"
    other.write_text('{"text": "a", "hypothesis": "b"}\n', encoding="utf-8")
    assert main(["align-eval", str(gold), str(other), "--aligner", "bow"]) == 2
    assert "merged only when all are MSR annotator files" in capsys.readouterr().err
