"""PASCAL RTE XML (RTE1 ``value=TRUE/FALSE``; RTE2/RTE3 ``entailment=YES/NO``, RTE3
3-way ``UNKNOWN/CONTRADICTION``), parsed with defusedxml so that hostile XML
(entity expansion, external entities) is refused rather than expanded.

A ``<note>`` child of ``<pair>`` (not part of the PASCAL format; the built-in samples use
it) is kept as :attr:`Pair.note`."""

from __future__ import annotations

from explorer.datasets import DatasetError
from explorer.pairs import LabelError, Pair, normalize_label
from explorer.preprocess import clean_text

_LABEL_ATTRIBUTES = ("value", "entailment")


def parse_rte_xml(text: str, name: str) -> list[Pair]:
    """Parse an RTE XML document into pairs.

    Raises:
        DatasetError: for malformed or hostile XML, a pair without ``<t>``/``<h>``, a
            missing id or an unknown label, naming the record.
    """
    from xml.etree.ElementTree import ParseError

    import defusedxml.ElementTree as DET
    from defusedxml import DefusedXmlException

    try:
        root = DET.fromstring(text.encode("utf-8"))
    except ParseError as err:
        line, column = err.position
        raise DatasetError(f"{name}: malformed XML at line {line}, column {column}: {err}") from None
    except DefusedXmlException as err:
        raise DatasetError(f"{name}: refused unsafe XML ({type(err).__name__}); entity declarations are not allowed") from None
    if root.tag != "entailment-corpus":
        raise DatasetError(f"{name}: root element is <{root.tag}>; expected <entailment-corpus>")
    pairs: list[Pair] = []
    for index, element in enumerate(root.iter("pair"), start=1):
        where = f"{name}: pair #{index}"
        pair_id = element.get("id")
        if not pair_id:
            raise DatasetError(f"{where}: missing id attribute")
        where = f"{name}: pair id={pair_id}"
        t, h = element.find("t"), element.find("h")
        if t is None or h is None:
            raise DatasetError(f"{where}: expected both <t> and <h> elements")
        t_text, h_text = clean_text("".join(t.itertext())), clean_text("".join(h.itertext()))
        if not t_text or not h_text:
            raise DatasetError(f"{where}: empty <t> or <h>")
        raw_label = next((element.get(a) for a in _LABEL_ATTRIBUTES if element.get(a) is not None), None)
        try:
            label = normalize_label(raw_label) if raw_label is not None else None
        except LabelError as err:
            raise DatasetError(f"{where}: {err}") from None
        note_element = element.find("note")
        note = clean_text("".join(note_element.itertext())) if note_element is not None else ""
        pairs.append(
            Pair(
                id=pair_id,
                text=t_text,
                hypothesis=h_text,
                label=label,
                task=element.get("task") or None,
                source=name,
                note=note or None,
            )
        )
    return pairs
