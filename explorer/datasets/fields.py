"""The strict field layer every loader uses: one rule per kind of field.

- **Sentences** must be strings; they are cleaned (:func:`explorer.preprocess.clean_text`:
  NFC, control and format characters become spaces, white space collapsed), must not be
  empty and must fit :data:`~explorer.datasets.reading.MAX_SENTENCE_CHARS`.
- **Ids and tasks** must be strings or plain integers (not booleans, floats, lists,
  objects or null); strings are cleaned the same way and must fit
  :data:`~explorer.datasets.reading.MAX_ID_CHARS`.
- **Labels** must be strings (or the integers 0 and 1) from the spellings
  :func:`explorer.pairs.normalize_label` knows; an unknown label is refused by name.
- **Scores** must be finite numbers, never booleans; in text files only ASCII decimal
  notation (``4``, ``-0.5``, ``3.2e-1``) counts as a number, so ``١``, ``1_000``, ``inf``
  and ``nan`` are refused.
- **Positions** (alignment links) are ASCII digits only.
- **Tokens** given by a file (MSR, Edinburgh++) keep their spelling, except that format
  characters (Unicode category Cf: byte-order marks, zero-width spaces and joiners,
  direction marks) are removed from them; a token with a control, surrogate, private-use
  or unassigned character, or one that is empty once format characters are gone, is
  refused. Tokens cannot be cleaned by replacing characters with spaces as sentences are,
  because that would split them and shift every link after them.
"""

from __future__ import annotations

import math
import re
import unicodedata

from explorer.datasets import DatasetError
from explorer.datasets.reading import MAX_ID_CHARS, MAX_NUMBER_CHARS, MAX_SENTENCE_CHARS
from explorer.pairs import LabelError, normalize_label
from explorer.preprocess import clean_text

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_POSITION = re.compile(r"[0-9]{1,9}")


#: What a JSON value is, in an error message's words; bool before int (a bool is an int).
_KINDS = ((bool, "a boolean"), (dict, "an object"), (list, "a list"), (int, "an integer"), (float, "a number"),
          (str, "a string"))


def kind_of(value: object) -> str:
    if value is None:
        return "null"
    return next((words for kind, words in _KINDS if isinstance(value, kind)), f"a {type(value).__name__}")


def sentence(value: object, where: str, field: str) -> str:
    """A cleaned, non-empty sentence within the length limit."""
    if not isinstance(value, str):
        raise DatasetError(f"{where}: {field} is {kind_of(value)}; expected a sentence (a string)")
    if len(value) > 4 * MAX_SENTENCE_CHARS:
        raise DatasetError(_too_long(where, field, len(value)))
    cleaned = clean_text(value)
    if not cleaned:
        raise DatasetError(f"{where}: {field} is empty")
    if len(cleaned) > MAX_SENTENCE_CHARS:
        raise DatasetError(_too_long(where, field, len(cleaned)))
    return cleaned


def _too_long(where: str, field: str, length: int) -> str:
    return (
        f"{where}: {field} has {length:,} characters, over the {MAX_SENTENCE_CHARS:,}-character limit "
        "per sentence (datasets.reading.MAX_SENTENCE_CHARS); split it into shorter pairs"
    )


def identifier(value: object, where: str, field: str = "id") -> str:
    """An id (or task) as a cleaned non-empty string: from a string or a plain integer."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise DatasetError(f"{where}: {field} is {kind_of(value)}; expected a string or an integer")
    if len(value) > 4 * MAX_ID_CHARS:
        raise DatasetError(f"{where}: {field} has {len(value):,} characters; at most {MAX_ID_CHARS} allowed")
    cleaned = clean_text(value)
    if not cleaned:
        raise DatasetError(f"{where}: {field} is empty")
    if len(cleaned) > MAX_ID_CHARS:
        raise DatasetError(f"{where}: {field} has {len(cleaned):,} characters; at most {MAX_ID_CHARS} allowed")
    return cleaned


def optional_identifier(value: object, where: str, field: str) -> str | None:
    """:func:`identifier`, with a missing value (null or blank string) as None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return identifier(value, where, field)


def label(value: object, where: str, field: str = "label") -> str | None:
    """One of :data:`explorer.pairs.LABELS`, or None for a missing label (null or blank)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        value = str(value)
    if not isinstance(value, str):
        raise DatasetError(f"{where}: {field} is {kind_of(value)}; expected a label such as 'entailment'")
    try:
        return normalize_label(value[:100])
    except LabelError as err:
        raise DatasetError(f"{where}: {err}") from None


def is_number(raw: str) -> bool:
    """Whether ``raw`` is a number in ASCII decimal notation (what :func:`number` reads)."""
    text = raw.strip()
    return len(text) <= MAX_NUMBER_CHARS and _NUMBER.fullmatch(text) is not None


def number(raw: str, where: str, field: str) -> float:
    """An ASCII decimal number in text, as a finite float."""
    text = raw.strip()
    if len(text) > MAX_NUMBER_CHARS or not _NUMBER.fullmatch(text):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise DatasetError(f"{where}: {field} {shown!r} is not a number (ASCII digits, e.g. 3.5)")
    value = float(text)
    if not math.isfinite(value):
        raise DatasetError(f"{where}: {field} {text!r} is too large")
    return value


def score(value: object, where: str, field: str = "score", *, low: float | None = None,
          high: float | None = None) -> float | None:
    """A finite score (None when missing), within ``[low, high]`` when given."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise DatasetError(f"{where}: {field} is {kind_of(value)}; expected a number")
    if isinstance(value, str):
        result = number(value, where, field)
    else:
        if isinstance(value, int) and abs(value) > 10**MAX_NUMBER_CHARS:
            raise DatasetError(f"{where}: {field} is too large")
        result = float(value)
        if not math.isfinite(result):
            raise DatasetError(f"{where}: {field} must be a finite number")
    if (low is not None and result < low) or (high is not None and result > high):
        raise DatasetError(f"{where}: {field} {result:g} is outside {low}-{high}")
    return result


def position(raw: str, where: str, what: str) -> int:
    """A token position written in ASCII digits (at most 9 of them)."""
    if not _POSITION.fullmatch(raw):
        raise DatasetError(f"{where}: {what} {raw[:40]!r} is not a position (ASCII digits)")
    return int(raw)


def joined(tokens: tuple[str, ...], where: str, field: str) -> str:
    """A file's tokens joined by spaces, as the pair's sentence, within the length limit."""
    text = " ".join(tokens)
    if len(text) > MAX_SENTENCE_CHARS:
        raise DatasetError(_too_long(where, field, len(text)))
    return text


def token(raw: str, where: str) -> str:
    """A file's token under the token rule in the module docstring."""
    if raw.isascii():
        if raw.isprintable():
            return raw
    cleaned = []
    for char in raw:
        category = unicodedata.category(char)
        if category == "Cf":
            continue
        if category[0] == "C":
            raise DatasetError(
                f"{where}: token {raw[:40]!r} holds the control character U+{ord(char):04X}; "
                "remove it from the file"
            )
        cleaned.append(char)
    if not cleaned:
        raise DatasetError(f"{where}: a token is empty once its format characters are removed")
    return "".join(cleaned)


#: A pair's note (the built-in samples' one-line lessons) is one line of text at most this long.
MAX_NOTE_CHARS = 500


def note(value: object, where: str) -> str | None:
    """An optional one-line note kept with a pair (None when absent or empty)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise DatasetError(f"{where}: note is {kind_of(value)}; expected a line of text (a string)")
    cleaned = " ".join(clean_text(value[: 4 * MAX_NOTE_CHARS]).split())
    if len(cleaned) > MAX_NOTE_CHARS:
        raise DatasetError(f"{where}: note has {len(cleaned):,} characters; at most {MAX_NOTE_CHARS} allowed (one line)")
    return cleaned or None
