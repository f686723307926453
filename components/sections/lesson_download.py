"""The Teach page's downloads: this lesson, or a deck of lessons, as one HTML file.

The file (:mod:`components.lesson_export`) holds plotly.js, the step player and every
step in presentation form, so it opens from disk with the network off and the server
stopped: a lecturer takes it to a room, or hands it to students. A deck is the lessons
added with "Add to the deck" (any pairs and methods, kept for the browser session). The
file is built only when a button is clicked, on one of the server's workers (the lessons
are traced there again in presentation form; a kept trace is reused).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import streamlit as st

from components import state, workers
from components.lesson_export import MAX_LESSONS, DeckItem, deck_file, lesson_title
from components.teach_methods import TEACH_METHODS
from components.text import plain
from runtime.pool import PoolError, cost


def _file_name(items: Sequence[DeckItem]) -> str:
    first = items[0]
    stem = f"lesson-{first.method}-{first.where}" if len(items) == 1 else f"lessons-{len(items)}-{first.where}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", stem)[:80] + ".html"


def _builder(items: Sequence[DeckItem], name: str) -> Callable[[], str]:
    session = f"{workers.session_id()}:{name}"
    long = any(cost.lesson_is_long(item.pair, TEACH_METHODS[item.method].lesson_seconds) for item in items)

    def build() -> str:
        try:
            return workers.run(deck_file, list(items), what="Building the lesson file", long=long, session=session)
        except PoolError as err:
            return f"<!DOCTYPE html><meta charset='utf-8'><p>The lesson file could not be built: {err}</p>"

    return build


def render_lesson_download(item: DeckItem) -> None:
    """The current lesson's download, the deck's (when it holds any) and its buttons."""
    deck: list[DeckItem] = state.TEACH_DECK.setdefault(list)
    one, add, whole, clear = st.columns([3, 2, 3, 1], vertical_alignment="center")
    one.download_button(
        "Download this lesson (HTML)", data=_builder([item], "lesson"), file_name=_file_name([item]),
        mime="text/html", on_click="ignore", key="teach_download",
        help="One file with every step, the keys, the chapters and plotly.js: it opens from disk with no network "
             "and no server.")
    # Callbacks run before the page is drawn again, so the buttons below already see the change.
    add.button("Add to the deck", key="teach_deck_add", disabled=item in deck or len(deck) >= MAX_LESSONS,
               on_click=deck.append, args=(item,),
               help=f"Collect lessons (any pairs and methods, at most {MAX_LESSONS}) into one file.")
    if deck:
        whole.download_button(
            f"Download the deck ({len(deck)} lesson{'s' if len(deck) != 1 else ''}, HTML)",
            data=_builder(list(deck), "deck"), file_name=_file_name(deck), mime="text/html", on_click="ignore",
            key="teach_deck_download")
        clear.button("Clear", key="teach_deck_clear", help="Empty the deck", on_click=deck.clear)
        st.caption("Deck: " + "; ".join(plain(lesson_title(d.method, TEACH_METHODS[d.method].option_value(d.option),
                                                           d.where)) for d in deck))
