"""Exports of the store's annotations: per-pair records as CSV/JSON, corrected
alignments in the MSR format and as ``sureAlign`` JSON lines.

* corrected (gold) alignments in the MSR alignment format (Brockett 2007: per pair a
  ``# sentence pair N`` line, the text tokens, then ``NULL ({ / / })`` and each
  hypothesis token followed by ``({ ... / / })`` listing its 1-based text positions,
  ``pK`` for POSSIBLE links) and as JSON lines with the ``source`` / ``target`` /
  ``sureAlign`` / ``possibleAlign`` fields used by published monolingual word-alignment
  data (links ``"p-h"``, 0-based).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.alignment import Alignment
from explorer.store.crosstab import ANNOTATION_FIELDS
from explorer.store.csv_cells import spreadsheet_safe
from explorer.store.schema import StoreError
from explorer.store.store import Store

__all__ = [
    "AlignedPair", "Tokenizer", "annotations_to_csv", "annotations_to_json", "stored_gold_alignments", "to_msr",
    "to_sure_align_json",
]


def annotations_to_csv(records: Iterable[dict[str, Any]]) -> str:
    """Per-pair records as CSV (tags joined with ``;``; formula-like text cells defused,
    :mod:`explorer.store.csv_cells`)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=ANNOTATION_FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        row = {**record, "tags": ";".join(record["tags"])}
        writer.writerow({key: spreadsheet_safe(value) for key, value in row.items()})
    return out.getvalue()


def annotations_to_json(records: Iterable[dict[str, Any]]) -> str:
    return json.dumps(list(records), indent=2, ensure_ascii=False)


# ------------------------------------------------------------------ alignment export

@dataclass(frozen=True)
class AlignedPair:
    """What an alignment export needs: an id, both token sequences and the links."""

    pair_id: str
    text_tokens: tuple[str, ...]
    hypothesis_tokens: tuple[str, ...]
    alignment: Alignment

    def __post_init__(self) -> None:
        if (len(self.text_tokens), len(self.hypothesis_tokens)) != (self.alignment.p_len, self.alignment.h_len):
            raise ValueError(
                f"pair {self.pair_id}: {len(self.text_tokens)} x {len(self.hypothesis_tokens)} tokens "
                f"for a {self.alignment.p_len} x {self.alignment.h_len} alignment"
            )


def _check_token(token: str, pair_id: str) -> str:
    if not token or any(c.isspace() for c in token):
        raise ValueError(f"pair {pair_id}: token {token!r} is empty or contains whitespace; "
                         "the MSR format separates tokens by spaces")
    return token


def to_msr(pairs: Iterable[AlignedPair]) -> str:
    """Alignments in the MSR RTE alignment format (see the module docstring).

    The pair number is the pair id when it is a positive integer (as in RTE), else the
    pair's 1-based position in ``pairs``.
    """
    lines: list[str] = []
    for n, item in enumerate(pairs, start=1):
        number = item.pair_id if item.pair_id.isdigit() and int(item.pair_id) > 0 else str(n)
        by_h: dict[int, list[str]] = {}
        for p, h in sorted(item.alignment.sure):
            by_h.setdefault(h, []).append(str(p + 1))
        for p, h in sorted(item.alignment.possible):
            by_h.setdefault(h, []).append(f"p{p + 1}")
        words = ["NULL ({ / / })"]
        for h, token in enumerate(item.hypothesis_tokens):
            marks = " ".join(by_h.get(h, ()))
            words.append(f"{_check_token(token, item.pair_id)} ({{ {marks + ' ' if marks else ''}/ / }})")
        lines.append(f"# sentence pair {number}")
        lines.append(" ".join(_check_token(t, item.pair_id) for t in item.text_tokens))
        lines.append(" ".join(words) + " ")
    return "\n".join(lines) + ("\n" if lines else "")


def to_sure_align_json(pairs: Iterable[AlignedPair]) -> str:
    """JSON lines: ``id``, ``source`` (text tokens), ``target`` (hypothesis tokens),
    ``sureAlign`` and ``possibleAlign`` (``"p-h"`` 0-based, space separated)."""
    out: list[str] = []
    for item in pairs:
        possible = " ".join(f"{p}-{h}" for p, h in sorted(item.alignment.possible))
        out.append(json.dumps({
            "id": item.pair_id,
            "source": " ".join(item.text_tokens),
            "target": " ".join(item.hypothesis_tokens),
            "sureAlign": item.alignment.to_sure_align(),
            "possibleAlign": possible,
        }, ensure_ascii=False))
    return "\n".join(out) + ("\n" if out else "")


Tokenizer = Callable[[str], Sequence[str]]


def _default_tokenizer() -> Tokenizer:
    from explorer.preprocess import tokenize

    return tokenize


def stored_gold_alignments(store: Store, dataset_id: int, *,
                           tokenizer: Tokenizer | None = None) -> list[AlignedPair]:
    """The latest corrected alignment of every pair, with its tokens, in dataset order.

    Tokens saved with the alignment are used; otherwise the pair's text is tokenised with
    ``tokenizer`` (default :func:`explorer.preprocess.tokenize`).

    Raises:
        StoreError: when re-tokenising does not give the alignment's lengths.
    """
    records = store.gold_alignments(dataset_id)
    if not records:
        return []
    rows = store.execute_read(
        "SELECT pair_id, text, hypothesis FROM pairs WHERE dataset_id = ? ORDER BY position",
        (dataset_id,),
    )
    out: list[AlignedPair] = []
    for row in rows:
        record = records.get(row["pair_id"])
        if record is None:
            continue
        p_tokens, h_tokens = record.text_tokens, record.hypothesis_tokens
        if p_tokens is None or h_tokens is None:
            split = tokenizer or _default_tokenizer()
            p_tokens = p_tokens or tuple(split(row["text"]))
            h_tokens = h_tokens or tuple(split(row["hypothesis"]))
        try:
            out.append(AlignedPair(row["pair_id"], tuple(p_tokens), tuple(h_tokens), record.alignment))
        except ValueError as error:
            raise StoreError(f"{error}; save the alignment with its tokens") from None
    return out
