"""The server log's filter: a closed browser tab's failed send is dropped, every other
record (a real error included) is kept."""

from __future__ import annotations

import logging
import sys

import pytest

from runtime.server_log import ClosedConnectionFilter, closed_connection, install


def record(error: BaseException | None) -> logging.LogRecord:
    info = None
    if error is not None:
        try:
            raise error
        except BaseException:
            info = sys.exc_info()
    return logging.LogRecord("streamlit.web.server.starlette.starlette_websocket", logging.ERROR, __file__, 1,
                             "Error sending websocket payload", (), info)


def named(name: str, base: type[BaseException] = Exception) -> type[BaseException]:
    """A stand-in for a web server's exception class (matched by name, not imported)."""
    return type(name, (base,), {})


@pytest.mark.parametrize("error", [
    named("WebSocketClosedError")(), named("StreamClosedError")(), named("WebSocketDisconnect")(),
    named("ClientDisconnected", OSError)(), ConnectionResetError(), BrokenPipeError(),
    type("ConnectionClosedOK", (named("ConnectionClosed"),), {})(),  # a subclass of a closed connection
], ids=lambda e: type(e).__name__)
def test_a_closed_connection_is_dropped(error: BaseException) -> None:
    assert closed_connection(error)
    assert not ClosedConnectionFilter().filter(record(error))


def test_one_raised_from_a_closed_connection_is_dropped_too() -> None:
    try:
        try:
            raise named("ConnectionClosedError")()
        except Exception as inner:
            raise named("ClientDisconnected", OSError)() from inner
    except Exception as outer:
        assert closed_connection(outer)


@pytest.mark.parametrize("error", [None, ValueError("a real bug"), RuntimeError("boom"), KeyError("x"),
                                   OSError("disk full")], ids=repr)
def test_everything_else_is_kept(error: BaseException | None) -> None:
    assert ClosedConnectionFilter().filter(record(error))


def test_install_is_idempotent_and_covers_the_websocket_logger() -> None:
    install()
    install()
    logger = logging.getLogger("streamlit.web.server.starlette.starlette_websocket")
    assert sum(isinstance(f, ClosedConnectionFilter) for f in logger.filters) == 1
