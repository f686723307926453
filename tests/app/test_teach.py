"""The Teach page under AppTest: what it sends the browser's step player (every step of
every method, once), where the player starts (``?step=``, a new lesson at step 1), the
pair and method a link names, the presentation layout, and a long pair refused with the
limit named. Stepping itself happens in the browser: tests/e2e/test_teach.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from components.pages.teach import EXAMPLE
from components.sections.step_player import STEP_PARAM
from components.teach_methods import TEACH_METHODS, lesson, trace_of, verdict
from explorer.preprocess import analyze_pair, make_pair
from explorer.teaching import TEACHING_MAX_TOKENS
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TEACH = "components/pages/teach.py"


def open_teach(params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=DEADLINE).run()
    at.switch_page(TEACH)
    if params:
        at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def player(at: AppTest) -> dict[str, Any]:
    """What the page sent the step player (its JSON data)."""
    found = at.get("bidi_component")
    assert len(found) == 1, "one step player on the page"
    assert found[0].proto.component_name == "teach_step_player"
    data: dict[str, Any] = json.loads(found[0].proto.json)
    return data


def test_every_method_sends_each_step_once_with_its_sentence() -> None:
    at = open_teach()
    pair = analyze_pair(make_pair(*EXAMPLE))
    seen = set()
    for method, row in TEACH_METHODS.items():
        at.radio(key="teach_method").set_value(method).run()
        assert not at.exception, (method, at.exception)
        data = player(at)
        trace = trace_of(method, None, pair)
        shown = lesson(method, trace, large=False, closing=verdict(method, None, pair))
        assert [s["sentence"] for s in data["steps"]] == [s["sentence"] for s in shown], method
        assert data["steps"][-1]["sentence"].split(". Verdict: ")[0] in " ".join(s.explain for s in trace.steps)
        assert data["step"] == 1 and len(data["steps"]) > 2, method
        for step in data["steps"]:  # each figure's layout is one of the shared ones
            assert 0 <= step["figure"]["layout"] < len(data["layouts"]) and step["caption"], method
        assert data["plotly"] and data["plotly"].startswith("PlotlyChart."), "the chunk that carries plotly.js"
        assert not at.get("plotly_chart")  # the figures are the player's, drawn in the browser
        seen.add(data["id"])
        assert row.label in at.radio(key="teach_method").options
    assert len(seen) == len(TEACH_METHODS)  # each lesson has its own id: the browser starts it afresh


def test_a_link_opens_its_step_and_a_new_lesson_starts_at_the_first() -> None:
    at = open_teach({"teach_method": TEACH_METHODS["wer"].label, STEP_PARAM: "5"})
    data = player(at)
    assert data["step"] == 5 and data["param"] == STEP_PARAM
    at.toggle(key="presentation").set_value(True).run()  # the same lesson, larger: the same step
    assert player(at)["step"] == 5 and player(at)["id"] == data["id"] and player(at)["large"]
    at.radio(key="teach_method").set_value("manli").run()
    assert player(at)["step"] == 1
    assert STEP_PARAM not in at.query_params
    for asked, opened in (("0", 1), ("-3", 1), ("x", 1), ("9999", len(data["steps"]))):
        assert player(open_teach({"teach_method": TEACH_METHODS["wer"].label, STEP_PARAM: asked}))["step"] == opened


def test_a_rerun_of_the_same_lesson_sends_the_same_element() -> None:
    """The browser steps (?step= follows) and the page reruns: the player's element is
    sent unchanged, so Streamlit sends a reference to the browser's copy, not the lesson."""
    at = open_teach({"teach_method": TEACH_METHODS["wer"].label})
    first = at.get("bidi_component")[0].proto.SerializeToString(deterministic=True)
    at.query_params[STEP_PARAM] = "4"  # where the browser stepped to
    at.run()
    assert at.get("bidi_component")[0].proto.SerializeToString(deterministic=True) == first
    assert player(at)["step"] == 1  # the browser keeps its own step for this lesson


def test_an_option_change_is_another_lesson_named_in_display_names() -> None:
    at = open_teach({"teach_method": TEACH_METHODS["edit"].label})
    first = player(at)
    assert first["steps"][0]["caption"].startswith("pPDA edit lattice")
    at.selectbox(key="teach_option_edit").set_value("pfsm").run()
    second = player(at)
    assert second["id"] != first["id"] and second["steps"][0]["caption"].startswith("pFSM edit lattice")
    assert "pFSM" in second["steps"][0]["sentence"] and "pfsm" not in second["steps"][0]["sentence"]


def test_presentation_layout_from_a_link_with_a_typed_pair() -> None:
    text, hypothesis = "Ola was reading in the garden.", "Ola is reading."
    at = open_teach({"teach_method": TEACH_METHODS["itg"].label, "presentation": "true",
                     "teach_text": text, "teach_hypothesis": hypothesis})
    assert at.radio(key="teach_method").value == "itg"
    assert at.toggle(key="presentation").value is True and not at.title  # no page furniture
    data = player(at)
    assert data["large"] and data["fit"]  # large type, the figure fitted to the screen
    assert data["pair"] == {"text": text, "hypothesis": hypothesis}
    analyzed = analyze_pair(make_pair(text, hypothesis))
    assert [s["sentence"] for s in data["steps"]] == [s["sentence"] for s in lesson(
        "itg", trace_of("itg", None, analyzed), large=True, closing=verdict("itg", None, analyzed))]


def test_a_dataset_pair_is_named_in_the_url() -> None:
    at = open_teach()
    at.radio(key="teach_source").set_value("A pair from the dataset").run()
    assert not at.exception, at.exception
    box = at.selectbox(key="teach_pair")
    chosen = box.options[3].split(" — ")[0]
    box.set_value(chosen).run()
    assert not at.exception, at.exception
    assert at.query_params["pair"] == [chosen] or at.query_params["pair"] == chosen
    data = player(at)
    assert data["pair"]["hypothesis"].startswith(box.options[3].split(" — ")[1].rstrip("."))


def test_teach_page_refuses_a_long_pair_with_the_limit() -> None:
    at = open_teach()
    at.text_input(key="teach_text").set_value(" ".join(["word"] * (TEACHING_MAX_TOKENS + 5))).run()
    assert not at.exception, at.exception
    assert any(f"at most {TEACHING_MAX_TOKENS} tokens" in w.value for w in at.warning)
    assert not at.get("bidi_component")


def test_a_link_names_a_dataset_pair() -> None:
    at = open_teach({"teach_source": "A pair from the dataset", "pair": "5", STEP_PARAM: "3"})
    assert at.radio(key="teach_source").value == "A pair from the dataset"
    assert at.selectbox(key="teach_pair").value == "5"
    data = player(at)
    assert data["step"] == 3
    label = next(o for o in at.selectbox(key="teach_pair").options if o.startswith("5 — "))
    assert label.removeprefix("5 — ")[:40] == data["pair"]["hypothesis"][:40]


def test_a_deck_collects_lessons_for_one_file() -> None:
    from components.lesson_export import deck_file

    at = open_teach()
    assert at.get("download_button"), "this lesson's download"
    at.radio(key="teach_method").set_value("wer").run()
    at.button(key="teach_deck_add").click().run()
    at.radio(key="teach_method").set_value("bleu").run()
    at.button(key="teach_deck_add").click().run()
    assert not at.exception, at.exception
    assert at.button(key="teach_deck_add").disabled  # this lesson is in the deck already
    deck = at.session_state["teach_deck"]
    assert [item.method for item in deck] == ["wer", "bleu"] and all(i.where == "a typed pair" for i in deck)
    assert any("Deck: Word error rate" in c.value for c in at.caption)
    data = json.loads(deck_file(deck).split('id="lesson-data">')[1].split("</script>")[0])
    assert [lesson["title"].split(" on ")[0] for lesson in data["lessons"]] == [
        "Word error rate (WER)", "BLEU / modified BLEU (modified BLEU)"]
    assert data["steps"][0]["chapter"] == "Filling the table"
    at.button(key="teach_deck_clear").click().run()
    assert not at.session_state["teach_deck"]


def long_pair_dataset() -> Any:
    """Three short pairs and one whose text is past the teaching limit, as an upload."""
    from components.data import load_uploaded

    long_text = " ".join(f"Lamp {i} glowed." for i in range(TEACHING_MAX_TOKENS // 3 + 4))
    rows = ["id,text,hypothesis,label",
            "s1,The kettle in the hut was still warm.,The kettle was warm.,entailment",
            f"far,{long_text},A lamp glowed.,entailment",
            "s2,Tove rowed the boat across the lake.,Tove swam across the lake.,non-entailment",
            "s3,The market opens at dawn on Fridays.,The market opens on Fridays.,entailment"]
    return load_uploaded(("\n".join(rows) + "\n").encode(), "lamps.csv")


def test_the_picker_marks_a_pair_past_the_limit_and_can_hide_it() -> None:
    from components import state

    loaded = long_pair_dataset()
    at = AppTest.from_file(APP, default_timeout=DEADLINE)
    at.session_state[state.DATASET.key] = loaded
    at.run()
    at.switch_page(TEACH)
    at.query_params.update({"teach_source": "A pair from the dataset", "teach_method": TEACH_METHODS["itg"].label})
    at.run()
    assert not at.exception, at.exception
    assert at.toggle(key="teach_only_teachable").value is True  # on by default
    assert [o.split(" — ")[0] for o in at.selectbox(key="teach_pair").options] == ["s1", "s2", "s3"]
    assert any(f"3 of 4 pairs can be taught with {TEACH_METHODS['itg'].label}" in c.value for c in at.caption)
    at.toggle(key="teach_only_teachable").set_value(False).run()
    assert not at.exception, at.exception
    options = at.selectbox(key="teach_pair").options
    assert [o.split(" — ")[0] for o in options] == ["s1", "far", "s2", "s3"]
    marked = [o for o in options if "too long to teach" in o]
    tokens = len(analyze_pair(loaded.dataset.pairs[1]).text)
    assert tokens > TEACHING_MAX_TOKENS
    assert len(marked) == 1 and marked[0].startswith("far — ")
    assert marked[0].endswith(f"too long to teach (text of {tokens} tokens; limit {TEACHING_MAX_TOKENS})")
    at.selectbox(key="teach_pair").set_value("far").run()  # chosen anyway: the lesson refuses it, naming the limit
    assert any(f"at most {TEACHING_MAX_TOKENS} tokens" in w.value for w in at.warning)
    at.toggle(key="teach_only_teachable").set_value(True).run()  # the chosen pair stays, marked
    assert at.selectbox(key="teach_pair").value == "far"
    assert [o.split(" — ")[0] for o in at.selectbox(key="teach_pair").options] == ["s1", "far", "s2", "s3"]


def test_a_link_to_a_pair_the_filter_hides_keeps_it_with_its_mark() -> None:
    from components import state

    at = AppTest.from_file(APP, default_timeout=DEADLINE)
    at.session_state[state.DATASET.key] = long_pair_dataset()
    at.run()
    at.switch_page(TEACH)
    at.query_params.update({"teach_source": "A pair from the dataset", "pair": "far"})
    at.run()
    assert not at.exception, at.exception
    box = at.selectbox(key="teach_pair")
    assert box.value == "far" and at.toggle(key="teach_only_teachable").value is True
    assert any(o.startswith("far — ") and "too long to teach" in o for o in box.options)
    assert at.query_params["pair"] in ("far", ["far"])
    assert not at.get("bidi_component") and any(f"at most {TEACHING_MAX_TOKENS} tokens" in w.value for w in at.warning)
