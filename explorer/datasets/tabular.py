"""Tab- and comma-separated corpora and JSON: MSRP, STS, SICK, generic CSV / JSONL.

MSRP and STS sentences contain unbalanced quote characters, so the TSV readers split
each line on tabs only, with no quoting. Generic CSV uses standard quoting (RFC 4180): a
quoted field may hold line ends (a spreadsheet's cell with a line break; the sentence
keeps a space for it), unless a line it swallows looks like a row of its own (as many
commas as the header has columns): that is almost always an unclosed quote swallowing
the rows after it, and is refused. Fields go through :mod:`explorer.datasets.fields`; the text through
:mod:`explorer.datasets.reading`.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable

from explorer.datasets import DatasetError
from explorer.datasets import fields as F
from explorer.datasets.reading import MAX_LINE_CHARS, check_count, json_lines, lines, loads
from explorer.pairs import Pair

csv.field_size_limit(MAX_LINE_CHARS)


def _rows(text: str, name: str, *, expected_columns: int, header: str = "") -> Iterable[tuple[int, list[str]]]:
    """The non-blank lines split on tabs. ``header``: the first column's name in the header
    line; the first non-blank line is skipped only when it starts with that name, so a file
    without its header loses no row (a fuzzed file showed line 1 skipped unread)."""
    seen_first = not header
    for line_no, line in enumerate(lines(text, name), start=1):
        if not line.strip():
            continue
        if not seen_first:
            seen_first = True
            if line.lstrip("\ufeff").split("\t", 1)[0].strip().lower() == header.lower():
                continue
        row = line.split("\t")
        if len(row) != expected_columns:
            raise DatasetError(
                f"{name}: line {line_no} has {len(row)} tab-separated fields; expected {expected_columns}"
            )
        yield line_no, row


def parse_msrp(text: str, name: str) -> list[Pair]:
    """MSRP: ``Quality, #1 ID, #2 ID, #1 String, #2 String``; Quality 1 = paraphrase."""
    pairs = []
    for line_no, (quality, id1, id2, s1, s2) in _rows(text, name, expected_columns=5, header="Quality"):
        where = f"{name}: line {line_no}"
        if quality.strip() not in ("0", "1"):
            raise DatasetError(f"{where}: Quality {quality[:40]!r}; expected 0 or 1")
        pair_id = f"{F.identifier(id1, where, '#1 ID')}-{F.identifier(id2, where, '#2 ID')}"
        pairs.append(Pair(id=pair_id, text=F.sentence(s1, where, "#1 String"),
                          hypothesis=F.sentence(s2, where, "#2 String"),
                          label=F.label(quality.strip(), where, "Quality"), source=name))
    return pairs


def parse_sts(text: str, name: str, *, first_record: int = 1) -> list[Pair]:
    """STS 2012 training TSV: ``score, sentence 1, sentence 2`` (score 0-5), no header.
    Ids are record numbers, counted from ``first_record`` (a batch reads a file in
    pieces: see :mod:`explorer.batch.source`)."""
    pairs = []
    rows = _rows(text, name, expected_columns=3)
    for index, (line_no, (score, s1, s2)) in enumerate(rows, first_record):
        where = f"{name}: line {line_no}"
        pairs.append(Pair(id=str(index), text=F.sentence(s1, where, "sentence 1"),
                          hypothesis=F.sentence(s2, where, "sentence 2"),
                          score=_score(score, where, "score", 0, 5), source=name))
    return pairs


def _score(raw: str, where: str, field: str, low: float, high: float) -> float:
    value = F.score(raw, where, field, low=low, high=high)
    if value is None:
        raise DatasetError(f"{where}: the {field} is missing")
    return value


def parse_sick(text: str, name: str) -> list[Pair]:
    """SICK: ``pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment``."""
    pairs = []
    for line_no, (pid, s1, s2, score, judgment) in _rows(text, name, expected_columns=5, header="pair_ID"):
        where = f"{name}: line {line_no}"
        label = F.label(judgment, where, "entailment_judgment")
        if label is None:
            raise DatasetError(f"{where}: the entailment_judgment is missing")
        pairs.append(Pair(id=F.identifier(pid, where, "pair_ID"), text=F.sentence(s1, where, "sentence_A"),
                          hypothesis=F.sentence(s2, where, "sentence_B"), label=label,
                          score=_score(score, where, "relatedness_score", 1, 5), source=name))
    return pairs


_TEXT_KEYS = ("text", "premise", "sentence1", "t")
_HYPOTHESIS_KEYS = ("hypothesis", "sentence2", "h")
# SNLI-style names are read too, so that a file of SNLI-shaped records that is not
# recognised as SNLI (e.g. no pairID) does not lose its labels silently.
_LABEL_KEYS = ("label", "gold_label")
_ID_KEYS = ("id", "pairid")
_TASK_KEYS = ("task", "genre")


def _first_key(fields: dict[str, object], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        if key in fields:
            return key
    return None


def _first(fields: dict[str, object], keys: tuple[str, ...]) -> object:
    key = _first_key(fields, keys)
    return None if key is None else fields[key]


def _record_to_pair(record: object, index: int, name: str, where: str, *, folded: bool = False) -> Pair:
    """One record as a pair; ``folded``: its field names are already stripped and lower
    case (a CSV header)."""
    place = f"{name}: {where}"
    if not isinstance(record, dict):
        raise DatasetError(f"{place}: expected an object with text and hypothesis")
    fields: dict[str, object] = record if folded else {}
    if not folded:
        for key, value in record.items():
            key = str(key).strip().lower()
            if key in fields:
                raise DatasetError(f"{place}: the field {key[:40]!r} is given twice (names are not case-sensitive)")
            fields[key] = value
    text_key = _first_key(fields, _TEXT_KEYS)
    hyp_key = _first_key(fields, _HYPOTHESIS_KEYS)
    if text_key is None or hyp_key is None:
        raise DatasetError(f"{place}: needs string fields 'text' (or 'premise') and 'hypothesis'")
    pair_id = F.optional_identifier(_first(fields, _ID_KEYS), place, "id")
    return Pair(
        id=pair_id if pair_id is not None else str(index),
        text=F.sentence(fields[text_key], place, text_key),
        hypothesis=F.sentence(fields[hyp_key], place, hyp_key),
        label=F.label(_first(fields, _LABEL_KEYS), place),
        score=F.score(fields.get("score"), place),
        task=F.optional_identifier(_first(fields, _TASK_KEYS), place, "task"),
        source=name,
        note=F.note(fields.get("note"), place),
    )


def parse_csv(text: str, name: str, *, first_record: int = 1) -> list[Pair]:
    """Generic CSV with a header naming at least text (or premise) and hypothesis. A pair
    without an id gets its record number, counted from ``first_record``.

    Raises:
        DatasetError: for a missing or duplicated header column, a row with more fields
            than the header, a quoted field that swallows a row, or a bad field.
    """
    physical = lines(text, name, line_records=False)
    reader = csv.reader((line + "\n" for line in physical), strict=True)  # a line end inside a field stays one
    pairs: list[Pair] = []
    header: list[str] | None = None
    index = first_record - 1
    end = 0
    try:
        for row in reader:
            start, end = end + 1, reader.line_num
            if header is not None and _swallows_a_row(physical[start:end - 1], len(header)):
                raise DatasetError(
                    f"{name}: lines {start}-{end}: a quoted field runs over {end - start + 1} lines; a double quote "
                    f"is probably not closed on line {start}. Put quotes around whole fields and double any quote "
                    "inside them (\"\")"
                )
            if header is None:
                if not any(cell.strip() for cell in row):
                    continue
                header = [cell.strip().lower() for cell in row]
                named = [h for h in header if h]
                duplicate = next((h for h in named if named.count(h) > 1), None)
                if duplicate is not None:
                    raise DatasetError(f"{name}: line {end}: the CSV header names column {duplicate[:40]!r} twice")
                if not set(named) & set(_TEXT_KEYS) or not set(named) & set(_HYPOTHESIS_KEYS):
                    raise DatasetError(
                        f"{name}: CSV header {row[:12]} needs columns 'text' (or 'premise') and 'hypothesis'"
                    )
                continue
            if not any(cell.strip() for cell in row):
                continue
            if len(row) > len(header):
                raise DatasetError(f"{name}: line {end}: more fields than the header has")
            index += 1
            check_count(index - first_record + 1, name)
            record = {key: value for key, value in zip(header, row) if key}
            pairs.append(_record_to_pair(record, index, name, f"line {end}", folded=True))
    except csv.Error as err:
        raise DatasetError(
            f"{name}: line {end + 1}: {err}; check the double quotes from this line on (a field that starts with a "
            "quote must end with one, and quotes inside it are doubled)"
        ) from None
    if header is None:
        raise DatasetError(f"{name}: empty CSV; expected a header line")
    return pairs


def _swallows_a_row(inside: list[str], columns: int) -> bool:
    """Whether a line inside a quoted field (neither its record's first nor its last)
    has as many commas as a row of ``columns`` fields."""
    return any(line.count(",") >= columns - 1 for line in inside)


def parse_jsonl(text: str, name: str, *, first_record: int = 1) -> list[Pair]:
    """JSON lines (one object per line) or one JSON list of objects. A pair without an id
    gets its record number, counted from ``first_record``."""
    if text.lstrip("\ufeff \n\t").startswith("["):
        data = loads(text, name)
        if not isinstance(data, list):
            raise DatasetError(f"{name}: expected a JSON list of pair objects")
        check_count(len(data), name)
        return [_record_to_pair(record, i, name, f"record {i}") for i, record in enumerate(data, start=1)]
    return [
        _record_to_pair(record, index, name, f"line {line_no}")
        for index, (line_no, record) in enumerate(json_lines(text, name), start=first_record)
    ]
