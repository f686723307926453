"""Teach page: step through one method on one small pair, a plain sentence and one figure
per step, with a presentation layout (large type, nothing else on screen).

The traces come from :mod:`explorer.teaching` (each method's own computation, recorded);
this page only picks the pair and the method and shows the chosen step.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from components import charts, state
from components.figures.teaching import step_figure
from components.state import current_dataset, find_pair, selected_pair_id
from components.text import plain
from explorer.errors import ExplorerError
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair, make_pair
from explorer.teaching import METHODS, TEACHING_MAX_TOKENS, tracer

#: The pair the page opens on (invented; short enough for every method's chart).
EXAMPLE = ("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle.")
#: Each method's one option: (label, choices, default).
OPTIONS: dict[str, tuple[str, dict[str, str], str]] = {
    "bleu": ("Variant", {"mbleu": "modified BLEU", "bleu": "BLEU", "bleu_pa": "BLEU P&A"}, "mbleu"),
    "itg": ("Variant", {"itg": "exact matches", "itg_entail": "cheap text nulls", "itg_stop": "stoplist",
                        "itg_lex": "lexical similarity"}, "itg"),
    "edit": ("Model", {"ppda": "pPDA (with jumps)", "pfsm": "pFSM"}, "ppda"),
}
OPTION_ARGUMENT = {"bleu": "variant", "itg": "variant", "edit": "kind"}
#: Seconds between steps while playing.
PLAY_INTERVAL = 1.5

#: Presentation layout: larger type for the step text and controls, the sidebar hidden.
#: A fixed, project-written style sheet: no user text ever goes into it.
PRESENTATION_CSS = """
<style>
section[data-testid="stSidebar"] { display: none; }
div[data-testid="stMarkdownContainer"] p { font-size: 1.55rem; line-height: 1.45; }
div[data-testid="stMarkdownContainer"] h3 { font-size: 2.1rem; }
div[data-testid="stWidgetLabel"] p { font-size: 1.3rem; }
button p { font-size: 1.3rem; }
</style>
"""


@st.cache_resource(max_entries=16, show_spinner="Tracing the method on this pair...")
def _trace(method: str, option: str | None, key: tuple[object, ...], _pair: Pair) -> Any:
    """The method's trace on the pair (``key`` identifies the pair for the cache)."""
    kwargs = {OPTION_ARGUMENT[method]: option} if option is not None else {}
    return tracer(method)(analyze_pair(_pair), **kwargs)


def _pick_pair() -> Pair | None:
    source = st.radio("Pair", ["Type a pair", "A pair from the dataset"], horizontal=True, key="teach_source")
    if source == "Type a pair":
        text = st.text_input("Text", value=EXAMPLE[0], key="teach_text")
        hypothesis = st.text_input("Hypothesis", value=EXAMPLE[1], key="teach_hypothesis")
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
    ids = [p.id for p in pairs]
    current = selected_pair_id()
    index = ids.index(current) if current in ids else 0
    by_id = {p.id: p for p in pairs}

    def caption(pair_id: str) -> str:
        hyp = by_id[pair_id].hypothesis
        return f"{pair_id} — {hyp if len(hyp) <= 70 else hyp[:67] + '...'}"

    pair_id = st.selectbox(f"Pair of {plain(loaded.name)}", ids, index=index, format_func=caption, key="teach_pair")
    return find_pair(loaded, pair_id)


def _advance(delta: int, last: int) -> None:
    state.TEACH_STEP.set(min(last, max(1, (state.TEACH_STEP.get() or 1) + delta)))


def _show_steps(trace: Any, large: bool) -> None:
    """Slider, buttons and player, the step's sentence and its figure."""
    last = len(trace.steps)
    if state.TEACH_PLAY.get():
        if (state.TEACH_STEP.get() or 1) >= last:
            st.rerun()  # the whole page: it switches the player off and stops the timer
        _advance(1, last)
    cols = st.columns([1, 1, 6])
    cols[0].button("Previous", on_click=_advance, args=(-1, last), key="teach_prev", width="stretch")
    cols[1].button("Next step", on_click=_advance, args=(1, last), key="teach_next", width="stretch")
    step = cols[2].slider("Step", 1, last, key=state.TEACH_STEP.key) if last > 1 else 1
    shown = trace.steps[step - 1]
    st.markdown(f"### Step {step} of {last}")
    st.markdown(plain(shown.explain))
    # Without Streamlit's chart theme in the presentation layout, so the figure's large type shows.
    charts.plotly_chart(step_figure(trace, step - 1, large=large), key="teach_figure", width="stretch",
                    theme=None if large else "streamlit")


def render() -> None:
    # The method (by its label) and the layout live in the URL (?teach_method=MANLI&presentation=true): a
    # reload, or a link a teacher prepared, opens the same view.
    large = st.toggle("Presentation layout (large type, one figure per screen)", key="presentation",
                      bind="query-params")
    if large:
        st.markdown(PRESENTATION_CSS, unsafe_allow_html=True)
    else:
        st.title("Teaching mode")
        st.caption(f"Step through a method on one pair (at most {TEACHING_MAX_TOKENS} tokens per side): "
                   "one sentence and one figure per step; the last step is the method's own score.")
    with st.expander("Pair and method", expanded=not large):
        pair = _pick_pair()
        method = st.radio("Method", list(METHODS), format_func=METHODS.__getitem__, horizontal=True,
                          key="teach_method", bind="query-params")
        option: str | None = None
        if method in OPTIONS:
            label, choices, default = OPTIONS[method]
            option = st.selectbox(label, list(choices), index=list(choices).index(default),
                                  format_func=choices.__getitem__, key=f"teach_option_{method}")
    if pair is None:
        return
    if large:
        st.markdown(f"**Text:** {plain(pair.text)}  \n**Hypothesis:** {plain(pair.hypothesis)}")
    key = (pair.text, pair.hypothesis, pair.text_tokens, pair.hypothesis_tokens)
    try:
        trace = _trace(method, option, key, pair)
    except ExplorerError as err:
        st.warning(plain(str(err)))
        return
    if state.TEACH_SHOWN.get() != (method, option, key):
        state.TEACH_SHOWN.set((method, option, key))
        state.TEACH_STEP.set(1)
        state.TEACH_PLAY.set(False)
    if state.TEACH_PLAY.get() and (state.TEACH_STEP.get() or 1) >= len(trace.steps):
        state.TEACH_PLAY.set(False)  # the player reached the last step
    # Outside the steps' fragment: switching it reruns the page, which starts or stops the timer.
    playing = st.toggle(f"Play (a step every {PLAY_INTERVAL:g} s)", key=state.TEACH_PLAY.key)
    st.fragment(run_every=PLAY_INTERVAL if playing else None)(_show_steps)(trace, large)


render()
