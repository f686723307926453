"""Teach page: step through one method on one small pair, a plain sentence and one figure
per step, with a presentation layout for a projector (large type, the sentence and the
whole figure on one screen, nothing else).

The traces come from the methods' own code (:mod:`components.teach_methods`); the page
picks the pair, the method and its option, computes the lesson once and hands every step
to the browser's step player (:mod:`components.sections.step_player`), which steps
through them without asking the server. Everything a prepared link needs is in the URL:
the layout, the method, the pair (typed words, or ``?dataset=`` and ``?pair=``) and the
step (``?step=``).
"""

from __future__ import annotations

import hashlib

import streamlit as st

from components import analysis, state, workers
from components.figures.teaching import LessonStep
from components.lesson_export import DeckItem
from components.sections.lesson_download import render_lesson_download
from components.sections.step_player import STEP_PARAM, initial_step, render_step_player
from components.state import current_dataset, find_pair, select_pair, selected_pair_id
from components.teach_methods import TEACH_METHODS, lesson_of, unteachable
from components.text import plain
from explorer.errors import ExplorerError
from explorer.pairs import Pair
from explorer.preprocess import make_pair
from explorer.teaching import TEACHING_MAX_TOKEN_CHARS, TEACHING_MAX_TOKENS
from runtime.pool import cost

#: The pair the page opens on (invented; short enough for every method's chart).
EXAMPLE = ("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle.")
TYPED, FROM_DATASET = "Type a pair", "A pair from the dataset"

#: Presentation layout: the sidebar, Streamlit's header bar and most of the top padding
#: go, so the step player starts near the top of a 720-pixel projector screen. A fixed,
#: project-written style sheet: no user text ever goes into it.
PRESENTATION_CSS = """
<style>
section[data-testid="stSidebar"], div[data-testid="stSidebarCollapsedControl"],
header[data-testid="stHeader"] { display: none; }
div[data-testid="stMainBlockContainer"] { padding-top: 0.6rem; padding-bottom: 0.5rem; }
div[data-testid="stMainBlockContainer"] div[data-testid="stVerticalBlock"] { gap: 0.4rem; }
</style>
"""


def _lesson(method: str, option: str | None, key: tuple[object, ...], large: bool, pair: Pair) -> list[LessonStep]:
    """Every step's sentence, caption and figure, built on one of the server's workers (one
    job per session, like the Pair page's: the ITG lesson at the teaching limit is seconds
    of CPU, and takes the long lane) and kept for the whole server per pair, method, option
    and layout (``key`` identifies the pair)."""
    row = TEACH_METHODS[method]
    p, h = cost.words(pair)
    estimate = row.lesson_seconds * (p * h) ** 2  # the ITG chart's cells; the other lessons take well under 1 s
    what = f"Tracing {row.label} on this pair" + (f" (about {estimate:.0f} s of work)" if estimate >= 1 else "")
    return analysis.kept(("teach", method, option, large, *key), lambda: workers.run(
        lesson_of, method, option, pair, large=large, what=what, long=cost.lesson_is_long(pair, row.lesson_seconds)))


def _pick_pair(method: str) -> Pair | None:
    source = st.radio("Pair", [TYPED, FROM_DATASET], horizontal=True, key="teach_source", bind="query-params")
    if source == TYPED:
        text = st.text_input("Text", value=EXAMPLE[0], key="teach_text", bind="query-params")
        hypothesis = st.text_input("Hypothesis", value=EXAMPLE[1], key="teach_hypothesis", bind="query-params")
        try:
            return make_pair(text, hypothesis)
        except ExplorerError as err:
            st.warning(plain(str(err)))
            return None
    loaded = current_dataset()
    pairs = loaded.dataset.pairs
    if not pairs:
        st.info("The dataset has no pairs.")
        return None
    by_id = {p.id: p for p in pairs}
    # Which pairs are past the teaching limit: the check a lesson makes first, on token
    # counts only, kept for the server per dataset (about half a second for 800 pairs).
    marks = analysis.kept(("teach_unteachable", loaded.key), lambda: unteachable(pairs))

    def caption(pair_id: str) -> str:
        hyp = by_id[pair_id].hypothesis
        said = f"{pair_id} — {hyp if len(hyp) <= 70 else hyp[:67] + '...'}"
        return f"{said} — {marks[pair_id]}" if pair_id in marks else said

    if state.link_missing():  # the link's pair is of a dataset this server lacks (said above)
        chosen = st.selectbox(f"Pair of {plain(loaded.name)}", list(by_id), index=None, format_func=caption,
                              key="teach_pair_instead", placeholder="choose a pair")
        if chosen is not None:
            select_pair(chosen)
            st.rerun()
        return None
    only_col, count_col = st.columns([2, 3], vertical_alignment="center")
    only = only_col.toggle("Only pairs this method can teach", value=True, key="teach_only_teachable",
                           help=f"Teaching mode steps through pairs of at most {TEACHING_MAX_TOKENS} tokens per side; "
                                "the others are marked with why.")
    count_col.caption(f"{len(pairs) - len(marks):,} of {len(pairs):,} pairs can be taught with "
                      f"{TEACH_METHODS[method].label}.")
    current = selected_pair_id()
    # A pair the filter hides stays listed (with its mark) while it is the one chosen, so a
    # link to it opens it rather than another pair.
    ids = [p.id for p in pairs if not only or p.id not in marks or p.id == current]
    if not ids:
        st.info(f"No pair of {plain(loaded.name)} is within the teaching limit; turn the filter off to see them.")
        return None
    index = ids.index(current) if current in ids else 0
    pair_id = st.selectbox(f"Pair of {plain(loaded.name)}", ids, index=index, format_func=caption, key="teach_pair")
    if pair_id != current:
        select_pair(pair_id)  # ?pair= (shared with the Pair page): a link reopens it
    return find_pair(loaded, pair_id)


def _method_and_option() -> tuple[str, str | None]:
    method = st.radio("Method", list(TEACH_METHODS), format_func=lambda name: TEACH_METHODS[name].label,
                      horizontal=True, key="teach_method", bind="query-params")
    row = TEACH_METHODS[method]
    if row.option is None:
        return method, None
    choices = row.option.choices
    option = st.selectbox(row.option.label, list(choices), index=list(choices).index(row.option.default),
                          format_func=choices.__getitem__, key=f"teach_option_{method}")
    return method, option


def lesson_id(method: str, option: str | None, key: tuple[object, ...]) -> str:
    """A short name of what is shown: the browser keeps its step while this is unchanged."""
    return hashlib.sha256(repr((method, option, key)).encode()).hexdigest()[:16]


def render() -> None:
    # The layout and the method live in the URL (?presentation=true&teach_method=MANLI), as
    # do the pair and the step: a reload, or a link a teacher prepared, opens the same view.
    top = st.container()
    layout, choices = st.columns([2, 5], vertical_alignment="top")
    large = layout.toggle("Presentation layout", key="presentation", bind="query-params",
                          help="For a projector: large type, the step's sentence and its whole figure on one "
                               "screen, nothing else. Step with the arrow keys, PageDown / PageUp (a clicker) or "
                               "space; F for full screen.")
    if large:
        st.markdown(PRESENTATION_CSS, unsafe_allow_html=True)
    else:
        top.title("Teaching mode")
        top.caption(f"Step through a method on one pair (at most {TEACHING_MAX_TOKENS} tokens per side, "
                    f"{TEACHING_MAX_TOKEN_CHARS} characters per token): one "
                    "sentence and one figure per step, stepped with the buttons or the keys; the last step is the "
                    "method's own score.")
    with choices.expander("Pair and method", expanded=not large):
        method, option = _method_and_option()  # first: the pair list marks what the method cannot teach
        pair = _pick_pair(method)
    if pair is None:
        return
    key = (pair.text, pair.hypothesis, pair.text_tokens, pair.hypothesis_tokens)
    try:
        steps = _lesson(method, option, key, large, pair)
    except ExplorerError as err:  # past the teaching limit, or the server's budget
        st.warning(plain(str(err)))
        return
    shown = lesson_id(method, option, key)
    if state.TEACH_SHOWN.get() != shown:
        if state.TEACH_SHOWN.get() is not None:
            st.query_params.pop(STEP_PARAM, None)  # another lesson starts at its first step
        state.TEACH_SHOWN.set(shown)
        state.TEACH_START.set(initial_step(len(steps)))
    # The step it opens on stays the one it was first sent with: the browser keeps its own
    # step while the lesson is the same, and an element sent again unchanged goes to the
    # browser as a reference to the copy it holds (Streamlit's message cache), not in full.
    render_step_player(steps, lesson_id=shown, step=state.TEACH_START.get() or 1, large=large,
                       pair=(pair.text, pair.hypothesis))
    if not large:
        where = "a typed pair" if pair.source == "typed" else f"pair {pair.id} of {current_dataset().name}"
        render_lesson_download(DeckItem(pair, method, option, where))


render()
