"""MANLI's contextual features: distortion, matching neighbours, anchors and support.

Stage 5 of :func:`explorer.aligners.manli.features.extract` (the paper's §3.1 contextual
features, and the support features: function words, forms of `be` and tokens with equally
good rivals that have no matching neighbour or anchor nearby).
"""

from __future__ import annotations

import numpy as np

from explorer.aligners.manli.candidates import Candidates, Side, cum, span_max
from explorer.aligners.manli.names import ANCHOR_SIM, ANCHOR_WINDOW, INDEX


def contextual_features(f: np.ndarray, cand: Candidates, sim: np.ndarray, p: Side, h: Side,
                         stop_both: np.ndarray) -> None:
    """Stage 5: distortion, matching neighbours and anchors (see :data:`ANCHOR_SIM`)."""
    col = INDEX
    p_len, h_len = sim.shape
    p_start, h_start, p_end, h_end = cand.p_start, cand.h_start, cand.p_end, cand.h_end
    p_mid = (p_start + p_end) / 2.0 / max(p_len, 1)
    h_mid = (h_start + h_end) / 2.0 / max(h_len, 1)
    distortion = np.abs(p_mid - h_mid)
    f[:, col["sub:distortion"]] = distortion
    left = neighbour(sim, p_start - 1, h_start - 1, p_len, h_len)
    right = neighbour(sim, p_end, h_end, p_len, h_len)
    f[:, col["sub:left_match"]] = left
    f[:, col["sub:right_match"]] = right
    f[:, col["sub:both_match"]] = left * right
    f[:, col["sub:stop_distortion"]] = stop_both * distortion
    f[:, col["sub:stop_left_match"]] = stop_both * left
    f[:, col["sub:stop_right_match"]] = stop_both * right
    anchors = (sim >= ANCHOR_SIM) & ~((p.stop > 0)[:, None] | (h.stop > 0)[None, :])
    left_a = anchored(anchors, p_start, h_start, -1)
    right_a = anchored(anchors, p_end - 1, h_end - 1, +1)
    f[:, col["sub:anchor_left"]] = left_a
    f[:, col["sub:anchor_right"]] = right_a
    f[:, col["sub:anchor_both"]] = left_a & right_a
    f[:, col["sub:stop_anchor"]] = stop_both * (left_a | right_a)
    # Support from the context: a neighbour that matches or an anchor nearby. Function
    # words, forms of `be` and tokens with equally good rivals need it most.
    unsupported = (left < 0.5) & (right < 0.5) & ~left_a & ~right_a
    f[:, col["sub:stop_unsupported"]] = stop_both * unsupported
    be_cum_p, be_cum_h = cum(p.be), cum(h.be)
    any_be = ((be_cum_p[p_end] - be_cum_p[p_start]) > 0) | ((be_cum_h[h_end] - be_cum_h[h_start]) > 0)
    f[:, col["sub:be_unsupported"]] = any_be & unsupported
    left2 = neighbour(sim, p_start - 2, h_start - 2, p_len, h_len)
    right2 = neighbour(sim, p_end + 1, h_end + 1, p_len, h_len)
    f[:, col["sub:context2"]] = (left + right + left2 + right2) / 4.0
    rival = (span_max(h.ties, h_start, h_end) > 0) | (span_max(p.ties, p_start, p_end) > 0)
    f[:, col["sub:rival"]] = rival
    f[:, col["sub:rival_unsupported"]] = rival & unsupported


#: The (text, hypothesis) distances from a phrase to an anchor that count as a matching
#: context: 1..ANCHOR_WINDOW tokens on both sides, the two differing by at most one.
_ANCHOR_OFFSETS: tuple[tuple[int, int], ...] = tuple(
    (dp, dh) for dp in range(1, ANCHOR_WINDOW + 1) for dh in range(1, ANCHOR_WINDOW + 1) if abs(dp - dh) <= 1
)


def anchored(anchors: np.ndarray, p_at: np.ndarray, h_at: np.ndarray, direction: int) -> np.ndarray:
    """Per candidate: an anchor lies at ``(p_at + direction * dp, h_at + direction * dh)``
    for one of :data:`_ANCHOR_OFFSETS` (looked up in the padded anchor matrix: ``O(C)``)."""
    w = ANCHOR_WINDOW
    padded = np.zeros((anchors.shape[0] + 2 * w, anchors.shape[1] + 2 * w), dtype=bool)
    padded[w : w + anchors.shape[0], w : w + anchors.shape[1]] = anchors
    out = np.zeros(p_at.size, dtype=bool)
    for dp, dh in _ANCHOR_OFFSETS:
        out |= padded[p_at + direction * dp + w, h_at + direction * dh + w]
    return out


def neighbour(sim: np.ndarray, p: np.ndarray, h: np.ndarray, p_len: int, h_len: int) -> np.ndarray:
    """Similarity of the neighbouring tokens at ``p`` and ``h``; two sentence edges
    count as a match, one edge against a token as none."""
    p_in = (p >= 0) & (p < p_len)
    h_in = (h >= 0) & (h < h_len)
    out = np.where(~p_in & ~h_in, 1.0, 0.0)
    both = p_in & h_in
    out[both] = sim[p[both], h[both]]
    return out
