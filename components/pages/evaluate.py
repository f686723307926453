"""Evaluate page: every chosen scorer over the whole dataset. Accuracy-vs-cutoff curves
with the chosen cutoff dotted (Szymanski's figures 1-4), score histograms by gold label,
per-task accuracy, and a summary beside the published figures. Graded data gets
Pearson/Spearman instead. All figures come from :mod:`explorer.decision.measures`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from components import charts, state, uploads
from components.cutoffs import page_cutoff
from components.data import (
    SAMPLES,
    LoadedDataset,
    dataset_scores,
    gold,
    labelled_mask,
    load_file,
    load_uploaded,
    nltk_rte_files,
)
from components.figures import evaluation as figures
from components.guard import attempt
from components.sections import batch_results
from components.state import current_dataset, dev_dataset, set_dev_dataset
from components.text import count, label_kind, plain, svg_plain
from explorer import published
from explorer.datasets import DatasetError
from explorer.decision.measures import ClassificationReport, best_cutoff, classification_report, graded_report, sweep
from explorer.decision.resolve import reported_source
from explorer.decision.rules import DEFAULT_RULE
from explorer.pairs import Pair
from explorer.scorers import SCORERS

if TYPE_CHECKING:
    from streamlit.elements.lib.column_types import ColumnConfig

SELF = "this data itself"
UPLOAD = "an uploaded file"


def dev_controls(loaded: LoadedDataset) -> LoadedDataset | None:
    """Where the cutoff is chosen: on the data itself or on a development set."""
    samples = {f"sample: {path.name}": path for path in SAMPLES.values()}
    rte = {f"NLTK RTE: {name}": path for name, path in nltk_rte_files().items()}
    options = [SELF, *samples, *rte, UPLOAD]
    current = dev_dataset()
    if current is not None:
        match = [o for o in options if o.endswith(current.name)]
        state.EVALUATE_DEV.setdefault(lambda: match[0] if match else SELF)
    choice = st.selectbox(
        "Choose the cutoff on", options, key=state.EVALUATE_DEV.key,
        help="As in Szymanski's paper: tune the cutoff on a development set (e.g. rte1_dev.xml) and apply it unchanged here.",
    )
    try:
        if choice == SELF:
            chosen = None
        elif choice in samples:
            chosen = load_file(samples[choice], origin="built-in sample")
        elif choice in rte:
            chosen = load_file(rte[choice], origin="NLTK RTE corpus")
        else:
            upload = st.file_uploader("Development set", key="evaluate_dev_upload", max_upload_size=uploads.MAX_UPLOAD_MB,
                                      help=uploads.describe_limits())
            if upload is None:
                st.info("Upload a development set, or choose another option.")
                kept = current if current is not None and current.origin == "uploaded file" else None
                set_dev_dataset(kept)  # what every page decides by: the same as this page
                return kept
            chosen = load_uploaded(upload.getvalue(), upload.name)
    except DatasetError as err:
        st.error(f"Could not load the development set, so cutoffs are chosen on the data itself: {plain(err)}")
        chosen = None
    if chosen is not None and not chosen.binary_labels:
        st.error(f"{plain(chosen.name)} has no entailment labels, so it cannot choose a cutoff; using the data itself.")
        chosen = None
    if chosen is not None and chosen.key == loaded.key:
        chosen = None  # the same data: the cutoff is chosen on itself either way
    set_dev_dataset(chosen)
    return chosen


def score_all(loaded: LoadedDataset, names: Sequence[str], dev: LoadedDataset | None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Scores of every pair (and of the dev set) for each scorer, with a progress bar."""
    jobs = [(loaded, name, False) for name in names] + ([(dev, name, True) for name in names] if dev else [])
    bar = st.progress(0.0, text="Scoring...")
    scores: dict[str, np.ndarray] = {}
    dev_scores: dict[str, np.ndarray] = {}
    failed: set[str] = set()
    for index, (data, name, is_dev) in enumerate(jobs):
        if data is None:  # dev jobs exist only with a dev set
            continue

        def report(i: int, n: int, index: int = index, name: str = name, data: LoadedDataset = data) -> None:
            bar.progress((index + i / max(n, 1)) / len(jobs), text=f"{SCORERS[name].label} on {plain(data.name)}: {i}/{n} pairs")

        if name in failed:
            continue
        result = attempt(partial(dataset_scores, data, name, progress=report),
                         SCORERS[name].label, where=f"on {plain(data.name)}", then=". It is left out.")
        if result is None:
            failed.add(name)
        else:
            (dev_scores if is_dev else scores)[name] = result
    bar.empty()
    for name in failed:
        scores.pop(name, None)
        dev_scores.pop(name, None)
    return scores, dev_scores


def scorer_column(rows: Sequence[dict[str, object]]) -> dict[str, ColumnConfig]:
    """The summary's scorer column wide enough for the longest name (uncut), pinned left."""
    longest = max((len(str(r["scorer"])) for r in rows), default=10)
    return {"scorer": st.column_config.TextColumn(width=min(360, max(120, 8 * longest)), pinned=True)}


def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None or not np.isfinite(value):
        return "–"
    return f"{100 * value:.2f}%" if percent else f"{value:.4f}"


def published_columns(key: str | None, scorer: str, metric: str) -> dict[str, str]:
    found = published.lookup(key, scorer, metric=metric)
    if not found:
        return {"published": "–", "published cutoff": "–", "source": ""}
    figure = found[0]
    pct = metric in ("accuracy", "cws", "average_precision")
    return {
        "published": _fmt(figure.value, pct),
        "published cutoff": "–" if figure.cutoff is None else f"{figure.cutoff:g} ({figure.cutoff_from})",
        "source": figure.source + (f"; {figure.note}" if figure.note else ""),
    }


def graded_section(loaded: LoadedDataset, names: Sequence[str], scores: dict[str, np.ndarray]) -> None:
    pairs = loaded.dataset.pairs
    key = published.dataset_key(loaded.name)
    rows = []
    for name in names:
        report = graded_report(scores[name], pairs)
        rows.append({
            "scorer": SCORERS[name].label, "n": report.n,
            "Pearson": _fmt(report.pearson), "Spearman": _fmt(report.spearman),
            **published_columns(key, name, "pearson"),
        })
    st.subheader("Summary")
    st.caption("Graded similarity data: correlation of each scorer with the gold score.")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config=scorer_column(rows))
    labels = {SCORERS[n].label: scores[n] for n in names}
    charts.plotly_chart(
        figures.graded_scatter(labels, [float(p.score or 0.0) for p in pairs], title="Score against gold similarity"),
        key="graded_scatter",
    )


#: The choices of the curves' cutoff axis, by figures.AXES name.
AXES_LABELS = {"shared": "one cutoff axis", "separate": "one panel per scorer",
               "normalised": "normalised (share of pairs below the cutoff)"}


def curve_axes(curves: dict[str, tuple[np.ndarray, np.ndarray]]) -> str:
    """How the accuracy curves share their x axis: one axis while the scorers' scales are
    alike, a panel each when they differ (a NIST curve would squash the BLEU ones), or
    normalised on request; the caption says which."""
    mixed = figures.mixed_scales(curves)
    options = list(AXES_LABELS)
    axes = st.radio("Cutoff axis", options, index=options.index("separate" if mixed else "shared"),
                    format_func=AXES_LABELS.__getitem__, horizontal=True, persist_state="session",
                    # One choice kept per case, so adding a scorer on another scale switches to panels.
                    key=f"evaluate_axes_{'mixed' if mixed else 'alike'}")
    if mixed and axes == "shared":
        st.caption("These scorers are on different scales (e.g. NIST runs to about 10, BLEU to 1): on one axis "
                   "the narrower curves are squashed. One panel per scorer or the normalised axis shows each.")
    elif axes == "normalised":
        st.caption("Normalised: x is the share of the dataset's pairs whose score is at or below the cutoff "
                   "(judged 'does not entail'), the same 0-1 scale for every scorer; the dotted lines are the "
                   "chosen cutoffs on that scale.")
    return str(axes)


def _labelled_subset(
    loaded: LoadedDataset, scores: dict[str, np.ndarray],
) -> tuple[tuple[Pair, ...], np.ndarray, dict[str, np.ndarray]]:
    """The pairs, gold labels and scores restricted to the labelled pairs; when some are
    unlabelled, says how many are left out."""
    pairs = loaded.dataset.pairs
    g = gold(loaded)
    mask = labelled_mask(loaded)
    if mask.all():
        return pairs, g, scores
    left_out = int((~mask).sum())
    st.info(f"{int(mask.sum()):,} of {count(len(pairs), 'pair')} have an entailment label; they are evaluated "
            f"and the {count(left_out, 'unlabelled pair')} {'is' if left_out == 1 else 'are'} left out.")
    return tuple(p for p, m in zip(pairs, mask) if m), g[mask], {n: s[mask] for n, s in scores.items()}


def _cutoff_source(report: ClassificationReport, loaded: LoadedDataset, dev: LoadedDataset | None) -> str:
    """Where a report's cutoff came from, in words for the summary table."""
    if report.cutoff_source == "model":
        return "the model's own (0.5)"
    if dev and report.cutoff_source == "dev":
        return dev.name
    return f"self ({loaded.name})"


def _summary_table(
    loaded: LoadedDataset, reports: dict[str, ClassificationReport], dev: LoadedDataset | None,
) -> None:
    """One row per scorer: accuracy, CWS, AP, the cutoff and its source, beside the published figure."""
    key = published.dataset_key(loaded.name)
    st.subheader("Summary")
    rows = [{
        "scorer": SCORERS[name].label, "n": report.n,
        "accuracy": _fmt(report.accuracy, True), "CWS": _fmt(report.cws),
        "AP": _fmt(report.average_precision), "cutoff": _fmt(report.cutoff),
        "cutoff source": _cutoff_source(report, loaded, dev),
        **published_columns(key, name, "accuracy"),
    } for name, report in reports.items()]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config=scorer_column(rows))
    if key is None:
        st.caption("Published figures are shown for the corpora papers report on (e.g. rte1_dev.xml, rte2_dev.xml).")


def _oracle_line(names: Sequence[str], scores: dict[str, np.ndarray], g: np.ndarray) -> None:
    """Each scorer's best cutoff on this data and its accuracy there: what no honest method
    can know in advance, so it is shown apart and decides nothing on any page."""
    parts = []
    for name in names:
        cutoff, accuracy = best_cutoff(scores[name], g)
        parts.append(f"{SCORERS[name].label} {cutoff:.4f} ({_fmt(accuracy, True)})")
    st.caption("**Oracle: best cutoff on this data — an upper bound, not a decision.** " + "; ".join(parts) + ".")


def _digest(*arrays: np.ndarray) -> str:
    """A short fingerprint of the arrays' values (part of a kept figure's key)."""
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def _task_section(loaded: LoadedDataset, names: Sequence[str], reports: dict[str, ClassificationReport],
                  shown: tuple[object, ...]) -> None:
    """Per-task accuracy as a figure and a table (RTE's IE, IR, QA, ... tasks), when the data
    has tasks; ``shown`` names the scores and cutoffs behind it (the kept figure's key)."""
    tasks = loaded.dataset.tasks
    if not tasks:
        return
    label = {n: SCORERS[n].label for n in names}
    st.subheader("By task")
    by_task = {label[n]: {svg_plain(t): r.accuracy for t, r in reports[n].by_task.items()} for n in names}
    charts.plotly_chart(charts.kept_figure(("task_accuracy", *shown),
                                           lambda: figures.task_accuracy(by_task, title="Accuracy per task")),
                        key="task_accuracy")
    table = []
    for task in tasks:
        row: dict[str, object] = {"task": task, "n": reports[names[0]].by_task[task].n}
        for n in names:
            r = reports[n].by_task[task]
            row[f"{label[n]} accuracy"] = _fmt(r.accuracy, True)
            row[f"{label[n]} CWS"] = _fmt(r.cws)
            row[f"{label[n]} AP"] = _fmt(r.average_precision)
        table.append(row)
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")


def classification_section(
    loaded: LoadedDataset, names: Sequence[str], scores: dict[str, np.ndarray],
    dev: LoadedDataset | None, dev_scores: dict[str, np.ndarray],
) -> None:
    pairs, g, scores = _labelled_subset(loaded, scores)
    if dev is not None:
        dev_mask = labelled_mask(dev)
        dev_gold = gold(dev)[dev_mask]
        dev_scores = {n: s[dev_mask] for n, s in dev_scores.items()}
    if loaded.dataset.kind == "three_way":
        st.caption("3-way labels: *entailment* against *neutral* and *contradiction* together.")
    def chosen_on(inert: Callable[[object], str]) -> str:
        return (f"chosen on {inert(dev.name)} (development set)" if dev
                else f"chosen on {inert(loaded.name)} itself (no development set)")

    st.caption(f"Cutoffs {chosen_on(plain)}" + (f" by the `{DEFAULT_RULE}` rule (explorer/decision/rules.py)" if dev else "")
               + ". A pair is judged entailed when score > cutoff.")
    reports = {}
    for name in names:
        choice = page_cutoff(loaded, name, score=True)  # the cutoff every page decides by
        reports[name] = classification_report(scores[name], pairs, cutoff=choice.value,
                                              source=reported_source(choice))
    label = {n: SCORERS[n].label for n in names}

    _summary_table(loaded, reports, dev)
    _oracle_line(names, scores, g)

    st.subheader("Accuracy against cutoff")
    curves = {label[n]: sweep(scores[n], g) for n in names}
    cutoffs = {label[n]: reports[n].cutoff for n in names}
    axes = curve_axes(curves)
    # What the figures show, for the server-wide copy every visitor's page draws alike.
    shown = (loaded.key, loaded.name, dev.key if dev else None, tuple(sorted(cutoffs.items())),
             _digest(g, *(scores[n] for n in names)), *((n, id(SCORERS[n])) for n in names))
    charts.plotly_chart(
        charts.kept_figure(("accuracy_curves", *shown), lambda: figures.accuracy_curves(
            curves, cutoffs, title=f"{svg_plain(loaded.name)}: cutoffs {chosen_on(svg_plain)}", axes=axes,
            scores={label[n]: scores[n] for n in names})),
        key="accuracy_curves",
    )

    if dev:
        with st.expander(f"Accuracy against cutoff on the development set, {plain(dev.name)}"):
            charts.plotly_chart(
                charts.kept_figure(("dev_accuracy_curves", dev.name, _digest(dev_gold, *dev_scores.values()), *shown),
                                   lambda: figures.accuracy_curves(
                                       {label[n]: sweep(dev_scores[n], dev_gold) for n in names}, cutoffs,
                                       title=f"{svg_plain(dev.name)}: where each cutoff was chosen", axes=axes,
                                       scores={label[n]: dev_scores[n] for n in names})),
                key="dev_accuracy_curves",
            )
        transfer_section(loaded, names, scores, dev, dev_scores)

    st.subheader("Scores by gold label")
    charts.plotly_chart(
        charts.kept_figure(("score_histograms", *shown),
                           lambda: figures.score_histograms({label[n]: scores[n] for n in names}, g, cutoffs=cutoffs)),
        key="score_histograms",
    )
    _task_section(loaded, names, reports, shown)


def transfer_section(
    loaded: LoadedDataset, names: Sequence[str], scores: dict[str, np.ndarray],
    dev: LoadedDataset, dev_scores: dict[str, np.ndarray],
) -> None:
    """Cutoff transfer: each scorer's cutoff chosen on the development set (A) by a rule,
    applied to this data (B), beside the accuracy B's own best cutoff would give."""
    from explorer.decision.rules import CUTOFF_RULES, transfer_table

    st.subheader(f"Cutoff transfer: {plain(dev.name)} → {plain(loaded.name)}")
    rule = st.selectbox(
        "Cutoff rule", list(CUTOFF_RULES), index=list(CUTOFF_RULES).index(DEFAULT_RULE), key="evaluate_rule",
        help="How the cutoff is chosen on the development set; explorer/decision/rules.py describes each rule.",
    )
    fixed = {n: c for n in names if (c := SCORERS[n].cutoff) is not None}
    rows = transfer_table({n: (dev_scores[n], scores[n]) for n in names}, gold(dev), gold(loaded),
                          source=dev.name, target=loaded.name, rule=rule, fixed=fixed)
    st.dataframe(pd.DataFrame([{
        "scorer": SCORERS[r.scorer].label, "cutoff": _fmt(r.cutoff) + (" (model)" if r.rule == "model" else ""),
        f"accuracy on {dev.name}": _fmt(r.source_accuracy, True),
        f"accuracy on {loaded.name}": _fmt(r.target_accuracy, True),
        f"best possible on {loaded.name}": _fmt(r.target_best_accuracy, True),
        "lost by transfer": _fmt(r.loss, True), f"AP on {loaded.name}": _fmt(r.target_average_precision),
    } for r in rows]), hide_index=True, width="stretch")
    st.caption("The cutoff is chosen on the development set only; 'best possible' is this data's own "
               "best cutoff, which no honest method can know in advance.")


#: Scorers selected when the page opens.
DEFAULT_SCORERS = ("bleu", "mbleu", "bleu_pa")
#: Up to this many chosen scorers the chips are all in sight (each on a row at worst).
CHIPS_IN_SIGHT = 4


def chosen_list(names: Sequence[str]) -> None:
    """Every chosen scorer by name, below the chips, when there may be more chips than the
    control shows without scrolling."""
    if len(names) > CHIPS_IN_SIGHT:
        st.caption(f"{len(names)} scorers chosen: " + ", ".join(plain(SCORERS[n].label) for n in names) + ".")


def main() -> None:
    if batch_results.evaluate_section():  # a whole-corpus batch result is open
        return
    st.title("Evaluate")
    loaded = current_dataset()
    dataset = loaded.dataset
    st.caption(f"**{plain(loaded.name)}** ({loaded.origin}): {count(len(dataset), 'pair')}, "
               f"{label_kind(dataset.kind, int(labelled_mask(loaded).sum()), len(dataset))}. Change it on the Dataset page.")
    if dataset.kind == "unlabelled":
        st.warning(f"{plain(loaded.name)} has no labels or gold scores, so there is nothing to evaluate against.")
        return
    # The BLEU family by default (one scale); scorers on other scales (NIST runs to ~10,
    # bow is a log score) get a panel each in the curves.
    default = [n for n in DEFAULT_SCORERS if n in SCORERS and SCORERS[n].capabilities.interactive]
    # The page's width and wrap: the chips wrap onto rows (in a column they would scroll on
    # one line, their names cut); past about four rows the chip area scrolls, so a longer
    # choice is also listed in full below it (chosen_list).
    names = st.multiselect(
        "Scorers", list(SCORERS), default=default, key="evaluate_scorers", persist_state="session", wrap=True,
        bind="query-params",  # a reload or a link keeps the choice
        help="Any registered scorer; scorers on different scales get a panel each in the curves (or a normalised axis).",
        format_func=lambda n: SCORERS[n].label + ("" if SCORERS[n].capabilities.interactive else " (slow)"),
    )
    chosen_list(names)
    if not names:
        st.info("Choose at least one scorer.")
        return
    if dataset.kind == "graded":
        scores, _ = score_all(loaded, names, None)
        if scores:
            graded_section(loaded, [n for n in names if n in scores], scores)
        return
    with st.columns(2)[0]:
        dev = dev_controls(loaded)
    scores, dev_scores = score_all(loaded, names, dev)
    if scores:
        classification_section(loaded, [n for n in names if n in scores], scores, dev, dev_scores)


main()
