"""Text and JSON as every result and command puts them out: strict JSON
(:func:`json_safe`), figures with fixed decimals (:func:`fixed`), names read from outside
made safe for a terminal (:func:`shown`).

>>> json_safe({"value": float("nan"), "links": {(1, 0), (0, 0)}})
{'value': None, 'links': [[0, 0], [1, 0]]}
>>> fixed(0.25), fixed(None)
('0.2500', '-')
>>> print(shown("data\\x1b[31m.xml"))
data\\x1b[31m.xml
"""

from __future__ import annotations

import math
import re
from enum import Enum
from typing import overload


@overload
def json_safe(value: dict[str, object]) -> dict[str, object]: ...
@overload
def json_safe(value: object) -> object: ...
def json_safe(value: object) -> object:
    """NaN and infinities become null (strict JSON); sets become sorted lists, tuples
    lists, dict values recursively safe."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Enum):
        return json_safe(value.value)
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):  # numpy arrays and scalars
        return json_safe(value.tolist())
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, set | frozenset):  # e.g. an Alignment's links: sorted for stable output
        try:
            items = sorted(value)
        except TypeError:
            items = list(value)
        return [json_safe(v) for v in items]
    return value


#: What must not reach a terminal raw from a file or folder name (or anything else read
#: from outside): C0 controls (escape sequences, bell, CR, line breaks), DEL, C1 controls
#: (0x9b starts an escape sequence on some terminals), Unicode line and paragraph
#: separators, the bidirectional controls that reorder the text after them, and lone
#: surrogates (undecodable bytes of a file name, which would stop the print itself).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]


def shown(text: object) -> str:
    """``text`` (a path, a name, a message holding them) as a terminal may show it: every
    character of :data:`_UNSAFE` escaped as Python writes it (``\\x1b``, ``\\n``,
    ``\\u202e``), everything else as it is."""
    return _UNSAFE.sub(_escape, str(text))


def fixed(number: float | None, digits: int = 4) -> str:
    """``number`` with ``digits`` decimals (``-`` for a figure that is not there)."""
    return "-" if number is None else f"{number:.{digits}f}"


def both_directions(hypothesis_candidate: float, text_candidate: float) -> str:
    """The ``detail()`` of a score averaged over its two directions (BLEU-n, NIST).

    >>> both_directions(0.5, 0.25)
    'hypothesis as candidate 0.5000, text as candidate 0.2500'
    """
    return f"hypothesis as candidate {hypothesis_candidate:.4f}, text as candidate {text_candidate:.4f}"
