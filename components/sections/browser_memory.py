"""What this browser remembers for the explorer: the annotator's name and whether the first
screen's line was dismissed, as first-party cookies of the site; and the Pair page's open
method tab in the URL.

Cookies because the server reads them when a browser tab connects
(``st.context.cookies``), so a reload or a link opened in the same browser starts with the
name at once, without a round trip; another browser (another student) has its own. They
are written by ``browser_memory.js`` (a Streamlit v2 component mounted in the page, no
iframe), which also removes the dismissed line and keeps ``?tab=`` in step with the tab
switched in the browser. Nothing is ever rendered as markup: the script sets text with
``textContent``, and a name read back is cleaned (:func:`clean`) and shown through
``components.text.plain``.
"""

from __future__ import annotations

import unicodedata
import urllib.parse
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st

HERE = Path(__file__).resolve().parent
#: The cookie holding the annotator's name.
AUTHOR_COOKIE = "explorer_annotator"
#: The cookie saying the first screen's line was dismissed.
INTRO_COOKIE = "explorer_intro_dismissed"
#: A remembered name is cut to this many characters.
MAX_NAME = 80


@cache
def _component() -> Any:
    """The component, registered once per process on first use."""
    return st.components.v2.component(
        "explorer_browser_memory",
        js=(HERE / "browser_memory.js").read_text(encoding="utf-8"),
        css=(HERE / "browser_memory.css").read_text(encoding="utf-8"),
        isolate_styles=False,
    )


def clean(value: str) -> str:
    """A cookie's text as a name: percent-decoded, control characters dropped, white space
    collapsed, at most :data:`MAX_NAME` characters."""
    text = urllib.parse.unquote(value)
    kept = "".join(c for c in text if not unicodedata.category(c).startswith("C"))
    return " ".join(kept.split())[:MAX_NAME]


def remembered(name: str) -> str:
    """The cookie ``name`` as this browser sent it when the tab connected ("" without one)."""
    try:
        value = st.context.cookies.get(name)
    except Exception:  # no browser behind this session (AppTest, a bare script run)
        return ""
    return clean(value) if isinstance(value, str) else ""


def remember(name: str, value: str, *, key: str) -> None:
    """Write the cookie ``name`` in this browser ("" removes it)."""
    _component()(key=key, data={"cookies": {name: value}})


def intro_line(text: str, *, key: str) -> None:
    """One dismissible line (``text``), unless this browser dismissed it before; dismissing
    is done in the browser and remembered there."""
    if remembered(INTRO_COOKIE):
        return
    _component()(key=key, data={"intro": {"text": text, "button": "Dismiss", "cookie": INTRO_COOKIE}})


def tabs_in_url(container_class: str, param: str, first: str, *, key: str) -> None:
    """Keep ``?param=`` naming the open tab of the tabs inside the element of class
    ``container_class`` (removed for the ``first`` tab), as tabs are switched in the browser."""
    _component()(key=key, data={"tabs": {"container": container_class, "param": param, "first": first}})
