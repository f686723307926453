"""Numbers and dates: written and digit numbers, ordinals, months, phrase values."""

from __future__ import annotations

import re
from collections.abc import Sequence

_UNITS = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 10**12}
_ORDINALS = {
    w: i + 1 for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
    )
}
_MONTHS: dict[str, int] = {}
for _i, _m in enumerate(
    "january february march april may june july august september october november december".split(), start=1
):
    _MONTHS[_m] = _i
    _MONTHS[_m[:3]] = _i
_MONTHS["sept"] = 9
del _MONTHS["may"]  # "may" is far more often the modal verb; the full month is matched below
_NUMERAL = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
_ORDINAL_DIGITS = re.compile(r"^(\d+)(st|nd|rd|th)$")
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$")


def number_value(token: str) -> float | None:
    """The numeric value of one token (``5``, ``1,000``, ``2.5``, ``five``, ``5th``,
    ``fifth``), or None."""
    word = token.lower().rstrip(".") if not _NUMERAL.match(token) else token
    if _NUMERAL.match(word):
        return float(word.replace(",", ""))
    if word in _UNITS:
        return float(_UNITS[word])
    if word in _TENS:
        return float(_TENS[word])
    if word in _ORDINALS:
        return float(_ORDINALS[word])
    match = _ORDINAL_DIGITS.match(word)
    if match:
        return float(match.group(1))
    if "-" in word:  # twenty-five
        parts = word.split("-")
        if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS and _UNITS[parts[1]] < 10:
            return float(_TENS[parts[0]] + _UNITS[parts[1]])
    return None


def month_of(token: str) -> int | None:
    """The month number of a month name or abbreviation (``Oct.``, ``october``)."""
    word = token.lower().rstrip(".")
    if word == "may" and token[:1] == "M":
        return 5
    return _MONTHS.get(word)


def phrase_number(tokens: Sequence[str]) -> float | None:
    """The value of a numeral phrase (``2.5 million``, ``two hundred thousand``,
    ``twenty five``), or None when any token is not part of a number."""
    words = [t.lower() for t in tokens if t != "and"]
    if not words:
        return None
    total = 0.0
    current: float | None = None
    for word in words:
        if word in _SCALES:
            base = 1.0 if current is None else current
            if _SCALES[word] >= 1000:
                total += base * _SCALES[word]
                current = None
            else:
                current = base * _SCALES[word]
            continue
        value = number_value(word)
        if value is None:
            return None
        current = value if current is None else current + value
    return total + (current or 0.0)


def phrase_date(tokens: Sequence[str]) -> tuple[int | None, int | None, int | None] | None:
    """``(year, month, day)`` of a date phrase (``October 17 , 2001``, ``17 Oct. 2001``,
    ``10/17/01``, ``October 2001``), None fields when absent; None if not a date."""
    year = month = day = None
    for token in tokens:
        if token in (",", "the", "of"):
            continue
        slash = _SLASH_DATE.match(token)
        if slash:
            m, d, y = (int(g) for g in slash.groups())
            year = y + (2000 if y < 50 else 1900) if y < 100 else y
            month, day = m, d
            continue
        found_month = month_of(token)
        if found_month is not None:
            month = found_month
            continue
        value = number_value(token)
        if value is None or value != int(value):
            return None
        if 1000 <= value <= 2100 and token.isdigit():
            year = int(value)
        elif 1 <= value <= 31:
            day = int(value)
        else:
            return None
    if month is None:
        return None
    return year, month, day
