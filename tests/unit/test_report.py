"""The Pair page's self-contained HTML report and the charts' export settings."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest

from components import report
from components.charts import export_config
from components.report import ReportFigure, ScoreRow, pair_figures, report_html
from explorer.preprocess import analyze_pair, make_pair

HOSTILE = 'Ann <script>window.pwned = 1</script> sold <img src=x onerror="window.pwned=2"> a car.'


def _html(**overrides: object) -> str:
    figure = go.Figure(go.Bar(x=["<script>alert(1)</script>", "b"], y=[1, 2]))
    args: dict[str, object] = dict(
        text=HOSTILE, hypothesis="Ann sold a car</script>.", gold_label="entailment", gold=True,
        where="pair 7 of <b>evil</b>.xml",
        rows=[ScoreRow("BLEU", 0.31, 0.2, True, "this dataset: <i>x</i>", "n-gram precision"),
              ScoreRow("WER", 0.1, 0.5, False, "shipped default")],
        figures=[ReportFigure("Grid", figure), ReportFigure("Grid", figure), ReportFigure("MANLI", note="MANLI failed")],
    )
    args.update(overrides)
    return report_html(**args)  # type: ignore[arg-type]


def test_user_text_is_escaped_and_only_fixed_scripts_remain() -> None:
    page = _html()
    assert "<script>window.pwned" not in page and "<img" not in page and "<b>evil" not in page
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    assert "</script>." not in page  # the hypothesis cannot close a script element either
    # The figure's tick label travels inside the figure's JSON with <, > and / escaped.
    assert "alert(1)" in page and "<script>alert(1)" not in page
    scripts = re.findall(r"<script[^>]*>", page)
    # plotly.js once, one per figure, the buttons' wiring: nothing else.
    assert len(scripts) == 1 + 2 + 1


def test_plotly_js_is_inlined_once_and_every_figure_has_png_and_svg() -> None:
    page = _html()
    assert page.count("plotly.js v") <= 2  # its banner, in one inlined copy
    assert "cdn" not in " ".join(re.findall(r"<script[^>]*>", page)).lower()
    assert page.count('data-format="png"') == 2 and page.count('data-format="svg"') == 2
    assert 'id="grid"' in page and 'id="grid-2"' in page  # repeated titles get their own ids
    assert "MANLI failed" in page


def test_decisions_against_gold() -> None:
    page = _html()
    assert "entails (agrees)" in page and "does not entail (disagrees)" in page
    assert "1 of 2 methods agree with the gold label" in page
    unlabelled = _html(gold=None, gold_label=None)
    assert "agrees" not in unlabelled and "Gold label: <b>none</b>" in unlabelled


def test_a_failing_method_becomes_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(pair: object) -> list[ReportFigure]:
        raise RuntimeError("model file missing")

    monkeypatch.setattr(report, "method_figures", lambda: [("Broken", broken), ("N-gram match grid", report.ngram_figures)])
    found = pair_figures(analyze_pair(make_pair("A cat sat.", "A cat sat.")))
    assert [f.title for f in found] == ["Broken", "N-gram match grid"]
    assert found[0].figure is None and "RuntimeError: model file missing" in found[0].note
    assert found[1].figure is not None


@pytest.mark.slow
def test_every_method_draws_for_a_small_pair() -> None:
    found = pair_figures(analyze_pair(make_pair("John bought a new car last week.", "John purchased a car.")))
    assert all(f.figure is not None for f in found), [f.note for f in found if f.figure is None]
    titles = " ".join(f.title for f in found)
    for method in ("N-gram", "WER", "Bag-of-words", "ITG", "MANLI", "Combined classifier", "pfsm", "ppda",
                   "Static-embedding"):
        assert method in titles


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_export_config(fmt: str) -> None:
    config = export_config("bow_grid", fmt)
    assert config["toImageButtonOptions"]["format"] == fmt
    assert config["toImageButtonOptions"]["filename"] == "bow_grid"
    with pytest.raises(ValueError, match="choose one of png, svg"):
        export_config("x", "jpeg")
