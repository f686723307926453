"""Method panels shown on the Pair page, one per method that has more to show than a number.

Each entry maps a method name to a function that draws that method's evidence for one
analysed pair with Streamlit calls (alignment grid, parse tree, edit sequence, ...).
The Pair page renders every registered panel, each in its own tab, and catches
:class:`Exception` around each so one failing method never hides the others.
A method adds itself with one line in :data:`PANELS`; the renderer module is imported
only when its tab is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explorer.api import Registry, import_attr
from explorer.preprocess import AnalyzedPair


@dataclass(frozen=True)
class Panel:
    """A tab on the Pair page: ``module.function(pair)`` draws it."""

    name: str
    label: str
    module: str
    function: str

    def render(self, pair: AnalyzedPair) -> None:
        draw: Callable[[AnalyzedPair], None] = import_attr(f"{self.module}:{self.function}")
        draw(pair)


PANELS: Registry[Panel] = Registry("panel", [
    Panel("mtmetrics", "MT metrics", "components.mtmetrics_panel", "render_mtmetrics_panel"),
    Panel("bow", "Bag of words", "components.bow_panel", "render_bow_panel"),
    Panel("itg", "ITG parse", "components.itg_panel", "render_itg_panel"),
    Panel("manli", "MANLI", "components.manli_panel", "render_manli_panel"),
    Panel("editdist", "Edit distance (pFSM / pPDA)", "components.edit_distance_panel", "render_edit_distance_panel"),
])
