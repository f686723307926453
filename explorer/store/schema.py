"""The store's schema: file location, migrations (``PRAGMA user_version``) and the
default tag taxonomy. See ``docs/STORE.md`` for the tables."""

from __future__ import annotations

import os
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

from explorer.errors import ExplorerError

ENV_VAR = "ENTAILMENT_EXPLORER_STORE"
APP_DIR = "entailment-explorer"
FILE_NAME = "store.sqlite3"

#: Tags a new store starts with; users edit the taxonomy freely afterwards.
DEFAULT_TAGS: tuple[tuple[str, str], ...] = (
    ("negation", "a negation (not, no, never, without) decides the pair"),
    ("numbers", "numbers, dates or quantities differ or need arithmetic"),
    ("world-knowledge", "needs knowledge not stated in the text"),
    ("lexical-gap", "a synonym, hypernym or paraphrase the method does not know"),
    ("wrong-alignment", "the method aligned the wrong words"),
    ("syntax", "argument structure, passive, apposition or clause attachment"),
    ("modality", "may, might, plans to, reportedly: hedged or unrealised events"),
    ("annotation-error", "the gold label looks wrong"),
)


class StoreError(ExplorerError, RuntimeError):
    """A store that cannot be opened, or a request it cannot satisfy."""


MIGRATIONS: tuple[str, ...] = (
    # 1: base tables. Pairs and tags get integer keys: the Errors-page aggregation
    # joins 100,000 tag rows to their pairs, and integer lookups keep that fast.
    """
    CREATE TABLE datasets (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL,
        format      TEXT NOT NULL,
        fingerprint TEXT NOT NULL UNIQUE,
        n_pairs     INTEGER NOT NULL,
        created_at  TEXT NOT NULL
    );
    CREATE TABLE pairs (
        pk          INTEGER PRIMARY KEY,
        dataset_id  INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        pair_id     TEXT NOT NULL,
        position    INTEGER NOT NULL,
        task        TEXT,
        label       TEXT,
        text        TEXT NOT NULL,
        hypothesis  TEXT NOT NULL,
        UNIQUE (dataset_id, pair_id)
    );
    CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        dataset_id  INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        kind        TEXT NOT NULL CHECK (kind IN ('scorer', 'aligner')),
        method      TEXT NOT NULL,
        parameters  TEXT NOT NULL DEFAULT '{}',
        version     TEXT NOT NULL,
        cutoff      REAL,
        created_at  TEXT NOT NULL
    );
    CREATE TABLE run_results (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        pair_pk     INTEGER NOT NULL,
        score       REAL,
        alignment   TEXT,
        PRIMARY KEY (run_id, pair_pk)
    ) WITHOUT ROWID;
    CREATE TABLE tags (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL DEFAULT '',
        position    INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE pair_tags (
        dataset_id  INTEGER NOT NULL,
        pair_pk     INTEGER NOT NULL REFERENCES pairs(pk) ON DELETE CASCADE,
        tag_id      INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
        author      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (dataset_id, pair_pk, tag_id)
    ) WITHOUT ROWID;
    CREATE TABLE notes (
        id          INTEGER PRIMARY KEY,
        pair_pk     INTEGER NOT NULL REFERENCES pairs(pk) ON DELETE CASCADE,
        body        TEXT NOT NULL,
        author      TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    CREATE TABLE gold_alignments (
        id          INTEGER PRIMARY KEY,
        pair_pk     INTEGER NOT NULL REFERENCES pairs(pk) ON DELETE CASCADE,
        alignment   TEXT NOT NULL,
        text_tokens TEXT,
        hypothesis_tokens TEXT,
        author      TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    """,
    # 2: indexes. pairs_by_class covers the cross-tab's pass over a dataset's pairs
    # (pair rows themselves are wide: they hold both sentences); pair_tags_by_pair covers
    # its per-pair tag seek and the cascade when a pair goes; the others serve the
    # per-tag pair list, the per-pair panels and the remaining cascades.
    """
    CREATE INDEX pair_tags_by_tag ON pair_tags (dataset_id, tag_id, pair_pk);
    CREATE INDEX pair_tags_by_pair ON pair_tags (pair_pk);
    CREATE INDEX pair_tags_by_tag_only ON pair_tags (tag_id);
    CREATE INDEX notes_by_pair ON notes (pair_pk, id);
    CREATE INDEX gold_alignments_by_pair ON gold_alignments (pair_pk, id);
    CREATE INDEX runs_by_dataset ON runs (dataset_id, kind, method);
    CREATE INDEX pairs_by_class ON pairs (dataset_id, task, label);
    """,
    # 3: each pair carries the bit mask of its tags (bit = tag id, ids up to 62),
    # maintained by triggers in the transaction that adds or removes the tag, so the
    # Errors-page cross-tab reads one covering index instead of seeking every pair's
    # tags. Existing tags are folded in.
    """
    ALTER TABLE pairs ADD COLUMN tag_mask INTEGER NOT NULL DEFAULT 0;
    UPDATE pairs SET tag_mask = COALESCE(
        (SELECT SUM(1 << t.tag_id) FROM pair_tags t WHERE t.pair_pk = pairs.pk AND t.tag_id <= 62), 0);
    CREATE TRIGGER pair_tags_mask_insert AFTER INSERT ON pair_tags WHEN NEW.tag_id <= 62
    BEGIN
        UPDATE pairs SET tag_mask = tag_mask | (1 << NEW.tag_id) WHERE pk = NEW.pair_pk;
    END;
    CREATE TRIGGER pair_tags_mask_delete AFTER DELETE ON pair_tags WHEN OLD.tag_id <= 62
    BEGIN
        UPDATE pairs SET tag_mask = tag_mask & ~(1 << OLD.tag_id) WHERE pk = OLD.pair_pk;
    END;
    DROP INDEX pairs_by_class;
    CREATE INDEX pairs_by_class ON pairs (dataset_id, task, label, tag_mask);
    """,
    # 4: named slices (an expression in the slice language, checked before it is saved).
    """
    CREATE TABLE slices (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE,
        expression  TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    """,
    # 5: counterfactual pairs: a stored pair rewritten by a what-if rule
    # (explorer/store/counterfactuals.py), kept with the original they were made from.
    """
    CREATE TABLE counterfactuals (
        id          INTEGER PRIMARY KEY,
        dataset_id  INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        original_pk INTEGER NOT NULL REFERENCES pairs(pk) ON DELETE CASCADE,
        pair_id     TEXT NOT NULL,
        rule        TEXT NOT NULL,
        text        TEXT NOT NULL,
        hypothesis  TEXT NOT NULL,
        label       TEXT,
        note        TEXT NOT NULL DEFAULT '',
        created_at  TEXT NOT NULL,
        UNIQUE (dataset_id, pair_id)
    );
    CREATE INDEX counterfactuals_by_original ON counterfactuals (original_pk);
    """,
)

#: The longest note the store keeps, in characters (a note is shown to everyone who opens
#: its pair, so its size is bounded where it is written).
MAX_NOTE_CHARS = 2_000
#: The longest annotator name, in characters (kept with every tag and note).
MAX_AUTHOR_CHARS = 80

#: Tag ids up to this fit the 64-bit signed ``pairs.tag_mask``.
MAX_MASK_TAG_ID = 62

SCHEMA_VERSION = len(MIGRATIONS)


def default_path() -> Path:
    """``$ENTAILMENT_EXPLORER_STORE``, else the platform's per-user data folder.

    Linux: ``$XDG_DATA_HOME`` or ``~/.local/share``; macOS: ``~/Library/Application
    Support``; Windows: ``%LOCALAPPDATA%``. The file is ``entailment-explorer/store.sqlite3``.
    """
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / APP_DIR / FILE_NAME


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def is_busy(error: sqlite3.OperationalError) -> bool:
    message = str(error).lower()
    return "locked" in message or "busy" in message


def statements(script: str) -> list[str]:
    """Split a migration into statements (trigger bodies contain semicolons too)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        raise StoreError(f"incomplete statement in a migration: {current.strip()[:60]}")
    return statements
