"""Names: variants of person and organisation names (first names, acronyms, parts)."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.lexical.config import NAME_PARTIAL, NAME_VARIANT

_NAME_DROP = frozenset(
    "mr mrs ms miss dr prof sir inc corp co ltd llc plc corporation company incorporated "
    "the 's".split()
)
_ACRONYM_SKIP = frozenset("of the for and on in".split())


def _name_tokens(tokens: Sequence[str]) -> list[str] | None:
    """The content of a name phrase (capitalised words, titles and company suffixes
    dropped, full stops removed), or None when the phrase does not look like a name."""
    kept: list[str] = []
    for token in tokens:
        bare = token.replace(".", "")
        if not bare:
            continue
        if bare.lower() in _NAME_DROP:
            continue
        if not bare[0].isupper():
            if bare.lower() in _ACRONYM_SKIP:
                continue
            return None
        kept.append(bare.lower())
    return kept or None


def _acronym(tokens: Sequence[str]) -> str:
    return "".join(t.replace(".", "")[0].lower() for t in tokens if t.replace(".", "") and t.lower() not in _ACRONYM_SKIP)


def name_similarity(a_tokens: Sequence[str], b_tokens: Sequence[str]) -> float:
    """Name-variant similarity of two cased phrases; 0 when they are not variants."""
    a, b = _name_tokens(a_tokens), _name_tokens(b_tokens)
    if a is None or b is None:
        return 0.0
    if a == b:
        return 1.0 if len(a_tokens) == len(b_tokens) else NAME_VARIANT
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if len(short) < len(long):
        if long[-len(short):] == short:  # Lennon / John Lennon
            return NAME_VARIANT
        if long[: len(short)] == short or _is_subsequence(short, long):  # John / John Lennon
            return NAME_PARTIAL
    for one, other, other_raw in ((a, b, b_tokens), (b, a, a_tokens)):
        if len(one) == 1 and len(other) > 1 and len(one[0]) > 1 and one[0] == _acronym(
            [t for t in other_raw if t.replace(".", "").lower() not in _NAME_DROP]
        ):
            return NAME_VARIANT
    return 0.0


def _is_subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    it = iter(long)
    return all(any(s == x for x in it) for s in short)
