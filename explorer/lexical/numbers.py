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


# -- numbers in other formats, read as one value ------------------------------------------------
#
# ``number_value`` reads one plain token. The functions below read the formats a number
# takes in running text: a unit or currency glued to it (``5%``, ``$40``), a scale suffix
# (``1m``, ``2bn``), a hyphenated compound (``71-year-old``) or range (``40-50``), a
# fraction (``1/2``), and short spans whose tokens make one number (``85.74 million``,
# ``5 percent``). They feed MANLI's number-format features only: the lexical similarity
# (and with it every scorer's value) does not use them.

#: Tokens longer than this are never read as numbers (a long digit string costs nothing).
MAX_NUMBER_CHARS = 32
#: Spans longer than this are never read as one number.
MAX_NUMBER_SPAN = 8
#: Words and signs that mark a percentage.
PERCENT_WORDS = frozenset({"%", "percent", "per-cent", "pct", "pc"})
_CURRENCY = "$£€¥"
_SUFFIXED = re.compile(r"^(\d{1,15}(?:\.\d{1,15})?)(k|m|mn|bn)$")
_FRACTION = re.compile(r"^(\d{1,6})/(\d{1,6})$")
_PERCENT_SPAN_WORDS = ("per", "cent")


def _canonical(value: float) -> float:
    """The value rounded to 10 significant digits, so ``85.74 * 10**6`` equals
    ``85740000`` and a set of values compares as the reader would."""
    return float(f"{value:.10g}")


def token_number(token: str) -> tuple[tuple[float, ...], bool]:
    """The values one token denotes and whether it marks a percentage.

    ``5`` -> ``((5,), False)``; ``5%`` -> ``((5,), True)``; ``percent`` -> ``((), True)``;
    ``$1,000`` -> ``((1000,), False)``; ``1m`` -> ``((1e6,), False)``; ``1/2`` ->
    ``((0.5,), False)``; ``71-year-old`` and ``20-mile-long`` -> ``((71,), ...)``,
    ``((20,), ...)`` (a compound led by a number); ``40-50`` -> ``((40, 50), False)`` (a
    range: both ends); anything else, and every token longer than
    :data:`MAX_NUMBER_CHARS`, -> ``((), False)``.
    """
    if not token or len(token) > MAX_NUMBER_CHARS:
        return (), False
    low = token.lower()
    if low in PERCENT_WORDS:
        return (), True
    percent = low.endswith("%") and len(low) > 1
    core = low.rstrip("%").lstrip(_CURRENCY)
    if not core:
        return (), percent
    value = number_value(core)
    if value is not None:
        return (_canonical(value),), percent
    suffixed = _SUFFIXED.match(core)
    if suffixed:
        scale = {"k": 1e3, "m": 1e6, "mn": 1e6, "bn": 1e9}[suffixed.group(2)]
        return (_canonical(float(suffixed.group(1)) * scale),), percent
    fraction = _FRACTION.match(core)
    if fraction and int(fraction.group(2)) != 0:
        return (_canonical(int(fraction.group(1)) / int(fraction.group(2))),), percent
    if "-" in core:
        parts = core.split("-")
        if len(parts) > 6 or not all(parts):
            return (), percent
        values = [number_value(part.lstrip(_CURRENCY)) for part in parts]
        if len(parts) == 2 and values[0] is not None and values[1] is not None:
            return (_canonical(values[0]), _canonical(values[1])), percent
        if values[0] is not None and all(part.isalpha() for part in parts[1:]):
            return (_canonical(values[0]),), percent or parts[1] in PERCENT_WORDS
    return (), percent


def span_number(tokens: Sequence[str]) -> tuple[frozenset[float], bool] | None:
    """The values a short span of tokens denotes and whether it speaks of a percentage,
    reading runs of number tokens as one number where a scale word joins them (``85.74
    million`` -> 85,740,000; ``two hundred thousand``; ``twenty five``) and each other
    number token on its own. ``per cent`` and ``%`` mark a percentage. Tokens that are no
    part of a number are skipped.

    Returns None when the span has neither a number nor a percent sign, or is longer
    than :data:`MAX_NUMBER_SPAN` tokens.
    """
    if len(tokens) > MAX_NUMBER_SPAN:
        return None
    values: set[float] = set()
    percent = False
    run: list[str] = []

    def flush() -> None:
        if not run:
            return
        joined = None
        if len(run) > 1 and (any(t in _SCALES for t in run) or all(t.isalpha() for t in run)):
            joined = phrase_number(run)
        if joined is not None:
            values.add(_canonical(joined))
        else:
            for t in run:
                values.update(token_number(t)[0])
        run.clear()

    lowered = [t.lower() for t in tokens]
    for i, low in enumerate(lowered):
        if low in _SCALES and run:
            run.append(low)
            continue
        token_values, token_percent = token_number(low)
        if low == "per" and i + 1 < len(lowered) and lowered[i + 1] == "cent":
            percent = True
        if low == "cent" and i > 0 and lowered[i - 1] == "per":
            percent = True
        percent = percent or token_percent
        if token_values and not token_percent and number_value(low) is not None:
            run.append(low)
            continue
        flush()
        values.update(token_values)
    flush()
    if not values and not percent:
        return None
    return frozenset(values), percent
