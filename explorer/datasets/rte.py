"""PASCAL RTE XML (RTE1 ``value=TRUE/FALSE``; RTE2/RTE3 ``entailment=YES/NO``, RTE3
3-way ``UNKNOWN/CONTRADICTION``), parsed with defusedxml so that hostile XML
(entity expansion, external entities) is refused rather than expanded."""

from __future__ import annotations

from explorer.datasets import DatasetError
from explorer.datasets import fields as F
from explorer.datasets.reading import check_count, check_xml_declaration
from explorer.pairs import Pair

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

    check_xml_declaration(text, name)
    try:
        root = DET.fromstring(text.encode("utf-8"))
    except ParseError as err:
        line, column = err.position
        raise DatasetError(f"{name}: malformed XML at line {line}, column {column}: {err}") from None
    except DefusedXmlException as err:
        raise DatasetError(f"{name}: refused unsafe XML ({type(err).__name__}); entity declarations are not allowed") from None
    except (LookupError, ValueError) as err:  # an encoding expat cannot use; decode() refuses them first
        raise DatasetError(f"{name}: cannot read this XML ({err}); save it as UTF-8") from None
    if root.tag != "entailment-corpus":
        raise DatasetError(f"{name}: root element is <{str(root.tag)[:40]}>; expected <entailment-corpus>")
    pairs: list[Pair] = []
    for index, element in enumerate(root.iter("pair"), start=1):
        check_count(index, name)
        where = f"{name}: pair #{index}"
        if element.get("id") is None:
            raise DatasetError(f"{where}: missing id attribute")
        pair_id = F.identifier(element.get("id"), where)
        where = f"{name}: pair id={pair_id}"
        t, h = element.find("t"), element.find("h")
        if t is None or h is None:
            raise DatasetError(f"{where}: expected both <t> and <h> elements")
        raw_label = next((element.get(a) for a in _LABEL_ATTRIBUTES if element.get(a) is not None), None)
        pairs.append(
            Pair(
                id=pair_id,
                text=F.sentence("".join(t.itertext()), where, "<t>"),
                hypothesis=F.sentence("".join(h.itertext()), where, "<h>"),
                label=F.label(raw_label, where),
                task=F.optional_identifier(element.get("task"), where, "task"),
                source=name,
            )
        )
    return pairs
