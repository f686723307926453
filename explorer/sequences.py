"""Edit distance between two sequences, shared by the character-level lexical similarity
and the word-level WER."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def edit_distance(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Levenshtein distance (insert, delete, substitute, each cost 1) of two sequences.

    Myers' (1999) bit-vector algorithm in Hyyrö's (2001) formulation for edit distance:
    one column of the dynamic-programming table is packed into Python ints as vertical
    +1/-1 differences, so each element of the longer sequence costs a handful of integer
    operations whatever the length of the shorter one (about 3x the plain DP in Python).
    """
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    match: dict[Hashable, int] = {}
    for i, item in enumerate(b):
        match[item] = match.get(item, 0) | (1 << i)
    full = (1 << m) - 1
    top = 1 << (m - 1)
    plus, minus, score = full, 0, m
    for item in a:
        eq = match.get(item, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        h_plus = (minus | ~(xh | plus)) & full
        h_minus = plus & xh
        if h_plus & top:
            score += 1
        elif h_minus & top:
            score -= 1
        h_plus = ((h_plus << 1) | 1) & full
        h_minus = (h_minus << 1) & full
        plus = (h_minus | ~(xv | h_plus)) & full
        minus = h_plus & xv
    return score
