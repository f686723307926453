"""Every request for upload URLs answered, even when a run of the page starts meanwhile.

A browser's file uploader first asks the server for the file's URLs over the websocket (a
``file_urls_request``), waits for the answer (a ``file_urls_response`` with the same id),
then PUTs the file. Streamlit puts the answer in the session's outgoing queue, which its
runtime loop sends a few milliseconds later. When a full run of the page starts in those
milliseconds (the Pair page's own ``st.rerun`` for its figures, a widget's rerun), the
session clears that queue of everything but a run's lifecycle messages
(``ForwardMsgQueue.clear(retain_lifecycle_msgs=True)``), the answer with the rest: the
uploader then waits for it forever (a Pair page asked for upload URLs every 3 ms lost 8 of
115 answers around its rerun). :func:`install` keeps the answers through that clear; they
belong to no run, so no run's clear should drop them.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

ANSWER = "file_urls_response"
_INSTALL_LOCK = threading.Lock()


def keeping_answers(clear: Callable[..., None]) -> Callable[..., None]:
    """``ForwardMsgQueue.clear`` that keeps the queue's upload-URL answers when it keeps a
    run's lifecycle messages (what a starting run asks for); a flush still empties it."""

    @functools.wraps(clear)
    def clear_keeping_answers(queue: Any, retain_lifecycle_msgs: bool = False,
                              fragment_ids_this_run: list[str] | None = None) -> None:
        answers = [msg for msg in queue._queue if msg.WhichOneof("type") == ANSWER] if retain_lifecycle_msgs else []
        clear(queue, retain_lifecycle_msgs, fragment_ids_this_run)
        kept = {id(msg) for msg in queue._queue}  # a fragment's run keeps them already
        queue._queue.extend(msg for msg in answers if id(msg) not in kept)

    clear_keeping_answers.keeps_answers = True  # type: ignore[attr-defined]
    return clear_keeping_answers


def install() -> bool:
    """Keep upload-URL answers through the clear a starting run makes (once per process;
    only in a served app: without a runtime, e.g. under AppTest, nothing changes). Returns
    whether this process's queues keep them."""
    from streamlit import runtime
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    with _INSTALL_LOCK:
        if not runtime.exists():
            return False
        if not getattr(ForwardMsgQueue.clear, "keeps_answers", False):
            ForwardMsgQueue.clear = keeping_answers(ForwardMsgQueue.clear)  # type: ignore[method-assign]
        return True
