"""Tests for explorer.store (the cross-tab and exports included): migrations, CRUD, concurrency,
the cross-tab on a hand-made fixture, and the exports."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explorer.alignment import Alignment, Edit, EditKind
from explorer.datasets import Dataset
from explorer.pairs import ENTAILMENT, NON_ENTAILMENT, Pair
from explorer.store import (
    ENV_VAR,
    MIGRATIONS,
    SCHEMA_VERSION,
    Store,
    StoreError,
    alignment_from_dict,
    alignment_to_dict,
    dataset_fingerprint,
    default_path,
)
from explorer.store.crosstab import ALL_PAIRS, annotated_pairs, crosstab
from explorer.store.exports import (
    AlignedPair,
    annotations_to_csv,
    annotations_to_json,
    stored_gold_alignments,
    to_msr,
    to_sure_align_json,
)
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]

# The hand-made fixture: six pairs, cutoff 0.5 (entailed when score > 0.5).
#   id task label          score  outcome
#   1  IE   entailment     0.9    correct
#   2  IE   non-entailment 0.8    incorrect
#   3  QA   entailment     0.2    incorrect
#   4  QA   non-entailment 0.1    correct
#   5  QA   entailment     -      no score
#   6  IE   -              0.7    unlabelled
FIXTURE = Dataset("fixture.csv", "csv", (
    Pair("1", "The cat sat on the mat.", "A cat sat.", label=ENTAILMENT, task="IE"),
    Pair("2", "Prices rose by ten percent.", "Prices fell.", label=NON_ENTAILMENT, task="IE"),
    Pair("3", "She bought three apples.", "She bought apples.", label=ENTAILMENT, task="QA"),
    Pair("4", "No train left on Monday.", "A train left on Monday.", label=NON_ENTAILMENT, task="QA"),
    Pair("5", "Rome is in Italy.", "Rome is in Europe.", label=ENTAILMENT, task="QA"),
    Pair("6", "He may come tomorrow.", "He comes tomorrow.", label=None, task="IE"),
))
SCORES: dict[str, float | None] = {"1": 0.9, "2": 0.8, "3": 0.2, "4": 0.1, "5": None, "6": 0.7}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store.sqlite3")


@pytest.fixture
def filled(store: Store) -> tuple[Store, int, int]:
    dataset_id = store.add_dataset(FIXTURE)
    run_id = store.add_run(dataset_id, kind="scorer", method="bleu", scores=SCORES, cutoff=0.5,
                           parameters={"order": 4})
    store.tag_pairs(dataset_id, ["2", "3", "4"], ["negation"], author="ann")
    store.tag_pairs(dataset_id, ["2", "5"], ["numbers"], author="bob")
    store.tag_pairs(dataset_id, ["6"], ["syntax"], author="ann")
    return store, dataset_id, run_id


# ------------------------------------------------------------------ location


def test_default_path_follows_the_environment_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "elsewhere.db"))
    assert default_path() == tmp_path / "elsewhere.db"


def test_default_path_is_a_user_data_folder_outside_the_repository(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = default_path()
    assert path.name == "store.sqlite3"
    assert ROOT not in path.parents
    if os.name == "posix" and os.uname().sysname == "Linux":
        assert path == tmp_path / "data" / "entailment-explorer" / "store.sqlite3"


def test_memory_database_is_refused() -> None:
    with pytest.raises(StoreError, match="needs a file"):
        Store(":memory:")


# ------------------------------------------------------------------ migrations


def test_new_store_is_at_the_latest_schema_in_wal_mode(store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION == len(MIGRATIONS)
    assert store.execute_read("PRAGMA journal_mode")[0][0] == "wal"
    assert [t.name for t in store.tags()][:3] == ["negation", "numbers", "world-knowledge"]


def test_version_1_store_is_migrated_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute("INSERT INTO datasets VALUES (1, 'old', 'csv', 'abc', 1, 'then')")
    conn.execute("INSERT INTO pairs (pk, dataset_id, pair_id, position, text, hypothesis) "
                 "VALUES (1, 1, 'p1', 0, 't', 'h')")
    conn.execute("INSERT INTO tags (id, name) VALUES (1, 'legacy')")
    conn.execute("INSERT INTO pair_tags VALUES (1, 1, 1, 'ann', 'then')")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()

    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION
    indexes = {r[0] for r in store.execute_read("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"pair_tags_by_tag", "pairs_by_class", "notes_by_pair"} <= indexes
    assert store.pair_tags(1, "p1") == ["legacy"]
    # Migration 3 folded the existing tag into the pair's mask: the cross-tab sees it.
    assert [(r.tag, r.count) for r in crosstab(store, 1).rows] == [("legacy", 1)]


def test_store_from_a_newer_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this program"):
        Store(path)


def test_reopening_does_not_migrate_again(tmp_path: Path) -> None:
    first = Store(tmp_path / "s.sqlite3")
    first.add_tag("extra")
    second = Store(tmp_path / "s.sqlite3")
    assert "extra" in [t.name for t in second.tags()]


# ------------------------------------------------------------------ CRUD


def test_adding_the_same_dataset_twice_gives_one_record(store: Store) -> None:
    first = store.add_dataset(FIXTURE)
    assert store.add_dataset(FIXTURE) == first
    assert store.count("pairs") == 6
    edited = Dataset(FIXTURE.name, "csv", FIXTURE.pairs[:5])
    assert store.add_dataset(edited) != first


def test_find_dataset_stores_nothing_and_hashes_only_a_same_sized_namesake(store: Store) -> None:
    hashed: list[str] = []

    def fingerprint(dataset: Dataset) -> str:
        hashed.append(dataset.name)
        return dataset_fingerprint(dataset.name, dataset.pairs)

    assert store.find_dataset(FIXTURE.name, len(FIXTURE), lambda: fingerprint(FIXTURE)) is None
    assert hashed == [] and store.count("datasets") == 0  # nothing stored under that name: no pass over the pairs
    first = store.add_dataset(FIXTURE, dataset_fingerprint(FIXTURE.name, FIXTURE.pairs))
    assert store.find_dataset(FIXTURE.name, len(FIXTURE), lambda: fingerprint(FIXTURE)) == first
    edited = Dataset(FIXTURE.name, "csv", FIXTURE.pairs[:5] + (Pair("7", "A new text.", "New."),))
    assert store.find_dataset(edited.name, len(edited), lambda: fingerprint(edited)) is None
    assert hashed == [FIXTURE.name, FIXTURE.name] and store.count("datasets") == 1


def test_duplicate_pair_ids_are_refused(store: Store) -> None:
    bad = Dataset("dup", "csv", (Pair("1", "a", "b"), Pair("1", "c", "d")))
    with pytest.raises(StoreError, match="not unique"):
        store.add_dataset(bad)


def test_run_round_trip(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    run = store.run(run_id)
    assert (run.kind, run.method, run.parameters, run.cutoff) == ("scorer", "bleu", {"order": 4}, 0.5)
    assert store.run_scores(run_id) == SCORES
    assert [r.id for r in store.runs(dataset_id, kind="scorer")] == [run_id]
    assert store.runs(dataset_id, kind="aligner") == []
    store.set_cutoff(run_id, 0.75)
    assert store.run(run_id).cutoff == 0.75


def test_aligner_run_keeps_alignments(store: Store) -> None:
    dataset_id = store.add_dataset(FIXTURE)
    alignment = Alignment.from_edits(2, 1, [Edit(EditKind.EQ, (0, 1), (0, 1), 1.5),
                                            Edit(EditKind.DEL, (1, 2), None)])
    run_id = store.add_run(dataset_id, kind="aligner", method="manli", scores={"1": 3.0},
                           alignments={"1": alignment})
    got = store.run_alignments(run_id)["1"]
    assert got == alignment and got.edits == alignment.edits


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"kind": "parser", "method": "x", "scores": {}}, "kind must be", id="bad-kind"),
        pytest.param({"kind": "scorer", "method": "x", "scores": {"99": 1.0}}, "no pair '99'", id="unknown-pair"),
    ],
)
def test_bad_runs_are_refused(store: Store, kwargs: dict, message: str) -> None:
    dataset_id = store.add_dataset(FIXTURE)
    with pytest.raises(StoreError, match=message):
        store.add_run(dataset_id, **kwargs)
    assert store.count("runs") == 0


def test_tagging_and_untagging(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, _ = filled
    assert store.pair_tags(dataset_id, "2") == ["negation", "numbers"]
    assert store.tag_pairs(dataset_id, ["2", "3"], ["negation", "syntax"], author="ann") == 2
    assert store.untag_pairs(dataset_id, ["2", "3"], ["syntax"]) == 2
    assert store.tags_by_pair(dataset_id) == {
        "2": ["negation", "numbers"], "3": ["negation"], "4": ["negation"], "5": ["numbers"], "6": ["syntax"],
    }


@pytest.mark.parametrize(
    ("pair_ids", "tags", "author", "message"),
    [
        pytest.param(["nope"], ["negation"], "ann", "no pair 'nope'", id="unknown-pair"),
        pytest.param(["1"], ["made-up"], "ann", "not in the taxonomy", id="unknown-tag"),
        pytest.param(["1"], ["negation"], "  ", "author", id="no-author"),
    ],
)
def test_bad_tagging_is_refused(store: Store, pair_ids: list[str], tags: list[str], author: str,
                                message: str) -> None:
    dataset_id = store.add_dataset(FIXTURE)
    with pytest.raises(StoreError, match=message):
        store.tag_pairs(dataset_id, pair_ids, tags, author=author)
    assert store.count("pair_tags") == 0


def test_set_pair_tags_applies_only_the_users_changes(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, _ = filled
    seen = store.pair_tags(dataset_id, "2")  # what session A shows: negation, numbers
    store.tag_pairs(dataset_id, ["2"], ["modality"], author="session-b")  # B adds meanwhile
    store.set_pair_tags(dataset_id, "2", ["numbers", "syntax"], author="session-a", previous=seen)
    assert store.pair_tags(dataset_id, "2") == ["numbers", "syntax", "modality"]
    store.set_pair_tags(dataset_id, "2", ["syntax"], author="session-a")
    assert store.pair_tags(dataset_id, "2") == ["syntax"]


def test_taxonomy_is_editable(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, _ = filled
    store.add_tag("Coreference ", "pronoun or name resolution")
    assert store.tags()[-1].name == "coreference"
    store.rename_tag("negation", "polarity")
    assert store.pair_tags(dataset_id, "3") == ["polarity"]
    with pytest.raises(StoreError, match="exists already"):
        store.rename_tag("polarity", "numbers")
    with pytest.raises(StoreError, match="on 2 pairs"):
        store.delete_tag("numbers")
    assert store.delete_tag("numbers", force=True) == 2
    assert store.pair_tags(dataset_id, "2") == ["polarity"]


def test_notes_and_corrected_alignments(store: Store) -> None:
    dataset_id = store.add_dataset(FIXTURE)
    first = store.add_note(dataset_id, "3", "needs counting", author="ann")
    store.add_note(dataset_id, "3", "agree", author="bob")
    assert [(n.author, n.body) for n in store.notes(dataset_id, "3")] == [("ann", "needs counting"), ("bob", "agree")]
    store.delete_note(first)
    assert [n.body for n in store.notes(dataset_id)] == ["agree"]
    with pytest.raises(StoreError, match="empty"):
        store.add_note(dataset_id, "3", "   ", author="ann")

    old = Alignment.from_links(3, 2, {(0, 0)})
    new = Alignment.from_links(3, 2, {(0, 0), (2, 1)}, possible={(1, 1)})
    store.add_gold_alignment(dataset_id, "1", old, author="ann")
    store.add_gold_alignment(dataset_id, "1", new, author="bob", text_tokens=["a", "b", "c"],
                             hypothesis_tokens=["x", "y"])
    record = store.gold_alignment(dataset_id, "1")
    assert record is not None and record.alignment == new and record.author == "bob"
    assert record.text_tokens == ("a", "b", "c")
    assert list(store.gold_alignments(dataset_id)) == ["1"]
    assert store.gold_alignment(dataset_id, "2") is None
    with pytest.raises(StoreError, match="2 text tokens"):
        store.add_gold_alignment(dataset_id, "1", new, author="x", text_tokens=["a", "b"])


def test_deleting_a_dataset_removes_everything_attached(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, _ = filled
    store.add_note(dataset_id, "1", "note", author="ann")
    store.add_gold_alignment(dataset_id, "1", Alignment.from_links(1, 1, {(0, 0)}), author="ann")
    store.delete_dataset(dataset_id)
    for table in ("datasets", "pairs", "runs", "run_results", "pair_tags", "notes", "gold_alignments"):
        assert store.count(table) == 0, table


def test_alignment_json_round_trip_and_errors() -> None:
    alignment = Alignment.from_links(4, 3, {(0, 0), (3, 2)}, possible={(1, 1)})
    assert alignment_from_dict(json.loads(json.dumps(alignment_to_dict(alignment)))) == alignment
    with pytest.raises(StoreError, match="malformed"):
        alignment_from_dict({"p_len": 1, "h_len": 1, "sure": [[5, 5]]})


# ------------------------------------------------------------------ concurrency

STRESS_SECONDS = float(os.environ.get("STORE_STRESS_SECONDS", "3"))
WRITERS = 8


def _writer(path: str, dataset_id: int, worker: int, seconds: float, out: str) -> None:
    """One app session: notes, tags and tag removals as fast as it can for ``seconds``.

    Records every write the store acknowledged, so the parent can check each is there;
    a failure is written there too, so the parent can show its traceback.
    """
    try:
        _write_for(path, dataset_id, worker, seconds, out)
    except BaseException:
        import traceback

        Path(out).write_text(json.dumps({"error": traceback.format_exc()}))
        raise


def _write_for(path: str, dataset_id: int, worker: int, seconds: float, out: str) -> None:
    store = Store(path)
    tag = f"worker-{worker}"
    pair_ids = [p.id for p in FIXTURE.pairs]
    notes: list[int] = []
    tagged: set[str] = set()
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        pair_id = pair_ids[i % len(pair_ids)]
        notes.append(store.add_note(dataset_id, pair_id, f"{tag} note {i}", author=tag))
        if i % 3 == 2:
            store.untag_pairs(dataset_id, [pair_id], [tag])
            tagged.discard(pair_id)
        else:
            store.tag_pairs(dataset_id, [pair_id], [tag], author=tag)
            tagged.add(pair_id)
        i += 1
    Path(out).write_text(json.dumps({"notes": notes, "tagged": sorted(tagged), "ops": 2 * i}))


@pytest.mark.slow  # four Python processes, each importing the library
def test_concurrent_writer_processes_lose_no_write(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    store = Store(path)
    dataset_id = store.add_dataset(FIXTURE)
    for worker in range(WRITERS):
        store.add_tag(f"worker-{worker}")
    outs = [tmp_path / f"worker-{w}.json" for w in range(WRITERS)]
    # Plain interpreter processes, not multiprocessing: a spawned child re-runs the
    # parent's __main__, which is app.py once an AppTest has run in this process.
    processes = [
        subprocess.Popen([sys.executable, "-c",
                          "import sys; from tests.unit.test_store import _writer; "
                          "_writer(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])",
                          str(path), str(dataset_id), str(w), str(STRESS_SECONDS), str(outs[w])],
                         cwd=ROOT)
        for w in range(WRITERS)
    ]
    reads = 0
    while any(p.poll() is None for p in processes):
        crosstab(store, dataset_id)  # readers keep working while writers hammer the store
        reads += 1
        time.sleep(0.05)
    for process in processes:
        process.wait(timeout=STRESS_SECONDS + DEADLINE)
    results = [json.loads(out.read_text()) if out.exists() else {"error": "no output"} for out in outs]
    failures = [r["error"] for r in results if "error" in r]
    assert not failures, failures[0]
    assert [p.returncode for p in processes] == [0] * WRITERS
    acknowledged = {note_id for r in results for note_id in r["notes"]}
    stored = {n.id: n for n in store.notes(dataset_id)}
    assert len(acknowledged) == sum(len(r["notes"]) for r in results)
    assert acknowledged == set(stored)
    by_pair = store.tags_by_pair(dataset_id)
    for worker, result in enumerate(results):
        tag = f"worker-{worker}"
        assert sorted(p for p, tags in by_pair.items() if tag in tags) == result["tagged"]
        assert result["ops"] > 0
    print(f"\n{WRITERS} writers x {STRESS_SECONDS:g} s: {sum(r['ops'] for r in results)} writes, "
          f"{len(acknowledged)} notes, {reads} concurrent cross-tabs, none lost")


# ------------------------------------------------------------------ error analysis


def test_crosstab_counts_the_hand_made_fixture(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    table = crosstab(store, dataset_id, run_id)
    cells = {(r.tag, r.task, r.label, r.outcome): r.count for r in table.rows}
    assert cells == {
        ("negation", "IE", NON_ENTAILMENT, "incorrect"): 1,
        ("negation", "QA", ENTAILMENT, "incorrect"): 1,
        ("negation", "QA", NON_ENTAILMENT, "correct"): 1,
        ("numbers", "IE", NON_ENTAILMENT, "incorrect"): 1,
        ("numbers", "QA", ENTAILMENT, "no score"): 1,
        ("syntax", "IE", "(none)", "unlabelled"): 1,
    }
    totals = {(r.task, r.label, r.outcome): r.count for r in table.totals}
    assert totals == {
        ("IE", ENTAILMENT, "correct"): 1, ("IE", NON_ENTAILMENT, "incorrect"): 1,
        ("IE", "(none)", "unlabelled"): 1, ("QA", ENTAILMENT, "incorrect"): 1,
        ("QA", ENTAILMENT, "no score"): 1, ("QA", NON_ENTAILMENT, "correct"): 1,
    }
    columns, records = table.pivot(by="outcome")
    assert columns == ["correct", "incorrect", "no score", "unlabelled"]
    negation = next(r for r in records if r["tag"] == "negation")
    assert (negation["correct"], negation["incorrect"], negation["total"]) == (1, 2, 3)
    assert records[-1]["tag"] == ALL_PAIRS and records[-1]["total"] == 6


def test_crosstab_cutoff_override_and_no_run(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    # With cutoff 0.85 pair 2 (0.8) is judged non-entailed: now correct.
    table = crosstab(store, dataset_id, run_id, cutoff=0.85, tags=["negation"])
    cells = {(r.task, r.label, r.outcome): r.count for r in table.rows}
    assert cells == {("IE", NON_ENTAILMENT, "correct"): 1, ("QA", ENTAILMENT, "incorrect"): 1,
                     ("QA", NON_ENTAILMENT, "correct"): 1}
    assert {r.tag for r in table.rows} == {"negation"}
    no_run = crosstab(store, dataset_id)
    assert {r.outcome for r in no_run.rows} == {"no decision"}
    assert sum(r.count for r in no_run.rows) == 6


def test_crosstab_general_path_matches_the_bit_mask_path(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    fast = crosstab(store, dataset_id, run_id)
    for i in range(70):  # tag ids beyond 62 do not fit a 64-bit mask
        store.add_tag(f"filler-{i}")
    store.tag_pairs(dataset_id, ["1"], ["filler-69"], author="ann")
    general = crosstab(store, dataset_id, run_id)
    assert [r for r in general.rows if r.tag != "filler-69"] == list(fast.rows)
    assert general.totals == fast.totals
    assert [r for r in general.rows if r.tag == "filler-69"][0].outcome == "correct"


def test_tag_masks_follow_every_kind_of_tag_change(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    store.set_pair_tags(dataset_id, "2", ["syntax"], author="ann")
    store.untag_pairs(dataset_id, ["3"], ["negation"])
    store.delete_tag("numbers", force=True)  # cascades to pair_tags: triggers fire
    store.add_tag("fresh")
    store.tag_pairs(dataset_id, ["1", "4"], ["fresh"], author="ann")
    masks = {r[0]: r[1] for r in store.execute_read(
        "SELECT pair_id, tag_mask FROM pairs WHERE dataset_id = ?", (dataset_id,))}
    ids = {r[0]: r[1] for r in store.execute_read("SELECT name, id FROM tags")}
    expected = {pid: sum(1 << ids[t] for t in tags) for pid, tags in store.tags_by_pair(dataset_id).items()}
    assert {pid: m for pid, m in masks.items() if m} == expected


def test_crosstab_refuses_a_run_of_another_dataset(filled: tuple[Store, int, int]) -> None:
    store, _, run_id = filled
    other = store.add_dataset(Dataset("other", "csv", (Pair("a", "x", "y"),)))
    with pytest.raises(StoreError, match="not made on dataset"):
        crosstab(store, other, run_id)


def test_crosstab_exports(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    table = crosstab(store, dataset_id, run_id)
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert rows[0] == {"tag": "negation", "task": "IE", "label": NON_ENTAILMENT, "outcome": "incorrect", "count": "1"}
    assert sum(int(r["count"]) for r in rows if r["tag"] == ALL_PAIRS) == 6
    data = json.loads(table.to_json())
    assert data["run_id"] == run_id and data["cutoff"] == 0.5
    assert len(data["cells"]) == 6 and sum(c["count"] for c in data["totals"]) == 6


def test_annotated_pairs_filters_and_exports(filled: tuple[Store, int, int]) -> None:
    store, dataset_id, run_id = filled
    store.add_note(dataset_id, "1", "fine as is", author="ann")
    records = annotated_pairs(store, dataset_id, run_id)
    assert [r["pair_id"] for r in records] == ["1", "2", "3", "4", "5", "6"]
    assert records[0]["notes"] == "ann: fine as is" and records[0]["tags"] == []
    wrong = annotated_pairs(store, dataset_id, run_id, tag="negation", outcome="incorrect")
    assert [(r["pair_id"], r["score"]) for r in wrong] == [("2", 0.8), ("3", 0.2)]
    assert wrong[0]["tags"] == ["negation", "numbers"]
    with pytest.raises(StoreError, match="unknown outcome"):
        annotated_pairs(store, dataset_id, run_id, outcome="wrong")

    rows = list(csv.DictReader(io.StringIO(annotations_to_csv(wrong))))
    assert rows[0]["pair_id"] == "2" and rows[0]["tags"] == "negation;numbers" and rows[0]["outcome"] == "incorrect"
    # The sentences travel with the annotations, so the export reads without the dataset.
    assert (rows[0]["text"], rows[0]["hypothesis"]) == ("Prices rose by ten percent.", "Prices fell.")
    assert json.loads(annotations_to_json(wrong))[0]["hypothesis"] == "Prices fell."
    assert json.loads(annotations_to_json(wrong))[1]["pair_id"] == "3"
    everything = annotated_pairs(store, dataset_id, run_id, only_annotated=False)
    assert len(everything) == 6


def test_msr_export_writes_the_giza_style_lines() -> None:
    alignment = Alignment.from_links(4, 3, {(0, 0), (1, 0), (3, 2)}, possible={(2, 1)})
    text = to_msr([AlignedPair("12", ("Ann", "Lee", "won", "."), ("Lee", "won", "."), alignment)])
    assert text.splitlines() == [
        "# sentence pair 12",
        "Ann Lee won .",
        "NULL ({ / / }) Lee ({ 1 2 / / }) won ({ p3 / / }) . ({ 4 / / }) ",
    ]
    # Non-numeric ids are numbered by position.
    assert to_msr([AlignedPair("a-1", ("x",), ("y",), Alignment(1, 1))]).startswith("# sentence pair 1\n")
    with pytest.raises(ValueError, match="whitespace"):
        to_msr([AlignedPair("1", ("New York",), ("y",), Alignment(1, 1))])


def test_sure_align_json_export() -> None:
    alignment = Alignment.from_links(3, 2, {(2, 1), (0, 0)}, possible={(1, 1)})
    line = to_sure_align_json([AlignedPair("7", ("a", "b", "c"), ("x", "y"), alignment)])
    assert json.loads(line) == {"id": "7", "source": "a b c", "target": "x y",
                                "sureAlign": "0-0 2-1", "possibleAlign": "1-1"}
    with pytest.raises(ValueError, match="2 x 2 tokens"):
        AlignedPair("7", ("a", "b"), ("x", "y"), alignment)


def test_stored_gold_alignments_use_saved_tokens_or_retokenise(store: Store) -> None:
    dataset_id = store.add_dataset(FIXTURE)
    store.add_gold_alignment(dataset_id, "3", Alignment.from_links(2, 1, {(1, 0)}), author="ann",
                             text_tokens=["three", "apples"], hypothesis_tokens=["apples"])
    store.add_gold_alignment(dataset_id, "1", Alignment.from_links(6, 3, {(1, 1)}), author="ann")
    items = stored_gold_alignments(store, dataset_id, tokenizer=str.split)
    assert [i.pair_id for i in items] == ["1", "3"]
    assert items[0].text_tokens == ("The", "cat", "sat", "on", "the", "mat.")
    assert items[1].text_tokens == ("three", "apples")
    store.add_gold_alignment(dataset_id, "2", Alignment.from_links(1, 1, {(0, 0)}), author="ann")
    with pytest.raises(StoreError, match="save the alignment with its tokens"):
        stored_gold_alignments(store, dataset_id, tokenizer=str.split)


def test_msr_export_reads_back_with_the_msr_loader() -> None:
    from explorer.datasets.msr_align import parse_msr_align

    alignment = Alignment.from_links(5, 3, {(0, 0), (1, 0), (4, 2)}, possible={(2, 1), (3, 1)})
    item = AlignedPair("3", ("Ann", "Lee", "won", "it", "."), ("Lee", "won", "."), alignment)
    (pair,) = parse_msr_align(to_msr([item]), "export.align.txt")
    assert pair.text_tokens == item.text_tokens and pair.hypothesis_tokens == item.hypothesis_tokens
    assert pair.gold_alignment == alignment


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"this is not sqlite, just some text long enough to be a header" * 20)
    with pytest.raises(StoreError, match="cannot be used"):
        Store(path)
