"""Showing other people's words as plain text.

Anything a user typed or uploaded (notes, tag names, annotator names, dataset names, pair
ids, tasks and texts) may reach another user's browser on a shared server. Streamlit
renders Markdown in ``st.markdown``, ``st.caption``, ``st.info`` and friends, in widget
labels and help, tab and expander labels, radio options, metric labels and ``st.table``
cells: an image link there would make every reader's browser fetch a URL of the writer's
choosing. :func:`plain` makes such text inert before it is put inside Markdown (:func:`svg_plain`
before it goes into a Plotly label); where no
Markdown is rendered (select box options, text boxes, ``st.text``, dataframe cells) text
goes in as it is.
"""

from __future__ import annotations

import re

from components.figures import svg_plain as svg_plain  # Plotly's labels: defined beside the builders

# CommonMark lets any ASCII punctuation be backslash-escaped; the escape shows as the
# character. These always build something: links and images (``[`` ``]`` ``!``), HTML and
# autolinks (``<``), entities, code, emphasis, strikethrough, headings, quotes, tables and
# LaTeX (``$``). The rest only at some places, escaped there: a colon that opens or closes
# a shortcode (``:smile:``, ``:material/home:``, ``:red[``: Streamlit looks for these in
# the source, and only an escaped closing colon stops it), ``_`` at a word's edge, and
# ``-``/``+``/``=``/``1.`` starting a line (the text's start). So "rte1_dev.xml",
# "default: best (56 pairs)" and "a + b" read the same in the script and on the page.
_ESCAPES = {ord(c): "\\" + c for c in "\\`*[]!<>$|~#&"}
_OPENING = re.compile(r":(?=[\w/+-])")
_SHORTCODE = re.compile(r"(?=(:[\w/+-]+):)")
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LINE_START = re.compile(r"^(?:[-+=]|\d{1,9}(?=[.)]))")
# GitHub-style autolinks (``www.x.org``, ``http://``, ``a@b.org``, ``mailto:``) are found
# in the text after escapes are undone, so escaping cannot stop them (seen in Chromium): an
# invisible word joiner (U+2060) inside the pattern does.
_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?=://)|(?<=mailto)(?=:)|(?<=xmpp)(?=:)|(?=@)")


def plain(text: object) -> str:
    """``text`` as inert Markdown on one line: no link, autolink, image, HTML, code,
    emphasis, list, LaTeX, emoji shortcode or directive; it shows as written (with
    invisible word joiners where a link would start)."""
    words = _AUTOLINK.sub(_JOINER, " ".join(str(text).split())).translate(_ESCAPES)
    closing = {m.end(1) for m in _SHORTCODE.finditer(words)}
    words = "".join("\\:" if c == ":" and (i in closing or _OPENING.match(words, i)) else c for i, c in enumerate(words))
    words = _EDGE_UNDERSCORE.sub(r"\\_", words)
    return _LINE_START.sub(lambda m: m.group(0) + "\\" if m.group(0)[0].isdigit() else "\\" + m.group(0), words)


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
