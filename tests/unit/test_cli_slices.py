"""The ``slices`` command: text and JSON on a dataset file and on a batch result folder,
one-line errors with exit status 2, hostile expressions refused before anything runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.bench_slices import write_synthetic_result
from explorer.batch.query import BatchResult
from explorer.cli import main
from explorer.cli.slices import slice_specs
from explorer.groups.batch_slices import batch_cutoffs, result_columns, result_names

SAMPLE = "sample_data/typical.xml"


def test_json_contract_and_evaluate_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slices", SAMPLE, "--scorer", "bleu,bow", "--slice", 'qa=task == "QA"', "--slice", "true",
                 "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    qa, whole = body["slices"]
    assert (qa["name"], qa["expression"], qa["n"]) == ("qa", 'task == "QA"', 8)
    assert len(qa["ids"]) == 8 and whole["n"] == 56
    assert [r["scorer"] for r in qa["results"]] == ["bleu", "bow"]
    for r in qa["results"]:
        assert r["ci_low"] <= r["accuracy"] <= r["ci_high"]
    assert main(["evaluate", SAMPLE, "--scorer", "bleu,bow", "--json"]) == 0
    evaluated = {r["scorer"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    for mine, other in zip(qa["results"], whole["results"], strict=True):
        theirs = evaluated[mine["scorer"]]
        assert mine["accuracy"] == theirs["by_task"]["QA"]["accuracy"]
        assert other["accuracy"] == theirs["accuracy"]
        assert body["cutoffs"][mine["scorer"]]["value"] == theirs["cutoff"]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slices", SAMPLE, "--scorer", "bow", "--slice", "hard=wrong(bow)"]) == 0
    out = capsys.readouterr().out
    assert "typical.xml: 56 pairs" in out
    assert "hard  n=" in out and "(wrong(bow))" in out
    assert "bow        accuracy   0.00%" in out and " *" in out


@pytest.mark.parametrize("argv, needle", [
    (["--slice", "tsk == 'QA'"], "unknown name 'tsk' at column 1 (did you mean 'task'?)"),
    (["--slice", '__import__("os").system("touch HACKED")'], "attribute access"),
    (["--slice", "q=" + "(" * 600 + "gold" + ")" * 600], "characters long; the limit is 1,000"),
    (["--slice", "(" * 40 + "gold" + ")" * 40], "nests deeper than 32"),
    (["--slice", "score(bleu) < 1e999999"], "too large"),
    (["--slice", "wrong(manli)"], "unknown scorer 'manli'"),
    ([], "give at least one --slice"),
    (["--slice", "a=gold", "--slice", "a=not gold"], "two slices are named 'a'"),
    (["--rule", "best", "--slice", "gold"], "--rule says how the cutoff is chosen"),
    (["--slice", "gold", "--scorer", "nope"], "nope"),
    (["--slice", 'tagged("hard")'], "tagged() reads the tags of the app's store"),
], ids=["typo", "import", "long", "deep", "inf", "scorer-not-chosen", "none", "same-name", "rule-without-dev",
        "unknown-scorer", "tags"])
def test_errors_are_one_line_with_status_2(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    full = ["slices", str(Path(__file__).resolve().parents[2] / SAMPLE), *argv]
    if "--scorer" not in argv:
        full += ["--scorer", "bleu"]
    assert main(full) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert needle in captured.err and captured.err.startswith("error: ") and captured.err.count("\n") == 1
    assert not (tmp_path / "HACKED").exists()


def test_a_hostile_slice_is_refused_before_any_scoring(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import explorer.groups.frame as frame

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored although a slice does not parse")

    monkeypatch.setattr(frame, "score_pairs", never)
    assert main(["slices", SAMPLE, "--scorer", "bleu", "--slice", "ok=gold", "--slice", "lambda: 1"]) == 2
    assert "':' at column 7" in capsys.readouterr().err


@pytest.mark.parametrize("specs, expected", [
    (['qa=task == "QA"'], {"qa": 'task == "QA"'}),
    (['task == "QA"'], {'task == "QA"': 'task == "QA"'}),
    (["low overlap = overlap <= 0.5"], {"low overlap": " overlap <= 0.5"}),
    (["overlap >= 0.5"], {"overlap >= 0.5": "overlap >= 0.5"}),
    (["gold != true"], {"gold != true": "gold != true"}),
])
def test_slice_specs(specs: list[str], expected: dict[str, str]) -> None:
    assert slice_specs(specs) == expected


# -- a batch result folder ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def result_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_result(tmp_path_factory.mktemp("batch") / "result", 3000, ["bleu", "bow"], chunk_size=1000)


def test_batch_slices_agree_with_pandas_on_the_same_rows(result_folder: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    expression = 'negation_only_in_h and overlap < 0.6 or task == "QA" and wrong(bleu) and not wrong(bow)'
    assert main(["slices", str(result_folder), "--scorer", "bleu,bow", "--slice", f"s={expression}",
                 "--json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)["slices"]
    result = BatchResult.open(result_folder)
    cutoffs = batch_cutoffs(result, ["bleu", "bow"])
    rows = result.query("SELECT * FROM {source} ORDER BY position").df()
    said = {s: rows[s] > cutoffs[s].value for s in ("bleu", "bow")}
    wrong = {s: rows[s].notna() & (said[s] != rows["entails"]) for s in said}
    right = {s: rows[s].notna() & (said[s] == rows["entails"]) for s in said}
    mask = (rows["ph_negation_only_in_h"] & (rows["ph_overlap"] < 0.6)) | (
        (rows["task"] == "QA") & wrong["bleu"] & right["bow"])
    assert found["n"] == int(mask.sum()) and found["ids"] == rows["id"][mask].tolist()[:1000]
    for r in found["results"]:
        judged = mask & rows[r["scorer"]].notna()
        accuracy = right[r["scorer"]][judged].mean()
        assert math.isclose(r["accuracy"], accuracy)
        assert math.isclose(r["whole_accuracy"], right[r["scorer"]][rows[r["scorer"]].notna()].mean())


def test_batch_names_and_columns(result_folder: Path) -> None:
    result = BatchResult.open(result_folder)
    names = result_names(result)
    assert names["negation_only_in_h"] == "bool" and names["overlap"] == "number" and names["task"] == "text"
    columns = result_columns(names, batch_cutoffs(result, ["bleu"]))
    assert columns["overlap"] == '"ph_overlap"' and columns["gold"] == '"entails"'
    assert columns["correct:bleu"].startswith('(("bleu" > CAST(')


def test_batch_refuses_what_it_lacks(result_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["slices", str(result_folder), "--scorer", "bleu", "--slice", 'tagged("hard")']) == 2
    assert "'tags' at column 1 is not available here" in capsys.readouterr().err
    assert main(["slices", str(result_folder), "--scorer", "mbleu", "--slice", "gold"]) == 2
    assert "scorer 'mbleu' is not in this result" in capsys.readouterr().err
    injection = "x' OR 1=1; DROP TABLE t; --"
    assert main(["slices", str(result_folder), "--scorer", "bleu", "--slice", f'task == "{injection}"',
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["slices"][0]["n"] == 0


# -- the phenomena registry -----------------------------------------------------------------------

def test_every_builtin_slice_parses_against_the_registry() -> None:
    from explorer.groups.frame import slice_names
    from explorer.groups.language import parse
    from explorer.groups.phenomena import builtin_slices

    known = slice_names()
    slices = builtin_slices()
    assert slices
    for expression in slices.values():
        parse(expression, known, kinds=known)


def test_phenomena_slices_match_the_phenomena_table(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.batch.source import read_dataset
    from explorer.cli import slices as command
    from explorer.groups.phenomena import FAST, builtin_slices, phenomena_table

    fast = {name: expression for name, expression in builtin_slices().items() if expression.split()[0] in FAST}
    assert "negation_only_in_t" in fast and "low_overlap" in fast
    monkeypatch.setattr(command, "builtin", lambda: fast)
    assert main(["slices", SAMPLE, "--scorer", "bow", "--phenomena", "--slice", "mine=overlap < 0.3", "--json"]) == 0
    found = {s["name"]: s for s in json.loads(capsys.readouterr().out)["slices"]}
    assert set(found) == {*fast, "mine"}
    table = phenomena_table(read_dataset(SAMPLE).pairs, ["overlap", "negation_only_in_t"])
    ids = [str(i) for i in range(1, 57)]
    assert found["mine"]["ids"] == [i for i, v in zip(ids, table["overlap"], strict=True) if v < 0.3]
    assert found["negation_only_in_t"]["ids"] == [
        i for i, v in zip(ids, table["negation_only_in_t"], strict=True) if v is not None and bool(v)]


def test_batch_lists_the_first_ids_of_a_large_slice(result_folder: Path) -> None:
    from explorer.groups.batch_slices import MAX_IDS, batch_slice_results

    (every,), _ = batch_slice_results(BatchResult.open(result_folder), ["bow"], {"all": "true"})
    assert every.n == 3000 and every.ids == tuple(f"p{i}" for i in range(MAX_IDS))
    assert every.to_json()["ids_complete"] is False
