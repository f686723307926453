"""How the app reports failures: never a traceback, always a sentence naming what failed.

:func:`attempt` runs one method (a scorer on a pair, an aligner on a dataset, a panel) and
turns an exception into a message, so one failing method never hides the others: the
caller gets ``None`` and goes on with the next. :func:`guarded` is the last line of
defence around a whole page.

Streamlit's own control flow (``st.stop``, ``st.rerun``, ``st.switch_page``) raises
``BaseException`` subclasses and passes through both untouched.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, TypeVar

import streamlit as st

from components.text import plain

log = logging.getLogger(__name__)

T = TypeVar("T")


def attempt(
    run: Callable[[], T], what: str, *, where: str = "", then: str = "",
    level: Literal["error", "warning"] = "error", catch: tuple[type[Exception], ...] = (Exception,),
) -> T | None:
    r"""``run()``; if it raises, "``what`` failed ``where``: Type: message\ ``then``" on the
    page and ``None`` back, so the caller goes on with the next method.

    ``what`` names the method ("Broken scorer"), ``where`` what it ran on ("on
    typical.xml"), ``then`` what happens instead ("; starting from an empty grid.").
    Only ``catch`` is caught (every ``Exception`` unless told); the traceback goes to the
    log, never to the page. A ``run`` that returns ``None`` itself is indistinguishable
    from a failure, which is fine when the caller only wants the side effects.
    """
    try:
        return run()
    except catch as err:  # one failing method must not hide the others
        log.info("%s failed %s", what, where, exc_info=True)
        show = st.warning if level == "warning" else st.error
        show(f"{what} failed{' ' + where if where else ''}: {type(err).__name__}: {plain(err)}{then}")
        return None


def guarded(body: Callable[[], None], *, what: str = "this page") -> None:
    """Run a page body; an unexpected error becomes a short message, never a traceback."""
    try:
        body()
    except Exception as err:  # the last line of defence: report, log, carry on
        log.exception("error while drawing %s", what)
        st.error(
            f"Something went wrong while drawing {what}: {type(err).__name__}: {plain(err)}. "
            "Try other input, or reload the page."
        )
