"""The Teach page's step player: a lesson's steps sent to the browser once, stepped there.

A lesson is known in advance (every step of a method's trace), so the page sends every
step's sentence, caption and figure in one message and the browser steps through them
(``step_player.js``, a Streamlit v2 component mounted in the page, no iframe): a click,
an arrow key, PageDown/PageUp (what a presentation clicker sends) or space moves one
step at once, none is dropped, the server does no work per step, and the URL's
``?step=`` follows. plotly.js is the copy inside Streamlit's front end (the chunk that
draws ``st.plotly_chart``), so nothing new is downloaded or shipped.

Nothing a user typed reaches the page as markup: the player sets every text with
``textContent``, and the figure builders escape the words they put in labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from components import charts
from components.figures.teaching import packed

if TYPE_CHECKING:
    from components.figures.teaching import LessonStep

HERE = Path(__file__).resolve().parent
#: The query parameter that holds the step (1-based).
STEP_PARAM = "step"
#: Seconds between steps while playing.
PLAY_SECONDS = 1.5


@cache
def _player() -> Any:
    """The component, registered once per process (on first use: importing this module
    outside a Streamlit server, as the benchmarks do, registers nothing)."""
    return st.components.v2.component(
        "teach_step_player",
        js=(HERE / "step_player.js").read_text(encoding="utf-8"),
        css=(HERE / "step_player.css").read_text(encoding="utf-8"),
        isolate_styles=False,  # plotly.js puts its own styles in the page's head
    )


@cache
def plotly_chunk() -> str | None:
    """The file name of the Streamlit front-end chunk that carries plotly.js."""
    folder = Path(st.__file__).resolve().parent / "static" / "static" / "js"
    found = sorted(folder.glob("PlotlyChart.*.js"))
    return found[0].name if found else None


def initial_step(count: int) -> int:
    """The step the URL names (``?step=``), within ``1..count``; 1 when it names none."""
    raw = st.query_params.get(STEP_PARAM)
    try:
        step = int(str(raw)) if raw is not None else 1
    except ValueError:
        step = 1
    return min(max(step, 1), max(count, 1))


def player_data(steps: Sequence[LessonStep], *, lesson_id: str, step: int, large: bool,
                pair: tuple[str, str] | None, key: str) -> dict[str, object]:
    """What the browser receives (plain JSON): the steps, the shared layouts, where to start."""
    shown, layouts = packed(steps)
    config = {**charts.export_config(key, charts.figure_format()), "responsive": True}
    return {
        "id": lesson_id, "steps": shown, "layouts": layouts, "step": step, "large": large, "fit": large,
        "pair": None if pair is None else {"text": pair[0], "hypothesis": pair[1]},
        "plotly": plotly_chunk(), "config": config, "param": STEP_PARAM, "play_seconds": PLAY_SECONDS,
    }


def render_step_player(steps: Sequence[LessonStep], *, lesson_id: str, step: int, large: bool,
                       pair: tuple[str, str] | None = None, key: str = "teach_player") -> None:
    """Draw the player on ``steps`` (from :func:`components.teach_methods.lesson`), opening
    on ``step`` unless the browser is already showing this lesson (``lesson_id``).
    ``large``: presentation type, and the figure fitted to the screen below the player."""
    _player()(key=key, data=player_data(steps, lesson_id=lesson_id, step=step, large=large, pair=pair, key=key))
