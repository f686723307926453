"""How each scorer does on a slice, with a 95% interval, against the whole set.

The interval is Wilson's score interval (Wilson 1927), not a bootstrap: it has a closed
form (a slice table for many slices and scorers costs nothing and gives the same figures
every time), and unlike the normal ("Wald") interval it stays sane where slices live, at
small n and at accuracies of 0 or 1 (Wald gives a zero-width interval at 0/5 or 5/5;
Wilson's stays inside [0, 1] and keeps a width that reflects the few pairs).

A slice differs *significantly* from the whole set when the whole set's accuracy lies
outside the slice's interval: a plain, conservative reading (the two are not independent:
the slice is part of the whole), said as such on the pages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.api import fixed, shown
from explorer.decision.cutoffs import CutoffChoice
from explorer.groups.language import SliceError, compile_pandas

if TYPE_CHECKING:  # pandas only when a frame is built, not when the CLI starts
    from explorer.groups.frame import GroupFrame

#: The z of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Most slices one table computes.
MAX_SLICES = 200


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``k`` successes in ``n`` trials:

    ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with ``p = k/n``.

    Returns:
        ``(low, high)``; ``(nan, nan)`` when ``n`` is 0.

    Raises:
        ValueError: unless ``0 <= k <= n`` and ``z > 0``.
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, not k={k}, n={n}")
    if not z > 0:
        raise ValueError(f"z must be positive, not {z}")
    if n == 0:
        return math.nan, math.nan
    p = k / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class ScorerSliceResult:
    """One scorer on one slice.

    Attributes:
        scorer: the scorer's name.
        n: pairs of the slice it judged (labelled and not refused).
        correct: of those, the ones it got right.
        accuracy: ``correct / n`` (NaN when ``n`` is 0).
        ci_low, ci_high: the 95% Wilson interval of the accuracy.
        whole_accuracy: its accuracy on the whole set.
        difference: ``accuracy - whole_accuracy``.
        significant: the whole set's accuracy lies outside the slice's interval.
    """

    scorer: str
    n: int
    correct: int
    accuracy: float
    ci_low: float
    ci_high: float
    whole_accuracy: float
    difference: float
    significant: bool

    @classmethod
    def of(cls, scorer: str, correct: int, n: int, whole_correct: int, whole_n: int) -> ScorerSliceResult:
        accuracy = correct / n if n else math.nan
        whole = whole_correct / whole_n if whole_n else math.nan
        low, high = wilson(correct, n)
        significant = bool(n) and not math.isnan(whole) and not low <= whole <= high
        return cls(scorer, n, correct, accuracy, low, high, whole, accuracy - whole, significant)


@dataclass(frozen=True)
class SliceResult:
    """One slice: its pairs and every scorer's figures on them.

    Attributes:
        name, expression: the slice as given.
        n: pairs in the slice.
        ids: their ids, in dataset order (at most ``n``; a batch result lists the first
            ones only).
        results: one :class:`ScorerSliceResult` per scorer.
    """

    name: str
    expression: str
    n: int
    ids: tuple[str, ...]
    results: tuple[ScorerSliceResult, ...]

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "expression": self.expression, "n": self.n, "ids": list(self.ids),
                "ids_complete": len(self.ids) == self.n,
                "results": [vars(r).copy() for r in self.results]}

    def format(self) -> str:
        """The slice's line, then one line per scorer (``*`` marks a significant difference)."""
        lines = [f"{shown(self.name)}  n={self.n}  ({shown(self.expression)})"]
        for r in self.results:
            mark = " *" if r.significant else ""
            if r.n == 0:
                lines.append(f"    {r.scorer:<10} no judged pair")
                continue
            lines.append(f"    {r.scorer:<10} accuracy {r.accuracy:7.2%}  95% [{r.ci_low:.2%}, {r.ci_high:.2%}]"
                         f"  n={r.n:<5} vs whole {r.whole_accuracy:.2%} ({r.difference:+.2%}){mark}")
        return "\n".join(lines)


def check_slices(slices: Mapping[str, str]) -> None:
    """Refuse too many slices or an empty name, before any work."""
    if len(slices) > MAX_SLICES:
        raise SliceError(f"{len(slices)} slices; at most {MAX_SLICES} at once")
    for name in slices:
        if not str(name).strip():
            raise SliceError("a slice needs a name")


def slice_results(frame: GroupFrame, slices: Mapping[str, str]) -> list[SliceResult]:
    """Every slice's size, pairs and per-scorer accuracy with its interval, against the
    whole frame. Every expression is parsed before any is computed.

    Raises:
        SliceError: for the first expression that does not parse (naming the slice).
    """
    check_slices(slices)
    parsed = {}
    for name, expression in slices.items():
        try:
            parsed[name] = frame.parse(expression)
        except SliceError as error:
            raise SliceError(f"slice {name!r}: {error}") from None
    table = frame.table
    # each scorer's judged and right pairs as plain arrays, read once for every slice
    judged = {s: table[f"correct:{s}"].notna().to_numpy(dtype=bool) for s in frame.scorers}
    right = {s: table[f"correct:{s}"].fillna(False).to_numpy(dtype=bool) for s in frame.scorers}
    ids = table["id"].astype(str).to_numpy()
    out = []
    for name, node in parsed.items():
        mask = compile_pandas(node, frame).to_numpy(dtype=bool)
        results = tuple(ScorerSliceResult.of(s, int((mask & right[s]).sum()), int((mask & judged[s]).sum()),
                                             int(right[s].sum()), int(judged[s].sum())) for s in frame.scorers)
        out.append(SliceResult(name, slices[name], int(mask.sum()), tuple(ids[mask].tolist()), results))
    return out


@dataclass(frozen=True)
class SliceTable:
    """What ``slices`` prints: every slice of one dataset (or batch result)."""

    data: str
    n: int
    slices: tuple[SliceResult, ...]
    cutoffs: dict[str, dict[str, object]]
    dev: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"data": self.data, "dev": self.dev, "n": self.n, "cutoffs": self.cutoffs,
                "slices": [s.to_json() for s in self.slices]}

    def format(self) -> str:
        lines = [f"{shown(self.data)}: {self.n} pairs" + (f"; cutoffs chosen on {shown(self.dev)}" if self.dev else "")]
        lines += [f"  cutoff {scorer}: {fixed(float(c['value']))} ({shown(c['origin'])})"  # type: ignore[arg-type]
                  for scorer, c in self.cutoffs.items()]
        lines += ["  " + line for s in self.slices for line in s.format().split("\n")]
        lines.append("  * the whole set's accuracy lies outside the slice's 95% Wilson interval")
        return "\n".join(lines)


def cutoff_lines(cutoffs: Mapping[str, CutoffChoice], scorers: Sequence[str]) -> dict[str, dict[str, object]]:
    """scorer -> its cutoff's value, source and origin, for the table's header."""
    return {s: {"value": cutoffs[s].value, "source": cutoffs[s].source, "origin": cutoffs[s].origin}
            for s in scorers if s in cutoffs}


__all__ = ["MAX_SLICES", "Z95", "ScorerSliceResult", "SliceResult", "SliceTable", "check_slices", "cutoff_lines",
           "slice_results", "wilson"]
