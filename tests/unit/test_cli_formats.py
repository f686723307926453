"""Every command prints one record, as text or as JSON: ``--format text|json`` (``--json``
is ``--format json``) on every command, the JSON one object that parses, the text never
JSON; and an option a command would not use is refused, never ignored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import COMMANDS, main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
TYPICAL = str(SAMPLES / "typical.xml")
CSV = str(SAMPLES / "pairs.csv")
GOLD = str(SAMPLES / "typical_align.txt")
STS = "".join(f"{s}\tA man plays the {w} on the stage.\tA man plays {w}.\n"
              for s, w in ((4.5, "guitar"), (1.0, "drum"), (3.2, "violin"), (2.4, "piano"), (0.5, "flute"),
                           (4.0, "cello"), (3.0, "harp"), (1.5, "horn")))


def command_line(name: str, tmp: Path) -> list[str]:
    """A quick run of each command (a new command must add its own here)."""
    sts = tmp / "toy_sts.tsv"
    sts.write_text(STS, encoding="utf-8")
    return {
        "evaluate": ["evaluate", TYPICAL, "--scorer", "mbleu"],
        "score": ["score", "--text", "A man cooks pasta.", "--hypothesis", "A man cooks.", "--scorer", "mbleu,wer"],
        "resources": ["resources"],
        "classify": ["classify", CSV, "--folds", "2", "--features", "wer,per", "--each"],
        "combined": ["combined", TYPICAL, TYPICAL, "--features", "scorer:mbleu,scorer:wer"],
        "corpus-stats": ["corpus-stats", TYPICAL],
        "align-eval": ["align-eval", GOLD, "--aligner", "itg", "--limit", "3", "--reachability"],
        "train": ["train", "pfsm", str(sts), "--out", str(tmp / "pfsm.json"), "--option", "max_iter=3",
                  "--option", "min_count=1"],
        "batch": ["batch", CSV, "--scorer", "mbleu", "--out", str(tmp / "batch"), "--workers", "1", "--no-register"],
        "slices": ["slices", TYPICAL, "--scorer", "mbleu", "--slice", 'qa=task == "QA"'],
        "rewrite": ["rewrite", TYPICAL, "--rule", "swap", "--scorer", "mbleu"],
        "lesson": ["lesson", TYPICAL, "--pair", "1", "--method", "bleu", "--out", str(tmp / "lesson.html")],
    }[name]


def commands() -> list[object]:
    slow = {"batch", "align-eval", "train"}  # a Dask cluster starts; the ITG kernels compile; EM training: seconds
    return [pytest.param(name, marks=[pytest.mark.slow] if name in slow else [], id=name) for name in COMMANDS]


def prints_text_and_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    """Run ``argv`` as JSON then as text; both succeed, the JSON is one non-empty object,
    the text is not JSON. Returns the JSON."""
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    body = json.loads(capsys.readouterr().out)
    assert isinstance(body, dict) and body
    assert main([*argv, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert text.strip() and not text.lstrip().startswith("{")
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    return body


@pytest.mark.parametrize("name", commands())
def test_every_command_prints_text_or_json(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = prints_text_and_json(command_line(name, tmp_path), capsys)
    if name == "batch":  # a finished batch is resumed, not redone: the same figures
        assert isinstance(body["chunks_run"], int) and body["chunks_run"] >= 1


def variants(tmp: Path) -> dict[str, list[str]]:
    """The other records a command prints, by its options (a cutoff from a development set,
    graded data, a held-out test file, per-task folds, a saved model, links alone); the
    graded data is ``tmp/toy_sts.tsv``, written by the test (listing the variants writes nothing)."""
    sts = tmp / "toy_sts.tsv"
    return {
        "evaluate-dev": ["evaluate", TYPICAL, "--dev", TYPICAL, "--rule", "best", "--scorer", "mbleu,wer"],
        "evaluate-graded": ["evaluate", str(sts), "--scorer", "mbleu"],
        "classify-train-test": ["classify", CSV, CSV, "--features", "wer,per"],
        "classify-per-task": ["classify", TYPICAL, "--folds", "2", "--features", "wer,per", "--per-task", "--seed", "1"],
        "combined-save-model": ["combined", TYPICAL, "--features", "scorer:mbleu", "--save-model", str(tmp / "m.json")],
        "align-eval-gold-only": ["align-eval", GOLD, "--limit", "3", "--reachability"],
    }


@pytest.mark.parametrize("variant", list(variants(Path("."))))
def test_every_record_a_command_prints_comes_as_text_or_json(variant: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "toy_sts.tsv").write_text(STS, encoding="utf-8")
    prints_text_and_json(variants(tmp_path)[variant], capsys)


def test_json_is_an_alias_of_format_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", "--text", "Rain fell.", "--hypothesis", "Rain fell.", "--scorer", "mbleu,per"]
    assert main([*argv, "--json"]) == 0
    alias = capsys.readouterr().out
    assert main([*argv, "--format", "json"]) == 0
    assert capsys.readouterr().out == alias
    assert main([*argv, "--format", "yaml"]) == 2
    assert "invalid choice: 'yaml'" in capsys.readouterr().err


def test_the_text_comes_from_the_results(capsys: pytest.CaptureFixture[str]) -> None:
    """``score``'s lines are each result's ``format()``, and ``evaluate``'s the report's."""
    import explorer

    assert main(["score", "--text", "A man cooks pasta.", "--hypothesis", "A man cooks.", "--scorer", "mbleu"]) == 0
    result = explorer.score("A man cooks pasta.", "A man cooks.", scorer="mbleu")
    assert capsys.readouterr().out.splitlines()[-1] == f"  mbleu      {result.format()}"


@pytest.mark.parametrize("argv, message", [
    pytest.param(["evaluate", TYPICAL, "--rule", "best"], "give --dev DEV with it", id="evaluate-rule-without-dev"),
    pytest.param(["rewrite", TYPICAL, "--rule", "swap", "--scorer", "mbleu", "--cutoff-rule", "best"],
                 "give --dev DEV with it", id="rewrite-cutoff-rule-without-dev"),
    pytest.param(["classify", CSV, CSV, "--per-task"], "--per-task applies to cross-validation", id="per-task"),
    pytest.param(["classify", CSV, CSV, "--seed", "3"], "--seed applies to cross-validation", id="seed"),
    pytest.param(["classify", CSV, "--folds", "2", "--features", "wer", "--each"], "name two or more", id="each-one"),
    pytest.param(["align-eval", GOLD, "--reachability", "--model", "msr"], "--model goes with --aligner", id="model"),
    pytest.param(["batch", CSV, "--out", "x", "--no-register", "--store", "s.db"], "leave it out with --no-register",
                 id="store-unregistered"),
    pytest.param(["batch", CSV, "--out", "x", "--scheduler", "tcp://h:1", "--workers", "2"], "has its own workers",
                 id="workers-with-scheduler"),
    pytest.param(["corpus-stats", TYPICAL, "--max-tokens", "5"], "unrecognized arguments: --max-tokens", id="limits"),
    pytest.param(["resources", "--max-memory-mb", "5"], "unrecognized arguments: --max-memory-mb", id="limits-res"),
    pytest.param(["train", "manli", GOLD, "--out", "m.json", "--max-tokens", "5"], "pair 1: manli: the pair",
                 id="train-limits"),
])
def test_an_option_a_command_would_not_use_is_refused(argv: list[str], message: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err, err


@pytest.mark.parametrize("argv", [
    pytest.param(["classify", CSV, "--folds", "2", "--features", "wer,bleu2,nist1"], id="classify"),
    pytest.param(["combined", TYPICAL, TYPICAL, "--features", "scorer:mbleu"], id="combined"),
    pytest.param(["evaluate", TYPICAL, "--scorer", "wer"], id="evaluate"),
])
def test_the_limit_options_bound_what_a_command_computes(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A command that takes --max-tokens applies it to everything it computes per pair
    (classify's MT-metric groups too, not only its scorer: groups)."""
    assert main([*argv, "--max-tokens", "3"]) == 2
    err = capsys.readouterr().err
    assert "(max_tokens)" in err and "--max-tokens on the command line" in err, err
