"""Counterfactual editing on the Pair page: edit a copy of the pair and see every
interactive scorer's change, and each chosen aligner's word links gained and lost,
beside the original. The comparison itself is :mod:`explorer.counterfactual`."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from components import state, workers
from components.guard import attempt
from explorer.pairs import Pair
from explorer.preprocess import InputError, analyze_pair, make_pair
from runtime.pool import cost, tasks


def seed(key: str) -> state.Slot[tuple[str, tuple[str, str]]]:
    """The stored rewrite the edited copy starts from: (its boxes' key suffix, (text, hypothesis))."""
    return state.Slot(f"{key}_seed")


def _from_stored(key: str, stored: Mapping[str, tuple[str, str]]) -> None:
    """Offer the pair's stored what-if rewrites as the edited copy."""
    left, right = st.columns([3, 1])
    rule = left.selectbox("Stored what-if rewrites of this pair (Groups page)", list(stored), key=f"{key}_stored")
    if right.button("Edit a copy from it", key=f"{key}_use") and rule is not None:
        state.Slot[bool](f"{key}_on").set(True)
        seed(key).set((f"_{rule}", stored[rule]))


def render_counterfactual(pair: Pair, *, stored: Mapping[str, tuple[str, str]] | None = None) -> None:
    """Edit the pair in place and see each scorer's change (and each aligner's word links
    gained and lost) beside the original; ``stored``: the pair's what-if rewrites kept in
    the store (rule -> text, hypothesis), offered as starting points."""
    from explorer.aligners import ALIGNERS
    from explorer.counterfactual import AlignmentDiff, ScoreChange, describe_link
    from explorer.scorers import SCORERS

    key = f"counterfactual_{pair.id}_{hash((pair.text, pair.hypothesis)) & 0xFFFFFF:x}"
    if stored:
        _from_stored(key, stored)
    # Behind a toggle: the editors (and the second scoring) only when asked for.
    if not st.toggle("Edit a copy of this pair", key=f"{key}_on",
                     help="The original stays as it is; every method runs on both."):
        return
    left, right = st.columns(2)
    # A stored rewrite chosen below seeds a fresh pair of boxes (their own keys).
    rule, (start_text, start_hyp) = seed(key).get() or ("", (pair.text, pair.hypothesis))
    text = left.text_area("Edited text", value=start_text, key=f"{key}_text{rule}", height=110)
    hypothesis = right.text_area("Edited hypothesis", value=start_hyp, key=f"{key}_hyp{rule}", height=110)
    if text == pair.text and hypothesis == pair.hypothesis:
        st.info("Change a word above to see how every score moves.")
        return
    try:
        edited = make_pair(text, hypothesis, pair_id=f"{pair.id} (edited)")
        analyze_pair(edited)  # its tokens: a text past the length limit is refused here
    except InputError as error:
        st.error(f"Cannot score the edited pair: {error}.")
        return
    interactive = SCORERS.names(interactive=True)
    rows: list[ScoreChange] = workers.run(tasks.counterfactual_scores, pair, edited, interactive,
                                          what="Scoring the original and the edited pair",
                                          long=cost.is_long([pair, edited], interactive))
    table = pd.DataFrame([
        {"method": SCORERS[r.method].label, "original": r.original, "edited": r.edited,
         "change": r.change, "error": r.error}
        for r in rows
    ])
    if not table["error"].astype(bool).any():
        table = table.drop(columns="error")
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%+.4f" if c == "change" else "%.4f")
                                for c in ("original", "edited", "change")})
    # Aligners can be slow (decoders, biparsers): only the ones asked for run.
    chosen = st.multiselect("Also compare the alignments of", list(ALIGNERS), key=f"{key}_aligners",
                            default=[n for n in ("bow",) if n in ALIGNERS],
                            format_func=lambda n: ALIGNERS[n].label)
    for name in chosen:
        info = ALIGNERS[name]

        def compare(name: str = name) -> AlignmentDiff:
            diff: AlignmentDiff = workers.run(tasks.counterfactual_links, pair, edited, name,
                                              what=f"Aligning both pairs with {ALIGNERS[name].label}",
                                              long=cost.is_long([pair, edited], [name]))
            return diff

        diff = attempt(compare, info.label, where="on the edited pair")
        if diff is None:
            continue
        gained = ", ".join(describe_link(link) for link in sorted(diff.gained)) or "none"
        lost = ", ".join(describe_link(link) for link in sorted(diff.lost)) or "none"
        st.markdown(f"**{info.label}**: {len(diff.kept)} word links kept; "
                    f"gained: {gained}; lost: {lost}")
