"""The ``rewrite`` command: its JSON contract, the same figures as the library and the same
cutoffs as ``evaluate``, one-line refusals, and rewrites kept in the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.batch.source import read_dataset
from explorer.cli import main
from explorer.groups.rewrites import rewrite_run

SAMPLE = str(Path(__file__).resolve().parents[2] / "sample_data" / "typical.xml")


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    body: dict[str, object] = json.loads(capsys.readouterr().out)
    return body


def test_json_contract_and_the_librarys_figures(capsys: pytest.CaptureFixture[str]) -> None:
    body = _json(["rewrite", SAMPLE, "--rule", "antonym", "--scorer", "bleu,per"], capsys)
    report = rewrite_run(read_dataset(SAMPLE), "antonym", ["bleu", "per"])
    assert body["rule"] == "antonym" and body["n_rewritten"] == report.n_rewritten > 0
    results = body["results"]
    assert isinstance(results, list) and [r["scorer"] for r in results] == ["bleu", "per"]
    for got, want in zip(results, report.results, strict=True):
        assert {"scorer", "flipped", "accuracy_before", "accuracy_after"} <= set(got)
        assert got["flipped"] == want.flipped
        assert got["accuracy_before"] == want.accuracy_before and got["accuracy_after"] == want.accuracy_after
        assert want.n_expected > 0 and want.accuracy_after is not None  # antonyms settle entailed pairs
    pairs = body["pairs"]
    assert isinstance(pairs, list) and all(p["id"].endswith("~antonym") for p in pairs)


def test_cutoffs_are_evaluates(capsys: pytest.CaptureFixture[str]) -> None:
    evaluated = _json(["evaluate", SAMPLE, "--dev", SAMPLE, "--scorer", "mbleu"], capsys)
    body = _json(["rewrite", SAMPLE, "--dev", SAMPLE, "--rule", "swap", "--scorer", "mbleu"], capsys)
    (result,) = body["results"]  # type: ignore[misc]
    (scored,) = evaluated["results"]  # type: ignore[misc]
    assert result["cutoff"] == pytest.approx(scored["cutoff"]) and result["cutoff_source"] == "dev"


def test_a_rule_that_settles_no_label_gives_null_accuracies(capsys: pytest.CaptureFixture[str]) -> None:
    body = _json(["rewrite", SAMPLE, "--rule", "swap", "--scorer", "mbleu"], capsys)
    (result,) = body["results"]  # type: ignore[misc]
    assert result["accuracy_before"] is None and result["accuracy_after"] is None
    assert body["n_rewritten"] == body["n_pairs"]


def test_text_output_says_what_flipped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rewrite", SAMPLE, "--rule", "drop_negation", "--scorer", "mbleu"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("drop_negation on typical.xml:") and "mbleu" in out and "flipped" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--rule", "shuffle", "--scorer", "mbleu"], "unknown rewrite rule 'shuffle'; choose from: drop_negation"),
    (["--rule", "swap", "--scorer", "nope"], "unknown scorer 'nope'"),
    (["--rule", "swap", "--scorer", "mbleu", "--dev", "/no/such/dev.xml"], "no/such/dev.xml"),
    (["--rule", "swap", "--scorer", "mbleu", "--slice", "x" * 10_000], ""),
    (["--rule", "swap", "--scorer", "mbleu", "--slice", '__import__("os")'], ""),
    (["--rule", "swap", "--scorer", "mbleu", "--slice", "task.upper"], ""),
    (["--rule", "swap", "--scorer", "mbleu", "--slice", "(" * 500 + "gold" + ")" * 500], ""),
    (["--rule", "swap", "--scorer", "mbleu", "--slice", "wrong(bleu)"], "bleu"),
    (["--rule", "swap", "--scorer", "mbleu", "--slice", 'tagged("negation")'], "tagged()"),
], ids=["rule", "scorer", "dev", "long-slice", "import", "attribute", "deep", "scorer-not-given", "tagged"])
def test_refusals_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rewrite", SAMPLE, *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err and "Traceback" not in err


def test_save_keeps_the_rewrites_in_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.store import Store

    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("ENTAILMENT_EXPLORER_STORE", str(path))
    body = _json(["rewrite", SAMPLE, "--rule", "antonym", "--scorer", "mbleu", "--save"], capsys)
    store = Store(path)
    (dataset,) = store.datasets()
    kept = store.counterfactuals(dataset.id, rule="antonym")
    assert len(kept) == body["n_rewritten"]
    first = kept[0].pair()
    assert first.id == f"{kept[0].original_id}~antonym" and first.hypothesis


def _qa_ids() -> set[str]:
    return {p.id for p in read_dataset(SAMPLE).pairs if p.task == "QA"}


def test_a_slice_rewrites_its_pairs_only(capsys: pytest.CaptureFixture[str]) -> None:
    body = _json(["rewrite", SAMPLE, "--rule", "swap", "--scorer", "mbleu", "--slice", 'task == "QA"'], capsys)
    assert body["n_pairs"] == len(_qa_ids()) > 0
    assert {p["original_id"] for p in body["pairs"]} == _qa_ids()  # type: ignore[union-attr]


def test_a_slice_on_a_verdict_uses_the_same_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    body = _json(["rewrite", SAMPLE, "--rule", "swap", "--scorer", "bleu", "--slice", "wrong(bleu)"], capsys)
    pairs = body["pairs"]
    assert isinstance(pairs, list) and pairs
    assert all(p["scores"]["bleu"]["entails_before"] != p["gold_before"] for p in pairs)
    evaluated = _json(["evaluate", SAMPLE, "--scorer", "bleu"], capsys)
    (result,) = evaluated["results"]  # type: ignore[misc]
    assert len(pairs) == round((1 - result["accuracy"]) * len(read_dataset(SAMPLE)))


def test_a_slice_on_a_phenomenon_meets_its_rule(capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.groups.phenomena import phenomena_table

    names = ["negation_only_in_h", "negation_only_in_t"]
    table = phenomena_table(read_dataset(SAMPLE).pairs, names)
    expected = int(table[names].fillna(False).astype(bool).any(axis=1).sum())
    body = _json(["rewrite", SAMPLE, "--rule", "drop_negation", "--scorer", "mbleu", "--slice",
                  "negation_only_in_h or negation_only_in_t"], capsys)
    assert body["n_pairs"] == expected > 0
    assert 0 < body["n_rewritten"] <= expected  # type: ignore[operator]
