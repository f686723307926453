"""Showing other people's words as plain text.

Anything a user typed or uploaded (notes, tag names, annotator names, dataset names, pair
texts) may reach another user's browser on a shared server. Streamlit renders Markdown in
``st.markdown``, ``st.caption``, ``st.info`` and friends: an image link there would make
every reader's browser fetch a URL of the writer's choosing. :func:`plain` makes such text
inert before it is put inside Markdown.
"""

from __future__ import annotations

# CommonMark lets any ASCII punctuation be backslash-escaped. These are the characters that
# build links, images, autolinks, HTML, code, emphasis, headings and tables, and Streamlit's
# own directives (``:red[...]``, ``:material/x:``, ``$...$``); ``.``, ``_`` and ``-`` are
# left alone so file names read as typed (inside a word they format nothing).
_ESCAPES = {ord(c): "\\" + c for c in "\\`*[](){}!<>:$|~#"}


def plain(text: object) -> str:
    """``text`` as inert Markdown on one line: no link, image, HTML, code or directive."""
    return " ".join(str(text).split()).translate(_ESCAPES)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the right number: "1 pair", "2,000 pairs", "0 pairs"."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


#: What a dataset's labels are, in words (``Dataset.kind`` values).
LABEL_KINDS = {
    "binary": "entailment labels (yes/no)",
    "three_way": "3-way labels (entailment / neutral / contradiction)",
    "graded": "graded similarity scores",
    "unlabelled": "no labels",
}


def label_kind(kind: str, labelled: int | None = None, total: int | None = None) -> str:
    """The kind of labels in words, with how many pairs carry one when not all do."""
    words = LABEL_KINDS.get(kind, f"{kind} labels")
    if labelled is not None and total is not None and 0 < labelled < total:
        words += f" on {labelled:,} of {count(total, 'pair')}"
    return words
