"""Counterfactual pairs kept in the store: a stored pair rewritten by a what-if rule.

A rewrite (:mod:`explorer.groups.rewrites`) makes a new pair from a stored one; keeping it
here (the rule, the original, the new text and hypothesis, the label the rule settles)
lets the app open it on the Pair page next to its original after the run is gone. A
counterfactual belongs to its original pair: deleting the dataset (or the pair) deletes
it. Writing the same rewrite again replaces the row (a rule is deterministic, so it is
the same pair unless the rule changed).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from explorer.store.database import Database
from explorer.store.records import CounterfactualRecord
from explorer.store.schema import StoreError
from explorer.store.schema import now as timestamp

if TYPE_CHECKING:
    from explorer.pairs import Pair

_COLUMNS = ("c.id, c.pair_id, p.pair_id AS original_id, c.rule, c.text, c.hypothesis, c.label, p.task, "
            "c.note, c.created_at")


class CounterfactualStore(Database):
    """The store's counterfactual pairs (:class:`explorer.store.Store` has these methods)."""

    def add_counterfactuals(self, dataset_id: int, rule: str, rewrites: Sequence[tuple[str, Pair]]) -> int:
        """Keep rewritten pairs: ``(original pair id, rewritten pair)`` each, made by
        ``rule``; how many were written.

        Raises:
            StoreError: naming an original the dataset does not have, or a rewritten id
                that is one of the dataset's own pairs.
        """
        if not rule.strip():
            raise StoreError("a counterfactual needs the name of the rule that made it")

        def insert(conn: sqlite3.Connection) -> int:
            known = dict(conn.execute("SELECT pair_id, pk FROM pairs WHERE dataset_id = ?", (dataset_id,)).fetchall())
            stamp = timestamp()
            rows = []
            for original_id, pair in rewrites:
                if original_id not in known:
                    raise StoreError(f"dataset #{dataset_id} has no pair {original_id!r} to keep a rewrite of")
                if pair.id in known:
                    raise StoreError(f"the rewritten pair's id {pair.id!r} is a pair of dataset #{dataset_id} itself")
                rows.append((dataset_id, known[original_id], pair.id, rule, pair.text, pair.hypothesis, pair.label,
                             pair.note or "", stamp))
            conn.executemany(
                "INSERT INTO counterfactuals (dataset_id, original_pk, pair_id, rule, text, hypothesis, label, "
                "note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (dataset_id, pair_id) DO UPDATE SET original_pk = excluded.original_pk, "
                "rule = excluded.rule, text = excluded.text, hypothesis = excluded.hypothesis, "
                "label = excluded.label, note = excluded.note, created_at = excluded.created_at",
                rows)
            return len(rows)

        return self._write(insert)

    def counterfactuals(self, dataset_id: int, *, original_id: str | None = None,
                        rule: str | None = None) -> list[CounterfactualRecord]:
        """A dataset's counterfactuals (of one original, or by one rule), in the order of
        their originals, then by rule."""
        rows = self._read(
            f"SELECT {_COLUMNS} FROM counterfactuals c JOIN pairs p ON p.pk = c.original_pk "
            "WHERE c.dataset_id = :dataset AND (:original IS NULL OR p.pair_id = :original) "
            "AND (:rule IS NULL OR c.rule = :rule) ORDER BY p.position, c.rule",
            {"dataset": dataset_id, "original": original_id, "rule": rule})
        return [CounterfactualRecord(**dict(r)) for r in rows]

    def counterfactual(self, dataset_id: int, pair_id: str) -> CounterfactualRecord | None:
        """The counterfactual with this (rewritten) id, None when there is none."""
        rows = self._read(f"SELECT {_COLUMNS} FROM counterfactuals c JOIN pairs p ON p.pk = c.original_pk "
                          "WHERE c.dataset_id = ? AND c.pair_id = ?", (dataset_id, pair_id))
        return CounterfactualRecord(**dict(rows[0])) if rows else None

    def delete_counterfactuals(self, dataset_id: int, *, rule: str | None = None) -> int:
        """Remove a dataset's counterfactuals (those of one rule); how many went."""
        def delete(conn: sqlite3.Connection) -> int:
            if rule is None:
                cur = conn.execute("DELETE FROM counterfactuals WHERE dataset_id = ?", (dataset_id,))
            else:
                cur = conn.execute("DELETE FROM counterfactuals WHERE dataset_id = ? AND rule = ?", (dataset_id, rule))
            return max(cur.rowcount, 0)

        return self._write(delete)


__all__ = ["CounterfactualStore"]
