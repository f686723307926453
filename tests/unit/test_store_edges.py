"""Store edges found in review: one spelling per tag, refusals at open, CSV
cells a spreadsheet will not run."""

from __future__ import annotations

import csv
import io
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.store import Store, StoreError
from explorer.store.csv_cells import spreadsheet_safe
from explorer.store.exports import annotations_to_csv


def test_nfc_and_nfd_spellings_are_one_tag(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.add_tag("Caf\u00e9")  # composed
    store.add_tag("cafe\u0301")  # decomposed: the same tag (adding it again changes nothing)
    assert sum(t.name == "caf\u00e9" for t in store.tags()) == 1


def test_set_pair_tags_accepts_any_spelling_of_a_tag(tmp_path: Path) -> None:
    from explorer.datasets import Dataset
    from explorer.pairs import Pair

    store = Store(tmp_path / "s.sqlite3")
    dataset_id = store.add_dataset(Dataset("d", "test", (Pair("1", "a b", "a"),)))
    store.add_tag("Caf\u00e9 Talk")
    store.set_pair_tags(dataset_id, "1", ["CAFE\u0301  talk"], author="ann")
    assert store.pair_tags(dataset_id, "1") == ["caf\u00e9 talk"]


def test_notes_and_annotator_names_are_bounded(tmp_path: Path) -> None:
    from explorer.datasets import Dataset
    from explorer.pairs import Pair
    from explorer.store import MAX_AUTHOR_CHARS, MAX_NOTE_CHARS

    store = Store(tmp_path / "s.sqlite3")
    dataset_id = store.add_dataset(Dataset("d", "test", (Pair("1", "a b", "a"),)))
    store.add_note(dataset_id, "1", "n" * MAX_NOTE_CHARS, author="ann")
    with pytest.raises(StoreError, match=f"a note is at most {MAX_NOTE_CHARS:,} characters.*has {MAX_NOTE_CHARS + 1:,}"):
        store.add_note(dataset_id, "1", "n" * (MAX_NOTE_CHARS + 1), author="ann")
    with pytest.raises(StoreError, match=f"at most {MAX_AUTHOR_CHARS} characters"):
        store.add_note(dataset_id, "1", "short", author="a" * (MAX_AUTHOR_CHARS + 1))
    assert [len(n.body) for n in store.notes(dataset_id, "1")] == [MAX_NOTE_CHARS]


def test_only_an_unannotated_dataset_is_deleted_as_unannotated(tmp_path: Path) -> None:
    from explorer.alignment import Alignment
    from explorer.datasets import Dataset
    from explorer.pairs import Pair

    store = Store(tmp_path / "s.sqlite3")
    ids = [store.add_dataset(Dataset(f"d{i}", "test", (Pair("1", "a b", "a"),))) for i in range(4)]
    store.set_pair_tags(ids[1], "1", ["negation"], author="ann")
    store.add_note(ids[2], "1", "why", author="ann")
    store.add_gold_alignment(ids[3], "1", Alignment(2, 1, sure=frozenset({(0, 0)})), author="ann")
    assert [store.delete_unannotated(i) for i in ids] == [True, False, False, False]
    assert [store.has_dataset(i) for i in ids] == [False, True, True, True]


def test_a_new_store_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    from explorer.datasets import Dataset
    from explorer.pairs import Pair

    path = tmp_path / "new" / "s.sqlite3"
    old = os.umask(0o022)
    try:
        store = Store(path)
        dataset_id = store.add_dataset(Dataset("d", "test", (Pair("1", "a b", "a"),)))
        store.add_note(dataset_id, "1", "a private thought", author="ann")
        files = sorted(p for p in path.parent.iterdir())
        assert {p.name for p in files} >= {"s.sqlite3", "s.sqlite3-wal"}
        assert {p.name: p.stat().st_mode & 0o777 for p in files} == dict.fromkeys((p.name for p in files), 0o600)
        assert path.parent.stat().st_mode & 0o777 == 0o700
    finally:
        os.umask(old)


def test_a_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE inventory (item TEXT)")
        conn.execute("INSERT INTO inventory VALUES ('lamp')")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="another program"):
        Store(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("inventory",)]
    assert path.read_bytes() == before


@pytest.fixture
def read_only_store(tmp_path: Path) -> Iterator[Path]:
    """A valid store file nobody may write: chattr +i as root (root ignores file modes),
    chmod otherwise."""
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
        assert done.returncode == 0, f"chattr +i failed: {done.stderr!r}"
    else:
        path.chmod(0o444)
    try:
        yield path
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        path.chmod(0o644)


def test_a_read_only_store_is_refused_when_opened(read_only_store: Path) -> None:
    with pytest.raises(StoreError, match="read-only"):
        Store(read_only_store)


@pytest.mark.parametrize("cell", ['=HYPERLINK("http://example.invalid","x")', "@SUM(A1:A2)", "+1+1",
                                  "-2+3", "\t=1", "\uff1d1"])
def test_formula_cells_are_defused(cell: str) -> None:
    assert spreadsheet_safe(cell) == "'" + cell
    row = next(csv.DictReader(io.StringIO(annotations_to_csv([{
        "pair_id": cell, "task": cell, "label": None, "score": 0.5, "outcome": "correct",
        "tags": [cell], "notes": cell, "has_corrected_alignment": False}]))))
    assert all(not v.startswith(("=", "+", "-", "@", "\t", "\uff1d")) for v in row.values() if v)


def test_plain_cells_and_numbers_pass_unchanged() -> None:
    assert spreadsheet_safe("a = b") == "a = b"
    assert spreadsheet_safe(-0.5) == -0.5
    assert spreadsheet_safe("") == ""
