"""Pair page: one text/hypothesis pair, every interactive scorer with its breakdown, the
n-gram match grid, the decision at a cutoff, and one tab per registered method panel."""

from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from components import analysis, charts, state
from components.cutoffs import page_cutoff
from components.data import (
    BATCH_ORIGIN,
    BLIND_SPOTS,
    SAMPLE_ABOUT,
    SAMPLE_ORIGIN,
    LoadedDataset,
    dataset_scores,
    is_scored,
)
from components.figures.ngram_grid import ngram_grid
from components.guard import attempt
from components.panels import PANELS
from components.sections import batch_results
from components.sections.annotation import render_annotation_section
from components.sections.browser_memory import intro_line, tabs_in_url
from components.sections.report_download import render_report_download
from components.sections.verdicts import (
    AUTO_SLOW_MAX_TOKENS,
    PageScore,
    StoredScore,
    background_cutoffs,
    cutoff_sources,
    page_cutoffs,
    pair_mark,
    render_strip,
    stored_scores,
    verdicts,
    zero_cutoff_note,
)
from components.state import current_dataset, select_pair, selected_pair_id
from components.text import count, plain
from components.warmup import is_warm, scorers_before_warm, wait_for_warmup
from explorer import limits
from explorer.errors import ExplorerError
from explorer.methods import default_scorer
from explorer.metrics.bleu import ngram_matches
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, InputError, analyze_pair, make_pair, tokenize
from explorer.scorers import SCORERS
from runtime.timing import PageTimer

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from explorer.api import ScoreResult
    from explorer.decision.cutoffs import CutoffChoice

#: The first screen's line: what the explorer shows and what to try first (until dismissed).
INTRO = ("See how each method decides whether a hypothesis follows from a text: pick a pair or type one, "
         "hover a verdict, open a method's tab.")
#: Each text box and where its value is kept while the box is not drawn.
TEXT_BOXES = ((state.TEXT_WIDGET, state.TYPED_TEXT), (state.HYPOTHESIS_WIDGET, state.TYPED_HYPOTHESIS))
#: Longer sides are drawn truncated in the grid (the scores use every token).
GRID_MAX_TOKENS = 150
#: Datasets with more pairs get a number box instead of a list of every pair's caption.
PICKER_MAX_OPTIONS = 1000
#: A typed pair longer than this (text and hypothesis together, in characters) is kept out
#: of the URL, and the page says so: some browsers, proxies and chat tools cut or refuse
#: links of a few kilobytes, and a link cut mid-sentence would reopen another pair.
URL_MAX_CHARS = 3000


def _pair_caption(pair: Pair) -> str:
    parts = [pair.id]
    if pair.task:
        parts.append(pair.task)
    if pair.label:
        parts.append(pair.label)
    elif pair.score is not None:
        parts.append(f"score {pair.score:g}")
    hypothesis = pair.hypothesis if len(pair.hypothesis) <= 80 else pair.hypothesis[:77] + "..."
    return f"{' · '.join(parts)} — {hypothesis}"


def _show_pair(pair: Pair) -> None:
    """Put a dataset pair into the text boxes."""
    for (widget, kept), value in zip(TEXT_BOXES, (pair.text, pair.hypothesis), strict=True):
        widget.set(value)
        kept.set(value)


def _typed_from_url() -> None:
    """A fresh session's typed words from the URL (``?pair_text=``, ``?pair_hypothesis=``),
    in place of the pair's: a reload or a shared link reopens the pair that was typed."""
    for widget, kept in TEXT_BOXES:
        value = st.query_params.get(widget.key)
        if value is not None:
            widget.set(str(value))
            kept.set(str(value))


def _copy_widget(widget: state.Slot[str], kept: state.Slot[str]) -> None:
    kept.set(widget.value())


def unknown_pair(loaded: LoadedDataset, wanted: str) -> str:
    """What the page says for a link to a pair the dataset lacks (its id and the size)."""
    total = batch_results.size() if loaded.origin == BATCH_ORIGIN else None
    return (f"There is no pair {plain(wanted)} in {plain(loaded.name)} "
            f"({count(len(loaded.dataset) if total is None else total, 'pair')}). Choose one below.")


def pair_controls(loaded: LoadedDataset) -> Pair | None:
    """The pair picker and the two text boxes; returns the pair to analyse.

    A pair from the dataset stays that pair (with its label and tokens) until its text
    is edited; then it becomes the user's own pair. A link to a pair the dataset lacks
    shows no other pair in its place: the page says so and offers the picker.
    """
    pairs = loaded.dataset.pairs
    ids = [p.id for p in pairs]
    by_id = {p.id: p for p in pairs}
    wanted = selected_pair_id()
    # A link to a pair the dataset lacks, or to a dataset this server lacks (said above the
    # page), shows no other pair in its place: the picker, with nothing chosen.
    if wanted is not None and (wanted not in by_id or state.link_missing()):
        if wanted not in by_id:
            st.warning(unknown_pair(loaded, wanted))
        pick = state.pair_pick(loaded.key)
        pick.pop()
        st.selectbox(f"Pair from {loaded.name}", ids, index=None, key=pick.key, placeholder="choose a pair",
                     format_func=lambda i: _pair_caption(by_id[i]), on_change=lambda: select_pair(pick.get()))
        return None
    if wanted is None:
        wanted = ids[0]
    if len(pairs) <= PICKER_MAX_OPTIONS:
        pick = state.pair_pick(loaded.key)
        pick.set(wanted)
        st.selectbox(
            f"Pair from {plain(loaded.name)}",
            ids,
            key=pick.key,
            format_func=lambda i: _pair_caption(by_id[i]),
            on_change=lambda: select_pair(pick.value()),
            help="Or open one from the Dataset page; or just type your own pair below.",
        )
    else:
        # A list of 20,000 captions would be sent to the browser on every rerun: a number.
        number = state.pair_number(loaded.key)
        number.set(ids.index(wanted) + 1)
        st.number_input(
            f"Pair of {plain(loaded.name)} (1 to {len(ids):,}; too many to list)", min_value=1, max_value=len(ids),
            step=1, key=number.key, on_change=lambda: select_pair(ids[int(number.value()) - 1]),
            help="Or find one on the Dataset page (search, filters) and open it; or type your own pair below.",
        )
        st.caption(plain(_pair_caption(by_id[wanted])))
    chosen = by_id[wanted]
    fresh = not state.TYPED_TEXT.present()
    if state.PAIR_SHOWN.get() != (loaded.key, chosen.id) or fresh:
        _show_pair(chosen)
        state.PAIR_SHOWN.set((loaded.key, chosen.id))
        if fresh:
            _typed_from_url()
    for widget, kept in TEXT_BOXES:
        widget.setdefault(kept.value)
    text, hypothesis = state.TYPED_TEXT.value(), state.TYPED_HYPOTHESIS.value()
    # Typed words live in the URL as the Teach page's do (a widget bound to the query
    # parameter of its key: only while they differ from the pair shown), within a bound.
    fits = len(text) + len(hypothesis) <= URL_MAX_CHARS
    for column, label, default, (widget, kept) in zip(
            st.columns(2), ("Text (premise)", "Hypothesis"), (chosen.text, chosen.hypothesis), TEXT_BOXES, strict=True):
        column.text_area(label, value=default, key=widget.key, height=130, on_change=_copy_widget, args=(widget, kept),
                         bind="query-params" if fits else None)
    if not fits:
        st.caption(f"This pair is too long for a link ({len(text) + len(hypothesis):,} characters; a link keeps "
                   f"typed pairs of up to {URL_MAX_CHARS:,}), so it is not in the URL: a reload or a copied link "
                   "will not bring it back.")
    if text == chosen.text and hypothesis == chosen.hypothesis:
        st.caption(f"Pair **{plain(chosen.id)}** of {plain(loaded.name)}"
                   + (f", gold label: **{chosen.label}**" if chosen.label else ""))
        if chosen.note:
            st.info(f"**What this pair shows:** {plain(chosen.note)}")
        return chosen
    try:
        typed = make_pair(text, hypothesis)
    except InputError as err:
        st.error(f"Cannot score this pair: {err}.")
        return None
    st.caption("Your own pair (edited; no gold label).")
    return typed


#: A cell of the breakdown a scorer does not have (NIST-2 has no 3-grams, NIST no brevity penalty).
NOT_USED = "–"


def breakdown_row(label: str, result: PageScore) -> dict[str, str] | None:
    """Per-order matched/total counts and brevity penalty, for scorers that have them."""
    orders = getattr(result, "orders", None)
    if not orders:
        return None
    row = {"scorer": label}
    for order in orders:
        row[f"{order.n}-grams"] = f"{order.matched}/{order.total} = {order.precision:.3f}"
    bp = getattr(result, "brevity_penalty", None)
    if bp is not None:
        row["brevity penalty"] = f"{bp:.3f}"
    row["value"] = f"{result.value:.4f}"
    return row


def breakdown_table(rows: list[dict[str, str]]) -> pd.DataFrame:
    """The rows as one table: n-gram columns in order, then brevity penalty and value last;
    a cell a scorer does not use shows a dash, not "None"."""
    orders = sorted({int(c.split("-")[0]) for r in rows for c in r if c.endswith("-grams")})
    columns = ["scorer", *(f"{n}-grams" for n in orders), "brevity penalty", "value"]
    return pd.DataFrame([{c: r.get(c, NOT_USED) for c in columns} for r in rows], columns=columns)


def _decision(value: float, cutoff: float) -> str:
    return "entails" if value > cutoff else "does not entail"


def _score_each(names: list[str], analyzed: AnalyzedPair, slot: DeltaGenerator | None = None, *,
                here: bool = False) -> dict[str, ScoreResult]:
    """Each scorer's result on the pair (kept per pair for the whole server, the rest in one
    job on the server's workers, or in this process with ``here``, see
    :mod:`components.analysis`); a failing scorer is reported and left out. ``slot`` shows
    the job's status while it runs."""
    return analysis.score_each(names, analyzed, lambda run, what: attempt(run, what, where="on this pair"),
                               slot=slot, here=here)


def verdicts_while_warming(loaded: LoadedDataset, analyzed: AnalyzedPair, strip: DeltaGenerator) -> None:
    """A fresh server's first pages: the verdicts of the scorers that need no warm-up
    (:func:`scorers_before_warm`, scored in this process at once) in the strip, every other
    method marked as still loading and named under it; then the warm-up's progress, waited
    for (the caller then fills the strip in). Their cutoffs are the page's as always."""
    pair = analyzed.pair
    results = _score_each(scorers_before_warm(), analyzed, here=True)
    pending = [n for n in SCORERS if n not in results]
    shown = verdicts(results, page_cutoffs(loaded, list(results), typed=pair.source == "typed"), pair.entails)
    render_strip(strip, shown, pair.label, pending=pending, mark=pair_mark(pair), loading=True)
    wait_for_warmup()




def _known_slow(loaded: LoadedDataset, analyzed: AnalyzedPair, slow: list[str]) -> dict[str, PageScore]:
    """The slow methods' results at hand without scoring: those already kept for the pair on
    this server, then the dataset's stored scores (:func:`stored_scores`)."""
    found: dict[str, PageScore] = {n: r for n in slow if (r := analysis.cached_result(n, analyzed)) is not None}
    found.update(stored_scores(loaded, analyzed.pair, [n for n in slow if n not in found]))
    return found


def _slow_on_request(analyzed: AnalyzedPair, missing: list[str]) -> dict[str, ScoreResult]:
    """On a long pair, a button runs the slow methods still missing."""
    labels = ", ".join(SCORERS[n].label for n in missing)
    place = st.empty()
    if not place.button(f"Run slow methods ({labels})", key="run_slow"):
        return {}
    place.empty()  # they ran: the button goes (a later run finds their results kept)
    return _score_each(missing, analyzed)


def _gather_scores(loaded: LoadedDataset, analyzed: AnalyzedPair, strip: DeltaGenerator) -> dict[str, PageScore]:
    """Every scorer's result at hand, fast methods first: kept or stored slow results, the
    rest scored now on a short pair or on request on a long one (``strip`` shows the job's
    status meanwhile)."""
    slow = SCORERS.names(interactive=False)
    auto = len(analyzed.text) + len(analyzed.hypothesis) <= AUTO_SLOW_MAX_TOKENS
    known = _known_slow(loaded, analyzed, slow) if slow else {}
    missing = [n for n in slow if n not in known]
    # One job for everything the strip needs now: a job per group would queue twice.
    interactive = SCORERS.names(interactive=True)
    found: dict[str, PageScore] = {**_score_each(interactive + (missing if auto else []), analyzed, strip), **known}
    if missing and not auto:
        found.update(_slow_on_request(analyzed, missing))
    return {n: found[n] for n in interactive + slow if n in found}


def _scores_table(results: dict[str, PageScore], cutoffs: dict[str, CutoffChoice]) -> None:
    """One row per scorer: value, cutoff, decision, what it is and where cutoff and score came from."""
    rows = []
    for name, result in results.items():
        cut = cutoffs[name]
        rows.append({
            "scorer": SCORERS[name].label,
            "name": name,
            "value": round(float(result.value), 4),
            "cutoff": round(cut.value, 4),
            "decision": _decision(float(result.value), cut.value),
            "what it is": SCORERS[name].description,
            "cutoff from": plain(cut.origin),  # st.table renders Markdown in its cells
            "score from": f"stored by {result.by}" if isinstance(result, StoredScore) else "this page",
        })
    st.subheader("Scores")
    # A static table: every row on screen (no 10-row scroll box hiding the slow methods) and
    # the descriptions wrapped in full rather than cut at the column's edge.
    st.table(pd.DataFrame(rows), hide_index=True, border="horizontal")


def _breakdown_section(results: dict[str, PageScore]) -> None:
    """The per-n-gram-order breakdown of the scorers that have one."""
    breakdown = [r for r in (breakdown_row(SCORERS[n].label, res) for n, res in results.items()) if r]
    if breakdown:
        st.markdown("**Per-order breakdown** (clipped matched / total hypothesis n-grams = precision; "
                    f"{NOT_USED} where a scorer does not use that order or a brevity penalty)")
        st.table(breakdown_table(breakdown), hide_index=True, border="horizontal")


def scores_section(loaded: LoadedDataset, analyzed: AnalyzedPair, timer: PageTimer | None = None, *,
                   warm: bool = True) -> dict[str, PageScore]:
    """The verdict strip, then every scorer's value, decision and breakdown. The fast
    methods are scored on the pair (well under a millisecond each); the slow ones' scores
    come, in this order, from this server's kept results, from the scores the dataset's
    background cutoff job stored for every labelled pair (:func:`stored_scores`; the strip
    says which verdicts), or from scoring the pair: on a short pair at once, before the
    strip is drawn, so the strip appears complete; on a long one on request. Cutoffs are
    the ones at hand (cached for this dataset, or the shipped RTE-dev defaults); the
    dataset's own are chosen in the background (:func:`background_cutoffs`): nothing here
    scores the whole dataset. On a server not yet ``warm``, the strip first shows what
    needs no warm-up (:func:`verdicts_while_warming`); the job's status then goes under it.
    """
    pair = analyzed.pair
    typed = pair.source == "typed"
    strip = st.empty()
    status = strip
    if not warm:
        verdicts_while_warming(loaded, analyzed, strip)
        status = st.empty()
    results = _gather_scores(loaded, analyzed, status)
    cutoffs = page_cutoffs(loaded, list(results), typed=typed)
    pending = [n for n in SCORERS.names(interactive=False) if n not in results]
    shown = verdicts(results, cutoffs, pair.entails)
    render_strip(strip, shown, pair.label, pending=pending, mark=pair_mark(pair))
    if timer is not None:
        timer.mark("strip", mark=pair_mark(pair), stored=sum(v.stored for v in shown), pending=len(pending))
    st.caption(f"Cutoffs: {cutoff_sources(cutoffs)}." + (" A typed pair is judged with these, not with a dataset's own." if typed else ""))
    if not typed:
        background_cutoffs(loaded, list(results), cutoffs)
    _scores_table(results, cutoffs)
    _breakdown_section(results)
    return results


def scorer_picker(column: DeltaGenerator, names: list[str]) -> str:
    """The scorer whose decision is shown; kept in ``?method=`` so a reload keeps it. A link
    may name a method instead of a scorer (``?method=edit``, or its former name
    ``editdist``): its first scorer is shown."""
    wanted = st.query_params.get("method")
    if wanted is not None and wanted not in names:
        try:
            wanted = default_scorer(wanted)
        except ExplorerError:  # an unknown name opens the default scorer
            wanted = None
    index = names.index(wanted) if wanted in names else names.index("mbleu") if "mbleu" in names else 0
    picked = str(column.selectbox("Scorer", names, index=index, format_func=lambda n: SCORERS[n].label,
                                  key="decision_scorer"))
    if st.query_params.get("method") != picked:
        st.query_params["method"] = picked
    return picked


def _zeros_at_hand(loaded: LoadedDataset, name: str, source: str) -> tuple[int, int, str] | None:
    """How many pairs of the set a cutoff was chosen on score 0, when its scores are at hand
    (the dataset's own or the development set, scored by a page); None otherwise."""
    chosen_on = loaded if source == "dataset" else state.dev_dataset() if source == "dev" else None
    if chosen_on is None or not is_scored(chosen_on, name):
        return None
    scores = dataset_scores(chosen_on, name)
    return int((scores == 0).sum()), int(scores.size), plain(chosen_on.name)


def decision_section(loaded: LoadedDataset, pair: Pair, results: dict[str, PageScore]) -> None:
    if not results:
        return
    st.subheader("Decision")
    names = list(results)
    left, right = st.columns([1, 2])
    name = scorer_picker(left, names)
    cut = page_cutoff(loaded, name, typed=pair.source == "typed")
    value = float(results[name].value)
    low, high = min(0.0, value, cut.value), max(1.0, value, cut.value)
    if is_scored(loaded, name) and loaded.binary_labels:
        scores = dataset_scores(loaded, name)
        if scores.size:
            low, high = min(low, float(scores.min())), max(high, float(scores.max()))
    cutoff = right.slider(
        "Cutoff (score > cutoff means entails)", min_value=float(low), max_value=float(high),
        value=float(cut.value), step=0.001, format="%.3f", key=f"cutoff_{name}_{loaded.key}_{cut.source}",
        help=f"Starts at {plain(cut.origin)}.",
    )
    if cut.value == 0:
        right.caption(zero_cutoff_note(name, SCORERS[name].label, _zeros_at_hand(loaded, name, cut.source)))
    decision = _decision(value, cutoff)
    message = f"{SCORERS[name].label} = {value:.4f} {'>' if value > cutoff else '≤'} {cutoff:.3f}: **{decision}**"
    if pair.entails is not None:
        right_answer = (value > cutoff) == pair.entails
        message += f" — gold: {pair.label} ({'correct' if right_answer else 'wrong'})"
        (st.success if right_answer else st.warning)(message)
    else:
        st.info(message)


def grid_section(analyzed: AnalyzedPair) -> None:
    st.subheader("N-gram match grid")
    h, p = analyzed.hypothesis, analyzed.text
    h_tokens, p_tokens = h.tokens[:GRID_MAX_TOKENS], p.tokens[:GRID_MAX_TOKENS]
    if len(h.tokens) > GRID_MAX_TOKENS or len(p.tokens) > GRID_MAX_TOKENS:
        st.caption(f"Long pair: the grid shows the first {GRID_MAX_TOKENS} tokens of each side; the scores use all of them.")
    matches = ngram_matches(h.lower[:GRID_MAX_TOKENS], p.lower[:GRID_MAX_TOKENS], 4)
    st.caption("Rows: hypothesis tokens; columns: text tokens (lower-cased match). Darker cells lie on longer matched n-grams, which show as diagonal runs.")
    charts.plotly_chart(ngram_grid(matches, p_tokens, h_tokens), key="ngram_grid")


def gold_alignment_section(analyzed: AnalyzedPair) -> None:
    """The dataset's gold alignment, when the pair has one (e.g. the MSR RTE2 alignments)."""
    gold = analyzed.pair.gold_alignment
    if gold is None:
        return
    from components.figures.alignment import alignment_grid

    with st.expander("Gold alignment (from the dataset)"):
        charts.grid_chart(
            lambda: alignment_grid(gold, analyzed.text.tokens, analyzed.hypothesis.tokens, title="Gold alignment"),
            len(analyzed.text.tokens), len(analyzed.hypothesis.tokens), links=gold, key="gold_alignment",
        )


#: The query parameter naming the open method tab (``?tab=MANLI``; none for the first).
TAB_PARAM = "tab"
#: The element holding the method tabs (its CSS class is ``st-key-`` + this).
TABS_KEY = "method_tabs"


#: ``EXPLORER_TABS=open``: draw only the open method tab (a switch is a short rerun), what
#: ``make serve-class`` sets; unset or ``all``: draw every tab (a switch stays in the browser).
TABS_ENV = "EXPLORER_TABS"


def every_tab_drawn() -> bool:
    """Whether this server draws every method tab of a pair, or only the open one.

    Every tab costs the Streamlit process about 0.4 s of its interpreter per pair (19 charts
    against 7), which one person at the desk never notices and a class sharing the process
    does: 20 students' RTE verdicts came at p95 0.9 s with the open tab drawn and 9.7 s with
    every tab (docs/BENCHMARKS.md, "A class on one server"). So a class server draws the tab
    a student opens, and a one-person server every tab.
    """
    return os.environ.get(TABS_ENV, "all").strip().lower() != "open"


def panels_section(analyzed: AnalyzedPair) -> None:
    """One tab per method panel. The open tab is in the URL (``?tab=MANLI``; none for the
    first tab), so a reload or a copied link reopens it.

    By default every tab is drawn: switching tabs stays in the browser (instant, no run on
    the server), and a new pair's tabs come in the run after its verdict strip
    (:func:`figures_follow`), so drawing them all does not delay the verdicts. With
    ``EXPLORER_TABS=open`` (:func:`every_tab_drawn`) only the open tab is drawn and a switch
    reruns the page for the tab opened."""
    if not PANELS:
        return
    labels = [panel.label for panel in PANELS.values()]
    every = every_tab_drawn()
    with st.container(key=TABS_KEY):
        if every:  # the browser switches tabs and keeps the open one in the URL
            wanted = st.query_params.get(TAB_PARAM)
            tabs = st.tabs(labels, default=wanted if wanted in labels else None)
        else:  # a switch reruns; Streamlit keeps the open tab in the URL
            tabs = st.tabs(labels, key=TAB_PARAM, bind="query-params")
    if every:
        tabs_in_url(f"st-key-{TABS_KEY}", TAB_PARAM, labels[0], key="method_tabs_url")
    for tab, panel in zip(tabs, PANELS.values(), strict=True):
        if every or tab.open:
            with tab:
                # Each panel's widgets and charts are keyed under its name.
                attempt(partial(panel.render, analyzed, key=panel.name), panel.label,
                        where="to draw for this pair")


def figures_follow(loaded: LoadedDataset, pair: Pair) -> bool:
    """Whether this run stops before the figures of a pair new to this session (and the
    page reruns at once to draw them).

    A browser draws everything one run sends before it paints: on a new tab that includes
    loading and starting the figure library and each kind of widget's code, and for every
    new pair half a dozen Plotly figures (the n-gram grid, the open method tab's, the
    alignment editor's). The verdict strip and the scores table, sent first, then waited
    for them. So a new pair's strip and scores go out in a run of their own, and the
    decision (a slider), the annotation tabs (a form, the editor's grid) and the figures in
    the next one, which starts as soon as this one ends, each in the place kept for it; a
    rerun for the same pair (a slider, a tab, the editor) draws everything in one run. An
    RTE2 link in a new tab of a browser that has the app's JavaScript cached: 2.07 s to the
    painted strip with the figures in the same run, 1.19 s with them in the next (medians
    of 8, interleaved on one server at load 6-8); about 0.2 s less again with the decision
    and annotation tabs in the next run too (docs/BENCHMARKS.md)."""
    shown = (loaded.key, pair_mark(pair))
    if state.FIGURES_FOR.get() == shown:
        return False
    state.FIGURES_FOR.set(shown)
    return True


def within_token_limit(pair: Pair) -> bool:
    """One clear refusal, before tagging, for a pair longer than every method accepts
    (instead of one error per method): the server a class shares stays responsive."""
    limit = limits.current().max_tokens
    sizes = len(tokenize(pair.text)), len(tokenize(pair.hypothesis))
    if max(sizes) <= limit:
        return True
    st.warning(f"This pair has {sizes[0]:,} text and {sizes[1]:,} hypothesis tokens; the methods here score "
               f"pairs of up to {limit:,} tokens per side (the `max_tokens` limit, which keeps a shared server "
               "responsive). Shorten it, or score it from the command line with `--max-tokens`.")
    return False


def main() -> None:
    timer = PageTimer()  # EXPLORER_TIMING_LOG only (the browser benchmark)
    st.title("Pair")
    intro_line(INTRO, key="intro")
    loaded = current_dataset()
    if loaded.origin == SAMPLE_ORIGIN and loaded.name == BLIND_SPOTS.name:
        st.caption(SAMPLE_ABOUT[BLIND_SPOTS.name])  # what the blind-spot set is for
    pair = pair_controls(loaded)
    if pair is None:
        return
    if not within_token_limit(pair):
        return
    warm = is_warm()  # a fresh server: the fast verdicts, then progress while the methods load, once
    try:
        analyzed = analyze_pair(pair)
    except InputError as err:
        st.error(f"Cannot analyse this pair: {err}.")
        return
    results = scores_section(loaded, analyzed, timer, warm=warm)
    decision = st.container()
    download = st.empty()
    annotation = st.container()
    if figures_follow(loaded, pair):
        timer.write()
        st.rerun()  # the figures, in a run of their own
    # With the figures: a download button sent in a run that st.rerun cut short did not
    # download (its file is registered by the run that completes).
    with download.container():
        render_report_download(loaded, analyzed, results,
                               page_cutoffs(loaded, list(results), typed=pair.source == "typed"))
    with decision:
        decision_section(loaded, pair, results)
    with annotation:
        render_annotation_section(loaded, pair)
    grid_section(analyzed)
    gold_alignment_section(analyzed)
    panels_section(analyzed)
    timer.write()


main()
