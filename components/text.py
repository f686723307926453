"""Showing other people's words as plain text.

Anything a user typed or uploaded (notes, tag names, annotator names, dataset names, pair
texts) may reach another user's browser on a shared server. Streamlit renders Markdown in
``st.markdown``, ``st.caption``, ``st.info`` and friends: an image link there would make
every reader's browser fetch a URL of the writer's choosing. :func:`plain` makes such text
inert before it is put inside Markdown.
"""

from __future__ import annotations

import string

# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of
# them also defuses Streamlit's own directives (``:red[...]``, ``:material/x:``, ``$...$``).
_ESCAPES = {ord(c): "\\" + c for c in string.punctuation}


def plain(text: object) -> str:
    """``text`` as Markdown that renders exactly as the characters typed, on one line."""
    return " ".join(str(text).split()).translate(_ESCAPES)
