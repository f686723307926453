"""Alignments as JSON: how the store (and exports) save an :class:`Alignment`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from explorer.alignment import Alignment, Edit, EditKind
from explorer.store.schema import StoreError


def alignment_to_dict(alignment: Alignment) -> dict[str, object]:
    """A JSON-ready dict: lengths, sorted SURE and POSSIBLE links, and edits if any."""
    data: dict[str, object] = {
        "p_len": alignment.p_len,
        "h_len": alignment.h_len,
        "sure": [list(link) for link in sorted(alignment.sure)],
        "possible": [list(link) for link in sorted(alignment.possible)],
    }
    if alignment.edits is not None:
        data["edits"] = [
            {
                "kind": e.kind.value,
                "p_span": list(e.p_span) if e.p_span else None,
                "h_span": list(e.h_span) if e.h_span else None,
                "score": e.score,
            }
            for e in alignment.edits
        ]
    return data


def alignment_from_dict(data: Mapping[str, Any]) -> Alignment:
    """Inverse of :func:`alignment_to_dict`.

    Raises:
        StoreError: when the record is not an alignment.
    """
    try:
        sure = frozenset((int(p), int(h)) for p, h in data.get("sure", ()))
        possible = frozenset((int(p), int(h)) for p, h in data.get("possible", ()))
        edits = None
        if data.get("edits") is not None:
            edits = tuple(
                Edit(
                    EditKind(e["kind"]),
                    tuple(e["p_span"]) if e.get("p_span") else None,  # type: ignore[arg-type]
                    tuple(e["h_span"]) if e.get("h_span") else None,  # type: ignore[arg-type]
                    float(e.get("score", 0.0)),
                )
                for e in data["edits"]
            )
        return Alignment(int(data["p_len"]), int(data["h_len"]), sure=sure,
                         possible=possible - sure, edits=edits)
    except (KeyError, TypeError, ValueError) as error:
        raise StoreError(f"stored alignment is malformed: {error}") from None


def alignment_json(alignment: Alignment | None) -> str | None:
    if alignment is None:
        return None
    return json.dumps(alignment_to_dict(alignment), separators=(",", ":"))


def alignment_load(text: str | None) -> Alignment | None:
    return None if text is None else alignment_from_dict(json.loads(text))
