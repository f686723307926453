"""Where a batch's pairs come from, without the client holding them all.

A file in a line format (JSON lines, CSV, SNLI / MultiNLI, MSRP, SICK, STS: one record
per non-blank line, after an optional header line) is **scanned**: read once in 8 MiB
blocks to hash it, count its records and cut it into byte ranges of ``chunk_size``
records. The client keeps only those ranges (a few numbers per chunk); each worker reads
its own range, parses it with the format's own loader (the header line put in front, the
line numbers and record numbers those of the whole file) and writes its Parquet chunk.
So the client's memory does not grow with the corpus, and no pair is pickled.

Any other file (RTE XML, MSR alignments, Edinburgh++, a JSON list, a file with lone
carriage-return line ends) is **loaded** whole as ``evaluate`` loads it (these formats
come in RTE-sized files) and its pairs travel to the workers chunk by chunk.

What a scan does not see before the workers parse their ranges: a malformed record past
the first chunk (the chunk that holds it fails, naming the line, and the run stops
resumably), and an id repeated in two chunks (checked over the whole result when the
last chunk is written). The first chunk's records are parsed on the client before any
work starts, so a wrong file is refused at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.datasets import MAX_FILE_BYTES, Dataset, DatasetError, load
from explorer.datasets.counting import HEAD_BYTES, RANGED_FORMATS, has_header, head_format
from explorer.datasets.reading import MAX_PAIRS, check_size, decode
from explorer.pairs import Pair

#: Formats whose pairs without an id are numbered by record.
_NUMBERED_FORMATS = frozenset({"jsonl", "csv", "sts"})
#: Bytes read per block while scanning.
BLOCK = 8 * 1024 * 1024


@dataclass(frozen=True)
class FileRange:
    """One chunk of a scanned file: bytes ``[start, end)``, beginning on line
    ``first_line`` (1-based) with record ``first_record`` (1-based, blank lines not
    counted); ``records`` non-blank lines."""

    start: int
    end: int
    first_line: int
    first_record: int
    records: int


@dataclass(frozen=True)
class FileSource:
    """A scanned line-format file (see the module docstring)."""

    path: Path
    name: str
    format: str
    header: bytes
    header_lines: int
    size: int
    fingerprint: str
    records: int
    chunk_size: int
    ranges: tuple[FileRange, ...]
    #: parsed from the first chunk on the client: kind and tasks as far as it shows them
    head: Dataset

    def __len__(self) -> int:
        return self.records

    def text_of(self, index: int, data: bytes) -> str:
        """Chunk ``index``'s bytes as text for the format's parser: the header, blank lines
        so the line numbers are the file's, then the chunk."""
        r = self.ranges[index]
        padding = b"\n" * max(0, r.first_line - 1 - self.header_lines)
        return decode(self.header + padding + data, self.name, max_bytes=MAX_FILE_BYTES)


def parse_range(fmt: str, text: str, name: str, first_record: int) -> tuple[list[Pair], tuple[str, ...]]:
    """Parse one chunk's text with the format's loader; its pairs and notes."""
    from explorer.datasets import LOADERS

    parse: Any = LOADERS.info(fmt).parse  # the numbered formats' parsers take first_record
    pairs = parse(text, name, first_record=first_record) if fmt in _NUMBERED_FORMATS else parse(text, name)
    return list(pairs), tuple(getattr(pairs, "notes", ()))


def _ranged_format(path: Path) -> str | None:
    """The format of a file when it is one read in ranges (from its first MiB, cut at a
    line end), else None."""
    with path.open("rb") as f:
        head = f.read(HEAD_BYTES + 1)
    fmt = head_format(head, str(path))  # None: the whole-file loader gives the precise error
    if fmt not in RANGED_FORMATS:
        return None
    if fmt == "jsonl" and not head.lstrip(b"\xef\xbb\xbf \n\t").startswith(b"{"):
        return None  # a JSON list, not JSON lines
    return fmt


def scan(path: str | Path, chunk_size: int) -> FileSource | None:
    """Scan a line-format file into ranges of ``chunk_size`` records; None for a file
    that must be loaded whole (another format, or lone CR line ends).

    Raises:
        DatasetError: for a missing, unreadable or over-limit file, no records, or a
            first chunk its loader refuses.
    """
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    try:
        size = path.stat().st_size
        check_size(size, str(path), MAX_FILE_BYTES)
        fmt = _ranged_format(path)
        if fmt is None:
            return None
        digest = hashlib.sha256(path.name.encode() + b"\x00")
        header = b""
        need_header: bool | None = None
        ranges: list[list[int]] = []
        records = 0
        line_no = 0
        offset = 0  # byte offset of the next line
        carry = b""
        with path.open("rb") as f:
            while True:
                block = f.read(BLOCK)
                digest.update(block)
                data = carry + block
                if not block:
                    if not data:
                        break
                    data += b"\n"  # the last line has no line end
                    complete, carry = data, b""
                else:
                    cut = data.rfind(b"\n")
                    if cut < 0:
                        carry = data
                        continue
                    complete, carry = data[: cut + 1], data[cut + 1:]
                if complete.count(b"\r") != complete.count(b"\r\n"):
                    return None  # lone CR line ends: the whole-file loader reads them
                for line in complete.split(b"\n")[:-1]:
                    line_no += 1
                    start = offset
                    offset += len(line) + 1
                    if not line.strip().lstrip(b"\xef\xbb\xbf"):
                        continue
                    if need_header is None:
                        need_header = has_header(fmt, line)
                        if need_header:
                            continue
                    if records % chunk_size == 0:
                        ranges.append([start, line_no, records + 1])
                    records += 1
                if not block:
                    break
        if need_header:
            with path.open("rb") as f:
                header = f.read(ranges[0][0] if ranges else size)
    except OSError as err:
        raise DatasetError(f"{path}: cannot read ({err.strerror})") from None
    if records == 0:
        raise DatasetError(f"{path}: no pairs found in this {fmt} file")
    if records > MAX_PAIRS:
        raise DatasetError(f"{path}: {records:,} records is over the {MAX_PAIRS:,}-pair limit "
                           "(datasets.reading.MAX_PAIRS); split the file")
    header_lines = header.count(b"\n")
    spans = []
    for k, (start, first_line, first_record) in enumerate(ranges):
        # the first chunk starts where the header ends (at byte 0 without one)
        begin, line0 = (len(header), header_lines + 1) if k == 0 else (start, first_line)
        end = ranges[k + 1][0] if k + 1 < len(ranges) else size
        spans.append(FileRange(begin, end, line0, first_record, min(chunk_size, records - first_record + 1)))
    source = FileSource(path=path, name=path.name, format=fmt, header=header, header_lines=header_lines,
                        size=size, fingerprint="file-sha256:" + digest.hexdigest(), records=records,
                        chunk_size=chunk_size, ranges=tuple(spans), head=Dataset(path.name, fmt, ()))
    return _with_head(source)


def _with_head(source: FileSource) -> FileSource:
    """Parse the first chunk on the client: a wrong file is refused before any work."""
    first = source.ranges[0]
    with source.path.open("rb") as f:
        f.seek(first.start)
        data = f.read(first.end - first.start)
    pairs, notes = parse_range(source.format, source.text_of(0, data), source.name, first.first_record)
    head = Dataset(source.name, source.format, tuple(pairs), notes)
    return FileSource(**{**source.__dict__, "head": head})


def read_range(source: FileSource, index: int) -> bytes:
    """Chunk ``index``'s raw bytes (for workers that cannot see the file)."""
    r = source.ranges[index]
    with source.path.open("rb") as f:
        f.seek(r.start)
        return f.read(r.end - r.start)


def open_source(path: str | Path, chunk_size: int) -> FileSource | Dataset:
    """A scanned file when the format allows, else the loaded dataset.

    Raises:
        DatasetError: as :func:`scan` and :func:`explorer.datasets.load`.
    """
    return scan(path, chunk_size) or load(path)


def pairs_of(data: Dataset, begin: int, count: int) -> Sequence[Pair]:
    return data.pairs[begin: begin + count]
