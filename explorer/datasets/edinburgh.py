"""The Edinburgh++ paraphrase alignment corpus (Thadani, Martin & White 2012; the
original corpus: Cohn, Callison-Burch & Lapata 2008), JSON release.

The file is a JSON list of records ``{"id", "source", "target", "sureAlign",
"possibleAlign", ...}``: ``source`` and ``target`` are space-tokenised sentences and
the alignments are strings of ``i-j`` pairs, 0-based source then target positions.
``source`` becomes the text and ``target`` the hypothesis, so the links are already
``(p, h)``. The corpus ships two files: ``gold.train.sure.json`` (SURE links) and
``gold.train.sure+poss.json``, where the POSSIBLE links are folded into ``sureAlign``;
load whichever you want to score against. Records have no entailment label.
"""

from __future__ import annotations

from explorer.alignment import Alignment, AlignmentError, Link
from explorer.datasets import DatasetError
from explorer.datasets import fields as F
from explorer.datasets.reading import check_count, loads
from explorer.pairs import Pair


def sniff(text: str) -> bool:
    """A JSON list of records with a ``sureAlign`` field (looked for in the whole file,
    so a long first record does not hide it)."""
    return text.lstrip("\ufeff \n\r\t")[:1] == "[" and '"sureAlign"' in text


def _links(value: object, field: str, p_len: int, h_len: int, where: str) -> set[Link]:
    if value is None:
        return set()
    if not isinstance(value, str):
        raise DatasetError(f"{where}: {field!r} is {type(value).__name__}; expected a string of 'i-j' pairs")
    links: set[Link] = set()
    for item in value.split():
        left, dash, right = item.partition("-")
        if not dash:
            raise DatasetError(f"{where}: {field!r} has {item[:40]!r}; expected 'i-j' with 0-based token positions")
        p = F.position(left, where, f"{field!r} link {item[:40]!r}: source position")
        h = F.position(right, where, f"{field!r} link {item[:40]!r}: target position")
        if p >= p_len or h >= h_len:
            raise DatasetError(
                f"{where}: {field!r} link {item} is outside the sentences ({p_len} source, {h_len} target tokens)"
            )
        links.add((p, h))
    return links


def parse_edinburgh(text: str, name: str) -> list[Pair]:
    """Parse an Edinburgh++ JSON file into pairs with gold alignments.

    Tokens follow the token rule of :mod:`explorer.datasets.fields` (format characters
    removed, control characters refused); positions are ASCII digits.

    Raises:
        DatasetError: for invalid JSON, a record that is not an object, a missing or
            empty ``source``/``target``, or a malformed or out-of-range link, naming
            the record.
    """
    data = loads(text, name)
    if not isinstance(data, list):
        raise DatasetError(f"{name}: expected a JSON list of alignment records, found {type(data).__name__}")
    check_count(len(data), name)
    pairs: list[Pair] = []
    for index, record in enumerate(data, start=1):
        where = f"{name}: record #{index}"
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected an object with source, target and sureAlign")
        pair_id = F.optional_identifier(record.get("id"), where, "id")
        if pair_id is not None:
            where = f"{name}: record #{index} (id={pair_id[:40]!r})"
        fields = {}
        for field in ("source", "target"):
            value = record.get(field)
            if not isinstance(value, str) or not value.split():
                raise DatasetError(f"{where}: {field!r} is missing or empty; expected a tokenised sentence")
            F.sentence(value, where, field)  # the length limit
            fields[field] = tuple(F.token(token, f"{where}: {field!r}") for token in value.split())
        if "sureAlign" not in record:
            raise DatasetError(f"{where}: no 'sureAlign' field")
        p_tokens, h_tokens = fields["source"], fields["target"]
        sure = _links(record["sureAlign"], "sureAlign", len(p_tokens), len(h_tokens), where)
        possible = _links(record.get("possibleAlign"), "possibleAlign", len(p_tokens), len(h_tokens), where)
        try:
            gold = Alignment.from_links(len(p_tokens), len(h_tokens), sure, possible)
        except AlignmentError as err:
            raise DatasetError(f"{where}: {err}") from None
        pairs.append(
            Pair(
                id=pair_id if pair_id is not None else str(index),
                text=F.joined(p_tokens, where, "source"),
                hypothesis=F.joined(h_tokens, where, "target"),
                source=name,
                text_tokens=p_tokens,
                hypothesis_tokens=h_tokens,
                gold_alignment=gold,
            )
        )
    return pairs
