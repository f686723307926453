"""PASCAL RTE XML (RTE1 ``value=TRUE/FALSE``; RTE2/RTE3 ``entailment=YES/NO``, RTE3
3-way ``UNKNOWN/CONTRADICTION``), parsed with defusedxml so that hostile XML
(entity expansion, external entities) is refused rather than expanded.

A ``<note>`` child of ``<pair>`` (not part of the PASCAL format; the built-in samples use
it) is kept as :attr:`Pair.note`."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from explorer.datasets import DatasetError
from explorer.datasets import fields as F
from explorer.datasets.reading import MAX_XML_DEPTH, check_count, check_xml_declaration
from explorer.pairs import Pair

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

_LABEL_ATTRIBUTES = ("value", "entailment")


def _parse_bounded(DET: Any, data: bytes, name: str) -> Element:
    """The document's root element, parsed incrementally so that nesting deeper than
    :data:`~explorer.datasets.reading.MAX_XML_DEPTH` is refused as soon as it is met."""
    depth = 0
    root: Element | None = None
    # ``data`` is the text decoded under the one encoding policy, encoded again as UTF-8: say
    # so, so that expat never honours a declaration naming another encoding (mojibake).
    from xml.etree.ElementTree import TreeBuilder

    parser = DET.DefusedXMLParser(target=TreeBuilder(), encoding="utf-8")
    for event, element in DET.iterparse(io.BytesIO(data), events=("start", "end"), parser=parser):
        if event == "start":
            root = element if root is None else root
            depth += 1
            if depth > MAX_XML_DEPTH:
                raise DatasetError(
                    f"{name}: XML elements nested more than {MAX_XML_DEPTH} deep "
                    "(datasets.reading.MAX_XML_DEPTH); an RTE file needs 3"
                )
        else:
            depth -= 1
    if root is None:
        raise DatasetError(f"{name}: no XML element found")
    return root


def _children(pair: Element) -> tuple[Element | None, Element | None, Element | None]:
    """A pair element's first ``<t>``, ``<h>`` and ``<note>`` (None where absent)."""
    found: dict[str, Element] = {}
    for child in pair:
        found.setdefault(child.tag, child)
    return found.get("t"), found.get("h"), found.get("note")


def _text(element: Element) -> str:
    """An element's text with that of any markup inside it."""
    return (element.text or "") if len(element) == 0 else "".join(element.itertext())


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
        root = _parse_bounded(DET, text.encode("utf-8"), name)
    except DatasetError:
        raise
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
        t, h, note = _children(element)
        if t is None or h is None:
            raise DatasetError(f"{where}: expected both <t> and <h> elements")
        raw_label = next((element.get(a) for a in _LABEL_ATTRIBUTES if element.get(a) is not None), None)
        pairs.append(
            Pair(
                id=pair_id,
                text=F.sentence(_text(t), where, "<t>"),
                hypothesis=F.sentence(_text(h), where, "<h>"),
                label=F.label(raw_label, where),
                task=F.optional_identifier(element.get("task"), where, "task"),
                source=name,
                note=F.note(_text(note) if note is not None else None, where),
            )
        )
    return pairs
