"""How much room a lesson figure's labels need, so that every label reads at 1280x720.

The Teach figures never shrink their type below :data:`MIN_PX`: where labels would not fit
they change form instead. A row of column labels too long to stand side by side turns
upright (:func:`word_ticks`), cell text takes the size its cell holds (down to the
smallest type, with shorter numbers), and a figure asks the step player for the height its
rows need (``layout.meta.need``), past the screen if it must: the page scrolls rather
than the rows overlap.

Sizes are estimated from the characters, for Source Sans (the figures' type face): a
letter is at most about 0.6 em wide on average (a digit 0.5, a point or a dash 0.3), a
line about 1.3 em high. The browser
test ``tests/e2e/test_teach_legible.py`` measures what is drawn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: The smallest type any text of a lesson figure is drawn in, in CSS pixels.
MIN_PX = 14
#: The plot area of a full-width figure at 1280x720, in pixels: the player is about
#: 1120 px wide in the app's wide layout; row labels and margins take the rest.
PLOT_WIDTH = 820
#: A character's width and a line's height, in ems (estimates on the safe side).
CHAR_EM, LINE_EM = 0.6, 1.3

_MARKUP = re.compile(r"<[^>]*>")
_ENTITY = re.compile(r"&(#\d+|[a-z]+);")


def shown_chars(label: str) -> int:
    """How many characters ``label`` shows (tags dropped, an entity one character)."""
    return len(_ENTITY.sub("x", _MARKUP.sub("", label)))


#: Characters drawn about half as wide as a letter, and digits (all one width in the face).
_NARROW, _DIGITS = frozenset(".,:;'!|()[]-ilj "), frozenset("0123456789")


def text_px(label: str, size: float) -> float:
    """About how wide ``label`` is drawn at ``size`` px (on the safe side)."""
    shown = _ENTITY.sub("x", _MARKUP.sub("", label))
    ems = sum(0.3 if c in _NARROW else 0.5 if c in _DIGITS else CHAR_EM for c in shown)
    return ems * size


def line_px(size: float, lines: int = 1) -> float:
    """About how high ``lines`` lines of ``size`` px type are."""
    return lines * LINE_EM * size


def upright(labels: Sequence[str], size: float, across: float = PLOT_WIDTH) -> bool:
    """Whether ``labels`` side by side over ``across`` px would run into each other."""
    if not labels:
        return False
    room = across / len(labels)
    return max(text_px(label, size) for label in labels) + 0.3 * size > room


def word_ticks(labels: Sequence[str], size: float, across: float = PLOT_WIDTH) -> dict[str, object]:
    """A category axis that names every label (Plotly would name every other one when
    squeezed), upright when they would not fit side by side."""
    return {"tickmode": "array", "tickvals": list(labels), "ticktext": list(labels),
            "tickangle": -90 if upright(labels, size, across) else 0}


def band_px(labels: Sequence[str], size: float, across: float = PLOT_WIDTH) -> float:
    """The height the band of ``labels`` takes (upright ones stand as tall as they are long)."""
    if not labels:
        return 0.0
    if upright(labels, size, across):
        return max(text_px(label, size) for label in labels) + 12
    return line_px(size) + 8


def cell_size(size: int, columns: int, widest: str, across: float = PLOT_WIDTH) -> int:
    """The type for cell text as wide as ``widest`` in ``columns`` columns over ``across``
    px: ``size`` when it fits, else the largest that fits, never under :data:`MIN_PX`."""
    ems = text_px(widest, 1.0)
    if columns <= 0 or ems <= 0:
        return max(size, MIN_PX)
    fits = int(across / columns / (ems + 0.3))
    return max(MIN_PX, min(size, fits))


def short_number(value: float) -> str:
    """Two decimals without the leading zero (``.52``, ``-.07``, ``1``): a number for a
    narrow cell."""
    text = f"{value:.2f}"
    if text in ("1.00", "-1.00", "0.00", "-0.00"):
        return text.replace(".00", "").replace("-0", "0")
    return text.replace("0.", ".", 1)
