"""Method panels: one per method that has more to show than a number, and their registry.

Each entry maps a method's name to a function ``render(pair, *, key)`` that draws that
method's evidence for one analysed pair with Streamlit calls (alignment grid, parse
tree, edit sequence, ...). Every widget key and chart key a panel uses starts with
``key``, so one panel can be drawn twice on a page under two keys. The Pair page draws
every registered panel in its own tab (under ``key=panel.name``) through
:func:`components.guard.attempt`, so one failing method never hides the others.

:data:`PANELS` is read off the method table (:data:`explorer.methods.METHODS`: a row's
``panel`` and ``tab``), as are the figures of the full-analysis download
(:func:`report_parts`). A method adds its panel with one module here, named in its row;
the module is imported only when its panel is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from explorer.api import Registry, import_attr
from explorer.methods import METHODS, ReportPart
from explorer.preprocess import AnalyzedPair


class Render(Protocol):
    def __call__(self, pair: AnalyzedPair, *, key: str) -> None: ...


@dataclass(frozen=True)
class Panel:
    """A method's panel: ``module.function(pair, key=key)`` draws it in a tab labelled ``label``."""

    name: str
    label: str
    module: str
    function: str

    def render(self, pair: AnalyzedPair, *, key: str) -> None:
        draw: Render = import_attr(f"{self.module}:{self.function}")
        draw(pair, key=key)


def _panel(name: str, label: str, target: str) -> Panel:
    module, _, function = target.partition(":")
    return Panel(name, label, module, function)


#: The panels, in the Pair page's tab order, under their methods' names.
PANELS: Registry[Panel] = Registry("panel", [_panel(row.name, row.tab, row.panel)
                                             for row in METHODS.values() if row.panel is not None])


def report_parts() -> list[ReportPart]:
    """Every method's figures in the full-analysis download, in the method table's order."""
    return [part for row in METHODS.values() for part in row.report]


def report_methods() -> tuple[str, ...]:
    """The scorers the full-analysis download runs to draw its figures."""
    return tuple(dict.fromkeys(m for part in report_parts() for m in part.methods))


__all__ = ["PANELS", "Panel", "ReportPart", "Render", "report_methods", "report_parts"]
