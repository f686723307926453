"""Named slices in the store: saved only when they parse, unique names, bounds."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from explorer.store import MAX_SLICE_NAME, MIGRATIONS, SCHEMA_VERSION, Store, StoreError
from explorer.store import saved_slices as module

NAMES = {"id": "text", "task": "text", "label": "text", "gold": "bool", "overlap": "number"}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store.sqlite3")


def test_save_list_get_delete(store: Store) -> None:
    store.save_slice("qa pairs", '  task == "QA"  ', names=NAMES)
    store.save_slice("low overlap", "overlap < 0.4 and wrong(bleu)", names=NAMES)
    assert [(s.name, s.expression) for s in store.saved_slices()] == [
        ("low overlap", "overlap < 0.4 and wrong(bleu)"), ("qa pairs", 'task == "QA"')]
    assert store.saved_slice("qa  pairs").expression == 'task == "QA"'  # white space folded
    store.delete_slice("qa pairs")
    assert [s.name for s in store.saved_slices()] == ["low overlap"]
    with pytest.raises(StoreError, match="no saved slice named 'qa pairs'"):
        store.delete_slice("qa pairs")
    with pytest.raises(StoreError, match="no saved slice"):
        store.saved_slice("qa pairs")


def test_names_are_unique_unless_replaced(store: Store) -> None:
    store.save_slice("hard", "gold", names=NAMES)
    with pytest.raises(StoreError, match="'hard' exists already"):
        store.save_slice("hard", "not gold", names=NAMES)
    store.save_slice("hard", "not gold", names=NAMES, replace=True)
    assert [(s.name, s.expression) for s in store.saved_slices()] == [("hard", "not gold")]
    # one spelling per name: composed and decomposed "é" are the same slice
    store.save_slice("caf\u00e9", "gold", names=NAMES)
    with pytest.raises(StoreError, match="exists already"):
        store.save_slice("cafe\u0301", "gold", names=NAMES)


@pytest.mark.parametrize("expression, needle", [
    ("negaton", "unknown name 'negaton' at column 1"),
    ('__import__("os")', "unknown function '__import__'"),
    ("gold.__class__", "attribute access"),
    ("x" * 10_000, "10,000 characters long"),
    ("wrong(nobody)", "unknown scorer 'nobody'"),
])
def test_a_slice_that_does_not_parse_is_never_saved(store: Store, expression: str, needle: str) -> None:
    with pytest.raises(StoreError, match="the slice does not parse") as caught:
        store.save_slice("bad", expression, names=NAMES)
    assert needle in str(caught.value) and "\n" not in str(caught.value)
    assert store.saved_slices() == []


@pytest.mark.parametrize("name, needle", [
    ("", "needs a name"), ("   ", "needs a name"), ("x" * (MAX_SLICE_NAME + 1), f"at most {MAX_SLICE_NAME}"),
    ("bad\u202ename", "U+202E"), ("tab\x07", "U+0007"),
])
def test_bad_names_are_refused(store: Store, name: str, needle: str) -> None:
    with pytest.raises(StoreError, match=re.escape(needle)):
        store.save_slice(name, "gold", names=NAMES)


def test_the_number_of_slices_is_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "MAX_SAVED_SLICES", 2)
    store.save_slice("a", "gold", names=NAMES)
    store.save_slice("b", "gold", names=NAMES)
    with pytest.raises(StoreError, match="at most 2 slices"):
        store.save_slice("c", "gold", names=NAMES)
    store.save_slice("b", "not gold", names=NAMES, replace=True)  # replacing needs no room


def test_default_names_are_the_fields_and_registered_phenomena(store: Store) -> None:
    store.save_slice("qa", 'task == "QA" and right(bow)')
    with pytest.raises(StoreError, match="unknown name"):
        store.save_slice("typo", "tsk == 'QA'")


def test_an_older_store_gains_the_table(tmp_path: Path) -> None:
    version = next(i for i, m in enumerate(MIGRATIONS) if "CREATE TABLE slices" in m)  # not always the last
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for migration in MIGRATIONS[:version]:
        conn.executescript(migration)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    store.save_slice("qa", 'task == "QA"', names=NAMES)
    assert store.count("slices") == 1
