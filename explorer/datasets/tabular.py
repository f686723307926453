"""Tab- and comma-separated corpora and JSON: MSRP, STS, SICK, generic CSV / JSONL.

MSRP and STS sentences contain unbalanced quote characters, so the TSV readers split
on tabs only (``csv.QUOTE_NONE``). Generic CSV uses standard quoting.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable

from explorer.datasets import DatasetError
from explorer.pairs import LabelError, Pair, normalize_label
from explorer.preprocess import clean_text

csv.field_size_limit(10 * 1024 * 1024)


def _rows(text: str, name: str, *, expected_columns: int, header: bool) -> Iterable[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    for line_no, row in enumerate(reader, start=1):
        if header and line_no == 1:
            continue
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != expected_columns:
            raise DatasetError(
                f"{name}: line {line_no} has {len(row)} tab-separated fields; expected {expected_columns}"
            )
        yield line_no, row


def _score(raw: str, name: str, line_no: int, *, low: float, high: float) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise DatasetError(f"{name}: line {line_no}: score {raw!r} is not a number") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise DatasetError(f"{name}: line {line_no}: score {value} outside {low}-{high}")
    return value


def _sentences(name: str, line_no: int, *cells: str) -> list[str]:
    cleaned = [clean_text(c) for c in cells]
    if not all(cleaned):
        raise DatasetError(f"{name}: line {line_no}: empty sentence")
    return cleaned


def parse_msrp(text: str, name: str) -> list[Pair]:
    """MSRP: ``Quality, #1 ID, #2 ID, #1 String, #2 String``; Quality 1 = paraphrase."""
    pairs = []
    for line_no, (quality, id1, id2, s1, s2) in _rows(text, name, expected_columns=5, header=True):
        if quality.strip() not in ("0", "1"):
            raise DatasetError(f"{name}: line {line_no}: Quality {quality!r}; expected 0 or 1")
        t, h = _sentences(name, line_no, s1, s2)
        pairs.append(Pair(id=f"{id1.strip()}-{id2.strip()}", text=t, hypothesis=h,
                          label=normalize_label(quality), source=name))
    return pairs


def parse_sts(text: str, name: str) -> list[Pair]:
    """STS 2012 training TSV: ``score, sentence 1, sentence 2`` (score 0-5), no header."""
    pairs = []
    for index, (line_no, (score, s1, s2)) in enumerate(_rows(text, name, expected_columns=3, header=False), 1):
        t, h = _sentences(name, line_no, s1, s2)
        pairs.append(Pair(id=str(index), text=t, hypothesis=h,
                          score=_score(score, name, line_no, low=0, high=5), source=name))
    return pairs


def parse_sick(text: str, name: str) -> list[Pair]:
    """SICK: ``pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment``."""
    pairs = []
    for line_no, (pid, s1, s2, score, judgment) in _rows(text, name, expected_columns=5, header=True):
        t, h = _sentences(name, line_no, s1, s2)
        try:
            label = normalize_label(judgment)
        except LabelError as err:
            raise DatasetError(f"{name}: line {line_no}: {err}") from None
        pairs.append(Pair(id=pid.strip(), text=t, hypothesis=h, label=label,
                          score=_score(score, name, line_no, low=1, high=5), source=name))
    return pairs


_TEXT_KEYS = ("text", "premise", "sentence1", "t")
_HYPOTHESIS_KEYS = ("hypothesis", "sentence2", "h")


def _record_to_pair(record: dict[str, object], index: int, name: str, where: str) -> Pair:
    if not isinstance(record, dict):
        raise DatasetError(f"{name}: {where}: expected an object with text and hypothesis")
    fields = {str(k).strip().lower(): v for k, v in record.items()}
    text = next((fields[k] for k in _TEXT_KEYS if k in fields), None)
    hyp = next((fields[k] for k in _HYPOTHESIS_KEYS if k in fields), None)
    if not isinstance(text, str) or not isinstance(hyp, str):
        raise DatasetError(f"{name}: {where}: needs string fields 'text' (or 'premise') and 'hypothesis'")
    t, h = clean_text(text), clean_text(hyp)
    if not t or not h:
        raise DatasetError(f"{name}: {where}: empty text or hypothesis")
    label = None
    raw_label = fields.get("label")
    if raw_label not in (None, ""):
        try:
            label = normalize_label(str(raw_label))
        except LabelError as err:
            raise DatasetError(f"{name}: {where}: {err}") from None
    score = None
    raw_score = fields.get("score")
    if raw_score not in (None, ""):
        try:
            score = float(raw_score)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise DatasetError(f"{name}: {where}: score {raw_score!r} is not a number") from None
        if not math.isfinite(score):
            raise DatasetError(f"{name}: {where}: score must be a finite number")
    task = fields.get("task")
    pair_id = fields.get("id")
    note = fields.get("note")
    return Pair(
        id=str(pair_id).strip() if pair_id not in (None, "") else str(index),
        text=t, hypothesis=h, label=label, score=score,
        task=str(task).strip() or None if task not in (None, "") else None,
        source=name,
        note=clean_text(str(note)) or None if note not in (None, "") else None,
    )


def parse_csv(text: str, name: str) -> list[Pair]:
    """Generic CSV with a header naming at least text (or premise) and hypothesis (optional:
    label, task, id, score, note)."""
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        raise DatasetError(f"{name}: empty CSV; expected a header line")
    header = {f.strip().lower() for f in reader.fieldnames if f}
    if not header & set(_TEXT_KEYS) or not header & set(_HYPOTHESIS_KEYS):
        raise DatasetError(
            f"{name}: CSV header {reader.fieldnames} needs columns 'text' (or 'premise') and 'hypothesis'"
        )
    pairs = []
    try:
        for index, row in enumerate(reader, start=1):
            if None in row:
                raise DatasetError(f"{name}: line {reader.line_num}: more fields than the header has")
            if not any((v or "").strip() for v in row.values()):
                continue
            pairs.append(_record_to_pair(dict(row), index, name, f"line {reader.line_num}"))
    except csv.Error as err:
        raise DatasetError(f"{name}: line {reader.line_num}: {err}") from None
    return pairs


def parse_jsonl(text: str, name: str) -> list[Pair]:
    """JSON lines (one object per line) or one JSON list of objects."""
    stripped = text.strip()
    records: list[tuple[str, object]] = []
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as err:
            raise DatasetError(f"{name}: invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
        if not isinstance(data, list):
            raise DatasetError(f"{name}: expected a JSON list of pair objects")
        records = [(f"record {i}", r) for i, r in enumerate(data, start=1)]
    else:
        for line_no, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append((f"line {line_no}", json.loads(line)))
            except json.JSONDecodeError as err:
                raise DatasetError(f"{name}: line {line_no}: invalid JSON ({err.msg})") from None
    return [
        _record_to_pair(record, index, name, where)  # type: ignore[arg-type]
        for index, (where, record) in enumerate(records, start=1)
    ]
