"""Method panels: one per method that has more to show than a number, and their registry.

Each entry maps a method name to a function ``render(pair, *, key)`` that draws that
method's evidence for one analysed pair with Streamlit calls (alignment grid, parse
tree, edit sequence, ...). Every widget key and chart key a panel uses starts with
``key``, so one panel can be drawn twice on a page under two keys. The Pair page draws
every registered panel in its own tab (under ``key=panel.name``) through
:func:`components.guard.attempt`, so one failing method never hides the others.
A method adds itself with one module here and one line in :data:`PANELS`; the module is
imported only when its panel is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from explorer.api import Registry, import_attr
from explorer.preprocess import AnalyzedPair


class Render(Protocol):
    def __call__(self, pair: AnalyzedPair, *, key: str) -> None: ...


@dataclass(frozen=True)
class Panel:
    """A method's panel: ``module.function(pair, key=key)`` draws it."""

    name: str
    label: str
    module: str
    function: str

    def render(self, pair: AnalyzedPair, *, key: str) -> None:
        draw: Render = import_attr(f"{self.module}:{self.function}")
        draw(pair, key=key)


PANELS: Registry[Panel] = Registry("panel", [
    Panel("mtmetrics", "MT metrics", "components.panels.mtmetrics", "render_mtmetrics_panel"),
    Panel("bow", "Bag of words", "components.panels.bow", "render_bow_panel"),
    Panel("itg", "ITG parse", "components.panels.itg", "render_itg_panel"),
    Panel("manli", "MANLI", "components.panels.manli", "render_manli_panel"),
    Panel("combined", "Combined classifier", "components.panels.combined", "render_combined_panel"),
    Panel("editdist", "Edit distance (pFSM / pPDA)", "components.panels.edit_distance", "render_edit_distance_panel"),
    Panel("similarity", "Embeddings & similarity", "components.panels.similarity", "render_similarity_panel"),
])
