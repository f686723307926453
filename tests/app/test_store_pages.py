"""The annotation UI under AppTest: tagging and notes on the Pair page, bulk tagging from
the Dataset table, the Errors page's cross-tab and exports, the Compare page, and the
counterfactual editor. The pure pieces behind them are tested in tests/unit (test_compare,
test_counterfactual, test_alignment_figures)."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.alignment import Alignment
from explorer.store import ENV_VAR, Store
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAIR = "components/pages/pair.py"
DATASET = "components/pages/dataset.py"
ERRORS = "components/pages/errors.py"
COMPARE = "components/pages/compare.py"
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)


@pytest.fixture
def store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv(ENV_VAR, str(path))
    yield path


def start(page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    if page is not None:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at


def button(at: AppTest, label: str):  # type: ignore[no-untyped-def]
    for b in at.button:
        if b.label == label:
            return b
    raise AssertionError(f"no button {label!r}; buttons: {[b.label for b in at.button]}")


def test_tags_and_note_saved_on_the_pair_page_are_in_the_store(store_path: Path) -> None:
    at = start()
    tags = next(m for m in at.multiselect if m.label == "Tags")
    tags.set_value(["negation", "numbers"])
    next(t for t in at.text_input if t.label == "Add a note").input("the number decides it")
    button(at, "Save annotation").click().run()
    # Nobody is named yet: nothing is saved (a shared server never borrows a login name).
    assert not at.exception, at.exception
    assert any("type your name" in w.value for w in at.warning)
    assert Store(store_path).datasets() == [] or not Store(store_path).tags_by_pair(Store(store_path).datasets()[0].id)
    next(t for t in at.text_input if t.label == "Annotator").input("ann")
    tags = next(m for m in at.multiselect if m.label == "Tags")
    tags.set_value(["negation", "numbers"])
    next(t for t in at.text_input if t.label == "Add a note").input("the number decides it")
    button(at, "Save annotation").click().run()
    assert not at.exception, at.exception
    assert next(t for t in at.text_input if t.label == "Add a note").value == ""  # ready for the next

    store = Store(store_path)
    (dataset,) = store.datasets()
    assert dataset.name == "typical.xml"
    tagged = store.tags_by_pair(dataset.id)
    assert list(tagged.values()) == [["negation", "numbers"]]
    pair_id = next(iter(tagged))
    assert [n.body for n in store.notes(dataset.id, pair_id)] == ["the number decides it"]
    # A fresh session (a reload) shows the stored tags.
    again = start()
    assert next(m for m in again.multiselect if m.label == "Tags").value == ["negation", "numbers"]
    assert any("the number decides it" in md.value for md in again.markdown)


def test_bulk_tagging_from_the_dataset_table(store_path: Path) -> None:
    at = start(DATASET)
    next(m for m in at.multiselect if m.label == "Task").set_value(["QA"]).run()
    shown = next(d.value for d in at.dataframe if "hypothesis" in d.value.columns)
    next(m for m in at.multiselect if m.label == "Tags").set_value(["world-knowledge"])
    next(t for t in at.text_input if t.label == "Annotator").input("ann")
    button(at, f"Add to all {len(shown)}").click().run()
    assert not at.exception, at.exception
    store = Store(store_path)
    (dataset,) = store.datasets()
    assert sorted(store.tags_by_pair(dataset.id)) == sorted(shown["id"])
    assert at.success and "Added" in at.success[0].value
    at.run()  # the table now shows the tags
    shown = next(d.value for d in at.dataframe if "hypothesis" in d.value.columns)
    assert set(shown["tags"]) == {"world-knowledge"}
    tagged = set(shown["id"])
    # The tag filter: pairs with the tag, then pairs with none.
    next(m for m in at.multiselect if m.label == "Task").set_value([]).run()
    next(m for m in at.multiselect if m.label == "Tagged with").set_value(["world-knowledge"]).run()
    assert set(next(d.value for d in at.dataframe if "hypothesis" in d.value.columns)["id"]) == tagged
    next(m for m in at.multiselect if m.label == "Tagged with").set_value(["(no tag)"]).run()
    untagged = next(d.value for d in at.dataframe if "hypothesis" in d.value.columns)
    assert len(untagged) == 56 - len(tagged) and not set(untagged["id"]) & tagged


def test_errors_page_cross_tab_and_exports(store_path: Path) -> None:
    at = start(ERRORS)
    assert at.title[0].value == "Errors"
    assert any("No pair of this dataset is tagged" in i.value for i in at.info)
    store = Store(store_path)
    (dataset,) = store.datasets()
    pair_ids = [r[0] for r in store.execute_read(
        "SELECT pair_id FROM pairs WHERE dataset_id = ? ORDER BY position LIMIT 4", (dataset.id,))]
    store.tag_pairs(dataset.id, pair_ids, ["negation"], author="test")
    store.tag_pairs(dataset.id, pair_ids[:1], ["syntax"], author="test")
    store.add_gold_alignment(dataset.id, pair_ids[0], Alignment.from_links(2, 1, {(0, 0)}), author="t",
                             text_tokens=["a", "b"], hypothesis_tokens=["a"])
    at.run()
    assert not at.exception, at.exception
    pivot = next(d.value for d in at.dataframe if "tag" in d.value.columns and "total" in d.value.columns)
    negation = pivot[pivot["tag"] == "negation"].iloc[0]
    assert negation["total"] == 4 and negation["correct"] + negation["incorrect"] == 4
    assert pivot.iloc[-1]["tag"] == "(all pairs)" and pivot.iloc[-1]["total"] == 56
    # The CSV the download button would serve.
    downloads = {b.label: b for b in at.get("download_button")}
    assert {"Cross-tab as CSV", "Annotations as CSV", "MSR format", "sureAlign JSON lines"} <= set(downloads)
    from explorer.store.crosstab import annotated_pairs
    from explorer.store.exports import annotations_to_csv

    run = store.runs(dataset.id)[-1]
    assert run.method == "mbleu"
    rows = list(csv.DictReader(io.StringIO(annotations_to_csv(annotated_pairs(store, dataset.id, run.id)))))
    assert [r["pair_id"] for r in rows] == pair_ids and rows[0]["tags"] == "negation;syntax"
    # Columns by task instead of outcome.
    at.radio(key="errors_by").set_value("task").run()
    pivot = next(d.value for d in at.dataframe if "tag" in d.value.columns and "total" in d.value.columns)
    assert {"CD", "IE", "total"} <= set(pivot.columns)


def test_errors_page_taxonomy_editor(store_path: Path) -> None:
    at = start(ERRORS)
    at.text_input(key="taxonomy_new").input("Coreference")
    button(at, "Add tag").click().run()
    assert not at.exception, at.exception
    assert "coreference" in [t.name for t in Store(store_path).tags()]
    at.selectbox(key="taxonomy_pick").set_value("coreference")
    at.text_input(key="taxonomy_rename").input("anaphora")
    button(at, "Rename").click().run()
    assert "anaphora" in [t.name for t in Store(store_path).tags()]


def test_compare_page_scatter_and_table(store_path: Path) -> None:
    at = start(COMPARE)
    assert at.title[0].value == "Compare"
    assert at.get("plotly_chart")
    table = next(d.value for d in at.dataframe if "agreement" in d.value.columns)
    assert len(table) == 56
    at.radio(key="compare_show").set_value("disagreements only").run()
    table = next(d.value for d in at.dataframe if "agreement" in d.value.columns)
    assert table["agreement"].str.startswith("only").all()


def test_counterfactual_tab_shows_each_scores_change(store_path: Path) -> None:
    at = start()
    assert not [t for t in at.text_area if t.label == "Edited hypothesis"]  # off until asked for
    next(t for t in at.toggle if t.label == "Edit a copy of this pair").set_value(True).run()
    areas = [t for t in at.text_area if t.label == "Edited hypothesis"]
    original = areas[0].value
    areas[0].input(original + " not").run()
    assert not at.exception, at.exception
    changes = next(d.value for d in at.dataframe if "change" in d.value.columns)
    assert set(changes.columns) >= {"method", "original", "edited", "change"}
    assert len(changes) >= 3
    assert (changes["edited"] - changes["original"] - changes["change"]).abs().max() < 1e-9



def test_a_stored_rewrite_of_the_pair_seeds_the_edited_copy(store_path: Path) -> None:
    """A what-if rewrite kept in the store (the Groups page's) opens as the edited copy."""
    from explorer.datasets import load
    from explorer.groups.rewrites import get_rule, rewrite_pair

    data = load(Path(APP).parent / "sample_data" / "typical.xml")
    first = data.pairs[0]
    rewritten = rewrite_pair(get_rule("swap"), first)
    assert rewritten is not None
    store = Store(store_path)
    store.add_counterfactuals(store.add_dataset(data), "swap", [(first.id, rewritten)])
    at = start()
    pick = next(s for s in at.selectbox if s.label.startswith("Stored what-if rewrites"))
    assert pick.options == ["swap"]
    next(b for b in at.button if b.label == "Edit a copy from it").click().run()
    assert not at.exception, at.exception
    assert next(t for t in at.text_area if t.label == "Edited hypothesis").value == rewritten.hypothesis
    changes = next(d.value for d in at.dataframe if "change" in d.value.columns)
    assert len(changes) >= 3


def test_alignment_editor_toggles_links_scores_and_saves(store_path: Path) -> None:
    from components import state
    from components.data import LoadedDataset
    from components.sections.alignment_editor import GOLD
    from explorer.datasets import Dataset
    from explorer.pairs import Pair

    text, hypothesis = ("Ann", "saw", "a", "red", "kite", "."), ("Ann", "saw", "a", "kite", ".")
    gold = Alignment.from_links(6, 5, {(0, 0), (1, 1), (2, 2), (4, 3), (5, 4)})
    pair = Pair("a1", " ".join(text), " ".join(hypothesis), label="entailment", source="test",
                text_tokens=text, hypothesis_tokens=hypothesis, gold_alignment=gold)
    at = start()
    at.session_state[state.DATASET.key] = LoadedDataset(Dataset("aligned", "test", (pair,)), "aligned-test", "test")
    at.run()
    next(t for t in at.toggle if t.label == "Edit this pair's alignment").set_value(True).run()
    assert not at.exception, at.exception
    assert next(s for s in at.selectbox if s.label == "Start from").value == GOLD
    f1 = next(m for m in at.metric if m.label == "F1 against gold")
    assert f1.value == "1.000"
    # Remove the kite link: recall drops to 4/5.
    next(s for s in at.selectbox if s.label == "Text token").set_value(4)
    next(s for s in at.selectbox if s.label == "Hypothesis token").set_value(3)
    button(at, "Add / remove link").click().run()
    assert next(m for m in at.metric if m.label == "Precision / recall").value == "1.00 / 0.80"
    assert next(m for m in at.metric if m.label == "F1 against gold").value == "0.889"
    # A click on the grid (a selection event on the chart drawn last) puts the link back, once.
    editor = state.alignment_editor("align_edit_aligned-test_a1")
    version = at.session_state[editor.key].version
    at.session_state[f"align_edit_aligned-test_a1_grid_{version}"] = {"selection": {"points": [{"x": 4, "y": 3}]}}
    at.run()
    assert not at.exception, at.exception
    assert editor.key in at.session_state and at.session_state[editor.key].version == version + 1
    assert next(m for m in at.metric if m.label == "F1 against gold").value == "1.000"
    at.run()  # the old event is not applied again
    assert next(m for m in at.metric if m.label == "F1 against gold").value == "1.000"
    next(s for s in at.selectbox if s.label == "Text token").set_value(4)
    next(s for s in at.selectbox if s.label == "Hypothesis token").set_value(3)
    button(at, "Add / remove link").click().run()
    assert next(m for m in at.metric if m.label == "F1 against gold").value == "0.889"
    # MANLI scores the edited alignment and says what it decides, after every edit.
    assert any("MANLI on this alignment" in m.value for m in at.markdown), [m.value for m in at.markdown]
    assert button(at, "Save as corrected alignment").disabled  # nobody named yet
    next(t for t in at.text_input if t.label == "Annotator").input("ann").run()
    button(at, "Save as corrected alignment").click().run()
    assert not at.exception, at.exception
    store = Store(store_path)
    (dataset,) = [d for d in store.datasets() if d.name == "aligned"]
    record = store.gold_alignment(dataset.id, "a1")
    assert record is not None and record.alignment.sure == gold.sure - {(4, 3)}
    assert record.text_tokens == text


@pytest.fixture
def two_fake_aligners(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import aligners

    class Result:
        def __init__(self, alignment: Alignment) -> None:
            self.alignment, self.value = alignment, 0.0

    class Diagonal:
        name = "diagonal"

        def align(self, pair):  # type: ignore[no-untyped-def]
            n, m = len(pair.text.tokens), len(pair.hypothesis.tokens)
            return Result(Alignment.from_links(n, m, {(i, i) for i in range(min(n, m))}))

    class Nothing:
        name = "nothing"

        def align(self, pair):  # type: ignore[no-untyped-def]
            return Result(Alignment(len(pair.text.tokens), len(pair.hypothesis.tokens)))

    from explorer.api import Registry

    fake = Registry("aligner", [
        aligners.AlignerInfo("diagonal", "Diagonal", "token i to token i", Diagonal),
        aligners.AlignerInfo("nothing", "Nothing", "no links", Nothing),
    ])
    monkeypatch.setattr(aligners, "ALIGNERS", fake)


def test_compare_page_aligners_per_problem_f1(store_path: Path, two_fake_aligners: None) -> None:
    from components import state
    from components.data import LoadedDataset
    from explorer.datasets import Dataset
    from explorer.pairs import Pair

    pairs = tuple(
        Pair(str(i), " ".join(words[0]), " ".join(words[1]), label="entailment",
             text_tokens=words[0], hypothesis_tokens=words[1],
             gold_alignment=Alignment.from_links(len(words[0]), len(words[1]), gold))
        for i, (words, gold) in enumerate([
            ((("Ann", "ran", "."), ("Ann", "ran", ".")), {(0, 0), (1, 1), (2, 2)}),
            ((("Bo", "sat", "down"), ("Bo", "sat")), {(0, 0), (1, 1)}),
        ], start=1)
    )
    at = start(COMPARE)
    at.session_state[state.DATASET.key] = LoadedDataset(Dataset("gold", "test", pairs), "gold-test", "test")
    at.run()
    button(at, "Align the 2 pairs with both").click().run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "second - first" in d.value.columns)
    assert list(table["second - first"]) == [-1.0, -1.0]
    assert list(table["F1 Diagonal"]) == [1.0, 1.0]


def test_errors_page_without_a_scorer_counts_tags_only(store_path: Path) -> None:
    at = start(ERRORS)
    store = Store(store_path)
    (dataset,) = store.datasets()
    store.tag_pairs(dataset.id, ["1", "2"], ["syntax"], author="test")
    at.selectbox(key="errors_scorer").set_value("(no scorer: count tags only)").run()
    assert not at.exception, at.exception
    pivot = next(d.value for d in at.dataframe if "tag" in d.value.columns and "total" in d.value.columns)
    assert list(pivot.columns) == ["tag", "no decision", "total"]
    assert pivot[pivot["tag"] == "syntax"].iloc[0]["total"] == 2


def test_a_failing_aligner_start_is_a_warning(store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import aligners

    class Broken:
        name = "broken"

        def align(self, pair):  # type: ignore[no-untyped-def]
            raise RuntimeError("deliberately broken")

    from explorer.api import Registry

    monkeypatch.setattr(aligners, "ALIGNERS",
                        Registry("aligner", [aligners.AlignerInfo("broken", "Broken", "fails", Broken)]))
    at = start()
    next(t for t in at.toggle if t.label == "Edit this pair's alignment").set_value(True).run()
    next(s for s in at.selectbox if s.label == "Start from").set_value("broken").run()
    assert not at.exception, at.exception
    assert any("deliberately broken" in w.value for w in at.warning)
    assert next(m for m in at.metric if m.label == "Links").value == "0"


def test_a_note_is_bounded_and_an_old_long_one_is_shown_cut(store_path: Path) -> None:
    from explorer.store import MAX_NOTE_CHARS

    at = start()
    next(t for t in at.text_input if t.label == "Annotator").input("ann")
    box = next(t for t in at.text_input if t.label == "Add a note")
    assert box.max_chars == MAX_NOTE_CHARS  # the browser's box stops there
    box.set_value("x" * (MAX_NOTE_CHARS * 5))  # a client of its own sends more
    button(at, "Save annotation").click().run()
    assert not at.exception, at.exception
    store = Store(store_path)
    (dataset,) = store.datasets()
    (note,) = store.notes(dataset.id)
    assert len(note.body) == MAX_NOTE_CHARS
    # a note written before the limit (straight into the file) reaches the page cut at the limit
    with sqlite3.connect(store_path) as conn:
        conn.execute("UPDATE notes SET body = ? WHERE id = ?", ("y" * 1_000_000, note.id))
    again = start()
    shown = [md.value for md in again.markdown if "ann" in md.value and "yyy" in md.value]
    assert shown and all(len(v) < MAX_NOTE_CHARS + 200 for v in shown), [len(v) for v in shown]
    assert "998,000 more characters" in shown[0]


def test_notes_are_shown_as_text_not_markdown(store_path: Path) -> None:
    """One annotator's note can never make another's browser fetch a URL."""
    at = start()
    next(t for t in at.text_input if t.label == "Annotator").input("mallory")
    hostile = "see ![x](http://example.invalid/track.png) [link](http://example.invalid)"
    next(t for t in at.text_input if t.label == "Add a note").input(hostile)
    button(at, "Save annotation").click().run()
    assert not at.exception, at.exception
    again = start()  # another browser session
    shown = [md.value for md in again.markdown if "mallory" in md.value]
    assert shown, "the note is listed"
    # no image or link can open: every "!", "[" and "]" of the note is escaped
    assert all(not re.search(r"(?<!\\)!\[|(?<!\\)\]\(", v) for v in shown)
