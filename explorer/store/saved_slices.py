"""Named slices kept in the store: what an analyst saved to ask again (and a page shares
by name).

Each slice is a name and an expression in the slice language
(:mod:`explorer.groups.language`), checked by its parser before it is saved, against every
name a slice may use (the fields and the registered phenomena) and every registered
scorer; a slice that does not parse is never stored. Names are unique (NFC-normalised,
white space folded) and bounded, as is the number of slices kept.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from explorer.store.database import Database
from explorer.store.schema import StoreError
from explorer.store.schema import now as timestamp

#: Longest slice name, in characters.
MAX_SLICE_NAME = 80
#: Most slices one store keeps.
MAX_SAVED_SLICES = 1000


@dataclass(frozen=True)
class SavedSlice:
    name: str
    expression: str
    created_at: str


def slice_name(name: str) -> str:
    """One spelling per slice name: NFC-normalised, white space folded; refused when empty,
    too long or holding a control or format character."""
    name = unicodedata.normalize("NFC", " ".join(str(name).split()))
    if not name:
        raise StoreError("a slice needs a name")
    if len(name) > MAX_SLICE_NAME:
        raise StoreError(f"slice names are at most {MAX_SLICE_NAME} characters")
    odd = [ch for ch in name if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")]
    if odd:
        raise StoreError(f"a slice name cannot hold the character U+{ord(odd[0]):04X}")
    return name


def checked_expression(expression: str, names: Mapping[str, str] | None = None) -> str:
    """The expression, stripped, once the slice language's parser accepts it.

    Raises:
        StoreError: with the parser's one-line message.
    """
    from explorer.groups.frame import slice_names
    from explorer.groups.language import SliceError, parse

    known = dict(names) if names is not None else slice_names()
    try:
        parse(expression, known, kinds=known)
    except SliceError as error:
        raise StoreError(f"the slice does not parse: {error}") from None
    return expression.strip()


class SavedSlices(Database):
    """The store's ``slices`` table: the part of :class:`~explorer.store.Store` that keeps
    named slices."""

    def save_slice(self, name: str, expression: str, *, replace: bool = False,
                   names: Mapping[str, str] | None = None) -> SavedSlice:
        """Save a named slice, checked by the parser first.

        Args:
            replace: overwrite a slice of the same name (else that is refused).
            names: name -> kind the expression may use; None for every field and
                registered phenomenon.

        Raises:
            StoreError: for a bad name, an expression that does not parse, a name taken
                (without ``replace``) or a full store.
        """
        name = slice_name(name)
        expression = checked_expression(expression, names)
        stamp = timestamp()

        def insert(conn: sqlite3.Connection) -> None:
            exists = conn.execute("SELECT 1 FROM slices WHERE name = ?", (name,)).fetchone() is not None
            if exists and not replace:
                raise StoreError(f"a slice named {name!r} exists already; delete it or pick another name")
            if not exists and conn.execute("SELECT count(*) FROM slices").fetchone()[0] >= MAX_SAVED_SLICES:
                raise StoreError(f"the store keeps at most {MAX_SAVED_SLICES} slices; delete some first")
            conn.execute("INSERT INTO slices (name, expression, created_at) VALUES (?, ?, ?) "
                         "ON CONFLICT (name) DO UPDATE SET expression = excluded.expression, "
                         "created_at = excluded.created_at", (name, expression, stamp))

        self._write(insert)
        return SavedSlice(name, expression, stamp)

    def saved_slices(self) -> list[SavedSlice]:
        """Every saved slice, by name."""
        return [SavedSlice(*r) for r in self._read("SELECT name, expression, created_at FROM slices ORDER BY name")]

    def saved_slice(self, name: str) -> SavedSlice:
        """Raises:
            StoreError: when no slice has that name.
        """
        rows = self._read("SELECT name, expression, created_at FROM slices WHERE name = ?", (slice_name(name),))
        if not rows:
            raise StoreError(f"no saved slice named {slice_name(name)!r}")
        return SavedSlice(*rows[0])

    def delete_slice(self, name: str) -> None:
        """Raises:
            StoreError: when no slice has that name.
        """
        name = slice_name(name)

        def delete(conn: sqlite3.Connection) -> None:
            if conn.execute("DELETE FROM slices WHERE name = ?", (name,)).rowcount == 0:
                raise StoreError(f"no saved slice named {name!r}")

        self._write(delete)


__all__ = ["MAX_SAVED_SLICES", "MAX_SLICE_NAME", "SavedSlice", "SavedSlices", "checked_expression", "slice_name"]
