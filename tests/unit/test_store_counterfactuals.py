"""Counterfactual pairs in the store: a version 3 store gains the table with its data kept,
rewrites are written, listed, replaced and opened as pairs, and go with their dataset."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from explorer.datasets import Dataset
from explorer.groups.rewrites import REWRITES, rewrite_pair
from explorer.pairs import ENTAILMENT, NON_ENTAILMENT, Pair
from explorer.store import MIGRATIONS, SCHEMA_VERSION, Store, StoreError

DATA = Dataset("written.csv", "csv", (
    Pair("1", "The ferry left at noon.", "The ferry did not sail.", label=NON_ENTAILMENT, task="IE"),
    Pair("2", "The lake is deep and cold.", "The lake is deep.", label=ENTAILMENT, task="QA"),
))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store.sqlite3")


def _rewrites(rule: str) -> list[tuple[str, Pair]]:
    out = []
    for pair in DATA.pairs:
        rewritten = rewrite_pair(REWRITES[rule], pair)
        if rewritten is not None:
            out.append((pair.id, rewritten))
    return out


def test_a_store_from_before_the_table_gains_it_and_keeps_its_pairs(tmp_path: Path) -> None:
    version = next(i for i, m in enumerate(MIGRATIONS) if "CREATE TABLE counterfactuals" in m)
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for migration in MIGRATIONS[:version]:
        conn.executescript(migration)
    conn.execute("INSERT INTO datasets VALUES (1, 'old', 'csv', 'abc', 1, 'then')")
    conn.execute("INSERT INTO pairs (pk, dataset_id, pair_id, position, text, hypothesis) VALUES (1, 1, 'p1', 0, 't', 'h')")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    assert store.count("counterfactuals") == 0 and store.count("pairs") == 1
    store.add_counterfactuals(1, "swap", [("p1", Pair("p1~swap", "h", "t"))])
    assert [c.original_id for c in store.counterfactuals(1)] == ["p1"]


def test_rewrites_are_kept_listed_and_opened_as_pairs(store: Store) -> None:
    dataset_id = store.add_dataset(DATA)
    assert store.add_counterfactuals(dataset_id, "swap", _rewrites("swap")) == 2
    assert store.add_counterfactuals(dataset_id, "antonym", _rewrites("antonym")) == 1
    records = store.counterfactuals(dataset_id)
    assert [(c.original_id, c.rule) for c in records] == [("1", "swap"), ("2", "antonym"), ("2", "swap")]
    antonym = store.counterfactual(dataset_id, "2~antonym")
    assert antonym is not None
    pair = antonym.pair()
    assert (pair.id, pair.text, pair.hypothesis) == ("2~antonym", "The lake is deep and cold.", "The lake is shallow.")
    assert pair.label == NON_ENTAILMENT and pair.task == "QA" and "deep -> shallow" in (pair.note or "")
    assert store.counterfactual(dataset_id, "2~hypernym") is None
    assert [c.pair_id for c in store.counterfactuals(dataset_id, original_id="1")] == ["1~swap"]
    assert [c.pair_id for c in store.counterfactuals(dataset_id, rule="antonym")] == ["2~antonym"]


def test_writing_a_rewrite_again_replaces_it(store: Store) -> None:
    dataset_id = store.add_dataset(DATA)
    store.add_counterfactuals(dataset_id, "swap", _rewrites("swap"))
    store.add_counterfactuals(dataset_id, "swap", [("1", Pair("1~swap", "edited text", "edited hypothesis"))])
    assert store.count("counterfactuals") == 2
    record = store.counterfactual(dataset_id, "1~swap")
    assert record is not None and record.text == "edited text"


def test_counterfactuals_go_with_their_dataset_or_rule(store: Store) -> None:
    dataset_id = store.add_dataset(DATA)
    store.add_counterfactuals(dataset_id, "swap", _rewrites("swap"))
    store.add_counterfactuals(dataset_id, "antonym", _rewrites("antonym"))
    assert store.delete_counterfactuals(dataset_id, rule="antonym") == 1
    assert {c.rule for c in store.counterfactuals(dataset_id)} == {"swap"}
    store.delete_dataset(dataset_id)
    assert store.count("counterfactuals") == 0


def test_a_rewrite_of_an_unknown_pair_or_with_a_pairs_id_is_refused(store: Store) -> None:
    dataset_id = store.add_dataset(DATA)
    with pytest.raises(StoreError, match="no pair '9'"):
        store.add_counterfactuals(dataset_id, "swap", [("9", Pair("9~swap", "a", "b"))])
    with pytest.raises(StoreError, match="is a pair of dataset"):
        store.add_counterfactuals(dataset_id, "swap", [("1", Pair("2", "a", "b"))])
    with pytest.raises(StoreError, match="name of the rule"):
        store.add_counterfactuals(dataset_id, " ", [])
    assert store.count("counterfactuals") == 0
