"""Every Plotly chart of the app goes through :func:`plotly_chart`, so every figure can be
saved as PNG or SVG from its own modebar (the camera icon at its top right).

Why the modebar, not a server-side export: Plotly's ``toImage`` runs in the reader's
browser on the chart already drawn (plotly.js ships inside Streamlit's front end), so it
works offline, costs the shared server nothing and needs no extra package. Kaleido, the
server-side route, does work here with Debian's Chromium, but it starts a browser for
every export (3-4 s a figure on this machine) on a server a class may share. The modebar
has one image button per chart, so the format is chosen once for the session in the
sidebar (:func:`format_picker`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go
import streamlit as st

from components import analysis, state
from components.figures.alignment import MAX_GRID_CELLS

if TYPE_CHECKING:
    from explorer.alignment import Alignment

FORMATS = ("png", "svg")


def export_config(key: str, fmt: str) -> dict[str, object]:
    """Plotly's config for one chart: the camera button saves ``fmt`` (PNG at twice the
    drawn size), named after the chart's key."""
    if fmt not in FORMATS:
        raise ValueError(f"figure format {fmt!r}: choose one of {', '.join(FORMATS)}")
    options: dict[str, object] = {"format": fmt, "filename": key}
    if fmt == "png":
        options["scale"] = 2
    return {"displaylogo": False, "toImageButtonOptions": options}


def figure_format() -> str:
    chosen = state.FIGURE_FORMAT.get()
    return chosen if chosen in FORMATS else "png"


def kept_figure(key: tuple[object, ...], build: Callable[[], go.Figure]) -> go.Figure:
    """``build()``, kept in the server-wide LRU (:func:`components.analysis.kept`) under
    ``key``, which must name everything the figure shows. A figure every visitor's page draws
    alike (the Evaluate page's curves of a dataset) is then built once per server, not on each
    visit (about a tenth of a second of the process a class shares, each time). The one
    figure goes to every page that asks: nothing may change it after ``build``."""
    return analysis.kept(("figure", *key), build)


def plotly_chart(figure: go.Figure, *, key: str, **kwargs: Any) -> Any:
    """``st.plotly_chart`` with the session's image format on the modebar's camera."""
    return st.plotly_chart(figure, key=key, config=export_config(key, figure_format()), **kwargs)


def grid_chart(build: Callable[[], go.Figure], p_len: int, h_len: int, *, key: str,
               links: Alignment | None = None, **kwargs: Any) -> None:
    """A hypothesis x text token grid (``build`` makes it), drawn only up to
    :data:`~components.figures.alignment.MAX_GRID_CELLS` cells. Past that it is not built at
    all (it would hold this server process for about a second per grid, whoever else is
    waiting, and be too small to read): one line says so, with the links in Sure-align
    notation (text-hypothesis token positions) when they are given."""
    cells = p_len * h_len
    if cells <= MAX_GRID_CELLS:
        plotly_chart(build(), key=key, **kwargs)
        return
    st.info(f"This grid would have {cells:,} cells ({p_len:,} text x {h_len:,} hypothesis tokens; "
            f"more than {MAX_GRID_CELLS:,}), so it is not drawn"
            + (": its links, as text-hypothesis token positions, are below." if links is not None else "."))
    if links is not None:
        st.code(links.to_sure_align() or "(no links)", language=None, wrap_lines=True)


def format_picker() -> None:
    """The sidebar's choice of the figures' download format (kept for the session)."""
    st.sidebar.segmented_control(
        "Figure downloads", list(FORMATS), default="png", key=state.FIGURE_FORMAT.key, required=True,
        format_func=str.upper, persist_state="session",
        help="What the camera icon at the top right of every figure saves: PNG (twice the drawn size) or SVG.",
    )
