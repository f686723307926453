"""The one reading layer every loader goes through.

Bytes become text under one encoding policy, text becomes lines under one line-end rule,
and JSON is parsed under explicit limits. Every limit is a named constant below, checked
before the work it bounds; past it the loader refuses with :class:`DatasetError` naming
the file, the line or record, the limit and what to do. No other exception leaves a
loader.

Encoding policy: UTF-8, with or without a byte-order mark at the start. Nothing else is
guessed. UTF-16/UTF-32 files, NUL bytes and invalid UTF-8 are refused with the line. An
XML declaration whose ``encoding=`` is not UTF-8 is refused rather than honoured over the
bytes (``US-ASCII`` is accepted when every byte is ASCII, since it is then also UTF-8).

Line ends: CRLF and a lone CR are read as LF (as Python's universal newlines do), so
Windows and old Mac files load; lines are split on LF only, never on the other characters
:meth:`str.splitlines` treats as breaks (U+2028, U+0085, form feed...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from explorer.datasets import MAX_BYTES, DatasetError
from explorer.pairs import Pair
from explorer.preprocess import MAX_CHARS

__all__ = [
    "MAX_ID_CHARS", "MAX_JSON_DEPTH", "MAX_LINE_CHARS", "MAX_NUMBER_CHARS", "MAX_PAIRS", "MAX_SENTENCE_CHARS",
    "MAX_XML_DECLARATION", "MAX_XML_DEPTH", "READ_BLOCK", "PairLimitError", "ParsedPairs", "check_count",
    "check_size", "check_xml_declaration", "decode", "file_lines", "json_depth", "json_lines", "lines", "loads",
]

#: Characters in one line of a line-oriented file (TSV, CSV, JSON lines, MSR alignments).
MAX_LINE_CHARS = 1_000_000
#: Nesting depth of JSON arrays and objects (a pair record needs 3).
MAX_JSON_DEPTH = 32
#: Nesting depth of XML elements (an RTE file needs 3: corpus, pair, t/h; markup inside
#: <t> or <h> is read as its text).
MAX_XML_DEPTH = 32
#: Characters in one JSON number or one numeric field (score, position), sign and
#: exponent included: enough for any float written out in full, far from the thousands
#: of digits that make ``int()`` slow or refuse.
MAX_NUMBER_CHARS = 40
#: Pairs (records) in one file: about SNLI train (570k) and MultiNLI train (393k) with room.
MAX_PAIRS = 1_000_000
#: Characters in one sentence (text or hypothesis) after cleaning; the same limit the
#: explorer applies to a typed pair.
MAX_SENTENCE_CHARS = MAX_CHARS
#: Characters in one id or task name.
MAX_ID_CHARS = 200


class PairLimitError(DatasetError):
    """A file with more records than :data:`MAX_PAIRS`; ``count`` is how many were seen."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class ParsedPairs(list[Pair]):
    """The pairs a parser returns, with notes for the dataset's summary (for example how
    many pairs were kept unlabelled because annotators did not agree)."""

    def __init__(self, pairs: Iterable[Pair] = (), notes: Iterable[str] = ()) -> None:
        super().__init__(pairs)
        self.notes: tuple[str, ...] = tuple(notes)


_XML_DECLARATION = re.compile(r"<\?xml\s")
#: How far (characters) to look for the end ``?>`` of an XML declaration.
MAX_XML_DECLARATION = 100_000
_XML_ENCODING = re.compile(r"""\bencoding\s*=\s*(["'])([^"']{0,100})\1""")
_UTF8_NAMES = frozenset({"utf-8", "utf8"})
_ASCII_NAMES = frozenset({"us-ascii", "ascii"})


def check_size(size: int, name: str, limit: int | None = None) -> None:
    """Refuse more than ``limit`` bytes (default :data:`explorer.datasets.MAX_BYTES`, the
    upload limit; files read from disk have :data:`explorer.datasets.MAX_FILE_BYTES`)."""
    limit = MAX_BYTES if limit is None else limit
    if size > limit:
        which = "MAX_BYTES" if limit == MAX_BYTES else "MAX_FILE_BYTES"
        raise DatasetError(
            f"{name}: {size:,} bytes is over the {limit:,}-byte limit (explorer.datasets.{which}); split the file"
        )


def decode(data: bytes, name: str, *, max_bytes: int | None = None) -> str:
    """File bytes as text under the encoding policy above, line ends normalised to LF.

    Raises:
        DatasetError: for a file over :data:`MAX_BYTES`, UTF-16/32, binary content,
            invalid UTF-8 (naming the line) or a conflicting XML encoding declaration.
    """
    check_size(len(data), name, max_bytes)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DatasetError(f"{name}: the file is UTF-16 or UTF-32; save it as UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data[:nul].count(b"\n") + 1
        raise DatasetError(
            f"{name}: line {line} holds a NUL byte: a binary file or a UTF-16/32 text; "
            "expected UTF-8 text (XML, TSV, CSV or JSON)"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise DatasetError(f"{name}: line {line} is not valid UTF-8; save the file as UTF-8") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    check_xml_declaration(text, name)
    return text


def check_xml_declaration(text: str, name: str) -> None:
    """Refuse an XML declaration that names an encoding other than UTF-8.

    Raises:
        DatasetError: naming the declared encoding and how to convert the file.
    """
    text = text.lstrip("\ufeff")
    if _XML_DECLARATION.match(text) is None:
        return
    # However long the declaration (a fuzzed one had a 900-digit version), its encoding is
    # checked: the parser is told the bytes are UTF-8 anyway (rte._parse_bounded).
    end = text.find("?>", 0, MAX_XML_DECLARATION)
    if end < 0:
        return  # not closed: the XML parser reports it with its position
    encoding = _XML_ENCODING.search(text, 0, end)
    if encoding is None:
        return  # no encoding named: XML's default is UTF-8
    declared = encoding.group(2).strip().lower()
    if declared in _UTF8_NAMES:
        return
    if declared in _ASCII_NAMES and text.isascii():
        return
    raise DatasetError(
        f"{name}: line 1: the XML declaration says encoding=\"{encoding.group(2)[:40]}\", but the explorer "
        "reads files as UTF-8 only; convert the file to UTF-8 (e.g. iconv -t UTF-8) and declare "
        "encoding=\"UTF-8\""
    )


def lines(text: str, name: str, *, line_records: bool = True) -> list[str]:
    """The lines of a line-oriented file (split on LF only), checked against
    :data:`MAX_LINE_CHARS` and (``line_records``: a record per line) :data:`MAX_PAIRS`
    before any is parsed; a CSV, whose record may run over lines, counts its records as
    it parses them.

    Raises:
        DatasetError: naming the first line over the limit.
    """
    result = text.split("\n")
    if result and result[-1] == "":
        result.pop()
    if line_records and len(result) > MAX_PAIRS + 1:
        records = sum(1 for line in result if line.strip())
        if records > MAX_PAIRS + 1:
            raise PairLimitError(
                f"{name}: {len(result):,} lines is over the {MAX_PAIRS:,}-pair limit (datasets.reading.MAX_PAIRS); "
                "split the file", records - 1
            )
    if len(text) > MAX_LINE_CHARS:
        for number, line in enumerate(result, start=1):
            if len(line) > MAX_LINE_CHARS:
                raise DatasetError(
                    f"{name}: line {number} has {len(line):,} characters, over the {MAX_LINE_CHARS:,}-character "
                    "line limit (datasets.reading.MAX_LINE_CHARS); is this the right format?"
                )
    return result


#: Bytes read at a time by :func:`file_lines`.
READ_BLOCK = 1024 * 1024
#: UTF-8 continuation bytes: a line's characters are its bytes less these.
_CONTINUATION = bytes(range(0x80, 0xC0))


def _characters(data: bytes) -> int:
    return len(data.translate(None, _CONTINUATION))


def _too_long(name: str, number: int, read: int) -> DatasetError:
    return DatasetError(
        f"{name}: line {number} is longer than the {MAX_LINE_CHARS:,}-character line limit "
        f"(datasets.reading.MAX_LINE_CHARS; refused after {read:,} of its bytes); is this the right format?"
    )


def file_lines(stream: BinaryIO, name: str, *, seen: Callable[[bytes], None] | None = None,
               block: int = READ_BLOCK) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, line)`` for every line of a binary stream (split on LF, the LF
    left off; a last line without one included), read ``block`` bytes at a time and
    each passed to ``seen`` (e.g. a hash's update).

    A line over :data:`MAX_LINE_CHARS` characters (UTF-8: its bytes less continuation
    bytes) is refused as soon as that many have been read, so memory stays within one
    block and the limit's worth of one line, however long the line.

    Raises:
        DatasetError: naming the first line over the limit.
    """
    number = 0
    offset = 0  # of the line being read
    pending: list[bytes] = []  # its pieces from earlier blocks
    pending_chars = 0
    while True:
        data = stream.read(block)
        if seen is not None and data:
            seen(data)
        if not data:
            if pending:
                line = b"".join(pending)
                if len(line) > MAX_LINE_CHARS and _characters(line) > MAX_LINE_CHARS:
                    raise _too_long(name, number + 1, len(line))
                yield offset, line
            return
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            piece = data[start:end]
            if pending:
                pending.append(piece)
                line = b"".join(pending)
                pending, pending_chars = [], 0
            else:
                line = piece
            number += 1
            if len(line) > MAX_LINE_CHARS and _characters(line) > MAX_LINE_CHARS:
                raise _too_long(name, number, len(line))
            yield offset, line
            offset += len(line) + 1
            start = end + 1
        if start < len(data):
            rest = data[start:]
            pending.append(rest)
            pending_chars += _characters(rest)
            if pending_chars > MAX_LINE_CHARS:
                raise _too_long(name, number + 1, sum(map(len, pending)))


def check_count(count: int, name: str) -> None:
    if count > MAX_PAIRS:
        raise PairLimitError(
            f"{name}: {count:,} records is over the {MAX_PAIRS:,}-pair limit (datasets.reading.MAX_PAIRS); "
            "split the file", count
        )


# -- JSON ----------------------------------------------------------------------------------

# A JSON string, matched possessively so that a long string costs linear time.
_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")


class _Refused(Exception):
    """Raised inside the JSON hooks; turned into a DatasetError with its position."""


def json_depth(text: str, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of arrays and objects in ``text`` when it is over ``limit``
    (counting stops at ``limit + 1``), else a number no larger than ``limit``. Brackets
    inside strings do not count. Linear in the length of the text."""
    openers = text.count("[") + text.count("{")
    if openers <= limit:  # cannot be deeper than that: skip the scan
        return openers
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif depth:
            depth -= 1
    return deepest


def _parse_int(raw: str) -> int:
    if len(raw) > MAX_NUMBER_CHARS:
        raise _Refused(
            f"a number with {len(raw):,} digits, over the {MAX_NUMBER_CHARS}-character limit "
            "(datasets.reading.MAX_NUMBER_CHARS)"
        )
    return int(raw)


def _parse_float(raw: str) -> float:
    if len(raw) > MAX_NUMBER_CHARS:
        raise _Refused(
            f"a number of {len(raw):,} characters, over the {MAX_NUMBER_CHARS}-character limit "
            "(datasets.reading.MAX_NUMBER_CHARS)"
        )
    value = float(raw)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"the number {raw} is too large for a float")
    return value


def _parse_constant(raw: str) -> Any:
    raise _Refused(f"{raw} is not a number JSON allows; write a finite number or null")


def _object(items: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(items)
    if len(result) != len(items):  # a key given twice: find the first
        seen: set[str] = set()
        key = next(key for key, _ in items if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise _Refused(f"the key {key[:40]!r} occurs twice in one object")
    return result


_DECODER = json.JSONDecoder(
    parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant, object_pairs_hook=_object
)


def loads(text: str, name: str, where: str = "", *, line_offset: int = 0) -> Any:
    """Parse JSON under :data:`MAX_JSON_DEPTH` (checked first) and
    :data:`MAX_NUMBER_CHARS`; NaN and Infinity and duplicate keys are refused.

    ``where`` (e.g. ``"line 3"``) names the record for a one-line document; otherwise the
    error names the line and column of the whole text, shifted by ``line_offset``.

    Raises:
        DatasetError: naming the file and the place.
    """
    prefix = f"{name}: {where}: " if where else f"{name}: "
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise DatasetError(
            f"{prefix}JSON nested more than {MAX_JSON_DEPTH} levels deep (datasets.reading.MAX_JSON_DEPTH); "
            "a pair record needs 2 or 3"
        )
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as err:
        place = f"line {err.lineno + line_offset}, column {err.colno}" if not where else f"column {err.colno}"
        raise DatasetError(f"{prefix}invalid JSON at {place}: {err.msg}") from None
    except _Refused as err:
        raise DatasetError(f"{prefix}{err}") from None
    except RecursionError:  # unreachable under MAX_JSON_DEPTH; kept as a guard
        raise DatasetError(f"{prefix}JSON nested too deeply") from None


_MISSING = object()


def json_lines(text: str, name: str) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of a JSON-lines file, each parsed
    as :func:`loads` parses it. A line with at most :data:`MAX_JSON_DEPTH` brackets cannot
    nest deeper, so it is decoded at once; a line that fails is parsed again by
    :func:`loads` for its message."""
    for number, line in enumerate(lines(text, name), start=1):
        if not line.strip():
            continue
        value = _MISSING
        if line.count("{") + line.count("[") <= MAX_JSON_DEPTH:
            try:
                value = _DECODER.decode(line)
            except (json.JSONDecodeError, _Refused, RecursionError):
                pass
        yield number, loads(line, name, f"line {number}") if value is _MISSING else value
