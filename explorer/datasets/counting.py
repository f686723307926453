"""How many records a file holds, counted on its bytes before anything is parsed.

Every loader knows where its records begin: a line-format file (a loader row with
``ranged=True``: JSON lines, CSV, SNLI / MultiNLI, MSRP, SICK, STS) holds one record per
non-blank line after a header line if its row's ``header`` says so (a CSV record may run
over several lines inside a quoted field: CSV files with quotes are counted by the csv
module, one block of lines at a time), an RTE XML file one ``<pair`` element per record, a
JSON list one object per record.
Counting those costs a pass over the bytes (tens of milliseconds for a 19 MB file of a
million lines) and no decoding, so a file far over a pair limit is refused before it is
parsed. :mod:`explorer.batch.source` cuts line-format files into ranges on the same rules.

The count is of records, not of the pairs a loader keeps (SNLI skips records with an
empty sentence). It never undercounts a well-formed file; it may overcount one whose
lines hold only non-ASCII white space, or an XML file with comments or CDATA holding
``<pair``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

from explorer.datasets import LOADERS, DatasetError, detect_format
from explorer.datasets.reading import decode

#: Bytes decoded to recognise a file's format (cut at a line end).
HEAD_BYTES = 1024 * 1024
#: Bytes counted at a time (bounds the memory a count takes, whatever the file).
_BLOCK = 1024 * 1024
_BOM = b"\xef\xbb\xbf"
# A JSON string, matched possessively so that a long string costs linear time.
_BLANKS = b" \t\x0b\x0c"
_LINE_START = re.compile(rb"\n[^\n]")
_LINE_EDGES = (b" ", b"\t", b"\x0b", b"\x0c", b"\n")
_BLANK_START = re.compile(rb"\n[ \t\x0b\x0c\n]")
_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
# The rest of a quoted CSV field up to its closing quote ("" is a quote inside it).
_QUOTED_REST = re.compile(rb'(?:[^"]++|"")*+"(?!")')


def cut_head(data: bytes) -> bytes:
    """The part of a file's first bytes its format is recognised from: all of ``data``
    up to :data:`HEAD_BYTES`; past that, the first :data:`HEAD_BYTES` cut at their last
    line end (with none, before a character the cut splits)."""
    if len(data) <= HEAD_BYTES:
        return data
    head = data[:HEAD_BYTES]
    cut = head.rfind(b"\n")
    return head[: cut + 1] if cut > 0 else head[: len(head) - _split_character(head)]


def _split_character(data: bytes) -> int:
    """How many bytes at the end of ``data`` begin a UTF-8 character they do not finish."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return 0
        if byte >= 0xC0:  # a lead byte: 110xxxxx needs 2 bytes, 1110xxxx 3, 11110xxx 4
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back if back < need else 0
    return 0


def head_format(data: bytes, name: str) -> str | None:
    """The format of a file as recognised from its head (:func:`cut_head`), or None when
    that part is not recognised (the whole-file loader then gives the precise error)."""
    head = cut_head(data)
    try:
        return detect_format(decode(head, name, max_bytes=len(head)), name)
    except DatasetError:
        return None


def _blocks(data: bytes) -> Iterator[bytes]:
    """``data`` in pieces of about :data:`_BLOCK` bytes, each ending at a line end (LF or
    CR; a JSON string holds neither, so no piece cuts one)."""
    start = 0
    while start < len(data):
        ends = [at for at in (data.find(b"\n", start + _BLOCK), data.find(b"\r", start + _BLOCK)) if at >= 0]
        end = min(ends) + 1 if ends else len(data)
        yield data[start:end]
        start = end


def non_blank_lines(data: bytes) -> tuple[int, bytes]:
    """The number of non-blank lines (LF, CRLF or a lone CR ends a line; blank means only
    ASCII white space, as the loaders' ``str.strip`` sees it after the file's byte-order
    mark) and the first of them."""
    data = data.removeprefix(_BOM)
    if not _may_have_blank_lines(data):  # the usual file: every line is a record
        end = data.find(b"\n")
        return data.count(b"\n") + (not data.endswith(b"\n")), data if end < 0 else data[:end]
    count, first = 0, b""
    for block in _blocks(data):
        block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if not first:
            first = next((line for line in block.split(b"\n", 1000) if _inked(line)), b"")
        # with the blanks deleted, a non-blank line is a line end followed by anything else
        count += _LINE_START.subn(b"", b"\n" + block.translate(None, _BLANKS))[1]
    return count, first


def _may_have_blank_lines(data: bytes) -> bool:
    """Whether a line could be blank or end in CR: only then is every line looked at. A
    blank line is empty or all white space, so it starts the file or follows a line end
    with white space or another line end."""
    return not data or data[:1] in _LINE_EDGES or b"\r" in data or _BLANK_START.search(data) is not None


def _inked(line: bytes) -> bool:
    return bool(line.translate(None, _BLANKS))


def csv_open_after(line: bytes, inside: bool) -> bool:
    """Whether a CSV line (bytes) ends inside a quoted field, given whether it begins
    inside one: the csv module's rules (a quote opens a field only at its start; ``""`` is
    a quote inside a quoted field), so a record that runs over lines is read as one."""
    if not inside and b'"' not in line:
        return False
    at = 0
    while True:
        if inside:
            closed = _QUOTED_REST.match(line, at)
            if closed is None:
                return True
            at, inside = closed.end(), False
        else:
            if line[at:at + 1] == b'"':
                at, inside = at + 1, True
                continue
        comma = line.find(b",", at)
        if comma < 0:
            return False
        at = comma + 1


def csv_records(data: bytes) -> tuple[int, bytes]:
    """The non-blank records of a CSV file (a quoted field may hold line ends) and its
    first non-blank line, as :func:`non_blank_lines` gives them for other line formats.
    Read by the csv module, one decoded line at a time (bounded memory); a file the csv
    module refuses is counted by its lines (the parser then says what is wrong)."""
    if b'"' not in data:
        return non_blank_lines(data)
    text = io.TextIOWrapper(io.BytesIO(data.removeprefix(_BOM)), encoding="utf-8", errors="replace", newline="")
    count, first = 0, b""
    try:
        for row in csv.reader(text, strict=True):
            if any(cell.strip() for cell in row):
                count += 1
                if not first:
                    first = ",".join(row).encode()
    except csv.Error:
        return non_blank_lines(data)
    return count, first


def line_bound(data: bytes) -> int:
    """An upper bound of the lines of a file, in at most three byte counts (a file that ends with
    a line end has no line after it: 100,000 lines so written are 100,000, not 100,001)."""
    ends = data.count(b"\n")
    if b"\r" in data:  # most files have none: one count, not three
        ends += data.count(b"\r") - data.count(b"\r\n")
    return ends + (not data.endswith((b"\n", b"\r")))


def json_objects(data: bytes) -> int:
    """The number of ``{`` outside strings: the records of a JSON list of flat objects
    (a record's fields are strings and numbers; anything nested is refused when parsed)."""
    return sum(_JSON_STRING.sub(b"", block).count(b"{") for block in _blocks(data))


def count_records(data: bytes, name: str) -> int | None:
    """The records a file holds (see the module docstring), or None for a format whose
    records are not counted before parsing (MSR alignments, Edinburgh++) or a file whose
    format is not recognised from its head."""
    return _count(data, name, None)


def records_over(data: bytes, name: str, limit: int) -> int | None:
    """The records a file holds when they are more than ``limit``, else None (also for a
    file :func:`count_records` does not count). A file whose line ends alone show that it
    is within the limit is not counted further (at most three byte counts)."""
    found = _count(data, name, limit)
    return found if found is not None and found > limit else None


def _count(data: bytes, name: str, limit: int | None) -> int | None:
    fmt = head_format(data, name)
    if fmt is None:
        return None
    if fmt == "rte_xml":
        return data.count(b"<pair")
    if fmt == "jsonl" and data.lstrip(_BOM + b" \t\r\n")[:1] == b"[":
        bound = data.count(b"{")
        return bound if limit is not None and bound <= limit else json_objects(data)
    info = LOADERS[fmt]
    if info.ranged:
        bound = line_bound(data)
        if limit is not None and bound <= limit:
            return bound
        lines, first = csv_records(data) if fmt == "csv" else non_blank_lines(data)
        return max(0, lines - info.has_header(first))
    return None
