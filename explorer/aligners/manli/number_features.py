"""MANLI's number features: values that agree or clash across a candidate block.

``sub:num_one_side`` and ``sub:num_mismatch`` read each token's value; ``sub:num_value_eq``
and ``sub:num_value_clash`` read spans in other formats as one value
(:func:`explorer.lexical.numbers.span_number`). Value sets are compared as bit masks,
so a pair full of numbers costs no Python work per candidate.
"""

from __future__ import annotations

import numpy as np

from explorer.aligners.manli.candidates import Candidates, Side, cum
from explorer.aligners.manli.names import INDEX


def number_features(f: np.ndarray, cand: Candidates, p: Side, h: Side) -> None:
    """Number agreement: a number on one side of the block only, or numbers on both
    sides of which some hypothesis (text) number has no equal value on the other side.
    Each span's set of token values is built once and the blocks with numbers on both
    sides are compared as arrays (:func:`_neither_subset`): no Python work per candidate."""
    col = INDEX
    num_cum_p, num_cum_h = cum(~np.isnan(p.number)), cum(~np.isnan(h.number))
    p_has = (num_cum_p[cand.p_end] - num_cum_p[cand.p_start]) > 0
    h_has = (num_cum_h[cand.h_end] - num_cum_h[cand.h_start]) > 0
    f[:, col["sub:num_one_side"]] = p_has != h_has
    both = np.flatnonzero(p_has & h_has)
    if not both.size:
        return
    size_cap = int(max(cand.p_size[both].max(), cand.h_size[both].max()))
    sets: dict[frozenset[float], int] = {}
    p_ids, h_ids = _value_spans(p.number, size_cap, sets), _value_spans(h.number, size_cap, sets)
    f[both, col["sub:num_mismatch"]] = _neither_subset(
        p_ids[cand.p_start[both], cand.p_size[both]], h_ids[cand.h_start[both], cand.h_size[both]], sets)


def _value_spans(number: np.ndarray, size_cap: int, sets: dict[frozenset[float], int]) -> np.ndarray:
    """The set of token values (NaN left out) of every span of at most ``size_cap``
    tokens that holds one, as ids into ``sets`` (added there): an ``(n + 1, size_cap + 1)``
    array indexed by start and size, -1 where the span holds no number."""
    n = number.size
    ids = np.full((n + 1, size_cap + 1), -1, dtype=np.int64)
    values = number.tolist()
    for start in range(n):
        seen: set[float] = set()
        for size in range(1, min(size_cap, n - start) + 1):
            v = values[start + size - 1]
            if v == v:
                seen.add(v)
            if seen:
                ids[start, size] = sets.setdefault(frozenset(seen), len(sets))
    return ids


def _bit_masks(sets: dict[frozenset[float], int]) -> np.ndarray:
    """Each value set of ``sets`` as a bit mask over their distinct values: ``(len(sets),
    words)`` uint64."""
    bit = {v: i for i, v in enumerate(sorted({v for key in sets for v in key}))}
    masks = np.zeros((len(sets), max(1, (len(bit) + 63) // 64)), dtype=np.uint64)
    for key, k in sets.items():
        for v in key:
            masks[k, bit[v] // 64] |= np.uint64(1) << np.uint64(bit[v] % 64)
    return masks


def _neither_subset(a: np.ndarray, b: np.ndarray, sets: dict[frozenset[float], int]) -> np.ndarray:
    """Per entry: neither value set ``a[i]`` nor ``b[i]`` (ids into ``sets``, all >= 0)
    includes the other. Compared once per distinct pair of sets, a chunk at a time."""
    if not a.size:
        return np.zeros(0, dtype=bool)
    masks = _bit_masks(sets)
    pairs, inverse = np.unique(a * len(sets) + b, return_inverse=True)
    out = np.zeros(pairs.size, dtype=bool)
    for at in range(0, pairs.size, 4096):
        chunk = pairs[at : at + 4096]
        am, bm = masks[chunk // len(sets)], masks[chunk % len(sets)]
        out[at : at + 4096] = (am & ~bm).any(axis=1) & (bm & ~am).any(axis=1)
    return out[inverse.reshape(-1)]


def number_format_features(f: np.ndarray, cand: Candidates, p: Side, h: Side, eq: np.ndarray) -> None:
    """Numbers in other formats read as one value (:func:`explorer.lexical.numbers.span_number`):
    ``sub:num_value_eq`` when the two sides of a block denote the same values (or, with no
    values, both speak of a percentage) although their lemmas differ (``85.74 million`` /
    ``85,740,000``, ``71-year-old`` / ``71``, ``5 percent`` / ``5 %``); ``sub:num_value_clash``
    when both denote values and neither side's include the other's.

    Cost: each span with a number token is read once (at most ``len * max_phrase`` spans a
    side, :data:`~explorer.lexical.numbers.MAX_NUMBER_SPAN` tokens each); the candidates are
    then compared as arrays (value sets as bit masks over the pair's distinct values), so
    a pair full of numbers costs no Python work per candidate."""
    col = INDEX
    p_num = np.array([bool(t) for t in p.numeric], dtype=np.float64)
    h_num = np.array([bool(t) for t in h.numeric], dtype=np.float64)
    if not len(cand) or not p_num.any() or not h_num.any():
        return
    num_cum_p, num_cum_h = cum(p_num), cum(h_num)
    rows = np.flatnonzero(((num_cum_p[cand.p_end] - num_cum_p[cand.p_start]) > 0)
                          & ((num_cum_h[cand.h_end] - num_cum_h[cand.h_start]) > 0))
    if not rows.size:
        return
    size_cap = min(int(max(cand.p_size[rows].max(), cand.h_size[rows].max())), MAX_SPAN_READ)
    sets: dict[frozenset[float], int] = {}
    p_read, h_read = _read_spans(p.numeric, size_cap, sets), _read_spans(h.numeric, size_cap, sets)
    if not sets:
        return
    empty = np.array([not key for key in sets])

    def lookup(read: tuple[np.ndarray, np.ndarray], start: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ids, percent = read
        inside = size <= size_cap
        at = (start, np.minimum(size, size_cap))
        return np.where(inside, ids[at], -1), np.where(inside, percent[at], False)

    p_id, p_pct = lookup(p_read, cand.p_start[rows], cand.p_size[rows])
    h_id, h_pct = lookup(h_read, cand.h_start[rows], cand.h_size[rows])
    read = (p_id >= 0) & (h_id >= 0)
    p_id, h_id = np.maximum(p_id, 0), np.maximum(h_id, 0)
    p_empty, h_empty = empty[p_id], empty[h_id]
    with_values = read & ~p_empty & ~h_empty
    f[rows, col["sub:num_value_eq"]] = ~eq[rows] & (
        (with_values & (p_id == h_id)) | (read & p_empty & h_empty & p_pct & h_pct))
    f[rows[with_values], col["sub:num_value_clash"]] = _neither_subset(p_id[with_values], h_id[with_values], sets)


#: Spans longer than this are not read as numbers by :func:`number_format_features`
#: (:data:`explorer.lexical.numbers.MAX_NUMBER_SPAN`; imported lazily like the rest of
#: :mod:`explorer.lexical`).
MAX_SPAN_READ = 8


def _read_spans(numeric: tuple[str, ...], size_cap: int,
                sets: dict[frozenset[float], int]) -> tuple[np.ndarray, np.ndarray]:
    """Every span of at most ``size_cap`` tokens read as a number: ``(ids, percent)``,
    ``(n + 1, size_cap + 1)`` arrays indexed by start and size, ``ids`` naming the value
    set in ``sets`` (added there) or -1 for a span without a number."""
    from explorer.lexical.numbers import span_number

    n = len(numeric)
    ids = np.full((n + 1, size_cap + 1), -1, dtype=np.int64)
    percent = np.zeros((n + 1, size_cap + 1), dtype=bool)
    marked = [i for i, token in enumerate(numeric) if token]
    starts = sorted({s for i in marked for s in range(max(0, i - size_cap + 1), i + 1)})
    for start in starts:
        for size in range(1, min(size_cap, n - start) + 1):
            parsed = span_number(numeric[start : start + size])
            if parsed is None:
                continue
            ids[start, size] = sets.setdefault(parsed[0], len(sets))
            percent[start, size] = parsed[1]
    return ids, percent
