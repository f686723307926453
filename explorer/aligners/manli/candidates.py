"""MANLI's candidate edits: per-token facts of each side and the candidate blocks.

Stage 2 of :func:`explorer.aligners.manli.features.extract`.

extract() runs in stages, each linear in the number of candidates C (or in the pair's
token pairs): (1) lexical evidence per token pair, (2) the candidate blocks and their
block statistics, (3) the edit's shape (type, sizes, constituents, stopwords, POS),
(4) lexical features, (5) contextual features, (6) DEL / INS features. No stage builds
an array that grows with C times anything but a constant; MANLI's limits
(:mod:`explorer.limits`) bound C before stage 2 starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from explorer.aligners.manli.evidence import chunk_boundaries

if TYPE_CHECKING:
    from explorer.preprocess import Analysis


def wmax(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Max over every window of ``size`` consecutive entries along ``axis``."""
    return np.lib.stride_tricks.sliding_window_view(values, size, axis=axis).max(axis=-1)


def wmean(values: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Mean over every window of ``size`` consecutive entries along ``axis``."""
    return np.lib.stride_tricks.sliding_window_view(values, size, axis=axis).mean(axis=-1)


def _coarse(tag: str) -> str:
    return "N" if tag.startswith(("NN", "PRP", "CD")) else tag[:1]


def cum(values: np.ndarray) -> np.ndarray:
    """Prefix sums with a leading 0: ``cum[b] - cum[a]`` sums ``values[a:b]``."""
    return np.concatenate(([0.0], np.cumsum(values)))


def span_max(values: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    out = np.zeros(start.size)
    for size in np.unique(end - start).tolist():
        idx = np.flatnonzero(end - start == size)
        out[idx] = wmax(values, size, 0)[start[idx]]
    return out


def ties(sim: np.ndarray, best: np.ndarray, axis: int) -> np.ndarray:
    """Per token: 1 when more than one token on the other side reaches its best
    similarity (and that is positive), else 0."""
    if sim.size == 0:
        return np.zeros(best.size)
    at_best = sim >= (best[:, None] if axis == 1 else best[None, :]) - 1e-9
    return ((at_best.sum(axis=axis) > 1) & (best > 0)).astype(np.float64)


@dataclass(frozen=True)
class Side:
    """Per-token facts of one sentence, as arrays."""

    n: int
    stop: np.ndarray  # float 0/1
    punct: np.ndarray  # float 0/1
    bounds: np.ndarray  # (n + 1,) bool, chunk boundaries
    coarse: np.ndarray  # coarse POS (one "" entry for an empty sentence)
    proper: np.ndarray  # NNP* (one False entry for an empty sentence)
    best: np.ndarray  # the token's best similarity on the other side
    be: np.ndarray  # float 0/1: a form of `be` (lemma)
    number: np.ndarray  # the token's numeric value, NaN when it is not a number
    ties: np.ndarray  # float 0/1: more than one token on the other side reaches ``best`` (> 0)
    numeric: tuple[str, ...] = ()  # lower-cased token where it may be part of a number, else ""

    @classmethod
    def of(cls, analysis: Analysis, best: np.ndarray, ties: np.ndarray | None = None) -> Side:
        return cls(
            n=len(analysis),
            stop=np.asarray(analysis.stop, dtype=np.float64),
            punct=np.asarray(analysis.is_punct, dtype=np.float64),
            bounds=np.asarray(chunk_boundaries(analysis.pos), dtype=bool),
            coarse=np.array([_coarse(t) for t in analysis.pos] or [""]),
            proper=np.array([t.startswith("NNP") for t in analysis.pos] or [False]),
            best=best,
            be=np.array([lem == "be" for lem in analysis.lemmas], dtype=np.float64),
            number=np.array([_number(tok, tag) for tok, tag in zip(analysis.tokens, analysis.pos)], dtype=np.float64),
            ties=np.zeros(len(analysis)) if ties is None else ties,
            numeric=tuple(_numeric(tok, tag) for tok, tag in zip(analysis.tokens, analysis.pos)),
        )


def _number(token: str, tag: str) -> float:
    """A token's numeric value when it is tagged CD or holds a digit (``one`` as a pronoun
    is not a number), else NaN."""
    from explorer.lexical.numbers import number_value

    if tag != "CD" and not any(ch.isdigit() for ch in token):
        return float("nan")
    value = number_value(token)
    return float("nan") if value is None else value


def _numeric(token: str, tag: str) -> str:
    """The lower-cased token when it may be part of a number (tagged CD, holding a digit,
    or a percent word: ``per cent`` too), else "" (``one`` as a pronoun is no number)."""
    from explorer.lexical.numbers import PERCENT_WORDS

    low = token.lower()
    if tag == "CD" or any(ch.isdigit() for ch in token) or low in PERCENT_WORDS or low in ("per", "cent"):
        return low
    return ""


@dataclass(frozen=True)
class Candidates:
    """Candidate blocks (stage 2): spans and block statistics, one entry per candidate.

    ``stats`` rows: block maximum of the similarity, of the antonymy, then of each
    lexical component (:data:`LEXICAL_COMPONENTS`).
    """

    p_start: np.ndarray
    h_start: np.ndarray
    p_size: np.ndarray
    h_size: np.ndarray
    stats: np.ndarray  # (2 + len(LEXICAL_COMPONENTS), C)
    cover_h: np.ndarray  # mean over the block's h tokens of their best match in the p phrase
    cover_p: np.ndarray  # the same for the p tokens
    added: np.ndarray  # present only because ``extra`` asked for it

    @property
    def p_end(self) -> np.ndarray:
        return self.p_start + self.p_size

    @property
    def h_end(self) -> np.ndarray:
        return self.h_start + self.h_size

    def __len__(self) -> int:
        return int(self.p_start.size)


def candidates(
    sim: np.ndarray, layers: np.ndarray, max_phrase: int,
    extra: tuple[tuple[tuple[int, int], tuple[int, int]], ...],
) -> Candidates:
    """Stage 2: every block of at most ``max_phrase`` tokens a side whose similarity
    maximum is positive or that has at most 3 tokens in all, plus the ``extra`` blocks.

    Works one text phrase size at a time, so its temporaries are a few ``(layers,
    p_len, h_len)`` arrays whatever ``max_phrase`` is.
    """
    p_len, h_len = sim.shape
    regular = {(m, n) for m in range(1, min(max_phrase, p_len) + 1) for n in range(1, min(max_phrase, h_len) + 1)}
    forced: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for (pa, pb), (ha, hb) in extra:
        forced.setdefault((pb - pa, hb - ha), set()).add((pa, ha))
    groups: list[tuple[np.ndarray, ...]] = []
    rows_m, rows = 0, np.zeros(0)
    for m, n in sorted(regular | set(forced)):
        if m != rows_m:
            rows_m, rows = m, wmax(layers, m, 1)  # (layers, p_len-m+1, h_len)
        blk = wmax(rows, n, 2)  # (layers, p_len-m+1, h_len-n+1)
        if (m, n) in regular:
            keep = (blk[0] > 0) | (m + n <= 3)
        else:
            keep = np.zeros(blk.shape[1:], dtype=bool)
        added = np.zeros_like(keep)
        for pa, ha in forced.get((m, n), ()):
            added[pa, ha] = not keep[pa, ha]
        keep |= added
        a, b = np.nonzero(keep)
        cover_h = wmean(rows[0], n, 1)[a, b]
        cover_p = wmean(wmax(sim, n, 1), m, 0)[a, b]
        groups.append((a, b, np.full(a.size, m), np.full(a.size, n), blk[:, a, b], cover_h, cover_p, added[a, b]))
        del blk
    if not groups:
        empty = np.zeros(0, dtype=np.int64)
        return Candidates(empty, empty, empty, empty, np.zeros((layers.shape[0], 0)), np.zeros(0), np.zeros(0),
                           np.zeros(0, dtype=bool))
    return Candidates(
        p_start=np.concatenate([g[0] for g in groups]).astype(np.int64),
        h_start=np.concatenate([g[1] for g in groups]).astype(np.int64),
        p_size=np.concatenate([g[2] for g in groups]).astype(np.int64),
        h_size=np.concatenate([g[3] for g in groups]).astype(np.int64),
        stats=np.concatenate([g[4] for g in groups], axis=1),
        cover_h=np.concatenate([g[5] for g in groups]),
        cover_p=np.concatenate([g[6] for g in groups]),
        added=np.concatenate([g[7] for g in groups]).astype(bool),
    )
