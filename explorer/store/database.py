"""One SQLite store file: where it lives, per-thread connections, write transactions
retried while another writer holds the lock, and the schema's migrations.

:class:`explorer.store.Store` (what the store holds: datasets, runs, annotations) is built
on it. Design choices:

* **Where**: ``path`` argument, else the ``ENTAILMENT_EXPLORER_STORE`` environment
  variable, else the platform's user data folder (never the repository).
* **Concurrency**: several app sessions (threads of one Streamlit server, or several
  servers) write at once. The database runs in WAL mode so readers never block the
  writer; every write is one ``BEGIN IMMEDIATE`` transaction (the write lock is taken up
  front, so two writers never deadlock upgrading read locks) with a busy timeout, and a
  transaction that still finds the database locked is retried with backoff.
* **Migrations**: ``PRAGMA user_version`` holds the schema version; :data:`MIGRATIONS`
  are applied in order, each in the transaction that bumps the version.

Connections are per thread (Streamlit runs each session in its own thread).
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from explorer.cache import private_dir
from explorer.store.schema import (
    DEFAULT_TAGS,
    ENV_VAR,
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    default_path,
    is_busy,
    statements,
)

T = TypeVar("T")

#: The store's tables (:meth:`Database.count` counts only these).
TABLES = ("datasets", "pairs", "runs", "run_results", "tags", "pair_tags", "notes", "gold_alignments", "slices",
          "counterfactuals")


class Database:
    """One SQLite store file. Thread-safe: each thread gets its own connection.

    Args:
        path: the database file; None for :func:`default_path`. ``":memory:"`` is not
            supported (every thread would see a different database).
        busy_timeout: seconds SQLite waits for a lock before reporting it busy.
        retries: how often a write transaction that found the database locked is
            retried (with jittered exponential backoff) before giving up.
    """

    def __init__(self, path: str | Path | None = None, *, busy_timeout: float = 10.0,
                 retries: int = 50) -> None:
        self.path = Path(path).expanduser() if path is not None else default_path()
        if str(self.path) == ":memory:":
            raise StoreError("the store needs a file; give a path, not ':memory:'")
        self.busy_timeout = busy_timeout
        self.retries = retries
        self._local = threading.local()
        try:
            private_dir(self.path.parent)
            if not self.path.exists():  # made here so only its owner can read it (SQLite's -wal/-shm follow it)
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass  # another process made it meanwhile
        except OSError as error:
            raise StoreError(f"cannot create the store folder {self.path.parent}: {error}") from None
        self._retry(self._migrate)

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=self.busy_timeout,
                                       isolation_level=None, check_same_thread=True)
            except sqlite3.Error as error:
                raise StoreError(f"cannot open the store {self.path}: {error}") from None
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            # FULL: with WAL, each COMMIT is synced to disk before the write call returns, so
            # an acknowledged write survives a power loss too (docs/STORE.md, Durability).
            conn.execute("PRAGMA synchronous = FULL")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _retry(self, fn: Callable[[], T]) -> T:
        delay = 0.005
        for attempt in range(self.retries + 1):
            try:
                return fn()
            except sqlite3.OperationalError as error:
                if not is_busy(error) or attempt == self.retries:
                    raise StoreError(f"store {self.path}: {error}") from None
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)
            except sqlite3.IntegrityError as error:
                raise StoreError(f"store {self.path}: {error}") from None
            except sqlite3.DatabaseError as error:  # e.g. not a database, malformed
                raise StoreError(f"store {self.path} cannot be used: {error}; "
                                 f"move it aside or point {ENV_VAR} at another file") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one IMMEDIATE transaction, retried while the store is locked."""
        def attempt() -> T:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return result

        return self._retry(attempt)

    def _read(self, sql: str, params: Sequence[object] | Mapping[str, object] = ()) -> list[sqlite3.Row]:
        return self._retry(lambda: self._connection().execute(sql, params).fetchall())

    @contextmanager
    def read_transaction(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several reads (WAL readers never block writers)."""
        conn = self._connection()
        self._retry(lambda: conn.execute("BEGIN"))
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def _migrate(self) -> None:
        conn = self._connection()
        # Before anything writes (switching to WAL rewrites the file header): a database of
        # another program is left exactly as it is.
        if (conn.execute("PRAGMA user_version").fetchone()[0] == 0
                and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]):
            raise StoreError(
                f"{self.path} is an SQLite database of another program (it has tables but no "
                f"explorer schema version); it is left untouched: point {ENV_VAR} at a new file"
            )
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"store {self.path}: cannot switch to WAL mode (got {mode})")
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            self._check_writable(conn)
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"store {self.path} has schema version {version}, newer than this "
                    f"program's {SCHEMA_VERSION}; upgrade the explorer or use another store"
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                # executescript would COMMIT first; run statements one by one instead.
                for statement in statements(MIGRATIONS[target - 1]):
                    conn.execute(statement)
                if target == 1:
                    conn.executemany(
                        "INSERT INTO tags (name, description, position) VALUES (?, ?, ?)",
                        [(n, d, i) for i, (n, d) in enumerate(DEFAULT_TAGS)],
                    )
                conn.execute(f"PRAGMA user_version = {target}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _check_writable(self, conn: sqlite3.Connection) -> None:
        """Refuse a read-only store when it is opened, not at the first save: a write that
        changes nothing (the schema version, set to itself) inside a rolled-back transaction."""
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            finally:
                conn.execute("ROLLBACK")
        except sqlite3.OperationalError as error:
            if "readonly" in str(error).replace("-", "").replace(" ", "") or "read-only" in str(error):
                raise StoreError(
                    f"the store {self.path} is read-only ({error}); annotations could not be saved: "
                    f"make it writable or point {ENV_VAR} at a writable file"
                ) from None
            raise

    @property
    def schema_version(self) -> int:
        return int(self._read("PRAGMA user_version")[0][0])

    def execute_read(self, sql: str, params: Sequence[object] | Mapping[str, object] = ()) -> list[sqlite3.Row]:
        """Run a read-only query (used by :mod:`explorer.store.crosstab` and :mod:`explorer.store.exports`)."""
        return self._read(sql, params)

    def count(self, table: str) -> int:
        """The rows of one of the store's :data:`TABLES`."""
        if table not in TABLES:
            raise StoreError(f"no table {table!r}")
        return int(self._read(f"SELECT COUNT(*) FROM {table}")[0][0])

