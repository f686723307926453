"""The Pair page's verdict strip: every method's decision on one row beside the gold label,
colour-coded, the reason on hover; and the dataset's own cutoffs, chosen in the background.

:func:`verdicts` and :func:`strip_html` are pure (unit-tested); the rest draws them.
Everything shown in the strip is escaped: scorer labels and cutoff sources can carry a
dataset's file name, which a user chose.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import streamlit as st

from components.cutoffs import page_cutoff
from components.data import (
    KNOWN_SCORES,
    UPLOAD_ORIGIN,
    LoadedDataset,
    dataset_source,
    fingerprint_of,
    labelled_count,
    per_dataset,
)
from components.text import plain
from explorer.decision.cutoffs import CutoffChoice
from explorer.pairs import Pair, content_mark
from explorer.scorers import SCORERS

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from explorer.api import ScoreResult
    from runtime.cutoff_jobs import JobStatus

#: Pairs with at most this many tokens (text + hypothesis) run the slow methods before the
#: verdict strip is drawn: warm, all of them together take well under half a second there
#: (every RTE2 dev pair has fewer; docs/BENCHMARKS.md); longer pairs run them on a button.
AUTO_SLOW_MAX_TOKENS = 100

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
    #: the cutoff calls every pair of the set it was chosen on the same way
    one_sided: bool = False
    #: the score was read from the dataset's stored per-pair scores (:class:`StoredScore`)
    stored: bool = False
    #: who stored it (:attr:`StoredScore.by`)
    stored_by: str = ""

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
        if self.one_sided:
            text += " Not counted: this cutoff gives every pair of its set the same decision."
        if self.cutoff == 0:
            text += f" {ZERO_CUTOFF}"
        if self.stored:
            text += (f" Score stored by {self.stored_by} (the same method run on every pair), not recomputed "
                     "on this page.")
        return text


#: Who stored a :class:`StoredScore`.
BY_JOB, BY_BATCH = "this dataset's background cutoff job", "the batch result"


@dataclass(frozen=True)
class StoredScore:
    """A method's score on a dataset pair, read from the scores the background cutoff job
    stored (:mod:`explorer.decision.pair_scores`) or a batch result holds instead of computed
    on the page; it has the ``value`` every result has and nothing else (no breakdown)."""

    value: float
    by: str = BY_JOB


#: A method's score as the Pair page holds it: computed here, or read from stored scores.
PageScore: TypeAlias = "ScoreResult | StoredScore"


def verdicts(results: Mapping[str, PageScore], cutoffs: Mapping[str, CutoffChoice], gold: bool | None) -> list[Verdict]:
    """One verdict per scored method, in the order given."""
    out = []
    for name, result in results.items():
        value, cut = float(result.value), cutoffs[name]
        label = SCORERS[name].label if name in SCORERS else name
        by = result.by if isinstance(result, StoredScore) else ""
        out.append(Verdict(name, label, value, cut.value, cut.origin, value > cut.value, gold, cut.one_sided,
                           bool(by), by))
    return out


def _chip(text: str, colour: str, title: str, *, outline: bool = False) -> str:
    style = (f"border:1px solid {colour};color:{colour};background:transparent" if outline
             else f"background:{colour};color:#fff")
    return (f'<span title="{html.escape(title, quote=True)}" style="{style};border-radius:0.9em;'
            f'padding:0.1em 0.6em;margin:0 0.25em 0.3em 0;display:inline-block;font-size:0.85em;'
            f'white-space:nowrap">{html.escape(text)}</span>')


def pair_mark(pair: Pair) -> str:
    """A short content hash naming the pair a strip is for (``data-pair`` on the strip), so
    a browser test or benchmark can wait for *this* pair's strip, not a stale one."""
    return content_mark(pair.text, pair.hypothesis)


def _gold_chip(gold_label: str | None) -> str:
    if gold_label is None:
        return _chip("no gold label", UNKNOWN, "A typed or unlabelled pair: decisions only.", outline=True)
    return _chip(f"gold: {gold_label}", "#222", "The dataset's label for this pair.")


def _verdict_chip(row: Verdict) -> str:
    """A method's chip: green/red against the gold label, blue without one; an
    uninformative cutoff outlined and marked, not coloured right or wrong."""
    text = f"{'✓' if row.entails else '✗'} {row.label}"
    if row.one_sided:
        return _chip(f"{text} (uninformative)", PENDING, row.reason, outline=True)
    colour = UNKNOWN if row.correct is None else RIGHT if row.correct else WRONG
    return _chip(text, colour, row.reason)


def _pending_chip(name: str, loading: bool = False) -> str:
    label = _label(name)
    why = "still loading (this server's first start)" if loading else "not run yet (slow method)"
    return _chip(f"… {label}", PENDING, f"{label}: {why}.", outline=True)


def loading_line(pending: Sequence[str]) -> str:
    """The line naming the methods whose verdicts wait for the server's warm-up."""
    return (f"Still loading: {', '.join(map(_label, pending))}. Their verdicts follow here when this server's "
            "first warm-up is done; the others are final.")


def _summary(rows: Sequence[Verdict]) -> str:
    """How many methods agree with the gold label (or say entails, without one), how many
    are uninformative, and which scores were read from the stored ones."""
    counted = [r for r in rows if not r.one_sided]
    right = sum(r.correct is True for r in counted)
    judged = sum(r.correct is not None for r in counted)
    summary = (f"{right} of {judged} methods agree with the gold label" if judged
               else f"{sum(r.entails for r in counted)} of {len(counted)} methods say entails")
    if len(counted) < len(rows):
        summary += (f" ({len(rows) - len(counted)} uninformative: their cutoff gives every pair of its set "
                    "the same decision)")
    stored = sum(r.stored for r in rows)
    if stored:
        by = next(r.stored_by for r in rows if r.stored)
        summary += f"; {stored} from scores stored by {by} ({', '.join(r.label for r in rows if r.stored)})"
    return summary


def strip_html(rows: Sequence[Verdict], gold_label: str | None, pending: Sequence[str] = (), *,
               mark: str = "", loading: bool = False) -> str:
    """The strip as HTML: the gold label first, then one chip per method (✓ entails,
    ✗ does not), green/red against the gold label, blue without one, grey outline for
    methods not run yet (with ``loading``, still loading: a line names them); the hover
    text is :attr:`Verdict.reason`. The outer element carries ``data-pair`` (``mark``, see
    :func:`pair_mark`) and ``data-pending`` (how many methods are still to come), so a
    browser can tell when the strip is complete."""
    chips = [_gold_chip(gold_label), *map(_verdict_chip, rows), *(_pending_chip(n, loading) for n in pending)]
    waiting = (f'<div class="verdict-loading" style="font-size:0.8em;color:#666">{html.escape(loading_line(pending))}'
               "</div>") if loading and pending else ""
    return (f'<div class="verdict-strip" data-pair="{html.escape(mark, quote=True)}" '
            f'data-pending="{len(pending)}" data-methods="{len(rows)}">'
            f'<div style="line-height:1.9">{"".join(chips)}</div>'
            f'<div style="font-size:0.8em;color:#666">{html.escape(_summary(rows))}; ✓ entails, ✗ does '
            f"not; hover a method for its score, cutoff and where the cutoff came from.</div>{waiting}</div>")


def render_strip(slot: DeltaGenerator, rows: Sequence[Verdict], gold_label: str | None, pending: Sequence[str] = (), *,
                 mark: str = "", loading: bool = False) -> None:
    """Draw (or redraw) the strip into a placeholder."""
    slot.html(strip_html(rows, gold_label, pending, mark=mark, loading=loading))


#: Why a cutoff of exactly 0 is not a bug (a student asks): said in a verdict's hover.
ZERO_CUTOFF = "A cutoff of 0: any overlap at all counts as entails, a score of 0 as not."


def zero_cutoff_note(scorer: str, label: str, zeros: tuple[int, int, str] | None) -> str:
    """Why a scorer's cutoff is 0, for the Decision section: what a score of 0 means for it
    and, when the scores of the set the cutoff was chosen on are at hand (``zeros``: pairs
    at 0, pairs, the set's name), how many of them sit at 0."""
    if scorer.startswith("bleu"):
        why = (f"{label} multiplies its n-gram precisions, so it is 0 whenever the pair shares no n-gram of "
               "one of its orders (for sentence BLEU, no common 4-gram), as most short pairs do. ")
    else:
        why = f"Many pairs score exactly 0 under {label}. "
    text = f"**Why the cutoff is 0.** {why}The best split is then between some overlap (entails) and none."
    if zeros is not None:
        at_zero, total, name = zeros
        text += f" On {name}, where this cutoff was chosen, {at_zero:,} of {total:,} pairs score 0."
    return text


def cutoff_sources(cutoffs: Mapping[str, CutoffChoice]) -> str:
    """"12 from this dataset, 11 shipped defaults" for a caption."""
    names = {"dataset": "from this dataset", "dev": "from the development set",
             "default": "shipped defaults (RTE1-3 dev)", "model": "the model's own",
             "none": "assumed 0.5 (no cutoff known)"}
    counts: dict[str, int] = {}
    for cut in cutoffs.values():
        counts[cut.source] = counts.get(cut.source, 0) + 1
    return ", ".join(f"{n} {names.get(kind, kind)}" for kind, n in counts.items())


#: The container around the background job's progress (CSS class ``st-key-cutoff_job``).
JOB_KEY = "cutoff_job"


def background_cutoffs(loaded: LoadedDataset, scorers: Sequence[str], cutoffs: Mapping[str, CutoffChoice]) -> None:
    """Choose the dataset's own cutoffs in the background (:mod:`runtime.cutoff_jobs`), once
    per dataset fingerprint, and show the progress with counts; the page never waits for
    it. While the job runs, its progress is redrawn every second on its own (a fragment);
    when it ends, the page reruns once and the new cutoffs decide."""
    from explorer.decision import pair_scores
    from explorer.decision.cutoffs import DATASET
    from runtime import cutoff_jobs

    fp = fingerprint_of(loaded)
    if fp is None:
        return
    n_labelled = labelled_count(loaded)
    # Cutoffs not yet the dataset's own, and per-pair scores not yet stored (the job keeps
    # both: explorer.decision.pair_scores), so later pairs of this dataset need no scoring.
    keep = pair_scores.storable(n_labelled)
    todo = [n for n in scorers if n in SCORERS and (cutoffs[n].source not in ("dataset", "model")
                                                     or (keep and not pair_scores.has(fp, n, DATASET)))]
    if not todo:
        return
    manager = cutoff_jobs.jobs()
    status = manager.status(fp)
    if status is None:
        source = dataset_source(loaded)
        if source is None or not cutoff_jobs.enabled():
            return
        if loaded.origin == UPLOAD_ORIGIN and n_labelled > UPLOAD_JOB_ASK_OVER and not _asked(fp, n_labelled):
            return
        status = manager.request(fp, source[1], source[0], loaded.name, todo, n_labelled)
    if status.active:
        st.fragment(run_every=1.0)(_job_progress)(fp)
    else:
        _job_summary(status, todo)


#: An upload of more labelled pairs starts its background job only when someone asks: one
#: such job scores every pair with every method (for 100,000 pairs, many processor-minutes
#: and about a gigabyte), which no one who only looks at a few pairs should cost the class.
UPLOAD_JOB_ASK_OVER = 2_000


def _asked(fp: str, n_labelled: int) -> bool:
    """The button that starts a large upload's background job; whether it was pressed."""
    with st.container(key=JOB_KEY):
        left, right = st.columns([3, 1])
        left.caption(f"This upload's own cutoffs are not chosen yet: that scores its {n_labelled:,} labelled "
                     "pairs with every method, minutes of the server's time, so it starts when asked. "
                     "Until then the cutoffs above decide.")
        return right.button("Choose its cutoffs", key=f"cutoff_job_ask_{fp}",
                            help="Runs in the background at a low priority; the page does not wait for it.")


def _label(name: str) -> str:
    return SCORERS[name].label if name in SCORERS else name


def _job_progress(fp: str) -> None:
    """The running job's progress bar (a fragment: it redraws itself every second, and
    reruns the whole page once when the job has ended)."""
    from runtime import cutoff_jobs

    status = cutoff_jobs.jobs().status(fp)
    if status is None or not status.active:
        st.rerun()  # the job ended: draw the page again with what it chose
        return
    with st.container(key=JOB_KEY):
        st.progress(status.share, text=f"Choosing the cutoffs of {plain(status.name)} in the background: "
                                       f"{status.describe(_label)} (each pair's scores are kept too, so "
                                       "later pairs need no scoring). Until then the cutoffs above decide; "
                                       "the page switches when every method is done.")


def _job_summary(status: JobStatus, todo: Sequence[str]) -> None:
    """What a finished, failed or refused job left (one caption; nothing to redraw)."""
    from runtime import cutoff_jobs

    with st.container(key=JOB_KEY):
        if status.state in (cutoff_jobs.FAILED, cutoff_jobs.REFUSED):
            st.caption(f":orange[:material/warning:] This dataset's own cutoffs could not be chosen: "
                       f"{plain(status.error)}. The cutoffs above are used.")
            return
        left = [n for n in todo if n in status.left_out]
        if left:
            st.caption(f"The slow methods ({', '.join(_label(n) for n in left)}) keep the cutoffs above: "
                       f"choosing theirs is limited to datasets of {cutoff_jobs.SLOW_MAX_PAIRS:,} labelled pairs.")


def verdict_line(scorer: str, value: float, pair: Pair) -> str:
    """One Markdown line for a method's tab: its decision at the cutoff the Pair page uses
    for it, where that cutoff came from, and whether it agrees with the gold label."""
    from components.state import current_dataset

    cut = page_cutoff(current_dataset(), scorer, typed=pair.source == "typed")
    entails = value > cut.value
    line = (f"**Verdict: {'entails' if entails else 'does not entail'}** ({value:.4f} "
            f"{'>' if entails else '≤'} cutoff {cut.value:.4f}, {plain(cut.origin)})")
    if pair.entails is not None:
        line += f" — gold: {pair.label}, {'agrees' if entails == pair.entails else 'disagrees'}"
    return line + "."


def page_cutoffs(loaded: LoadedDataset, names: Sequence[str], *, typed: bool) -> dict[str, CutoffChoice]:
    return {name: page_cutoff(loaded, name, typed=typed) for name in names}


#: Per dataset key: each labelled pair's position among the labelled pairs (what the stored
#: scores are indexed by) and how many labelled pairs there are. Bounded like the fingerprints.
_LABELLED_INDEX: dict[str, tuple[dict[tuple[object, ...], int], int]] = {}


def _labelled_index(loaded: LoadedDataset) -> tuple[dict[tuple[object, ...], int], int]:
    from components.analysis import pair_key
    from explorer.decision.cutoffs import labelled

    def build() -> tuple[dict[tuple[object, ...], int], int]:
        pairs = labelled(loaded.dataset.pairs)
        positions: dict[tuple[object, ...], int] = {}
        for i, p in enumerate(pairs):
            positions.setdefault((p.id, *pair_key(p)), i)
        return positions, len(pairs)

    return per_dataset(_LABELLED_INDEX, loaded, build, 64)


def stored_scores(loaded: LoadedDataset, pair: Pair, names: Sequence[str]) -> dict[str, StoredScore]:
    """The scores of ``pair`` (a pair of ``loaded``) stored already, for those of ``names``
    that are: a batch result's values for a page of it, else the scores this dataset's
    background cutoff job stored for a labelled pair (:mod:`explorer.decision.pair_scores`);
    nothing for a typed pair or before anything was stored."""
    from components.analysis import pair_key
    from explorer.decision import pair_scores
    from explorer.decision.cutoffs import DATASET

    if pair.source == "typed" or not names:
        return {}
    batch = KNOWN_SCORES.get(loaded.key)
    if batch is not None:
        return {n: StoredScore(v, BY_BATCH) for n in names if (v := batch.get(n, {}).get(pair.id)) is not None}
    if pair.entails is None:
        return {}
    fp = fingerprint_of(loaded)
    # Nothing stored yet, or a dataset too large to keep scores for: no index to build.
    if fp is None or not any(pair_scores.has(fp, name, DATASET) for name in names):
        return {}
    positions, n_pairs = _labelled_index(loaded)
    at = positions.get((pair.id, *pair_key(pair)))
    if at is None:
        return {}
    out = {}
    for name in names:
        value = pair_scores.value(fp, name, DATASET, at, n_pairs)
        if value is not None:
            out[name] = StoredScore(value)
    return out
