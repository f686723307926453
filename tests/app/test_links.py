"""Links keep what is on screen: a typed pair, Evaluate's scorers, Dataset's filters, and a
link to data this server lacks says so without rewriting the URL."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)


def param(at: AppTest, name: str) -> str | None:
    value = at.query_params.get(name)
    if isinstance(value, list):
        return value[0] if value else None
    return value


def opened(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_typed_pair_is_in_the_url_and_a_link_reopens_it() -> None:
    at = opened({})
    text, hypothesis = "Noor painted the fence blue before lunch.", "Noor painted a fence."
    at.text_area(key="pair_text").set_value(text)
    at.text_area(key="pair_hypothesis").set_value(hypothesis).run()
    assert not at.exception, at.exception
    # The browser writes a bound box's value into the URL under this name (as Teach's).
    assert at.text_area(key="pair_text").proto.query_param_key == "pair_text"
    assert at.text_area(key="pair_hypothesis").proto.query_param_key == "pair_hypothesis"
    again = opened({"pair_text": text, "pair_hypothesis": hypothesis})
    assert again.text_area(key="pair_text").value == text
    assert again.text_area(key="pair_hypothesis").value == hypothesis
    assert any("Your own pair" in c.value for c in again.caption)


def test_a_dataset_pair_puts_no_text_in_the_url() -> None:
    at = opened({"pair": "3"})
    assert param(at, "pair_text") is None and param(at, "pair_hypothesis") is None


def test_a_pair_too_long_for_a_link_is_not_put_in_it_and_the_page_says_so() -> None:
    at = opened({})
    at.text_area(key="pair_text").set_value("The ferry left the harbour. " * 200).run()
    assert not at.exception, at.exception
    assert param(at, "pair_text") is None and not at.text_area(key="pair_text").proto.query_param_key
    assert any("too long for a link" in c.value for c in at.caption)


def test_a_typed_pair_in_a_link_is_shown_as_text_not_markup() -> None:
    at = opened({"pair_text": "<script>alert(1)</script> **bold**", "pair_hypothesis": "A tag."})
    assert at.text_area(key="pair_text").value == "<script>alert(1)</script> **bold**"
    assert not any("<script>" in m.value for m in at.markdown)


def test_a_link_to_a_dataset_not_here_says_so_and_keeps_the_url() -> None:
    at = opened({"dataset": "rte:nope.xml", "pair": "3"})
    assert param(at, "dataset") == "rte:nope.xml" and param(at, "pair") == "3"
    said = " ".join(w.value for w in at.warning)
    assert "rte:nope.xml" in said and "typical.xml" in said
    assert not [t for t in at.text_area if t.key == "pair_text"]  # pair 3 of another dataset is not shown


def test_a_link_to_an_upload_this_server_no_longer_keeps_says_so() -> None:
    at = opened({"dataset": "upload:fedcba9876543210", "pair": "1"})
    assert param(at, "dataset") == "upload:fedcba9876543210"
    said = " ".join(w.value for w in at.warning)
    assert "upload:fedcba9876543210" in said and "upload the file again" in said


def on_page(path: str, params: dict[str, object]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(path)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def test_evaluate_scorers_are_in_the_url() -> None:
    at = on_page("components/pages/evaluate.py", {"evaluate_scorers": ["BLEU", "Bag-of-words alignment"]})
    box = at.multiselect(key="evaluate_scorers")
    assert box.proto.query_param_key == "evaluate_scorers"
    assert box.value == ["bleu", "bow"]


def test_dataset_filters_are_in_the_url() -> None:
    at = on_page("components/pages/dataset.py", {"filter_search": "bicycle", "filter_outcome": "incorrect"})
    assert at.text_input(key="filter_search").value == "bicycle"
    assert at.text_input(key="filter_search").proto.query_param_key == "filter_search"
    for key in ("filter_gold", "filter_task", "filter_tags"):
        assert at.multiselect(key=key).proto.query_param_key == key
    assert at.selectbox(key="dataset_scorer").proto.query_param_key == "dataset_scorer"
    assert at.radio(key="filter_outcome").value == "incorrect"
    # The table opens a pair from the row's box only: the caption says so, not "click a row".
    assert any("Tick a row's box" in c.value for c in at.caption)


def test_teach_shows_no_pair_of_another_dataset_for_a_link_to_one_not_here() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("components/pages/teach.py")  # a fresh session opened on Teach by the link
    at.query_params.update({"dataset": "rte:nope.xml", "pair": "3", "teach_source": "A pair from the dataset"})
    at.run()
    assert not at.exception, at.exception
    assert any("rte:nope.xml" in w.value for w in at.warning)
    assert not at.get("bidi_component")  # no lesson drawn for pair 3 of the sample
    assert param(at, "dataset") == "rte:nope.xml"
