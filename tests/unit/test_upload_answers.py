"""Answers for upload URLs kept through a starting run's clear of the outgoing queue
(components/upload_answers.py), on Streamlit's own ForwardMsgQueue: Streamlit alone drops
an answer still queued when a run starts (the uploader then waits forever); with the
answers kept, the run's clear still drops the old run's deltas, a fragment's run keeps the
answer once, and a flush still empties the queue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from components import upload_answers


def answer(request_id: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.file_urls_response.response_id = request_id
    return msg


def heading(body: str, index: int) -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = [0, index]
    msg.delta.new_element.heading.body = body
    return msg


def queued(*messages: ForwardMsg) -> ForwardMsgQueue:
    queue = ForwardMsgQueue()
    for msg in messages:
        queue.enqueue(msg)
    return queue


def kinds(queue: ForwardMsgQueue) -> list[str]:
    return [str(msg.WhichOneof("type")) for msg in queue.flush()]


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The answers kept, as a served app's install does; Streamlit's own clear afterwards."""
    from streamlit import runtime

    monkeypatch.setattr(ForwardMsgQueue, "clear", ForwardMsgQueue.clear)  # restored after the test
    monkeypatch.setattr(runtime, "exists", lambda: True)
    assert upload_answers.install()
    yield


def test_streamlit_alone_drops_an_answer_queued_when_a_run_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    # When this fails, Streamlit keeps the answers itself and upload_answers can go.
    own_clear = getattr(ForwardMsgQueue.clear, "__wrapped__", ForwardMsgQueue.clear)
    monkeypatch.setattr(ForwardMsgQueue, "clear", own_clear)
    queue = queued(heading("Pair", 0), answer("r1"))
    queue.clear(retain_lifecycle_msgs=True)
    assert kinds(queue) == []


def test_a_starting_run_keeps_the_answer_and_drops_the_old_run(kept: None) -> None:
    queue = queued(heading("Pair", 0), answer("r1"), heading("Scores", 1))
    queue.clear(retain_lifecycle_msgs=True)  # what a full run's start asks for
    (msg,) = queue.flush()
    assert msg.file_urls_response.response_id == "r1"


def test_a_fragment_run_keeps_the_answer_once(kept: None) -> None:
    queue = queued(answer("r1"), answer("r2"))
    queue.clear(retain_lifecycle_msgs=True, fragment_ids_this_run=["progress"])
    assert [m.file_urls_response.response_id for m in queue.flush()] == ["r1", "r2"]


def test_a_flush_still_empties_the_queue(kept: None) -> None:
    queue = queued(answer("r1"))
    assert kinds(queue) == ["file_urls_response"]
    assert kinds(queue) == []
    queue.enqueue(answer("r2"))
    queue.clear()
    assert kinds(queue) == []


def test_install_is_once_and_nothing_without_a_runtime(kept: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit import runtime

    installed = ForwardMsgQueue.clear
    assert upload_answers.install()
    assert ForwardMsgQueue.clear is installed  # not wrapped twice
    monkeypatch.setattr(runtime, "exists", lambda: False)
    assert not upload_answers.install()
