"""SNLI (Bowman et al. 2015) and MultiNLI (Williams, Nangia & Bowman 2018), in their
JSON-lines (``.jsonl``) and tab-separated (``.txt``) release forms.

Both forms carry ``sentence1`` (the text), ``sentence2`` (the hypothesis),
``gold_label`` and ``pairID``; MultiNLI adds ``genre``, kept as the pair's task. The parse
trees and the five annotators' labels are not read.

Labels are 3-way, kept as they are (``entailment``, ``neutral``, ``contradiction``), the
way RTE3's 3-way labels are: binary scorers then count only ``entailment`` as entailed.
``gold_label`` ``-`` means the annotators reached no consensus: the pair is kept,
unlabelled, and the dataset's notes say how many such pairs there are. Any other label is
refused by name. A pair whose ``sentence1`` or ``sentence2`` is empty is skipped and
counted in the notes (with its first line), so one empty sentence does not keep a
half-million-pair corpus from loading; every other malformed record refuses the file,
naming the line.

The TSV form is split on tabs only (sentences hold unbalanced quotes, as in MultiNLI);
a row may omit trailing empty label columns but not have more fields than the header.
"""

from __future__ import annotations

from explorer.datasets import DatasetError
from explorer.datasets import fields as F
from explorer.datasets.reading import ParsedPairs, check_count, json_lines, lines
from explorer.pairs import CONTRADICTION, ENTAILMENT, NEUTRAL, Pair

#: The gold labels of the release, and ``-`` for no consensus.
GOLD_LABELS = {"entailment": ENTAILMENT, "neutral": NEUTRAL, "contradiction": CONTRADICTION}
NO_CONSENSUS = "-"
_REQUIRED = ("gold_label", "sentence1", "sentence2", "pairID")


def _first_line(text: str) -> str:
    start = len(text) - len(text.lstrip("\ufeff \n\t"))
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def sniff(text: str) -> str | None:
    """``"snli"`` or ``"multinli"`` when the first line looks like either corpus (a
    JSON record or a TSV header with gold_label, sentence1, sentence2 and pairID; with
    genre for MultiNLI), else None."""
    first = _first_line(text)
    if first.startswith("{"):
        if all(f'"{key}"' in first for key in _REQUIRED):
            return "multinli" if '"genre"' in first else "snli"
        return None
    columns = [c.strip() for c in first.split("\t")]
    if all(key in columns for key in _REQUIRED):
        return "multinli" if "genre" in columns else "snli"
    return None


class _Collector:
    def __init__(self, name: str, corpus: str, *, genre: bool) -> None:
        self.name, self.corpus, self.genre = name, corpus, genre
        self.pairs: list[Pair] = []
        self.no_consensus = 0
        self.empty = 0
        self.first_empty = ""

    def add(self, where: str, record: dict[str, object]) -> None:
        place = f"{self.name}: {where}"
        for key in _REQUIRED:
            if key not in record:
                raise DatasetError(f"{place}: no {key!r} field; expected an {self.corpus} record")
        raw = record["gold_label"]
        if not isinstance(raw, str):
            raise DatasetError(f"{place}: gold_label is {F.kind_of(raw)}; expected a string")
        label_text = raw.strip()
        if label_text == NO_CONSENSUS:
            label = None
        elif label_text in GOLD_LABELS:
            label = GOLD_LABELS[label_text]
        else:
            raise DatasetError(
                f"{place}: unknown gold_label {label_text[:40]!r}; expected entailment, neutral, contradiction "
                "or '-' (no consensus)"
            )
        pair_id = F.identifier(record["pairID"], place, "pairID")
        task = F.optional_identifier(record.get("genre"), place, "genre") if self.genre else None
        texts = []
        for key in ("sentence1", "sentence2"):
            value = record[key]
            if isinstance(value, str) and not value.strip():
                texts.append("")
            else:
                texts.append(F.sentence(value, place, key))
        if not all(texts):
            self.empty += 1
            self.first_empty = self.first_empty or where
            return
        if label is None:
            self.no_consensus += 1
        check_count(len(self.pairs) + 1, self.name)
        self.pairs.append(Pair(id=pair_id, text=texts[0], hypothesis=texts[1], label=label, task=task,
                               source=self.name))

    def result(self) -> ParsedPairs:
        notes = []
        if self.no_consensus:
            notes.append(
                f"{self.no_consensus:,} of {len(self.pairs):,} pairs have gold_label '-' (the annotators reached "
                "no consensus); they are kept, unlabelled"
            )
        if self.empty:
            notes.append(
                f"{self.empty:,} pairs skipped because sentence1 or sentence2 is empty (the first at {self.first_empty})"
            )
        return ParsedPairs(self.pairs, notes)


def _parse(text: str, name: str, corpus: str, *, genre: bool) -> ParsedPairs:
    collector = _Collector(name, corpus, genre=genre)
    if _first_line(text).startswith("{"):
        for line_no, record in json_lines(text, name):
            if not isinstance(record, dict):
                raise DatasetError(f"{name}: line {line_no}: expected a JSON object (one {corpus} record per line)")
            collector.add(f"line {line_no}", record)
        return collector.result()
    header: list[str] | None = None
    for line_no, line in enumerate(lines(text, name), start=1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if header is None:
            header = [c.strip() for c in cells]
            missing = [key for key in _REQUIRED + (("genre",) if genre else ()) if key not in header]
            if missing:
                raise DatasetError(f"{name}: line {line_no}: the header has no {', '.join(missing)} column; "
                                   f"expected the {corpus} TSV header")
            duplicate = next((h for h in header if h and header.count(h) > 1), None)
            if duplicate is not None:
                raise DatasetError(f"{name}: line {line_no}: the header names column {duplicate[:40]!r} twice")
            needed = max(header.index(key) for key in _REQUIRED) + 1
            continue
        if len(cells) > len(header) or len(cells) < needed:
            raise DatasetError(
                f"{name}: line {line_no} has {len(cells)} tab-separated fields; expected {len(header)} as in the header"
            )
        collector.add(f"line {line_no}", {key: value for key, value in zip(header, cells) if key})
    return collector.result()


def parse_snli(text: str, name: str) -> ParsedPairs:
    """SNLI, JSON lines or TSV (chosen by the first line)."""
    return _parse(text, name, "SNLI", genre=False)


def parse_multinli(text: str, name: str) -> ParsedPairs:
    """MultiNLI, JSON lines or TSV (chosen by the first line); ``genre`` becomes the task."""
    return _parse(text, name, "MultiNLI", genre=True)
