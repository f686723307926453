"""Compiled chart filling for the Bracketing ITG biparser (see :mod:`explorer.aligners.itg`).

The chart holds, for every span pair ``text[i:j]`` x ``hypothesis[u:v]``, the largest
*gain* of a biparse of that span pair: the summed gains of its lexical links (a link
saves the null-alignment cost of both its words, less its substitution cost) minus the
inversion cost of each inverted node. A biparse with no links has gain 0, so the cost of
the best biparse is ``total null cost - gain``.

Normal form (exact, not a heuristic): if a boundary word of the span pair (first or last
text word, first or last hypothesis word) is null-aligned in a best biparse, removing it
leaves a biparse of the smaller span pair with the same gain and no more inversions, so
the cell equals the smaller cell. Otherwise all four boundary words are linked, which
forces the top node's two children to be non-empty on both sides and is possible only
when each boundary word has a link candidate inside the span pair. The split loop is
therefore run only for such cells; for sparse similarity matrices (exact matching) most
cells cost four look-ups.

Gains are float32: they are sums of at most a few hundred terms of size <= 2, and
single precision halves the memory traffic of the split loop (about 2x faster on a
dense 60 x 30 chart than float64). Memory layout: ``chart[i, j, u, v]`` and its transpose ``chart_t[i, j, v, u]`` are both
kept so that the innermost loop over the hypothesis split point reads contiguous memory
in both children, for the straight rule ``[A A]`` and the inverted rule ``<A A>`` alike.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, fastmath=True, nogil=True)
def fill_chart(gain: np.ndarray, allowed: np.ndarray, inversion_cost: np.floating) -> np.ndarray:
    """Fill the Viterbi chart of a Bracketing ITG biparse.

    Args:
        gain: ``(T, H)``, the gain of linking text word i to hypothesis word u; float32
            in the parser (the chart takes the same precision).
        allowed: ``(T, H)`` bool, whether that link is a lexical rule at all.
        inversion_cost: subtracted once per inverted node (same precision as ``gain``).

    Returns:
        ``(T + 1, T + 1, H + 1, H + 1)`` chart indexed ``[i, j, u, v]``;
        ``chart[0, T, 0, H]`` is the best gain of the whole pair.
    """
    n_p, n_h = gain.shape
    chart = np.zeros((n_p + 1, n_p + 1, n_h + 1, n_h + 1), dtype=gain.dtype)
    chart_t = np.zeros((n_p + 1, n_p + 1, n_h + 1, n_h + 1), dtype=gain.dtype)
    # -1e30 in the chart's own precision, so the split loop never mixes float widths.
    floor_box = np.empty_like(gain[0, :1]) if n_p else np.empty(1, dtype=gain.dtype)
    floor_box[0] = -1e30
    floor = floor_box[0]
    # Candidate counts for each text word over hypothesis prefixes, and vice versa.
    p_count = np.zeros((n_p, n_h + 1), dtype=np.int32)
    h_count = np.zeros((n_h, n_p + 1), dtype=np.int32)
    for i in range(n_p):
        for u in range(n_h):
            p_count[i, u + 1] = p_count[i, u] + (1 if allowed[i, u] else 0)
    for u in range(n_h):
        for i in range(n_p):
            h_count[u, i + 1] = h_count[u, i] + (1 if allowed[i, u] else 0)

    # Text span length, then start, outermost: every cell of one text span reads the
    # same chart blocks chart[i, s] and chart_t[s, j], which then stay in cache. A cell
    # depends only on cells with a shorter text span, or the same text span and a
    # shorter hypothesis span, so this order is valid.
    for lp in range(1, n_p + 1):
        for i in range(n_p - lp + 1):
            j = i + lp
            for lh in range(1, n_h + 1):
                for u in range(n_h - lh + 1):
                    v = u + lh
                    best = chart[i + 1, j, u, v]
                    x = chart[i, j - 1, u, v]
                    if x > best:
                        best = x
                    x = chart[i, j, u + 1, v]
                    if x > best:
                        best = x
                    x = chart[i, j, u, v - 1]
                    if x > best:
                        best = x
                    if lp == 1 and lh == 1:
                        if allowed[i, u] and gain[i, u] > best:
                            best = gain[i, u]
                    elif (
                        lp >= 2 and lh >= 2
                        and p_count[i, v] > p_count[i, u]
                        and p_count[j - 1, v] > p_count[j - 1, u]
                        and h_count[u, j] > h_count[u, i]
                        and h_count[v - 1, j] > h_count[v - 1, i]
                    ):
                        straight = floor
                        inverted = floor
                        for s in range(i + 1, j):
                            for w in range(u + 1, v):
                                a = chart[i, s, u, w] + chart_t[s, j, v, w]
                                if a > straight:
                                    straight = a
                                b = chart_t[i, s, v, w] + chart[s, j, u, w]
                                if b > inverted:
                                    inverted = b
                        if straight > best:
                            best = straight
                        if inverted - inversion_cost > best:
                            best = inverted - inversion_cost
                    chart[i, j, u, v] = best
                    chart_t[i, j, v, u] = best
    return chart
