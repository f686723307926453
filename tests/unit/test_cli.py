import json
from pathlib import Path

import pytest

import explorer
from explorer.cli import main

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"
SAMPLE = str(SAMPLE_DATA / "typical.xml")


def test_evaluate_json_contract(capsys):
    assert main(["evaluate", SAMPLE, "--scorer", "bleu,mbleu", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["data"] == SAMPLE and out["dev"] is None
    assert [r["scorer"] for r in out["results"]] == ["bleu", "mbleu"]
    for r in out["results"]:
        assert set(r) == {"scorer", "n", "cutoff", "cutoff_source", "accuracy", "cws",
                          "average_precision", "by_task", "seconds", "signature"}
        assert r["signature"]["method"] == r["scorer"] and r["signature"]["cutoff_source"] == "self"
        assert r["signature"]["version"] == explorer.__version__
        assert r["cutoff_source"] == "self" and r["n"] == 56
        assert 0 <= r["accuracy"] <= 1 and 0 <= r["cws"] <= 1
        assert set(r["by_task"]) == {"CD", "IE", "IR", "MT", "PP", "QA", "RC"}
        assert set(r["by_task"]["CD"]) == {"n", "accuracy", "cws", "average_precision"}


def test_evaluate_with_dev_uses_dev_cutoff(capsys):
    csv = str(SAMPLE_DATA / "pairs.csv")
    assert main(["evaluate", csv, "--dev", SAMPLE, "--scorer", "mbleu", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert result["cutoff_source"] == "dev" == result["signature"]["cutoff_source"]


def test_evaluate_graded(tmp_path, capsys):
    data = tmp_path / "sts.tsv"
    data.write_text("5.0\tA dog runs in the park.\tA dog runs in the park.\n"
                    "0.5\tPrices rose sharply.\tThe choir sang.\n"
                    "3.0\tA man cooks pasta.\tA man is cooking.\n")
    assert main(["evaluate", str(data), "--scorer", "mbleu", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][0]
    assert set(result) == {"scorer", "n", "pearson", "spearman", "seconds", "signature"} and result["pearson"] > 0.5
    assert "cutoff_source" not in result["signature"]  # graded data has no cutoff


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["evaluate", "missing.xml"], "no such file", id="missing"),
        pytest.param(["evaluate", SAMPLE, "--scorer", "nope"], "unknown scorer 'nope'", id="scorer"),
        pytest.param(["score", "--text", "", "--hypothesis", "x"], "text is empty", id="empty"),
    ],
)
def test_errors_are_messages_not_tracebacks(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_score_json(capsys):
    assert main(["score", "--text", "Rain fell on Arnsby.", "--hypothesis", "Rain fell.", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hypothesis_tokens"] == ["Rain", "fell", "."]
    assert out["scores"]["mbleu"]["orders"][0] == {"n": 1, "matched": 3, "total": 3}


def test_resources_lists_everything(capsys):
    assert main(["resources"]) == 0
    out = capsys.readouterr().out
    assert "wordnet" in out and "averaged_perceptron_tagger_eng" in out


@pytest.mark.slow  # two RTE dev sets scored twice; test_evaluate_with_dev_uses_dev_cutoff checks --dev in test-fast
def test_rte1_dev_cross_set(capsys, shared_file):
    """Cutoff chosen on RTE1 dev and applied to RTE2 dev: mbleu beats bleu."""
    rte1 = shared_file("nltk_data", "corpora", "rte", "rte1_dev.xml")
    rte2 = shared_file("nltk_data", "corpora", "rte", "rte2_dev.xml")
    assert main(["evaluate", str(rte2), "--dev", str(rte1), "--scorer", "bleu,mbleu", "--json"]) == 0
    bleu, mbleu = json.loads(capsys.readouterr().out)["results"]
    assert bleu["cutoff_source"] == mbleu["cutoff_source"] == "dev"
    assert mbleu["accuracy"] > bleu["accuracy"]


def test_version(capsys):
    assert main(["--version"]) == 0 and explorer.__version__ in capsys.readouterr().out


def test_the_help_names_every_command(capsys):
    """``--help`` prints every command (a stray ``%`` in a help line made argparse raise)."""
    from explorer.cli import COMMANDS

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)
    assert "with 95%" in out


def test_the_command_line_starts_without_pandas_or_dask():
    """Every command's options are built without importing what only running a command
    needs: pandas (slices) and Dask (batch) cost each CLI start about a second of CPU."""
    import subprocess
    import sys

    probe = ("import sys; from explorer.cli import build_parser; build_parser(); "
             "print(sorted(m for m in ('pandas', 'dask', 'distributed', 'duckdb') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=Path(explorer.__file__).resolve().parents[1])
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_unwritable_output_is_a_message(tmp_path, capsys):
    csv = str(SAMPLE_DATA / "pairs.csv")
    out = tmp_path / "missing-dir" / "profile.json"
    assert main(["classify", csv, "--folds", "2", "--features", "wer", "--save-profile", str(out)]) == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["classify", "A", "B", "--c", "inf"], ["classify", "A", "B", "--c", "0"], ["classify", "A", "B", "--c", "nan"],
    ["classify", "A", "--folds", "-3"], ["classify", "A", "--folds", "1" + "0" * 40],
    ["classify", "A", "B", "--gamma", "-1"], ["align-eval", "A", "--limit", "0"],
])
def test_numeric_options_are_checked_before_any_work(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_output_paths_are_checked_before_training(tmp_path, capsys):
    gold = str(SAMPLE_DATA / "typical_align.txt")
    assert main(["train", "manli", gold, "--out", str(tmp_path)]) == 2  # a folder
    assert "is a folder" in capsys.readouterr().err
    assert main(["train", "manli", gold, "--out", str(tmp_path / "no" / "m.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_an_unexpected_exception_is_one_line(monkeypatch, capsys):
    import explorer.cli.evaluate as evaluate_command

    def broken(args):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(evaluate_command, "run_score", broken)
    monkeypatch.delenv("EXPLORER_DEBUG", raising=False)
    assert main(["score", "--text", "a", "--hypothesis", "a"]) == 2
    err = capsys.readouterr().err
    assert "unexpected ZeroDivisionError: boom" in err and "Traceback" not in err


def test_evaluate_uses_the_labelled_subset_of_partly_labelled_data(tmp_path, capsys):
    rows = [
        {"sentence1": "A man plays a red guitar on stage.", "sentence2": "A man plays music.",
         "gold_label": "entailment", "pairID": "1"},
        {"sentence1": "Two dogs run across a wide field.", "sentence2": "Cats sleep indoors.",
         "gold_label": "contradiction", "pairID": "2"},
        {"sentence1": "A child reads a book.", "sentence2": "A child is at school.", "gold_label": "-", "pairID": "3"},
    ]
    data = tmp_path / "nli.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["evaluate", str(data), "--scorer", "mbleu", "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert payload["unlabelled_left_out"] == 1 and payload["results"][0]["n"] == 2
    assert "1 of 3 pairs" in captured.err
