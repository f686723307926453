"""WER step by step: the edit-distance table row by row, the backtrace edit by edit, then
the rate. The table and the edits are :func:`explorer.metrics.wer.edit_table` and
:func:`explorer.metrics.wer.backtrace`; the scorer's distance is the table's, and the Pair
page's edit script (rapidfuzz's) has as many edits, mostly the same ones (an edit script
is not unique)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from explorer.alignment import Edit, EditKind
from explorer.metrics.wer import backtrace, edit_table, error_rate
from explorer.preprocess import AnalyzedPair
from explorer.teaching import PairTrace, check_size

__all__ = ["WerStep", "WerTrace", "trace_wer"]

_MOVES = ("same word", "substitute", "delete", "insert")


@dataclass(frozen=True)
class WerStep:
    """``rows`` of the table are filled (row 0 = the empty text prefix); ``path`` holds
    the backtrace cells so far, from the bottom-right corner; ``edit`` the edit just read."""

    phase: Literal["fill", "backtrace", "rate"]
    rows: int
    path: tuple[tuple[int, int], ...]
    explain: str
    value: float
    edit: Edit | None = None


@dataclass(frozen=True)
class WerTrace(PairTrace):
    cost: tuple[tuple[int, ...], ...]
    back: tuple[tuple[int, ...], ...]
    edits: tuple[Edit, ...]
    steps: tuple[WerStep, ...]
    value: float


def _describe(edit: Edit, p: tuple[str, ...], h: tuple[str, ...]) -> str:
    if edit.kind is EditKind.EQ:
        assert edit.p_span is not None
        return f"“{p[edit.p_span[0]]}” is kept (cost 0)"
    if edit.kind is EditKind.SUB:
        assert edit.p_span is not None and edit.h_span is not None
        return f"“{p[edit.p_span[0]]}” is replaced by “{h[edit.h_span[0]]}” (cost 1)"
    if edit.kind is EditKind.DEL:
        assert edit.p_span is not None
        return f"“{p[edit.p_span[0]]}” is deleted from the text (cost 1)"
    assert edit.h_span is not None
    return f"“{h[edit.h_span[0]]}” is inserted from the hypothesis (cost 1)"


def trace_wer(pair: AnalyzedPair) -> WerTrace:
    """The steps of WER on a pair (lower-cased tokens, as the registered scorer)."""
    check_size(pair)
    p, h = pair.text.lower, pair.hypothesis.lower
    n, m = len(p), len(h)
    cost, back = edit_table(p, h)
    steps: list[WerStep] = [WerStep(
        "fill", 1, (),
        f"Row 0: turning no text words into the first j hypothesis words takes j insertions (0 to {m}).",
        float(cost[0][m]),
    )]
    for i in range(1, n + 1):
        row = cost[i]
        steps.append(WerStep(
            "fill", i + 1, (),
            f"Row {i} (text word “{p[i - 1]}”): each cell is the cheapest of keeping or substituting "
            f"(diagonal), deleting (from above) or inserting (from the left); the row ends at {row[m]}.",
            float(row[m]),
        ))
    edits = backtrace(back)
    distance = cost[n][m]
    path: list[tuple[int, int]] = [(n, m)]
    i, j = n, m
    spent = 0
    for edit in reversed(edits):
        if edit.kind in (EditKind.EQ, EditKind.SUB):
            i, j = i - 1, j - 1
        elif edit.kind is EditKind.DEL:
            i -= 1
        else:
            j -= 1
        spent += edit.kind is not EditKind.EQ
        path.append((i, j))
        steps.append(WerStep(
            "backtrace", n + 1, tuple(path),
            f"Backtrace: {_describe(edit, p, h)}; {spent} of the {distance} edits read so far.",
            float(spent), edit,
        ))
    forward = error_rate(distance, m, n)
    backward = error_rate(distance, n, m)
    rate = (forward + backward) / 2
    value = 1.0 - rate
    steps.append(WerStep(
        "rate", n + 1, tuple(path),
        f"{distance} edits: WER = ({distance}/{n} + {distance}/{m}) / 2 = {rate:.3f} (both directions averaged); "
        f"the score is 1 - WER = {value:.3f}.",
        value,
    ))
    return WerTrace("wer", pair.text.tokens, pair.hypothesis.tokens,
                    tuple(tuple(r) for r in cost), tuple(tuple(r) for r in back), edits, tuple(steps), value)
