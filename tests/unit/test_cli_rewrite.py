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
    (["--rule", "swap", "--scorer", "mbleu", "--slice", "x" * 3000], "the limit is 2,000"),
], ids=["rule", "scorer", "dev", "long-slice"])
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
