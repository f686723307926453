"""Words from a file reach every page as plain text: a dataset whose ids, tasks, sentences,
notes and file name all carry Markdown, HTML, LaTeX, emoji shortcodes, colour directives
and bare URLs is opened on every page (and as a batch result), and no string the page
hands Streamlit to render as Markdown, HTML or a Plotly label holds any of it unescaped.

AppTest sees what the script sends, not the browser's DOM: which strings Streamlit renders
as Markdown is listed in :data:`PLAIN_FIELDS` (the rest of every element's text is
checked), and tests/e2e/test_plain_text.py checks the drawn pages in Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state
from components.data import load_uploaded
from components.text import plain
from tests.app.test_batch_results import build_result
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)
PAGES = ["components/pages/pair.py", "components/pages/dataset.py", "components/pages/evaluate.py",
         "components/pages/errors.py", "components/pages/compare.py", "components/pages/mtmetrics.py",
         "components/pages/aligners.py", "components/pages/teach.py"]

#: Markup of every kind a renderer might act on (short: ids and tasks hold 200 characters).
MARKUP = ("![i](http://127.0.0.1:9/i.png)[l](javascript:alert(1))<img src=http://127.0.0.1:9/t.png>"
          "<script>window.pwned=1</script><b>B</b>:red[x] $x^2$ :smile: www.example.com **b**")
#: Sentences and notes may be longer: a link tag and a mail address too.
LONG_MARKUP = MARKUP + ' <a href="http://127.0.0.1:9/a">a</a> ann@example.com _u_'
#: A browser never sends a path in a file name, so no slash here.
NAME = "![f](f.png)<img src=g.png>:red[n]$n$ www.example.com.jsonl"
#: What must never reach a Markdown renderer as written (plain() escapes or breaks each).
RAW = ("![", "](", "<img", "<script", "<b>", "<a ", ":red[", "$x", "$n", ":smile:", "www.", "**b**",
       "n@example", "_u_")
#: What must never reach an HTML or Plotly renderer as written (the data's own tags: the
#: pages' figures bold their hover labels themselves).
RAW_TAGS = ("<img src", "<script>", '<a href="http://127.0.0.1:9')

#: A pair short enough for the Teach page (30 tokens a side) whose tokens the file gives
#: (Edinburgh++ splits on white space only): a tag survives as one token, two tokens make a
#: link in a BLEU n-gram's label, and a quote must show as typed (Plotly does not decode
#: ``&quot;``).
TEACH_TEXT = 'Ann <a href="http://127.0.0.1:9/a">sold</a> "her" <b>red</b> car ![i](http://127.0.0.1:9/i.png) :red[x]'
TEACH_HYPOTHESIS = 'Ann <a href="http://127.0.0.1:9/a">sold</a> a <b>red</b> car'
#: What the Teach figures must not hold: the file's own tags, and a quote as an entity.
TEACH_RAW = ('<a href="http://127.0.0.1:9', "<b>red", "&quot;")

#: (element type, field) whose strings Streamlit shows as plain text, never Markdown: the
#: options of a select box (the label is Markdown), what is typed in a text box, st.text,
#: st.code, a dataframe's cells, and the element's own machinery (ids, keys, URLs).
PLAIN_FIELDS = {
    ("selectbox", "options"), ("selectbox", "raw_value"), ("selectbox", "default"), ("selectbox", "value"),
    ("multiselect", "options"), ("multiselect", "raw_values"), ("multiselect", "default"),
    ("multiselect", "value"), ("text_area", "value"), ("text_area", "default"), ("text_input", "value"),
    ("text_input", "default"), ("text", "body"), ("code", "code_text"),
}
_INTERNAL = {"id", "form_id", "key", "url", "spec", "arrow_data", "data", "columns", "theme", "selection_mode",
             "column_order", "deploy_params", "element_id", "placeholder"}


def hostile_jsonl() -> bytes:
    rows = [{"id": f"{i}{MARKUP}", "task": f"t{i % 2}{MARKUP}", "text": f"Ann sold her red car on Monday. {LONG_MARKUP}",
             "hypothesis": f"Ann sold a car. {LONG_MARKUP}", "label": ("entailment", "non-entailment")[i % 2],
             "note": f"What to see {LONG_MARKUP}"} for i in range(4)]
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


def hostile_teach_json() -> bytes:
    """An Edinburgh++ file of one short pair (:data:`TEACH_TEXT`, :data:`TEACH_HYPOTHESIS`)."""
    record = {"id": f"t1{MARKUP}", "source": TEACH_TEXT, "target": TEACH_HYPOTHESIS, "sureAlign": "0-0 1-1 2-2",
              "possibleAlign": ""}
    return json.dumps([record]).encode()


def raw(text: str) -> bool:
    """Whether ``text`` holds one of :data:`RAW` not escaped by a backslash."""
    return any(re.search(r"(?<!\\)" + re.escape(marker), text) for marker in RAW)


def _strings(message: object, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every (field, string) of a protobuf message, nested messages included."""
    for field, value in message.ListFields():  # type: ignore[attr-defined]
        repeated = isinstance(value, Iterable) and not isinstance(value, str | bytes) and not hasattr(value, "ListFields")
        values = value if repeated else [value]
        for item in values:
            if isinstance(item, str):
                yield field.name, item
            elif hasattr(item, "ListFields"):
                yield from _strings(item, field.name)


def _nodes(node: object) -> Iterator[object]:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _nodes(child)


def offenders(at: AppTest) -> list[tuple[str, str, str]]:
    """(element type, field, text) of every string that reaches a renderer unescaped."""
    found = []
    for node in _nodes(at._tree):
        kind, proto = getattr(node, "type", ""), getattr(node, "proto", None)
        if proto is None:
            continue
        if kind == "table":  # st.table renders Markdown in its cells and headers
            frame = node.value  # type: ignore[attr-defined]
            cells = [str(c) for c in frame.columns] + [v for v in frame.to_numpy().ravel() if isinstance(v, str)]
            found += [(kind, "cell", c[:160]) for c in cells if raw(c)]
        for field, text in _strings(proto):
            if kind == "bidi_component" and field == "json" and _step_player(node):
                found += _step_player_offenders(json.loads(text))
            elif kind == "plotly_chart" and field == "spec":
                found += [(kind, f"spec {where}", s) for where, s in _figure_strings(json.loads(text))
                          if any(tag in s for tag in RAW_TAGS)]
            elif kind == "html" and field == "body":
                found += [(kind, field, text)] if any(tag in text for tag in RAW_TAGS) else []
            elif (kind, field) not in PLAIN_FIELDS and field not in _INTERNAL and raw(text):
                found.append((kind, field, text[:160]))
    return found


def _step_player(node: object) -> bool:
    """The Teach page's step player: it sets every sentence and caption with textContent
    (checked here in its script) and hands the figures to plotly.js."""
    proto = node.proto  # type: ignore[attr-defined]
    if proto.component_name != "teach_step_player":
        return False
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", proto.js_content)
    return True


def _step_player_offenders(data: dict[str, object]) -> list[tuple[str, str, str]]:
    """The figures of a lesson (and their shared layouts) with a file's markup unescaped."""
    figures = [step["figure"] for step in data["steps"]] + [data["layouts"]]  # type: ignore[attr-defined, index]
    return [("step player", f"figure {where}", s) for where, s in _figure_strings(figures)
            if any(tag in s for tag in RAW_TAGS + TEACH_RAW)]


def _figure_strings(value: object, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _figure_strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _figure_strings(item, where)


def check(at: AppTest, where: str) -> None:
    assert not at.exception, (where, at.exception)
    bad = offenders(at)
    assert not bad, (where, bad)


@pytest.fixture(scope="module")
def hostile() -> object:
    return load_uploaded(hostile_jsonl(), NAME)


def test_plain_neutralises_every_kind_of_markup() -> None:
    text = plain(LONG_MARKUP + " " + NAME + " # heading | a | b | ~~s~~ `code` 1. x - y + z > q")
    assert not raw(text)
    assert plain("- item").startswith("\\-") and plain("12. x").startswith("12\\.")
    for made in ("#", "|", "~~", "`", ">"):
        assert made not in text.replace("\\" + made[0], "")


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_a_hostile_dataset_is_plain_text_on_every_page(hostile: object, page: str) -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[state.DATASET.key] = hostile
    at.run()
    at.switch_page(page).run()
    check(at, page)


@pytest.mark.slow
def test_every_method_tab_of_a_hostile_pair_is_plain_text(hostile: object) -> None:
    """Every method tab is drawn in the one run (tabs switch in the browser)."""
    from components.panels import PANELS

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[state.DATASET.key] = hostile
    at.run()
    assert {tab.label for tab in at.tabs} >= {panel.label for panel in PANELS.values()}
    check(at, "Pair page, every method tab")


@pytest.mark.slow
@pytest.mark.parametrize("page", ["components/pages/dataset.py", "components/pages/evaluate.py",
                                  "components/pages/compare.py", "components/pages/errors.py"])
def test_a_hostile_batch_result_is_plain_text(tmp_path_factory: pytest.TempPathFactory, page: str) -> None:
    folder = tmp_path_factory.mktemp("hostile-batch")
    source = folder / NAME
    source.write_bytes(hostile_jsonl())
    result = build_result(source, folder / "out", chunk_size=2)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[state.BATCH_DIR.key] = str(result)
    at.run()
    at.switch_page(page).run()
    check(at, f"batch result on {page}")


def _opened(hostile: object, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[state.DATASET.key] = hostile
    at.run()
    at.switch_page(page).run()
    return at


@pytest.mark.slow
def test_views_behind_a_choice_are_plain_text_too(hostile: object) -> None:
    upload = (NAME, hostile_jsonl(), "application/json")
    at = _opened(hostile, "components/pages/teach.py")
    at.radio(key="teach_source").set_value("A pair from the dataset").run()
    check(at, "Teach, a pair from the dataset")
    at = _opened(hostile, "components/pages/evaluate.py")
    at.selectbox(key="evaluate_dev").set_value("an uploaded file").run()
    at.file_uploader(key="evaluate_dev_upload").set_value(upload).run()
    check(at, "Evaluate, the file as its own development set")
    at = _opened(hostile, "components/pages/mtmetrics.py")
    at.selectbox(key="mtmetrics_test").set_value("an uploaded file").run()
    at.file_uploader(key="mtmetrics_test_upload").set_value(upload).run()
    check(at, "MT metrics, the file as the test set")
    at = _opened(hostile, "components/pages/dataset.py")
    at.radio(key="dataset_source").set_value("Upload a file").run()
    at.file_uploader(key="dataset_upload").set_value((NAME, b"1\ta\n", "text/plain")).run()
    check(at, "Dataset, a refused upload named with markup")


@pytest.mark.slow
def test_every_teach_lesson_of_a_hostile_pair_is_plain_text() -> None:
    from components.teach_methods import TEACH_METHODS

    teach = load_uploaded(hostile_teach_json(), NAME.replace(".jsonl", ".json"))
    assert teach.dataset.pairs[0].text_tokens == tuple(TEACH_TEXT.split())
    at = _opened(teach, "components/pages/teach.py")
    at.radio(key="teach_source").set_value("A pair from the dataset").run()
    for name in TEACH_METHODS:
        at.radio(key="teach_method").set_value(name).run()
        players = [n for n in _nodes(at._tree) if getattr(n, "type", "") == "bidi_component"]
        assert len(players) == 1 and _step_player(players[0]), name  # a lesson is drawn, not refused
        check(at, f"Teach, {name} on a pair from the dataset")


@pytest.mark.slow
def test_annotations_of_a_hostile_pair_are_plain_text(hostile: object) -> None:
    from components.store_access import get_store, store_dataset_id

    store = get_store()
    dataset_id = store_dataset_id(hostile)  # type: ignore[arg-type]
    first = hostile.dataset.pairs[0].id  # type: ignore[attr-defined]
    store.add_tag("markup-tag", MARKUP[:100])
    store.set_pair_tags(dataset_id, first, ["markup-tag"], author=MARKUP[:40])
    store.add_note(dataset_id, first, LONG_MARKUP, author=MARKUP[:40])
    at = _opened(hostile, "components/pages/errors.py")
    check(at, "Errors, a tagged and noted pair")
    at = _opened(hostile, "components/pages/pair.py")
    check(at, "Pair, its tags and notes")
