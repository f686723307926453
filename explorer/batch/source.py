"""Where a batch's pairs come from, without the client holding them all.

A file in a line format (a loader row with ``ranged=True``: JSON lines, CSV, SNLI /
MultiNLI, MSRP, SICK, STS: one record per non-blank line, after a header line if the
row's ``header`` says so; a CSV record runs on over the lines a quoted field holds) is **scanned**: read once in 8 MiB
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
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.datasets import LOADERS, MAX_BYTES, MAX_FILE_BYTES, Dataset, DatasetError, load
from explorer.datasets.counting import HEAD_BYTES, csv_open_after, cut_head, head_format
from explorer.datasets.reading import MAX_PAIRS, check_size, decode, file_lines
from explorer.pairs import Pair

#: Records parsed at a time when the command line reads a whole file (:func:`iter_pairs`).
STREAM_RECORDS = 20_000
#: Files in a format read whole (RTE XML, a JSON list, MSR / Edinburgh++ alignments, a file
#: with lone CR line ends) are held several times over while they are parsed (bytes, text,
#: lines or tree, pairs), so they are refused past the upload limit; line formats are read
#: in ranges up to :data:`explorer.datasets.MAX_FILE_BYTES`.
MAX_WHOLE_BYTES = MAX_BYTES


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
    #: the file's modification time when it was scanned: with ``size``, what every read
    #: of a range checks (an edit while the batch runs would put other records under
    #: this fingerprint)
    mtime_ns: int = 0

    @property
    def stamp(self) -> tuple[int, int]:
        return self.size, self.mtime_ns

    def __len__(self) -> int:
        return self.records

    def text_of(self, index: int, data: bytes) -> str:
        """Chunk ``index``'s bytes as text for the format's parser: the header, blank lines
        so the line numbers are the file's, then the chunk."""
        r = self.ranges[index]
        padding = b"\n" * max(0, r.first_line - 1 - self.header_lines)
        return decode(self.header + padding + data, self.name, max_bytes=MAX_FILE_BYTES)


def changed_since(path: str | Path, stamp: tuple[int, int], stat: os.stat_result | None = None) -> str | None:
    """How a dataset file differs from its scan (``stamp``: size and modification time),
    or None when it does not."""
    try:
        now = stat or os.stat(path)
    except OSError as err:
        return f"it cannot be read now ({err.strerror or err})"
    if now.st_size != stamp[0]:
        return f"it had {stamp[0]:,} bytes when the batch began and has {now.st_size:,} now"
    if now.st_mtime_ns != stamp[1]:
        return "it was written since the batch began (same size, newer modification time)"
    return None


class SourceChanged(DatasetError):
    """A dataset file read in ranges changed since it was scanned."""

    def __init__(self, path: str | Path, why: str) -> None:
        super().__init__(f"{path} changed while the batch ran: {why}")


def check_unchanged(path: str | Path, stamp: tuple[int, int], stat: os.stat_result | None = None) -> None:
    """Raise :class:`SourceChanged` when ``path`` differs from its scan (``stamp``)."""
    why = changed_since(path, stamp, stat)
    if why is not None:
        raise SourceChanged(path, why)


def parse_range(fmt: str, text: str, name: str, first_record: int) -> tuple[list[Pair], tuple[str, ...]]:
    """Parse one chunk's text with the format's loader; its pairs and notes."""
    info = LOADERS.info(fmt)
    parse: Any = info.parse  # a numbered format's parser takes first_record
    pairs = parse(text, name, first_record=first_record) if info.numbered else parse(text, name)
    return list(pairs), tuple(getattr(pairs, "notes", ()))


def _ranged_format(path: Path) -> str | None:
    """The format of a file when it is one read in ranges (from its first MiB, cut at a
    line end), else None."""
    with path.open("rb") as f:
        head = cut_head(f.read(HEAD_BYTES + 1))
    if head.count(b"\r") != head.count(b"\r\n"):
        return None  # lone CR line ends: the whole-file loader reads them
    fmt = head_format(head, str(path))  # None: the whole-file loader gives the precise error
    if fmt is None or not LOADERS[fmt].ranged:
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
        before = path.stat()
        size = before.st_size
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
        quoted = False  # a CSV line that ends inside a quoted field: its record goes on
        with path.open("rb") as f:
            for start, line in file_lines(f, str(path), seen=digest.update):
                line_no += 1
                if b"\r" in line and line.find(b"\r") != len(line) - 1:
                    return None  # a lone CR: the whole-file loader reads such line ends
                continued, quoted = quoted, fmt == "csv" and csv_open_after(line, quoted)
                if continued or not line.strip().lstrip(b"\xef\xbb\xbf"):
                    continue
                if need_header is None:
                    need_header = LOADERS[fmt].has_header(line)
                    if need_header:
                        continue
                if records % chunk_size == 0:
                    ranges.append([start, line_no, records + 1])
                records += 1
                if records > MAX_PAIRS:
                    raise DatasetError(f"{path}: over {MAX_PAIRS:,} records, the pair limit "
                                       "(datasets.reading.MAX_PAIRS); split the file")
        if need_header:
            with path.open("rb") as f:
                header = f.read(ranges[0][0] if ranges else size)
        if changed_since(path, (size, before.st_mtime_ns)) is not None:
            raise DatasetError(f"{path} changed while it was being scanned; run the command again once it is written")
    except OSError as err:
        raise DatasetError(f"{path}: cannot read ({err.strerror})") from None
    if records == 0:
        raise DatasetError(f"{path}: no pairs found in this {fmt} file")
    header_lines = header.count(b"\n")
    spans = []
    for k, (start, first_line, first_record) in enumerate(ranges):
        # the first chunk starts where the header ends (at byte 0 without one)
        begin, line0 = (len(header), header_lines + 1) if k == 0 else (start, first_line)
        end = ranges[k + 1][0] if k + 1 < len(ranges) else size
        spans.append(FileRange(begin, end, line0, first_record, min(chunk_size, records - first_record + 1)))
    source = FileSource(path=path, name=path.name, format=fmt, header=header, header_lines=header_lines,
                        size=size, mtime_ns=before.st_mtime_ns, fingerprint="file-sha256:" + digest.hexdigest(),
                        records=records,
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
    """Chunk ``index``'s raw bytes (for workers that cannot see the file).

    Raises:
        SourceChanged: when the file changed since it was scanned.
    """
    r = source.ranges[index]
    with source.path.open("rb") as f:
        f.seek(r.start)
        data = f.read(r.end - r.start)
        check_unchanged(source.path, source.stamp, os.fstat(f.fileno()))
    return data


def load_whole(path: str | Path) -> Dataset:
    """A file in a format read whole, refused past :data:`MAX_WHOLE_BYTES` before it is read.

    Raises:
        DatasetError: as :func:`explorer.datasets.load`, or naming the limit.
    """
    path = Path(path)
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        size = 0  # load() says what is wrong
    if size > MAX_WHOLE_BYTES:
        raise DatasetError(
            f"{path}: {size:,} bytes is over the {MAX_WHOLE_BYTES:,}-byte limit for files read whole "
            f"(explorer.batch.source.MAX_WHOLE_BYTES: RTE XML, a JSON list, alignment files, lone CR line ends). "
            f"JSON lines, CSV and the TSV corpora with LF or CRLF line ends are read in pieces up to "
            f"{MAX_FILE_BYTES:,} bytes: convert the file to JSON lines, or split it")
    return load(path)


def open_source(path: str | Path, chunk_size: int) -> FileSource | Dataset:
    """A scanned file when the format allows, else the loaded dataset.

    Raises:
        DatasetError: as :func:`scan` and :func:`load_whole`.
    """
    return scan(path, chunk_size) or load_whole(path)


def iter_pairs(path: str | Path) -> Iterator[tuple[Sequence[Pair], tuple[str, ...]]]:
    """A dataset file's pairs, :data:`STREAM_RECORDS` records at a time, each range with
    its loader's notes (a file in a format read whole: all at once). Ids are checked to
    be unique across the file, as :func:`explorer.datasets.load` checks them.

    Raises:
        DatasetError: as :func:`open_source`, for a malformed record, or a repeated id.
    """
    return _ranges(open_source(path, STREAM_RECORDS))


def _ranges(data: FileSource | Dataset) -> Iterator[tuple[Sequence[Pair], tuple[str, ...]]]:
    """Each range parsed as :func:`explorer.datasets.load` parses the file: the path as
    given names the pairs' source and the errors."""
    if isinstance(data, Dataset):
        yield data.pairs, data.notes
        return
    seen: set[str] = set()
    for index, r in enumerate(data.ranges):
        pairs, notes = parse_range(data.format, data.text_of(index, read_range(data, index)), str(data.path),
                                   r.first_record)
        for pair in pairs:
            if pair.id in seen:
                raise DatasetError(f"{data.path}: pair id {pair.id!r} occurs more than once; ids must be unique")
            seen.add(pair.id)
        yield pairs, notes


def read_dataset(path: str | Path) -> Dataset:
    """The whole dataset, read as :func:`iter_pairs` reads it: a line-format file is never
    held as bytes, text and lines, only as its pairs, and a line past the line limit is
    refused after reading the limit's worth of it. The command line reads every dataset
    file so.

    Notes: the loader's, when the file is one range; otherwise counted over the whole
    file (as a batch's are, :func:`whole_notes`).

    Raises:
        DatasetError: as :func:`iter_pairs`.
    """
    source = open_source(path, STREAM_RECORDS)
    if isinstance(source, Dataset):
        return source
    pairs: list[Pair] = []
    notes: list[tuple[str, ...]] = []
    for chunk, chunk_notes in _ranges(source):
        pairs.extend(chunk)
        notes.append(chunk_notes)
    if len(notes) == 1:
        return Dataset(source.name, source.format, tuple(pairs), notes[0])
    labelled = any(p.label is not None for p in pairs)
    unlabelled = sum(p.label is None for p in pairs)
    return Dataset(source.name, source.format, tuple(pairs),
                   tuple(whole_notes(len(pairs), unlabelled, source.records, labelled=labelled)))


def whole_notes(rows: int, unlabelled: int, records: int, *, labelled: bool) -> list[str]:
    """What a file read in ranges says about itself once all of it is read: pairs kept
    unlabelled in labelled data, records that gave no pair."""
    notes = []
    if labelled and unlabelled:
        notes.append(f"{unlabelled:,} of {rows:,} pairs have no gold label (e.g. SNLI's '-'); they are kept, unlabelled")
    if rows < records:
        notes.append(f"{records - rows:,} of {records:,} records gave no pair "
                     "(skipped by the loader, e.g. an empty sentence)")
    return notes


def pairs_of(data: Dataset, begin: int, count: int) -> Sequence[Pair]:
    return data.pairs[begin: begin + count]
