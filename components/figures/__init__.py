"""Pure Plotly figure builders, one module per subject: no Streamlit here (tests/unit/test_layering.py
holds them to it), so each is unit-tested on its own."""

from __future__ import annotations


def svg_plain(text: object) -> str:
    """``text`` for a Plotly label, title or hover text: Plotly draws a few HTML tags there
    (``<a href>``, ``<b>``, ``<span style>``...) and decodes entities, so ``<``, ``>`` and
    ``&`` become entities and show as typed. Quotes stay as they are: Plotly decodes
    ``&#39;`` but not ``&quot;``, and without a ``<`` no tag or attribute begins. For the
    figure builders' inputs (a file's tokens and ids, a user's words): a builder's own
    markup goes around them."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
