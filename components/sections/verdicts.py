"""The Pair page's verdict strip: every method's decision on one row beside the gold label,
colour-coded, the reason on hover; and the on-demand choice of the dataset's cutoffs.

:func:`verdicts` and :func:`strip_html` are pure (unit-tested); the rest draws them.
Everything shown in the strip is escaped: scorer labels and cutoff sources can carry a
dataset's file name, which a user chose.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from components.data import Cutoff, LoadedDataset, default_cutoff, fingerprint_of
from components.text import count, plain
from explorer.pairs import Pair
from explorer.scorers import SCORERS

#: Colours of a chip: agrees with the gold label, disagrees, no gold label to compare.
RIGHT, WRONG, UNKNOWN, PENDING = "#1b7f3b", "#b3261e", "#3b5b92", "#8a8a8a"


@dataclass(frozen=True)
class Verdict:
    """One method's decision on the pair."""

    scorer: str
    label: str
    value: float
    cutoff: float
    source: str
    entails: bool
    gold: bool | None

    @property
    def correct(self) -> bool | None:
        return None if self.gold is None else self.entails == self.gold

    @property
    def reason(self) -> str:
        sign = ">" if self.entails else "≤"
        decision = "entails" if self.entails else "does not entail"
        text = f"{self.label} = {self.value:.4f} {sign} cutoff {self.cutoff:.4f}: {decision}. Cutoff from {self.source}."
        if self.gold is not None:
            text += " Agrees with the gold label." if self.correct else " Disagrees with the gold label."
        return text


def verdicts(results: Mapping[str, Any], cutoffs: Mapping[str, Cutoff], gold: bool | None) -> list[Verdict]:
    """One verdict per scored method, in the order given."""
    out = []
    for name, result in results.items():
        value, cut = float(result.value), cutoffs[name]
        label = SCORERS[name].label if name in SCORERS else name
        out.append(Verdict(name, label, value, cut.value, cut.source, value > cut.value, gold))
    return out


def _chip(text: str, colour: str, title: str, *, outline: bool = False) -> str:
    style = (f"border:1px solid {colour};color:{colour};background:transparent" if outline
             else f"background:{colour};color:#fff")
    return (f'<span title="{html.escape(title, quote=True)}" style="{style};border-radius:0.9em;'
            f'padding:0.1em 0.6em;margin:0 0.25em 0.3em 0;display:inline-block;font-size:0.85em;'
            f'white-space:nowrap">{html.escape(text)}</span>')


def strip_html(rows: Sequence[Verdict], gold_label: str | None, pending: Sequence[str] = ()) -> str:
    """The strip as HTML: the gold label first, then one chip per method (✓ entails,
    ✗ does not), green/red against the gold label, blue without one, grey outline for
    methods not run yet; the hover text is :attr:`Verdict.reason`."""
    if gold_label is None:
        head = _chip("no gold label", UNKNOWN, "A typed or unlabelled pair: decisions only.", outline=True)
    else:
        head = _chip(f"gold: {gold_label}", "#222", "The dataset's label for this pair.")
    chips = [head]
    for row in rows:
        colour = UNKNOWN if row.correct is None else RIGHT if row.correct else WRONG
        chips.append(_chip(f"{'✓' if row.entails else '✗'} {row.label}", colour, row.reason))
    for name in pending:
        label = SCORERS[name].label if name in SCORERS else name
        chips.append(_chip(f"… {label}", PENDING, f"{label}: not run yet (slow method).", outline=True))
    right = sum(r.correct is True for r in rows)
    judged = sum(r.correct is not None for r in rows)
    summary = (f"{right} of {judged} methods agree with the gold label" if judged
               else f"{sum(r.entails for r in rows)} of {len(rows)} methods say entails")
    return (f'<div style="line-height:1.9">{"".join(chips)}</div>'
            f'<div style="font-size:0.8em;color:#666">{html.escape(summary)}; ✓ entails, ✗ does '
            "not; hover a method for its score, cutoff and where the cutoff came from.</div>")


def render_strip(slot: Any, rows: Sequence[Verdict], gold_label: str | None, pending: Sequence[str] = ()) -> None:
    """Draw (or redraw) the strip into a placeholder."""
    slot.html(strip_html(rows, gold_label, pending))


def cutoff_sources(cutoffs: Mapping[str, Cutoff]) -> str:
    """"12 from this dataset, 11 shipped defaults" for a caption."""
    names = {"dataset": "from this dataset", "dev": "from the development set",
             "default": "shipped defaults (RTE1-3 dev)", "model": "the model's own",
             "none": "assumed 0.5 (no cutoff known)"}
    counts: dict[str, int] = {}
    for cut in cutoffs.values():
        counts[cut.kind] = counts.get(cut.kind, 0) + 1
    return ", ".join(f"{n} {names.get(kind, kind)}" for kind, n in counts.items())


def choose_dataset_cutoffs(loaded: LoadedDataset, scorers: Sequence[str], cutoffs: Mapping[str, Cutoff]) -> None:
    """A button that chooses every scorer's cutoff on the loaded dataset (progress with
    counts), cached on disk per dataset content; only when some cutoff is not the
    dataset's own yet."""
    from explorer import cutoffs as library

    fp = fingerprint_of(loaded)
    if fp is None:
        return
    todo = [n for n in scorers if n in SCORERS and cutoffs[n].kind not in ("dataset", "model")]
    if not todo:
        return
    n_labelled = sum(p.entails is not None for p in loaded.dataset.pairs)
    if not st.button(f"Choose the cutoffs on {loaded.name} ({count(len(todo), 'method')} × {count(n_labelled, 'pair')})",
                     key="choose_cutoffs",
                     help="Scores the whole dataset once per method and keeps each best cutoff on disk; "
                          "until then the shipped RTE-dev cutoffs are used."):
        return
    bar = st.progress(0.0, text="Choosing cutoffs...")
    done = {"methods": 0}

    def progress(scorer: str, i: int, n: int) -> None:
        share = (done["methods"] + i / max(n, 1)) / len(todo)
        bar.progress(min(share, 1.0), text=f"{SCORERS[scorer].label}: {i}/{n} pairs "
                                            f"(method {done['methods'] + 1} of {len(todo)})")
        if i == n:
            done["methods"] += 1

    try:
        library.compute(loaded.dataset, todo, progress=progress)
    except library.CutoffError as err:
        st.error(str(err))
        return
    bar.empty()
    st.rerun()


def verdict_line(scorer: str, value: float, pair: Pair) -> str:
    """One Markdown line for a method's tab: its decision at the cutoff the Pair page uses
    for it, where that cutoff came from, and whether it agrees with the gold label."""
    from components.state import current_dataset, dev_dataset

    cut = default_cutoff(current_dataset(), scorer, typed=pair.source == "typed", dev=dev_dataset())
    entails = value > cut.value
    line = (f"**Verdict: {'entails' if entails else 'does not entail'}** ({value:.4f} "
            f"{'>' if entails else '≤'} cutoff {cut.value:.4f}, {plain(cut.source)})")
    if pair.entails is not None:
        line += f" — gold: {pair.label}, {'agrees' if entails == pair.entails else 'disagrees'}"
    return line + "."


def page_cutoffs(loaded: LoadedDataset, names: Sequence[str], *, typed: bool) -> dict[str, Cutoff]:
    from components.state import dev_dataset

    dev = dev_dataset()
    return {name: default_cutoff(loaded, name, typed=typed, dev=dev) for name in names}
