"""Method panels: one per method that has more to show than a number, and their registry.

Each entry maps a method name to a function ``render(pair, *, key)`` that draws that
method's evidence for one analysed pair with Streamlit calls (alignment grid, parse
tree, edit sequence, ...). Every widget key and chart key a panel uses starts with
``key``, so one panel can be drawn twice on a page under two keys. The Pair page draws
every registered panel in its own tab (under ``key=panel.name``) through
:func:`components.guard.attempt`, so one failing method never hides the others.
A method adds itself with one module here and one row in :data:`PANELS` (which also names
the figures its panel adds to the full-analysis download); the module is imported only
when its panel is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from explorer.api import Registry, import_attr
from explorer.preprocess import AnalyzedPair


class Render(Protocol):
    def __call__(self, pair: AnalyzedPair, *, key: str) -> None: ...


@dataclass(frozen=True)
class ReportPart:
    """Figures a panel adds to the Pair page's full-analysis download: ``draw`` (``"module:attr"``,
    pure Plotly, no Streamlit: the file is built on a worker) returns them for a pair;
    ``title`` names them in the note that replaces them when they fail; ``methods`` are the
    registered scorers it runs (the job's cost estimate, :func:`runtime.pool.cost.is_long`)."""

    title: str
    draw: str
    methods: tuple[str, ...]


@dataclass(frozen=True)
class Panel:
    """A method's panel: ``module.function(pair, key=key)`` draws it; ``report`` are its
    figures in the full-analysis download."""

    name: str
    label: str
    module: str
    function: str
    report: tuple[ReportPart, ...] = ()

    def render(self, pair: AnalyzedPair, *, key: str) -> None:
        draw: Render = import_attr(f"{self.module}:{self.function}")
        draw(pair, key=key)


_REPORT = "components.report"

PANELS: Registry[Panel] = Registry("panel", [
    Panel("mtmetrics", "MT metrics", "components.panels.mtmetrics", "render_mtmetrics_panel",
          (ReportPart("N-gram match grid", f"{_REPORT}:ngram_figures", ("mbleu",)),
           ReportPart("WER", f"{_REPORT}:wer_figures", ("wer",)))),
    Panel("bow", "Bag of words", "components.panels.bow", "render_bow_panel",
          (ReportPart("Bag of words", f"{_REPORT}:bow_figures", ("bow",)),)),
    Panel("itg", "ITG parse", "components.panels.itg", "render_itg_panel",
          (ReportPart("Bracketing ITG", f"{_REPORT}:itg_figures", ("itg",)),)),
    Panel("manli", "MANLI", "components.panels.manli", "render_manli_panel",
          (ReportPart("MANLI", f"{_REPORT}:manli_figures", ("manli",)),)),
    Panel("combined", "Combined classifier", "components.panels.combined", "render_combined_panel",
          (ReportPart("Combined classifier", f"{_REPORT}:combined_figures", ("combined",)),)),
    Panel("editdist", "Edit distance (pFSM / pPDA)", "components.panels.edit_distance", "render_edit_distance_panel",
          (ReportPart("pFSM", f"{_REPORT}:pfsm_figures", ("pfsm",)),
           ReportPart("pPDA", f"{_REPORT}:ppda_figures", ("ppda",)))),
    Panel("similarity", "Embeddings & similarity", "components.panels.similarity", "render_similarity_panel",
          (ReportPart("Static embeddings", f"{_REPORT}:embed_figures", ("embed",)),)),
])


def report_parts() -> list[ReportPart]:
    """Every panel's report figures, in the Pair page's tab order."""
    return [part for panel in PANELS.values() for part in panel.report]


def report_methods() -> tuple[str, ...]:
    """The scorers the full-analysis download runs to draw its figures."""
    return tuple(dict.fromkeys(m for part in report_parts() for m in part.methods))
