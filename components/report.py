"""A pair's full analysis as one self-contained HTML file (the Pair page's download).

Pure: no Streamlit. :func:`pair_figures` draws each method's figures for one pair (a
method that fails or refuses becomes a note, the others go on); :func:`report_html`
writes the page: the pair, the verdicts, the scores table and every figure, with
plotly.js inlined once, so the file opens offline and can be mailed or archived.

Every piece of user text (the sentences, the dataset name, labels, cutoff sources, token
labels inside the figures) is escaped: HTML text through :func:`html.escape`, figure data
through Plotly's JSON writer, which writes ``<``, ``>`` and ``/`` as ``\\u`` escapes, so a
``<script>`` in a sentence shows as text and never runs. The only script in the file is
plotly.js and the fixed lines below that wire the PNG/SVG buttons.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from explorer.api import import_attr
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair


@dataclass(frozen=True)
class ScoreRow:
    """One method's line of the report's table."""

    label: str
    value: float
    cutoff: float
    entails: bool
    source: str
    description: str = ""


@dataclass(frozen=True)
class ReportFigure:
    """A titled figure of the report, or the note that replaced it (a method that failed)."""

    title: str
    figure: go.Figure | None = None
    note: str = ""


#: The file's fixed style sheet and the buttons' script (project-written, no user text).
_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
.sentence { background: #f6f6f6; border-radius: 6px; padding: 0.6em 0.8em; white-space: pre-wrap; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { border: 1px solid #ddd; padding: 0.3em 0.5em; }
th { background: #f2f2f2; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.right { color: #1b7f3b; font-weight: 600; } .wrong { color: #b3261e; font-weight: 600; } .none { color: #3b5b92; }
.note { color: #666; font-size: 0.9em; } .figure { margin: 1em 0 2em; }
.export button { margin-right: 0.5em; }
"""
_BUTTONS = """
document.querySelectorAll('.export button').forEach(function (button) {
  button.addEventListener('click', function () {
    var plot = document.getElementById(button.dataset.plot);
    Plotly.downloadImage(plot, {format: button.dataset.format, filename: button.dataset.plot, scale: 2});
  });
});
"""


def _slug(text: str) -> str:
    """A file-name-safe id for a figure (letters, digits and dashes only)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "figure"


def _decision_cell(row: ScoreRow, gold: bool | None) -> str:
    word = "entails" if row.entails else "does not entail"
    if gold is None:
        return f'<td class="none">{word}</td>'
    right = row.entails == gold
    return f'<td class="{"right" if right else "wrong"}">{word} ({"agrees" if right else "disagrees"})</td>'


def report_html(
    *, text: str, hypothesis: str, gold_label: str | None, gold: bool | None, where: str,
    rows: Sequence[ScoreRow], figures: Sequence[ReportFigure], notes: Sequence[str] = (),
) -> str:
    """The whole report as one HTML document (plotly.js inlined once).

    Args:
        where: where the pair comes from ("pair 12 of rte2_dev.xml", "typed pair").
        gold: whether the gold label says entails (None for none).
        notes: lines shown under the table (where the cutoffs came from, ...).
    """
    e = html.escape
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(where)} — Entailment Alignment Explorer</title>",
        f"<style>{_STYLE}</style>",
        f'<script type="text/javascript">{get_plotlyjs()}</script>',
        "</head><body>",
        "<h1>Entailment Alignment Explorer: one pair</h1>",
        f'<p class="note">{e(where)}; written {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.</p>',
        f'<h2>Text</h2><div class="sentence">{e(text)}</div>',
        f'<h2>Hypothesis</h2><div class="sentence">{e(hypothesis)}</div>',
        f"<p>Gold label: <b>{e(gold_label) if gold_label else 'none'}</b></p>",
        "<h2>Verdicts and scores</h2>",
        "<table><tr><th>method</th><th>value</th><th>cutoff</th><th>decision</th>"
        "<th>cutoff from</th><th>what it is</th></tr>",
    ]
    for row in rows:
        parts.append(
            f"<tr><td>{e(row.label)}</td><td class=\"num\">{row.value:.4f}</td><td class=\"num\">{row.cutoff:.4f}</td>"
            f"{_decision_cell(row, gold)}<td>{e(row.source)}</td><td>{e(row.description)}</td></tr>"
        )
    parts.append("</table>")
    if gold is not None and rows:
        agree = sum(r.entails == gold for r in rows)
        parts.append(f'<p class="note">{agree} of {len(rows)} methods agree with the gold label.</p>')
    parts += [f'<p class="note">{e(note)}</p>' for note in notes]
    parts.append("<h2>Figures</h2>")
    used: set[str] = set()
    for item in figures:
        parts.append(f"<h3>{e(item.title)}</h3>")
        if item.figure is None:
            parts.append(f'<p class="note">{e(item.note)}</p>')
            continue
        slug = base = _slug(item.title)
        k = 2
        while slug in used:
            slug, k = f"{base}-{k}", k + 1
        used.add(slug)
        div = pio.to_html(item.figure, include_plotlyjs=False, full_html=False, div_id=slug,
                          config={"displaylogo": False, "toImageButtonOptions": {"filename": slug}})
        parts.append(f'<div class="figure">{div}<div class="export">'
                     f'<button data-plot="{slug}" data-format="png">PNG</button>'
                     f'<button data-plot="{slug}" data-format="svg">SVG</button></div></div>')
    parts += [f"<script>{_BUTTONS}</script>", "</body></html>"]
    return "\n".join(parts)


# -- each method's figures for one pair ---------------------------------------------------------


def ngram_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.ngram_grid import ngram_grid
    from explorer.metrics.bleu import ngram_matches

    h, p = pair.hypothesis, pair.text
    return [ReportFigure("N-gram match grid", ngram_grid(ngram_matches(h.lower, p.lower, 4), p.tokens, h.tokens))]


def wer_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.mtmetrics import edit_sequence
    from explorer.metrics.wer import wer_tokens

    wer = wer_tokens(pair.text.lower, pair.hypothesis.lower)
    return [ReportFigure("WER edit script", edit_sequence(wer, pair.text.tokens, pair.hypothesis.tokens))]


def bow_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.alignment import alignment_grid
    from components.figures.bow import bow_contributions
    from components.panels.shared import registered
    from explorer.aligners import get_aligner
    from explorer.aligners.bow import BowAligner

    result = registered(get_aligner, "bow", BowAligner).align(pair)
    t, h = pair.text.tokens, pair.hypothesis.tokens
    return [ReportFigure("Bag-of-words alignment", alignment_grid(result.alignment, t, h, title="Bag-of-words alignment")),
            ReportFigure("Bag-of-words contributions", bow_contributions(result, t, h))]


def itg_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.itg import alignment_figure, tree_figure
    from components.panels.shared import registered
    from explorer.aligners.itg import ItgScorer
    from explorer.scorers import get_scorer

    scorer = registered(get_scorer, "itg", ItgScorer)
    scorer.check_limits(pair.text, pair.hypothesis)
    parse = scorer.parser.parse_analyses(pair.text, pair.hypothesis)
    if parse.tree is None:
        return [ReportFigure("Bracketing ITG", note="Both sides are empty: nothing to parse.")]
    t, h = pair.text.tokens, pair.hypothesis.tokens
    return [ReportFigure("Bracketing ITG tree", tree_figure(parse.tree, t, h)),
            ReportFigure("Bracketing ITG alignment", alignment_figure(parse, t, h))]


def manli_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.alignment import alignment_grid
    from components.figures.manli import contribution_figure
    from components.panels.shared import registered
    from explorer.aligners import get_aligner
    from explorer.aligners.manli import ManliAligner

    result = registered(get_aligner, "manli", ManliAligner).align(pair)
    t, h = pair.text.tokens, pair.hypothesis.tokens
    return [ReportFigure("MANLI alignment", alignment_grid(result.alignment, t, h, title="MANLI alignment")),
            ReportFigure("MANLI edit scores", contribution_figure(result.edits, t, h))]


def _edit(kind: str, pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.edit_sequence import edit_sequence_figure
    from components.panels.shared import registered
    from explorer.edit_distance.scoring import EditDistanceScorer
    from explorer.scorers import get_scorer

    result = registered(get_scorer, kind, EditDistanceScorer).score(pair)
    t, h = pair.text.tokens, pair.hypothesis.tokens
    return [ReportFigure(f"{kind} best edit sequence",
                         edit_sequence_figure(result.steps, result.probabilities, t, h, title=f"{kind}: best edit sequence"))]


def combined_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.combined import push_bars
    from components.panels.shared import registered
    from explorer.combined import CombinedScorer
    from explorer.scorers import get_scorer

    result = registered(get_scorer, "combined", CombinedScorer).score(pair)
    return [ReportFigure("Combined classifier: what pushed the decision", push_bars(result.contributions, result.intercept))]


def embed_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    from components.figures.alignment import alignment_grid
    from explorer.aligners import get_aligner

    result = get_aligner("embed").align(pair)
    return [ReportFigure("Static-embedding alignment", alignment_grid(result.alignment, pair.text.tokens,
                                                                      pair.hypothesis.tokens,
                                                                      title="Static-embedding alignment"))]


def pfsm_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    return _edit("pfsm", pair)


def ppda_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    return _edit("ppda", pair)


def method_figures() -> list[tuple[str, Callable[[AnalyzedPair], list[ReportFigure]]]]:
    """(title, draw) of every method's report figures (the method table's ``report``)."""
    from components.panels import report_parts

    return [(part.title, import_attr(part.draw)) for part in report_parts()]


def pair_report(pair: Pair, *, where: str, rows: Sequence[ScoreRow], notes: Sequence[str] = ()) -> str:
    """The report of one pair with every method's figures drawn here (the app runs this on a
    worker: :mod:`components.workers`)."""
    from explorer.preprocess import analyze_pair

    return report_html(text=pair.text, hypothesis=pair.hypothesis, gold_label=pair.label, gold=pair.entails,
                       where=where, rows=rows, figures=pair_figures(analyze_pair(pair)), notes=notes)


def pair_figures(pair: AnalyzedPair) -> list[ReportFigure]:
    """Every method's figures for ``pair``; a method that fails (a refusal past its limits,
    a missing model) becomes a note naming it and the reason."""
    out: list[ReportFigure] = []
    for title, draw in method_figures():
        try:
            out += draw(pair)
        except Exception as err:  # noqa: BLE001 - reported in the file, the other methods go on
            out.append(ReportFigure(title, note=f"{title} could not be drawn: {type(err).__name__}: {err}"))
    return out
