"""The Errors page's counts in SQL: tags by task, gold label and outcome under a run.

*Of the pairs tagged X, how many are of task T, gold label L, and right or wrong under
run R?* Under a run with a cutoff, a pair is **correct** when the run's decision
(entailed iff ``score > cutoff``) matches its gold label (entailment vs. anything
else), **incorrect** otherwise; pairs the run gave no score are ``no score``,
unlabelled pairs ``unlabelled``, and with no run (or a run without a cutoff) every pair
is ``no decision``. The aggregation runs in SQL next to the schema it reads, so it stays
fast with 100,000 annotations (see docs/BENCHMARKS.md).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from explorer.store.csv_cells import spreadsheet_safe
from explorer.store.schema import MAX_MASK_TAG_ID, StoreError
from explorer.store.store import Store

__all__ = [
    "ALL_PAIRS", "ANNOTATION_FIELDS", "CORRECT", "DIMENSIONS", "INCORRECT", "NO_DECISION", "NO_SCORE", "OUTCOMES",
    "UNLABELLED", "Cell", "CrossTab", "CrossTabRow", "annotated_pairs", "crosstab",
]

CORRECT = "correct"
INCORRECT = "incorrect"
NO_SCORE = "no score"
UNLABELLED = "unlabelled"
NO_DECISION = "no decision"
OUTCOMES = (CORRECT, INCORRECT, NO_SCORE, UNLABELLED, NO_DECISION)

#: Dimensions a cross-tab can be grouped by, besides the tag.
DIMENSIONS = ("task", "label", "outcome")

# One CASE expression shared by every query, so the Errors page, the exports and the
# tests agree on what "correct" means. Parameters :run and :cutoff.
_OUTCOME_SQL = f"""
    CASE
        WHEN :cutoff IS NULL THEN '{NO_DECISION}'
        WHEN r.score IS NULL THEN '{NO_SCORE}'
        WHEN p.label IS NULL THEN '{UNLABELLED}'
        WHEN (r.score > :cutoff) = (p.label = 'entailment') THEN '{CORRECT}'
        ELSE '{INCORRECT}'
    END
"""


@dataclass(frozen=True)
class CrossTabRow:
    tag: str
    task: str
    label: str
    outcome: str
    count: int


@dataclass(frozen=True)
class CrossTab:
    """Tag counts by task, gold label and outcome under one run.

    Attributes:
        dataset_id: the dataset counted.
        run_id: the run that decided correct/incorrect, or None.
        cutoff: the cutoff used (None: no decisions).
        rows: one row per non-empty (tag, task, label, outcome) cell.
        totals: the same cells for *all* pairs of the dataset (tag ``"(all pairs)"``),
            so a tag's share of the errors can be read against the whole.
    """

    dataset_id: int
    run_id: int | None
    cutoff: float | None
    rows: tuple[CrossTabRow, ...]
    totals: tuple[CrossTabRow, ...]

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.tag for r in self.rows))

    def pivot(self, *, by: str = "outcome", include_totals: bool = True) -> tuple[list[str], list[dict[str, object]]]:
        """Tags as rows, the values of one dimension as columns, plus a ``total`` column.

        Returns:
            ``(columns, records)``; each record has ``tag``, one count per column and
            ``total``. With ``include_totals``, a last record counts all pairs.
        """
        if by not in DIMENSIONS:
            raise ValueError(f"cannot pivot by {by!r}; choose from {', '.join(DIMENSIONS)}")
        rows = self.rows + (self.totals if include_totals else ())
        columns = sorted({getattr(r, by) for r in rows}, key=_column_order)
        counts: dict[str, dict[str, int]] = {}
        for r in rows:
            cells = counts.setdefault(r.tag, {**dict.fromkeys(columns, 0), "total": 0})
            cells[getattr(r, by)] += r.count
            cells["total"] += r.count
        return columns, [{"tag": tag, **cells} for tag, cells in counts.items()]

    def to_records(self) -> list[dict[str, object]]:
        return [asdict(r) for r in self.rows]

    def to_csv(self) -> str:
        """One line per cell: tag, task, label, outcome, count (totals included; formula-like
        text cells defused, :mod:`explorer.store.csv_cells`)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["tag", "task", "label", "outcome", "count"])
        for r in self.rows + self.totals:
            writer.writerow([spreadsheet_safe(v) for v in (r.tag, r.task, r.label, r.outcome, r.count)])
        return out.getvalue()

    def to_json(self) -> str:
        return json.dumps(
            {
                "dataset_id": self.dataset_id,
                "run_id": self.run_id,
                "cutoff": self.cutoff,
                "cells": self.to_records(),
                "totals": [asdict(r) for r in self.totals],
            },
            indent=2,
        )


ALL_PAIRS = "(all pairs)"
_NONE = "(none)"


def _column_order(value: str) -> tuple[int, str]:
    return (OUTCOMES.index(value), value) if value in OUTCOMES else (len(OUTCOMES), value)


def _cutoff(store: Store, run_id: int | None, cutoff: float | None) -> float | None:
    if run_id is None:
        return None
    run = store.run(run_id)
    return run.cutoff if cutoff is None else cutoff


def crosstab(store: Store, dataset_id: int, run_id: int | None = None, *,
             cutoff: float | None = None, tags: Sequence[str] | None = None) -> CrossTab:
    """Cross-tabulate a dataset's tags by task, gold label and outcome under ``run_id``.

    Args:
        cutoff: overrides the run's stored cutoff.
        tags: count only these tags (default: all).

    Raises:
        StoreError: when the run does not belong to the dataset.
    """
    if run_id is not None and store.run(run_id).dataset_id != dataset_id:
        raise StoreError(f"run #{run_id} was not made on dataset #{dataset_id}")
    cut = _cutoff(store, run_id, cutoff)
    params: dict[str, object] = {"ds": dataset_id, "run": run_id if run_id is not None else -1, "cutoff": cut}
    with store.read_transaction() as conn:
        taxonomy = conn.execute("SELECT id, name FROM tags ORDER BY position, name").fetchall()
        wanted = [(int(i), n) for i, n in taxonomy if tags is None or n in set(tags)]
        ids = {i for i, _ in wanted}
        if max((i for i, _ in taxonomy), default=0) <= MAX_MASK_TAG_ID:
            counts, total_counts = _counts_by_mask(conn, params, ids)
        else:
            counts = _counts_by_join(conn, params, ids)
            total_counts = Counter({(r[0], r[1], r[2]): int(r[3]) for r in conn.execute(_TOTALS_SQL, params)})
    totals = [(*key, n) for key, n in sorted(total_counts.items(),
                                             key=lambda kv: (kv[0][0], kv[0][1], _column_order(kv[0][2])))]
    rows = [
        CrossTabRow(name, task, label, outcome, counts[(tag_id, task, label, outcome)])
        for tag_id, name in wanted
        for task, label, outcome in sorted({k[1:] for k in counts if k[0] == tag_id},
                                           key=lambda k: (k[0], k[1], _column_order(k[2])))
    ]
    return CrossTab(
        dataset_id=dataset_id,
        run_id=run_id,
        cutoff=cut,
        rows=tuple(rows),
        totals=tuple(CrossTabRow(ALL_PAIRS, t, lab, o, n) for t, lab, o, n in totals),
    )


# Pair attributes and outcome for every pair of a dataset (parameters :ds, :run, :cutoff).
_PAIR_CLASS_SQL = f"""
    COALESCE(p.task, '{_NONE}') AS task, COALESCE(p.label, '{_NONE}') AS label,
    {_OUTCOME_SQL} AS outcome
"""

_TOTALS_SQL = f"""
    SELECT {_PAIR_CLASS_SQL}, COUNT(*)
    FROM pairs p LEFT JOIN run_results r ON r.run_id = :run AND r.pair_pk = p.pk
    WHERE p.dataset_id = :ds
    GROUP BY 1, 2, 3
"""


# The fast path: every pair carries the bit mask of its tags (kept by triggers, see
# explorer.store migration 3), so one pass over the covering index (dataset_id, task,
# label, tag_mask) plus a seek for the run's score, grouped by (task, label, outcome,
# tag set), counts everything: 100,000 tags on 30,000 pairs become a few thousand
# groups, expanded to per-tag counts below; the same groups give the totals.
_MASK_SQL = f"""
    SELECT {_PAIR_CLASS_SQL}, p.tag_mask, COUNT(*)
    FROM pairs p LEFT JOIN run_results r ON r.run_id = :run AND r.pair_pk = p.pk
    WHERE p.dataset_id = :ds
    GROUP BY 1, 2, 3, 4
"""

# The general path (any tag ids): one joined row per tag.
_JOIN_SQL = f"""
    SELECT t.tag_id, {_PAIR_CLASS_SQL}, COUNT(*)
    FROM pair_tags t JOIN pairs p ON p.pk = t.pair_pk
    LEFT JOIN run_results r ON r.run_id = :run AND r.pair_pk = t.pair_pk
    WHERE t.dataset_id = :ds
    GROUP BY 1, 2, 3, 4
"""

Cell = tuple[int, str, str, str]


def _counts_by_mask(conn: sqlite3.Connection, params: dict[str, object],
                    tag_ids: set[int]) -> tuple[Counter[Cell], Counter[tuple[str, str, str]]]:
    counts: Counter[Cell] = Counter()
    totals: Counter[tuple[str, str, str]] = Counter()
    for task, label, outcome, mask, n in conn.execute(_MASK_SQL, params):
        totals[(task, label, outcome)] += n
        while mask:
            low = mask & -mask
            tag_id = low.bit_length() - 1
            if tag_id in tag_ids:
                counts[(tag_id, task, label, outcome)] += n
            mask ^= low
    return counts, totals


def _counts_by_join(conn: sqlite3.Connection, params: dict[str, object], tag_ids: set[int]) -> Counter[Cell]:
    counts: Counter[Cell] = Counter()
    for tag_id, task, label, outcome, n in conn.execute(_JOIN_SQL, params):
        if tag_id in tag_ids:
            counts[(tag_id, task, label, outcome)] += n
    return counts


# ------------------------------------------------------------------ per-pair export

#: The sentences come with each record, so an export reads on its own (without the dataset).
ANNOTATION_FIELDS = ("pair_id", "task", "label", "text", "hypothesis", "score", "outcome", "tags", "notes",
                     "has_corrected_alignment")


def annotated_pairs(store: Store, dataset_id: int, run_id: int | None = None, *,
                    cutoff: float | None = None, only_annotated: bool = True,
                    tag: str | None = None, outcome: str | None = None) -> list[dict[str, object]]:
    """One record per pair: its sentences, gold, the run's score and outcome, tags, notes.

    Args:
        only_annotated: keep only pairs with a tag, a note or a corrected alignment.
        tag: keep only pairs carrying this tag.
        outcome: keep only pairs with this outcome (one of :data:`OUTCOMES`).
    """
    if outcome is not None and outcome not in OUTCOMES:
        raise StoreError(f"unknown outcome {outcome!r}; choose from {', '.join(OUTCOMES)}")
    cut = _cutoff(store, run_id, cutoff)
    params: dict[str, object] = {"ds": dataset_id, "run": run_id if run_id is not None else -1,
                              "cutoff": cut, "tag": tag, "outcome": outcome}
    # Filters first (the tag through its index, the outcome on the joined score), the
    # per-pair tag and note lists only for the pairs that pass.
    source = "pairs p"
    where = ["p.dataset_id = :ds"]
    if tag is not None:
        source = ("pair_tags f JOIN pairs p ON p.pk = f.pair_pk")
        where = ["f.dataset_id = :ds", "f.tag_id = (SELECT id FROM tags WHERE name = :tag)"]
    if outcome is not None:
        where.append(f"{_OUTCOME_SQL} = :outcome")
    tags_sql = """(SELECT group_concat(name, ';') FROM (
                    SELECT g.name FROM pair_tags t JOIN tags g ON g.id = t.tag_id
                    WHERE t.dataset_id = p.dataset_id AND t.pair_pk = p.pk
                    ORDER BY g.position, g.name))"""
    notes_sql = """(SELECT group_concat(author || ': ' || body, ' | ') FROM (
                    SELECT author, body FROM notes n WHERE n.pair_pk = p.pk ORDER BY n.id))"""
    aligned_sql = "EXISTS (SELECT 1 FROM gold_alignments a WHERE a.pair_pk = p.pk)"
    if only_annotated and tag is None:
        where.append(
            "(EXISTS (SELECT 1 FROM pair_tags t WHERE t.dataset_id = p.dataset_id AND t.pair_pk = p.pk) "
            f"OR EXISTS (SELECT 1 FROM notes n WHERE n.pair_pk = p.pk) OR {aligned_sql})"
        )
    sql = f"""
        SELECT p.pair_id, p.task, p.label, p.text, p.hypothesis, r.score, {_OUTCOME_SQL} AS outcome,
               {tags_sql} AS tags, {notes_sql} AS notes, {aligned_sql} AS has_alignment
        FROM {source}
        LEFT JOIN run_results r ON r.run_id = :run AND r.pair_pk = p.pk
        WHERE {" AND ".join(where)}
        ORDER BY p.position
    """
    rows = store.execute_read(sql, params)
    return [
        {
            "pair_id": r["pair_id"],
            "task": r["task"],
            "label": r["label"],
            "text": r["text"],
            "hypothesis": r["hypothesis"],
            "score": r["score"],
            "outcome": r["outcome"],
            "tags": r["tags"].split(";") if r["tags"] else [],
            "notes": r["notes"] or "",
            "has_corrected_alignment": bool(r["has_alignment"]),
        }
        for r in rows
    ]
