"""The server's log without the noise of browser tabs going away.

A tab closed (or a laptop lid shut) while the server is still sending to it makes the web
server log the failed send with a full traceback: dozens of lines in the terminal of the
person running a class, for nothing anyone has to act on. :class:`ClosedConnectionFilter`
drops exactly those records, the ones whose exception (or one it was raised from) means
"the other end has gone" (tornado's ``WebSocketClosedError`` / ``StreamClosedError``,
Starlette's ``WebSocketDisconnect``, uvicorn's ``ClientDisconnected``, the ``websockets``
package's ``ConnectionClosed``, a reset or broken pipe); every other record, real errors
included, is logged as before. Classes are matched by name, so nothing is imported for it.
"""

from __future__ import annotations

import logging

#: Exception classes (by name, anywhere in the class's ancestry) that mean a closed peer.
CLOSED = frozenset({
    "WebSocketClosedError", "StreamClosedError", "WebSocketDisconnect", "ClientDisconnected",
    "ConnectionClosed", "ConnectionResetError", "BrokenPipeError",
})
#: The loggers that report failed sends to a browser.
LOGGERS = (
    "streamlit.web.server.starlette.starlette_websocket", "streamlit.web.server.browser_websocket_handler",
    "uvicorn.error", "tornado.application", "tornado.general", "asyncio",
)
#: How far along an exception's causes to look.
MAX_CHAIN = 8


def closed_connection(error: BaseException | None) -> bool:
    """Whether ``error``, or an exception it was raised from or while handling, says the
    other end of a connection has gone."""
    seen = 0
    while error is not None and seen < MAX_CHAIN:
        if any(kind.__name__ in CLOSED for kind in type(error).__mro__):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


class ClosedConnectionFilter(logging.Filter):
    """Drops a log record whose exception is a closed connection (see the module)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not closed_connection(error)


_FILTER = ClosedConnectionFilter()


def install() -> None:
    """Add the filter to every logger in :data:`LOGGERS` (once per process)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
