"""The Teach page under AppTest: every method steps through without an exception, the
buttons move the slider, a long pair is refused with the limit named."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from components import state
from explorer.teaching import METHODS, TEACHING_MAX_TOKENS

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TEACH = "components/pages/teach.py"


def open_teach() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(TEACH).run()
    assert not at.exception, at.exception
    return at


def test_teach_page_steps_through_every_method() -> None:
    at = open_teach()
    for method in METHODS:
        at.radio(key="teach_method").set_value(method).run()
        assert not at.exception, (method, at.exception)
        slider = at.slider(key=state.TEACH_STEP.key)
        assert slider.value == 1
        last = int(slider.max)
        assert last > 2, method
        slider.set_value(last // 2).run()
        assert not at.exception, (method, at.exception)
        at.button(key="teach_next").click().run()
        assert at.slider(key=state.TEACH_STEP.key).value == last // 2 + 1
        at.slider(key=state.TEACH_STEP.key).set_value(last).run()
        assert not at.exception, (method, at.exception)
        assert any(f"Step {last} of {last}" in m.value for m in at.markdown), method
        assert len(at.get("plotly_chart")) == 1  # one figure per screen
        at.button(key="teach_prev").click().run()
        assert at.slider(key=state.TEACH_STEP.key).value == last - 1


def test_teach_page_presentation_layout_and_a_dataset_pair() -> None:
    at = open_teach()
    at.toggle(key="presentation").set_value(True).run()
    assert not at.exception, at.exception
    assert not at.title  # the presentation layout drops the page furniture
    at.radio(key="teach_source").set_value("A pair from the dataset").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="teach_pair").value is not None
    assert at.warning or at.slider(key=state.TEACH_STEP.key).max >= 1


def test_teach_page_refuses_a_long_pair_with_the_limit() -> None:
    at = open_teach()
    at.text_input(key="teach_text").set_value(" ".join(["word"] * (TEACHING_MAX_TOKENS + 5))).run()
    assert not at.exception, at.exception
    assert any(f"at most {TEACHING_MAX_TOKENS} tokens" in w.value for w in at.warning)
    assert not at.get("plotly_chart")


def test_teach_page_player_advances_and_stops_at_the_end() -> None:
    at = open_teach()
    at.toggle(key=state.TEACH_PLAY.key).set_value(True).run()
    assert not at.exception, at.exception
    assert at.slider(key=state.TEACH_STEP.key).value == 2  # each run of the player moves one step
    last = int(at.slider(key=state.TEACH_STEP.key).max)
    at.slider(key=state.TEACH_STEP.key).set_value(last).run()
    at.run()
    assert not at.exception, at.exception
    assert not at.toggle(key=state.TEACH_PLAY.key).value  # stopped at the last step
    assert at.slider(key=state.TEACH_STEP.key).value == last


def test_teach_page_opens_the_method_and_layout_the_url_names() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(TEACH)
    # A bound widget's URL value is its label as shown.
    at.query_params.update({"teach_method": METHODS["itg"], "presentation": "true"})
    at.run()
    assert not at.exception, at.exception
    assert at.radio(key="teach_method").value == "itg"
    assert at.toggle(key="presentation").value is True and not at.title
    # That choosing a method writes it into the URL is the browser's part: tests/e2e checks it.
