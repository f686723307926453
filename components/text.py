"""Showing other people's words as plain text.

Anything a user typed or uploaded (notes, tag names, annotator names, dataset names, pair
ids, tasks and texts) may reach another user's browser on a shared server. Streamlit
renders Markdown in ``st.markdown``, ``st.caption``, ``st.info`` and friends, in widget
labels and help, tab and expander labels, radio options, metric labels and ``st.table``
cells: an image link there would make every reader's browser fetch a URL of the writer's
choosing. :func:`plain` makes such text inert before it is put inside Markdown; where no
Markdown is rendered (select box options, text boxes, ``st.text``, dataframe cells) text
goes in as it is.
"""

from __future__ import annotations

import re

# CommonMark lets any ASCII punctuation be backslash-escaped; the escape shows as the
# character. These build links, images, autolinks, HTML, entities, code, emphasis,
# strikethrough, headings, quotes and tables, and Streamlit's own directives
# (``:red[...]``, ``:material/x:``, emoji shortcodes, ``$...$``). ``.``, ``-`` and ``_``
# inside words format nothing and stay as typed, so file names read the same in AppTest.
_ESCAPES = {ord(c): "\\" + c for c in "\\`*[](){}!<>:$|~#&@+="}
# GitHub-style autolinks (``www.x.org``, ``http://``, ``a@b.org``, ``mailto:``) are found
# in the text after escapes are undone, so escaping cannot stop them: an invisible word
# joiner (U+2060) inside the pattern does.
_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?=://)|(?<=mailto)(?=:)|(?<=xmpp)(?=:)|(?=@)")
# ``_`` at a word's edge may start or end emphasis; a list item, an ordered list or a
# thematic break needs ``-``/``+``/digits at the start of a line: the text's start.
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LIST_START = re.compile(r"^(-|\d{1,9}(?=\.))")


def plain(text: object) -> str:
    """``text`` as inert Markdown on one line: no link, autolink, image, HTML, code,
    emphasis, list, LaTeX, emoji shortcode or directive; it shows as written (with
    invisible word joiners where a link would start)."""
    words = _AUTOLINK.sub(_JOINER, " ".join(str(text).split())).translate(_ESCAPES)
    words = _EDGE_UNDERSCORE.sub(r"\\_", words)
    return _LIST_START.sub(lambda m: "\\-" if m.group(1) == "-" else m.group(1) + "\\", words)


def svg_plain(text: object) -> str:
    """``text`` for a Plotly label, title or hover text: Plotly draws a few HTML tags there
    (``<a href>``, ``<b>``, ``<span style>``...) and decodes entities, so ``<``, ``>`` and
    ``&`` become entities and show as typed. For the figure builders' inputs: a builder's
    own markup goes around them."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
