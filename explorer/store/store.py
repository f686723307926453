"""What the store holds: datasets, runs and annotations, read and written.

Manual error analysis is only worth doing if the judgements survive the session, so
everything a user records (tags, notes, corrected alignments) and everything needed to
count it (which pairs a dataset holds, what each run scored them) lives in an embedded
SQLite database (its connections, transactions and migrations:
:mod:`explorer.store.database`). See ``docs/STORE.md`` for the schema.

Facts are stored one per row (a tag on a pair, a note, a corrected alignment) and written
by insert or delete, never by read-modify-write of a shared record, so two sessions
tagging the same pair cannot overwrite each other.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from explorer.alignment import Alignment
from explorer.store.alignment_json import alignment_from_dict, alignment_json
from explorer.store.counterfactuals import CounterfactualStore
from explorer.store.records import DatasetRecord, GoldAlignmentRecord, Note, RunRecord, TagInfo, dataset_fingerprint
from explorer.store.saved_slices import SavedSlices
from explorer.store.schema import MAX_AUTHOR_CHARS, MAX_NOTE_CHARS, StoreError
from explorer.store.schema import now as timestamp

if TYPE_CHECKING:
    from explorer.store.records import StoredDataset


class Store(CounterfactualStore, SavedSlices):
    """The store: a :class:`~explorer.store.database.Database` (one SQLite file, safe to
    share between threads) with the datasets, runs, taxonomy, tags, notes and corrected
    alignments it holds, the named slices (:class:`~explorer.store.saved_slices.SavedSlices`)
    and the counterfactual pairs (:class:`~explorer.store.counterfactuals.CounterfactualStore`).

    Args:
        path: the database file; None for :func:`~explorer.store.schema.default_path`.
        busy_timeout, retries: as :class:`~explorer.store.database.Database`'s.
    """

    # ------------------------------------------------------------------ datasets
    def add_dataset(self, dataset: StoredDataset, fingerprint: str | None = None) -> int:
        """Store a dataset (a loaded :class:`~explorer.datasets.Dataset`, or a batch result's
        pairs read back) idempotently; its id. A dataset with the same content as one already
        stored maps to that one. ``fingerprint``: its :func:`dataset_fingerprint`, when the
        caller has it (a pass over every pair otherwise)."""
        fingerprint = fingerprint or dataset_fingerprint(dataset.name, dataset.pairs)
        rows = self._read("SELECT id FROM datasets WHERE fingerprint = ?", (fingerprint,))
        if rows:
            return int(rows[0][0])
        ids = [p.id for p in dataset.pairs]
        if len(set(ids)) != len(ids):
            raise StoreError(f"dataset {dataset.name}: pair ids are not unique")

        def insert(conn: sqlite3.Connection) -> int:
            row = conn.execute("SELECT id FROM datasets WHERE fingerprint = ?", (fingerprint,)).fetchone()
            if row:
                return int(row[0])
            cur = conn.execute(
                "INSERT INTO datasets (name, format, fingerprint, n_pairs, created_at) VALUES (?, ?, ?, ?, ?)",
                (dataset.name, dataset.format, fingerprint, len(dataset.pairs), timestamp()),
            )
            dataset_id = int(cur.lastrowid or 0)
            conn.executemany(
                "INSERT INTO pairs (dataset_id, pair_id, position, task, label, text, hypothesis) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                # a generator: a dataset read back from a batch result is not held whole
                ((dataset_id, p.id, i, p.task, p.label, p.text, p.hypothesis)
                 for i, p in enumerate(dataset.pairs)),
            )
            return dataset_id

        return self._write(insert)

    def find_dataset(self, name: str, n_pairs: int, fingerprint: Callable[[], str]) -> int | None:
        """The id of the stored dataset with this name, number of pairs and
        :func:`dataset_fingerprint`, if any (nothing is stored). ``fingerprint`` (a pass
        over every pair) is called only when a stored dataset has that name and size."""
        if not self._read("SELECT 1 FROM datasets WHERE name = ? AND n_pairs = ? LIMIT 1", (name, n_pairs)):
            return None
        rows = self._read("SELECT id FROM datasets WHERE fingerprint = ?", (fingerprint(),))
        return int(rows[0][0]) if rows else None

    def datasets(self) -> list[DatasetRecord]:
        rows = self._read("SELECT * FROM datasets ORDER BY id")
        return [DatasetRecord(**dict(r)) for r in rows]

    def dataset(self, dataset_id: int) -> DatasetRecord:
        rows = self._read("SELECT * FROM datasets WHERE id = ?", (dataset_id,))
        if not rows:
            raise StoreError(f"no dataset #{dataset_id} in the store")
        return DatasetRecord(**dict(rows[0]))

    def has_dataset(self, dataset_id: int) -> bool:
        return bool(self._read("SELECT 1 FROM datasets WHERE id = ?", (dataset_id,)))

    def delete_dataset(self, dataset_id: int) -> None:
        """Remove a dataset with its pairs, runs and annotations."""
        self._write(lambda c: c.execute("DELETE FROM datasets WHERE id = ?", (dataset_id,)))

    def delete_unannotated(self, dataset_id: int) -> bool:
        """Remove a dataset with its pairs and runs when nobody annotated it (no tag, note
        or corrected alignment on any of its pairs); whether it was removed. One write
        transaction, so an annotation saved meanwhile keeps the dataset. An uploaded file's
        pairs leave the store so when the server drops the upload."""
        def delete(conn: sqlite3.Connection) -> bool:
            annotated = conn.execute(
                "SELECT 1 FROM pair_tags WHERE dataset_id = ? UNION ALL "
                "SELECT 1 FROM notes n JOIN pairs p ON p.pk = n.pair_pk WHERE p.dataset_id = ? UNION ALL "
                "SELECT 1 FROM gold_alignments g JOIN pairs p ON p.pk = g.pair_pk WHERE p.dataset_id = ? LIMIT 1",
                (dataset_id, dataset_id, dataset_id)).fetchone()
            if annotated is not None:
                return False
            return conn.execute("DELETE FROM datasets WHERE id = ?", (dataset_id,)).rowcount > 0

        return self._write(delete)

    def _pks(self, conn: sqlite3.Connection, dataset_id: int, pair_ids: Sequence[str]) -> list[int]:
        """The integer keys of ``pair_ids`` in ``dataset_id``, in order.

        Raises:
            StoreError: naming the first pair id the dataset does not have.
        """
        known = dict(conn.execute("SELECT pair_id, pk FROM pairs WHERE dataset_id = ?", (dataset_id,)).fetchall()) \
            if len(pair_ids) > 20 else {
                pid: row[0] for pid in pair_ids
                if (row := conn.execute("SELECT pk FROM pairs WHERE dataset_id = ? AND pair_id = ?",
                                        (dataset_id, pid)).fetchone()) is not None
            }
        missing = [pid for pid in pair_ids if pid not in known]
        if missing:
            raise StoreError(
                f"dataset #{dataset_id} has no pair {missing[0]!r}"
                + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            )
        return [int(known[pid]) for pid in pair_ids]

    # ---------------------------------------------------------------------- runs
    def add_run(
        self,
        dataset_id: int,
        *,
        kind: str,
        method: str,
        scores: Mapping[str, float | None],
        alignments: Mapping[str, Alignment | None] | None = None,
        parameters: Mapping[str, object] | None = None,
        version: str | None = None,
        cutoff: float | None = None,
    ) -> int:
        """Store a run's per-pair scores (and alignments, for aligners); the run id.

        Args:
            kind: ``"scorer"`` or ``"aligner"``.
            method: the registry name (``bleu``, ``manli``...).
            scores: pair id -> score (None when the method gave none).
            alignments: pair id -> alignment, for aligner runs.
            parameters: the method's settings, stored as JSON.
            version: of the method; defaults to the explorer's version.
            cutoff: decision threshold, entailed when ``score > cutoff``.
        """
        if kind not in ("scorer", "aligner"):
            raise StoreError(f"run kind must be 'scorer' or 'aligner', not {kind!r}")
        if version is None:
            from explorer import __version__ as version
        alignments = alignments or {}
        params_json = json.dumps(dict(parameters or {}), sort_keys=True, default=str)
        pair_ids = list(dict.fromkeys([*scores, *alignments]))

        def insert(conn: sqlite3.Connection) -> int:
            pks = self._pks(conn, dataset_id, pair_ids)
            cur = conn.execute(
                "INSERT INTO runs (dataset_id, kind, method, parameters, version, cutoff, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (dataset_id, kind, method, params_json, version, cutoff, timestamp()),
            )
            run_id = int(cur.lastrowid or 0)
            conn.executemany(
                "INSERT INTO run_results (run_id, pair_pk, score, alignment) VALUES (?, ?, ?, ?)",
                [(run_id, pk, _float(scores.get(pid)), alignment_json(alignments.get(pid)))
                 for pid, pk in zip(pair_ids, pks, strict=True)],
            )
            return run_id

        return self._write(insert)

    def runs(self, dataset_id: int | None = None, *, kind: str | None = None) -> list[RunRecord]:
        sql = "SELECT * FROM runs WHERE 1 = 1"
        params: list[object] = []
        if dataset_id is not None:
            sql += " AND dataset_id = ?"
            params.append(dataset_id)
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        return [_run(r) for r in self._read(sql + " ORDER BY id", params)]

    def run(self, run_id: int) -> RunRecord:
        rows = self._read("SELECT * FROM runs WHERE id = ?", (run_id,))
        if not rows:
            raise StoreError(f"no run #{run_id} in the store")
        return _run(rows[0])

    def set_cutoff(self, run_id: int, cutoff: float | None) -> None:
        self._write(lambda c: c.execute("UPDATE runs SET cutoff = ? WHERE id = ?", (cutoff, run_id)))

    def run_scores(self, run_id: int) -> dict[str, float | None]:
        """Pair id -> score, in dataset order."""
        rows = self._read(
            "SELECT p.pair_id, r.score FROM run_results r JOIN pairs p ON p.pk = r.pair_pk "
            "WHERE r.run_id = ? ORDER BY p.position", (run_id,))
        return {r[0]: r[1] for r in rows}

    def run_alignments(self, run_id: int) -> dict[str, Alignment]:
        rows = self._read(
            "SELECT p.pair_id, r.alignment FROM run_results r JOIN pairs p ON p.pk = r.pair_pk "
            "WHERE r.run_id = ? AND r.alignment IS NOT NULL ORDER BY p.position", (run_id,))
        return {r[0]: alignment_from_dict(json.loads(r[1])) for r in rows}

    def delete_run(self, run_id: int) -> None:
        self._write(lambda c: c.execute("DELETE FROM runs WHERE id = ?", (run_id,)))

    # ------------------------------------------------------------------ taxonomy
    def tags(self) -> list[TagInfo]:
        rows = self._read("SELECT name, description, position FROM tags ORDER BY position, name")
        return [TagInfo(*r) for r in rows]

    def add_tag(self, name: str, description: str = "") -> None:
        """Add a tag to the taxonomy (no-op when it exists; the description is updated)."""
        name = _tag_name(name)

        def insert(conn: sqlite3.Connection) -> None:
            position = conn.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM tags").fetchone()[0]
            conn.execute(
                "INSERT INTO tags (name, description, position) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET description = excluded.description",
                (name, description.strip(), position),
            )

        self._write(insert)

    def rename_tag(self, old: str, new: str) -> None:
        """Rename a tag; pairs carrying it carry the new name.

        Raises:
            StoreError: when ``old`` is unknown or ``new`` exists already.
        """
        old, new = _tag_name(old), _tag_name(new)

        def update(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM tags WHERE name = ?", (old,)).fetchone() is None:
                raise StoreError(f"no tag {old!r} in the taxonomy")
            if conn.execute("SELECT 1 FROM tags WHERE name = ?", (new,)).fetchone() is not None:
                raise StoreError(f"tag {new!r} exists already; remove it first or pick another name")
            conn.execute("UPDATE tags SET name = ? WHERE name = ?", (new, old))

        self._write(update)

    def delete_tag(self, name: str, *, force: bool = False) -> int:
        """Remove a tag from the taxonomy; the number of pair tags removed with it.

        Raises:
            StoreError: when the tag is in use and ``force`` is False.
        """
        name = _tag_name(name)

        def delete(conn: sqlite3.Connection) -> int:
            used = conn.execute(
                "SELECT COUNT(*) FROM pair_tags WHERE tag_id = (SELECT id FROM tags WHERE name = ?)",
                (name,)).fetchone()[0]
            if used and not force:
                raise StoreError(f"tag {name!r} is on {used} pairs; pass force=True to remove it from them")
            conn.execute("DELETE FROM tags WHERE name = ?", (name,))
            return int(used)

        return self._write(delete)

    # ---------------------------------------------------------------------- tags
    def tag_pairs(self, dataset_id: int, pair_ids: Sequence[str], tags: Sequence[str], *,
                  author: str) -> int:
        """Put every tag on every pair (bulk tagging); how many were new."""
        author = _author(author)
        pair_ids = list(dict.fromkeys(pair_ids))
        tags = list(dict.fromkeys(_tag_name(t) for t in tags))

        def insert(conn: sqlite3.Connection) -> int:
            pks = self._pks(conn, dataset_id, pair_ids)
            tag_ids = _tag_ids(conn, tags)
            stamp = timestamp()
            # rowcount, unlike total_changes, leaves out the tag-mask triggers' updates.
            cur = conn.executemany(
                "INSERT OR IGNORE INTO pair_tags (dataset_id, pair_pk, tag_id, author, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [(dataset_id, pk, tag_id, author, stamp) for pk in pks for tag_id in tag_ids],
            )
            return max(cur.rowcount, 0)

        return self._write(insert)

    def untag_pairs(self, dataset_id: int, pair_ids: Sequence[str], tags: Sequence[str]) -> int:
        """Take the tags off the pairs; how many were removed."""
        def delete(conn: sqlite3.Connection) -> int:
            pks = self._pks(conn, dataset_id, list(dict.fromkeys(pair_ids)))
            tag_ids = _tag_ids(conn, list(dict.fromkeys(_tag_name(t) for t in tags)))
            cur = conn.executemany(
                "DELETE FROM pair_tags WHERE dataset_id = ? AND pair_pk = ? AND tag_id = ?",
                [(dataset_id, pk, tag_id) for pk in pks for tag_id in tag_ids],
            )
            return max(cur.rowcount, 0)

        return self._write(delete)

    def set_pair_tags(self, dataset_id: int, pair_id: str, tags: Sequence[str], *,
                      author: str, previous: Sequence[str] | None = None) -> None:
        """Make a pair's tags ``tags`` by adding and removing the difference.

        With ``previous`` (the tags the user saw when editing), only the user's own
        changes are applied: a tag another session added meanwhile is kept, one it
        removed stays removed. Without it the stored set becomes exactly ``tags``.
        """
        author = _author(author)
        wanted = list(dict.fromkeys(_tag_name(t) for t in tags))
        previous = None if previous is None else [_tag_name(t) for t in previous]

        def update(conn: sqlite3.Connection) -> None:
            (pk,) = self._pks(conn, dataset_id, [pair_id])
            _tag_ids(conn, wanted)
            current = [r[0] for r in conn.execute(
                "SELECT t.name FROM pair_tags pt JOIN tags t ON t.id = pt.tag_id "
                "WHERE pt.dataset_id = ? AND pt.pair_pk = ?", (dataset_id, pk))]
            seen = set(current if previous is None else previous)
            stamp = timestamp()
            for tag in wanted:
                if tag not in seen:
                    conn.execute(
                        "INSERT OR IGNORE INTO pair_tags (dataset_id, pair_pk, tag_id, author, created_at) "
                        "SELECT ?, ?, id, ?, ? FROM tags WHERE name = ?", (dataset_id, pk, author, stamp, tag))
            for tag in seen - set(wanted):
                conn.execute(
                    "DELETE FROM pair_tags WHERE dataset_id = ? AND pair_pk = ? "
                    "AND tag_id = (SELECT id FROM tags WHERE name = ?)", (dataset_id, pk, tag))

        self._write(update)

    def pair_tags(self, dataset_id: int, pair_id: str) -> list[str]:
        """A pair's tags, in taxonomy order."""
        rows = self._read(
            "SELECT t.name FROM pairs p JOIN pair_tags pt ON pt.dataset_id = p.dataset_id AND pt.pair_pk = p.pk "
            "JOIN tags t ON t.id = pt.tag_id WHERE p.dataset_id = ? AND p.pair_id = ? "
            "ORDER BY t.position, t.name",
            (dataset_id, pair_id),
        )
        return [r[0] for r in rows]

    def tags_by_pair(self, dataset_id: int) -> dict[str, list[str]]:
        """Every tagged pair of a dataset -> its tags (dataset order, taxonomy order)."""
        rows = self._read(
            "SELECT p.pair_id, t.name FROM pair_tags pt JOIN pairs p ON p.pk = pt.pair_pk "
            "JOIN tags t ON t.id = pt.tag_id WHERE pt.dataset_id = ? "
            "ORDER BY p.position, t.position, t.name",
            (dataset_id,),
        )
        out: dict[str, list[str]] = {}
        for pair_id, tag in rows:
            out.setdefault(pair_id, []).append(tag)
        return out

    # --------------------------------------------------------------------- notes
    def add_note(self, dataset_id: int, pair_id: str, body: str, *, author: str) -> int:
        """Append a note to a pair; its id. Empty notes and notes over
        :data:`~explorer.store.schema.MAX_NOTE_CHARS` are refused."""
        author = _author(author)
        body = _bounded(body, "a note cannot be empty", MAX_NOTE_CHARS,
                        f"a note is at most {MAX_NOTE_CHARS:,} characters (store.schema.MAX_NOTE_CHARS); "
                        "this one has {n:,}: shorten it")

        def insert(conn: sqlite3.Connection) -> int:
            (pk,) = self._pks(conn, dataset_id, [pair_id])
            cur = conn.execute(
                "INSERT INTO notes (pair_pk, body, author, created_at) VALUES (?, ?, ?, ?)",
                (pk, body, author, timestamp()),
            )
            return int(cur.lastrowid or 0)

        return self._write(insert)

    def delete_note(self, note_id: int) -> None:
        self._write(lambda c: c.execute("DELETE FROM notes WHERE id = ?", (note_id,)))

    def notes(self, dataset_id: int, pair_id: str | None = None) -> list[Note]:
        """A pair's notes (or a whole dataset's), oldest first."""
        sql = ("SELECT n.id, p.pair_id, n.body, n.author, n.created_at FROM notes n "
               "JOIN pairs p ON p.pk = n.pair_pk WHERE p.dataset_id = ?")
        params: tuple[object, ...] = (dataset_id,)
        if pair_id is not None:
            sql += " AND p.pair_id = ?"
            params += (pair_id,)
        return [Note(*r) for r in self._read(sql + " ORDER BY n.id", params)]

    # ------------------------------------------------------- corrected alignments
    def add_gold_alignment(self, dataset_id: int, pair_id: str, alignment: Alignment, *,
                           author: str, text_tokens: Sequence[str] | None = None,
                           hypothesis_tokens: Sequence[str] | None = None) -> int:
        """Save a corrected alignment for a pair (history is kept; the latest counts).

        ``text_tokens`` / ``hypothesis_tokens``: the tokens the links index, kept so that
        exports do not depend on re-tokenising the same way.
        """
        author = _author(author)
        for tokens, n, side in ((text_tokens, alignment.p_len, "text"),
                                (hypothesis_tokens, alignment.h_len, "hypothesis")):
            if tokens is not None and len(tokens) != n:
                raise StoreError(f"{len(tokens)} {side} tokens for an alignment over {n}")
        p_json = None if text_tokens is None else json.dumps(list(text_tokens))
        h_json = None if hypothesis_tokens is None else json.dumps(list(hypothesis_tokens))

        def insert(conn: sqlite3.Connection) -> int:
            (pk,) = self._pks(conn, dataset_id, [pair_id])
            cur = conn.execute(
                "INSERT INTO gold_alignments (pair_pk, alignment, text_tokens, hypothesis_tokens, "
                "author, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (pk, alignment_json(alignment), p_json, h_json, author, timestamp()),
            )
            return int(cur.lastrowid or 0)

        return self._write(insert)

    def gold_alignment(self, dataset_id: int, pair_id: str) -> GoldAlignmentRecord | None:
        """The latest corrected alignment of a pair, if any."""
        rows = self._read(
            f"SELECT {_GOLD_COLUMNS} FROM gold_alignments g JOIN pairs p ON p.pk = g.pair_pk "
            "WHERE p.dataset_id = ? AND p.pair_id = ? ORDER BY g.id DESC LIMIT 1",
            (dataset_id, pair_id),
        )
        return _gold(rows[0]) if rows else None

    def gold_alignments(self, dataset_id: int) -> dict[str, GoldAlignmentRecord]:
        """The latest corrected alignment of every pair that has one, in dataset order."""
        rows = self._read(
            f"SELECT {_GOLD_COLUMNS} FROM gold_alignments g JOIN pairs p ON p.pk = g.pair_pk "
            "WHERE p.dataset_id = ? AND g.id = (SELECT MAX(id) FROM gold_alignments WHERE pair_pk = p.pk) "
            "ORDER BY p.position",
            (dataset_id,),
        )
        return {r[1]: _gold(r) for r in rows}


_GOLD_COLUMNS = "g.id, p.pair_id, g.alignment, g.author, g.created_at, g.text_tokens, g.hypothesis_tokens"


def _gold(r: sqlite3.Row) -> GoldAlignmentRecord:
    return GoldAlignmentRecord(
        r[0], r[1], alignment_from_dict(json.loads(r[2])), r[3], r[4],
        None if r[5] is None else tuple(json.loads(r[5])),
        None if r[6] is None else tuple(json.loads(r[6])),
    )


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _run(row: sqlite3.Row) -> RunRecord:
    data = dict(row)
    data["parameters"] = json.loads(data["parameters"])
    return RunRecord(**data)


def _tag_name(name: str) -> str:
    """One spelling per tag: NFC-normalised (``café`` typed either way is one tag),
    white space folded, case-folded."""
    name = unicodedata.normalize("NFC", " ".join(name.split())).casefold()
    if not name:
        raise StoreError("a tag needs a name")
    if len(name) > 60:
        raise StoreError("tag names are at most 60 characters")
    return name


def _author(author: str) -> str:
    return _bounded(author, "say who is annotating (author cannot be empty)", MAX_AUTHOR_CHARS,
                    f"an annotator's name is at most {MAX_AUTHOR_CHARS} characters "
                    "(store.schema.MAX_AUTHOR_CHARS); this one has {n:,}")


def _bounded(value: str, empty: str, limit: int, too_long: str) -> str:
    """``value`` without surrounding white space; refused when that is empty (``empty`` says
    so) or longer than ``limit`` characters (``too_long``, with ``{n}`` its length)."""
    value = value.strip()
    if not value:
        raise StoreError(empty)
    if len(value) > limit:
        raise StoreError(too_long.format(n=len(value)))
    return value


def _tag_ids(conn: sqlite3.Connection, tags: Sequence[str]) -> list[int]:
    known = dict(conn.execute("SELECT name, id FROM tags").fetchall())
    tags = [_tag_name(t) for t in tags]  # every caller spells tags as add_tag stored them
    unknown = [t for t in tags if t not in known]
    if unknown:
        raise StoreError(f"tag {unknown[0]!r} is not in the taxonomy; add it first")
    return [int(known[t]) for t in tags]
