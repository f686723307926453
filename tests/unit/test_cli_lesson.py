"""The ``lesson`` command: one self-contained file per call (plotly.js and the player inside,
nothing fetched), the other commands' contracts (one-line errors, exit 2, --format json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from explorer.cli import main

DATA = ("id,text,hypothesis,label\n"
        "a,The baker sold warm bread to the school before nine.,The baker sold bread.,1\n"
        "b,The gate was shut.,A sign said <script>alert(1)</script> & </script> here.,0\n"
        "long," + " ".join(["word"] * 40) + ",A word.,0\n")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    path.write_text(DATA, encoding="utf-8")
    return path


def test_one_lesson_is_one_self_contained_file(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "wer.html"
    assert main(["lesson", str(data), "--pair", "a", "--method", "wer", "--out", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    html = out.read_text(encoding="utf-8")
    assert report["bytes"] == out.stat().st_size and report["lessons"][0]["steps"] > 3
    assert "Plotly" in html and "function mountPlayer(component)" in html
    # Nothing is fetched: no external script, style sheet, image or font.
    assert not re.search(r"<(script|link|img|iframe)[^>]*(src|href)=", html)
    assert "@import" not in html and "url(http" not in html
    payload = json.loads(html.split('id="lesson-data">')[1].split("</script>")[0])
    assert len(payload["steps"]) == report["lessons"][0]["steps"]
    assert {step["chapter"] for step in payload["steps"]} >= {"Filling the table", "The score"}


def test_a_deck_and_markup_in_a_pair(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deck.html"
    assert main(["lesson", str(data), "--pair", "b", "--method", "bleu_pa,wer", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2 lessons" in text and "BLEU P&A" in text
    block = out.read_text(encoding="utf-8").split('id="lesson-data">')[1].split("</script>")[0]
    assert "<" not in block  # the typed </script> cannot end the block
    lessons = json.loads(block)["lessons"]
    assert lessons[0]["pair"]["hypothesis"].startswith("A sign said <script>")
    assert [step["lesson"] for step in json.loads(block)["steps"]][-1] == 1


@pytest.mark.parametrize(("pair", "method", "message"), [
    ("zz", "wer", "has no pair 'zz'"),
    ("a", "wer,nope", "unknown teaching method 'nope'"),
    ("long", "wer", "at most 30 tokens"),
])
def test_refusals_are_one_line(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: str, method: str,
                               message: str) -> None:
    out = tmp_path / "x.html"
    assert main(["lesson", str(data), "--pair", pair, "--method", method, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
