"""Bracketing ITG step by step: the chart filled text span by text span, each cell's rule
(a link, a null word peeled off, a straight or an inverted split), ending in the tree.

The chart is :func:`explorer.aligners.itg_kernel.fill_chart` (the parser's compiled
kernel) on the parser's own link matrices; the tree and the score are the parser's
:meth:`~explorer.aligners.itg.BracketingItg.parse`. The rule named in each cell is read
from the chart the way the parser reads its tree back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer.aligners.itg import VARIANTS, ItgParse, ItgScorer
from explorer.aligners.itg_tree import TIE, ItgError
from explorer.preprocess import AnalyzedPair
from explorer.teaching import PairTrace, check_size

__all__ = ["RULE_MARK", "ItgCell", "ItgStep", "ItgTrace", "Rule", "cell_rule", "trace_itg"]

#: Cell rules: no link in the span pair, a single link, a boundary word left unaligned
#: (the cell equals a smaller one), or a split into two halves.
Rule = Literal["empty", "link", "null", "straight", "inverted"]
RULE_MARK: dict[str, str] = {"empty": "", "link": "x/y", "null": "ε", "straight": "[ ]", "inverted": "< >"}


@dataclass(frozen=True)
class ItgCell:
    """One chart cell ``text[i:j]`` x ``hypothesis[u:v]`` (indices among the words with a
    possible link): its best gain and the rule that gives it."""

    u: int
    v: int
    gain: float
    rule: Rule


@dataclass(frozen=True)
class ItgStep:
    """``phase`` ``links`` (the possible links), ``span`` (every cell of one text span
    filled), or ``tree`` (the parse read back). ``i, j`` index the kept text words."""

    phase: Literal["links", "span", "tree"]
    i: int
    j: int
    cells: tuple[ItgCell, ...]
    explain: str
    value: float


@dataclass(frozen=True)
class ItgTrace(PairTrace):
    variant: str
    text_kept: tuple[int, ...]
    hypothesis_kept: tuple[int, ...]
    allowed: np.ndarray
    chart: np.ndarray
    parse: ItgParse
    steps: tuple[ItgStep, ...]
    value: float


def cell_rule(chart: np.ndarray, i: int, j: int, u: int, v: int, inversion: float) -> Rule:
    """The rule of a filled cell, in the order the parser reads its tree back."""
    g = chart[i, j, u, v]
    if g <= TIE:
        return "empty"
    t = g - TIE
    if chart[i + 1, j, u, v] >= t or chart[i, j - 1, u, v] >= t or chart[i, j, u + 1, v] >= t or chart[i, j, u, v - 1] >= t:
        return "null"
    if j - i == 1 and v - u == 1:
        return "link"
    straight = max(chart[i, s, u, w] + chart[s, j, w, v] for s in range(i + 1, j) for w in range(u + 1, v))
    inverted = max(chart[i, s, w, v] + chart[s, j, u, w] for s in range(i + 1, j) for w in range(u + 1, v))
    return "straight" if straight >= inverted - inversion - TIE else "inverted"


def _words(tokens: tuple[str, ...], kept: tuple[int, ...], a: int, b: int) -> str:
    return "“" + " ".join(tokens[k] for k in kept[a:b]) + "”"


def trace_itg(pair: AnalyzedPair, *, variant: str = "itg") -> ItgTrace:
    """The steps of one registered ITG variant (``itg``, ``itg_stop``, ``itg_entail``,
    ``itg_lex``) on a pair."""
    check_size(pair)
    if variant not in VARIANTS:
        raise ItgError(f"unknown ITG variant {variant!r}; choose from: {', '.join(VARIANTS)}")
    parser = ItgScorer(variant).parser
    gain, allowed, _sim, wp, wh = parser.link_matrices(pair.text, pair.hypothesis)
    p_keep = tuple(int(k) for k in np.flatnonzero(allowed.any(axis=1)))
    h_keep = tuple(int(k) for k in np.flatnonzero(allowed.any(axis=0)))
    sub_gain = np.ascontiguousarray(gain[np.ix_(np.array(p_keep, dtype=np.int64), np.array(h_keep, dtype=np.int64))], dtype=np.float32)
    sub_allowed = np.ascontiguousarray(allowed[np.ix_(np.array(p_keep, dtype=np.int64), np.array(h_keep, dtype=np.int64))])
    from explorer.aligners.itg_kernel import fill_chart

    inversion = parser.config.inversion
    chart = fill_chart(sub_gain, sub_allowed, np.float32(inversion))
    parse = parser.parse(pair)
    null_cost = float(wp.sum() + wh.sum())
    t_len, h_len = len(p_keep), len(h_keep)
    text, hyp = pair.text.tokens, pair.hypothesis.tokens
    set_aside = (len(text) - t_len) + (len(hyp) - h_len)
    steps = [ItgStep(
        "links", 0, 0, (),
        f"{int(allowed.sum())} word pairs may link; {set_aside} word(s) with no possible link are set aside "
        f"(unaligned in every parse), leaving a {t_len} x {h_len} chart. Leaving every word unaligned costs "
        f"{null_cost:g}.",
        0.0,
    )]
    for lp in range(1, t_len + 1):  # the kernel's order: text span length, then start
        for i in range(t_len - lp + 1):
            j = i + lp
            cells = tuple(
                ItgCell(u, v, float(chart[i, j, u, v]), cell_rule(chart, i, j, u, v, inversion))
                for lh in range(1, h_len + 1) for u in range(h_len - lh + 1) for v in (u + lh,)
            )
            best = max(cells, key=lambda c: (c.gain, -(c.v - c.u)), default=None)
            whole = float(chart[i, j, 0, h_len])
            if best is None or best.gain <= TIE:
                explain = f"Text {_words(text, p_keep, i, j)}: no hypothesis span links to it; every cell gains 0."
            else:
                rule = {"link": "a single link", "null": "a smaller cell plus unaligned words",
                        "straight": "a straight split [A A] (same order)",
                        "inverted": f"an inverted split <A A> (reversed order, costing {inversion:g})"}[best.rule]
                explain = (f"Text {_words(text, p_keep, i, j)}: best with hypothesis "
                           f"{_words(hyp, h_keep, best.u, best.v)}, gain {best.gain:.2f} by {rule}.")
            steps.append(ItgStep("span", i, j, cells, explain, whole))
    steps.append(ItgStep(
        "tree", 0, t_len, (),
        f"Read back from the full cell: the tree has {parse.inversions} inversion(s) and costs {parse.cost:.2f} "
        f"against {parse.null_cost:g} for no alignment, so the score is 1 - {parse.cost:.2f}/{parse.null_cost:g} "
        f"= {parse.value:.3f}.",
        parse.value,
    ))
    return ItgTrace("itg", text, hyp, variant, p_keep, h_keep, allowed, chart, parse, tuple(steps), parse.value)
