"""String similarity: Levenshtein distance and its normalised similarity."""

from __future__ import annotations

from functools import lru_cache

from explorer.sequences import edit_distance


@lru_cache(maxsize=500_000)
def levenshtein(a: str, b: str) -> int:
    """Character edit distance (unit costs), memoised: MANLI asks for the same lemma
    pairs many times per decode."""
    return edit_distance(a, b)


def levenshtein_similarity(a: str, b: str) -> float:
    """``1 - lev(a, b) / max(|a|, |b|)``; 1 for two empty strings."""
    if a == b:
        return 1.0
    return 1.0 - levenshtein(a, b) / max(len(a), len(b))
