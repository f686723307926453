"""Comparing aligners: per-problem F1 differences against gold, and agreement between
annotators (or systems) on their SURE links.

The Errors page's cross-tab and per-pair queries live with the schema in
:mod:`explorer.store.crosstab`, its exports in :mod:`explorer.store.exports`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from explorer.alignment import Alignment

__all__ = ["Agreement", "F1Difference", "agreement", "f1_differences"]


class F1Difference(TypedDict):
    """One problem's F1 under each aligner, and the second's minus the first's."""

    pair_id: str
    f1_first: float
    f1_second: float
    difference: float


def f1_differences(first: Mapping[str, Alignment], second: Mapping[str, Alignment],
                   gold: Mapping[str, Alignment]) -> list[F1Difference]:
    """Per-problem F1 of two aligners against gold, largest difference first.

    Problems missing from either aligner, or whose alignments cover other tokens than
    the gold, are left out. F1 follows :mod:`explorer.aligners.evaluation` (SURE gold links).
    """
    from explorer.aligners.evaluation import score_pair

    rows: list[F1Difference] = []
    for pair_id, reference in gold.items():
        a, b = first.get(pair_id), second.get(pair_id)
        if a is None or b is None:
            continue
        shape = (reference.p_len, reference.h_len)
        if (a.p_len, a.h_len) != shape or (b.p_len, b.h_len) != shape:
            continue
        f1_a, f1_b = score_pair(pair_id, a, reference).f1, score_pair(pair_id, b, reference).f1
        rows.append({"pair_id": pair_id, "f1_first": f1_a, "f1_second": f1_b, "difference": f1_b - f1_a})
    rows.sort(key=lambda r: (-abs(r["difference"]), r["pair_id"]))
    return rows


@dataclass(frozen=True)
class Agreement:
    """How two annotators (or systems) agree on SURE links over their common problems.

    ``dice`` is ``2 |A ∩ B| / (|A| + |B|)`` over all links pooled (symmetric: F1 of
    either against the other); ``exact`` the share of problems with identical links.
    """

    first: str
    second: str
    problems: int
    dice: float
    exact: float


def agreement(systems: Mapping[str, Mapping[str, Alignment]]) -> list[Agreement]:
    """Pairwise agreement of every two systems on the problems both cover with the same
    tokens (e.g. the MSR annotators A, B and C as three systems)."""
    names = list(systems)
    out = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            both = common = exact = 0
            total = 0
            for pair_id, a in systems[x].items():
                b = systems[y].get(pair_id)
                if b is None or (a.p_len, a.h_len) != (b.p_len, b.h_len):
                    continue
                common += 1
                both += len(a.sure & b.sure)
                total += len(a.sure) + len(b.sure)
                exact += a.sure == b.sure
            out.append(Agreement(x, y, common, 2 * both / total if total else 1.0,
                                 exact / common if common else 0.0))
    return out
