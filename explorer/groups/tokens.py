"""The slice language's tokens: names, keywords, numbers, strings and operators, read by
hand one character at a time (:func:`tokenize`), with the language's bounds checked as they
are read. The grammar and the parser: :mod:`explorer.groups.language`.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from explorer.errors import ExplorerError

#: Longest expression, in characters.
MAX_LENGTH = 1000
#: Most tokens in one expression.
MAX_TOKENS = 300
#: Deepest nesting of parentheses, ``not`` and lists.
MAX_DEPTH = 32
#: Longest number literal, in characters.
MAX_NUMBER_CHARS = 32
#: Longest string literal, in characters.
MAX_STRING = 200
#: Most values in an ``in [...]`` list.
MAX_LIST = 100

KEYWORDS = ("and", "or", "not", "in", "true", "false")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


class SliceError(ExplorerError, ValueError):
    """An expression the slice language refuses; the message names the column."""


# -- tokens -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Token:
    kind: str  # name, keyword, number, string, op, end
    text: str
    column: int
    value: float | str | None = None


def _is_name_start(ch: str) -> bool:
    return ch.isascii() and (ch.isalpha() or ch == "_")


def _is_name_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _describe(ch: str) -> str:
    """A character for a one-line message: printable ASCII as itself, else its code point."""
    if ch.isascii() and ch.isprintable():
        return repr(ch)
    return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed')})"


def _string(expression: str, start: int) -> tuple[str, int]:
    """The string literal opening at ``start``; its value and the index after it."""
    quote = expression[start]
    out: list[str] = []
    i = start + 1
    while i < len(expression):
        ch = expression[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch == "\\" and i + 1 < len(expression) and expression[i + 1] in (quote, "\\"):
            ch = expression[i + 1]
            i += 1
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            raise SliceError(f"character {_describe(ch)} is not allowed in a string at column {i + 1}")
        out.append(ch)
        if len(out) > MAX_STRING:
            raise SliceError(f"string at column {start + 1} is longer than {MAX_STRING} characters")
        i += 1
    raise SliceError(f"string opened at column {start + 1} is never closed (add {quote})")


def _number(expression: str, start: int) -> tuple[float, int]:
    i = start
    while i < len(expression) and (expression[i].isascii() and (expression[i].isdigit() or expression[i] in ".eE_")
                                   or (expression[i] in "+-" and expression[i - 1] in "eE")):
        i += 1
    text = expression[start:i]
    if len(text) > MAX_NUMBER_CHARS:
        raise SliceError(f"number at column {start + 1} is longer than {MAX_NUMBER_CHARS} characters")
    try:
        value = float(text.replace("_", "")) if "_" not in (text[:1], text[-1:]) else math.nan
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise SliceError(f"{text!r} at column {start + 1} is not a number")
    if not math.isfinite(value):
        raise SliceError(f"number {text} at column {start + 1} is too large (not finite)")
    return value, i


def tokenize(expression: str) -> list[Token]:
    """The expression's tokens, ending with an ``end`` token.

    Raises:
        SliceError: for an expression past :data:`MAX_LENGTH` or :data:`MAX_TOKENS`, a
            character the language does not use, an unclosed string, a bad number.
    """
    if not isinstance(expression, str):
        raise SliceError(f"a slice expression is text, not {type(expression).__name__}")
    if len(expression) > MAX_LENGTH:
        raise SliceError(f"the expression is {len(expression):,} characters long; the limit is {MAX_LENGTH:,}")
    tokens: list[Token] = []
    i = 0
    while i < len(expression):
        ch = expression[i]
        column = i + 1
        if ch in " \t\r\n":
            i += 1
            continue
        if len(tokens) >= MAX_TOKENS:
            raise SliceError(f"the expression has more than {MAX_TOKENS} tokens (at column {column})")
        if _is_name_start(ch):
            j = i + 1
            while j < len(expression) and _is_name_char(expression[j]):
                j += 1
            word = expression[i:j]
            lowered = word.lower()
            kind = "keyword" if lowered in KEYWORDS and (word == lowered or word in ("True", "False")) else "name"
            tokens.append(Token(kind, lowered if kind == "keyword" else word, column))
            i = j
        elif ch.isascii() and (ch.isdigit() or (ch == "." and expression[i + 1:i + 2].isdigit())):
            value, i = _number(expression, i)
            tokens.append(Token("number", expression[column - 1:i], column, value))
        elif ch in "\"'":
            text, i = _string(expression, i)
            tokens.append(Token("string", expression[column - 1:i], column, text))
        elif expression.startswith(("==", "!=", "<=", ">="), i):
            tokens.append(Token("op", expression[i:i + 2], column))
            i += 2
        elif ch in "<>()[],-":
            tokens.append(Token("op", ch, column))
            i += 1
        elif ch == "=":
            raise SliceError(f"'=' at column {column}: compare with '=='")
        elif ch in "&|":
            raise SliceError(f"{ch!r} at column {column}: write 'and' / 'or'")
        elif ch == "!":
            raise SliceError(f"'!' at column {column}: write 'not', or '!=' to compare")
        else:
            why = {".": "attribute access is not part of the language",
                   "*": "arithmetic is not part of the language", "+": "arithmetic is not part of the language",
                   "/": "arithmetic is not part of the language", ":": "lambdas and slices are not part of it"}
            hint = f" ({why[ch]})" if ch in why else ""
            raise SliceError(f"unexpected character {_describe(ch)} at column {column}{hint}")
    tokens.append(Token("end", "", len(expression) + 1))
    return tokens


__all__ = ["COMPARISONS", "KEYWORDS", "MAX_DEPTH", "MAX_LENGTH", "MAX_LIST", "MAX_NUMBER_CHARS", "MAX_STRING",
           "MAX_TOKENS", "SliceError", "Token", "tokenize"]
