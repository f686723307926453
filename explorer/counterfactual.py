"""Counterfactual editing: how every score and alignment changes when a pair is edited.

A user edits the text or the hypothesis of a pair ("what if the hypothesis said
*not*?") and compares each method's result on the edited pair with the original. Token
positions move when words are inserted or deleted, so alignments are compared as sets
of *word* links ``(text word, hypothesis word)``, with the occurrence number of each word
to keep repeated words apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.alignment import Alignment
from explorer.preprocess import AnalyzedPair

__all__ = [
    "AlignmentDiff", "ScoreChange", "WordLink", "alignment_diff", "compare_scores", "describe_link", "word_links",
]

WordLink = tuple[str, int, str, int]  # (text word, its occurrence, hypothesis word, its occurrence)


@dataclass(frozen=True)
class ScoreChange:
    """One method's score on the original and the edited pair."""

    method: str
    original: float | None
    edited: float | None
    error: str = ""

    @property
    def change(self) -> float | None:
        if self.original is None or self.edited is None:
            return None
        return self.edited - self.original


def compare_scores(original: AnalyzedPair, edited: AnalyzedPair,
                   methods: Iterable[str]) -> list[ScoreChange]:
    """Score both pairs with each registered scorer; a failing scorer is reported in its
    row (``error``) instead of stopping the others."""
    from explorer.scorers import get_scorer

    rows = []
    for name in methods:
        try:
            scorer = get_scorer(name)
            rows.append(ScoreChange(name, float(scorer.score(original).value),
                                    float(scorer.score(edited).value)))
        except Exception as error:  # one failing method must not hide the others
            rows.append(ScoreChange(name, None, None, f"{type(error).__name__}: {error}"))
    return rows


def _occurrences(tokens: Sequence[str]) -> list[int]:
    seen: dict[str, int] = {}
    out = []
    for token in tokens:
        key = token.lower()
        out.append(seen.get(key, 0))
        seen[key] = seen.get(key, 0) + 1
    return out


def word_links(alignment: Alignment, p_tokens: Sequence[str], h_tokens: Sequence[str]) -> frozenset[WordLink]:
    """The alignment's SURE links as lower-cased word links with occurrence numbers.

    Raises:
        ValueError: when the token counts do not match the alignment.
    """
    if (len(p_tokens), len(h_tokens)) != (alignment.p_len, alignment.h_len):
        raise ValueError(f"{len(p_tokens)} x {len(h_tokens)} tokens for a "
                         f"{alignment.p_len} x {alignment.h_len} alignment")
    p_occ, h_occ = _occurrences(p_tokens), _occurrences(h_tokens)
    return frozenset((p_tokens[p].lower(), p_occ[p], h_tokens[h].lower(), h_occ[h])
                     for p, h in alignment.sure)


@dataclass(frozen=True)
class AlignmentDiff:
    kept: frozenset[WordLink]
    gained: frozenset[WordLink]
    lost: frozenset[WordLink]


def alignment_diff(original: Alignment, original_tokens: tuple[Sequence[str], Sequence[str]],
                   edited: Alignment, edited_tokens: tuple[Sequence[str], Sequence[str]]) -> AlignmentDiff:
    """Word links kept, gained and lost from the original alignment to the edited one."""
    before = word_links(original, *original_tokens)
    after = word_links(edited, *edited_tokens)
    return AlignmentDiff(kept=before & after, gained=after - before, lost=before - after)


def describe_link(link: WordLink) -> str:
    """``"cat ↔ cats"``, with ``#2`` marking a word's second occurrence."""
    p_word, p_occ, h_word, h_occ = link
    p = p_word + (f" #{p_occ + 1}" if p_occ else "")
    h = h_word + (f" #{h_occ + 1}" if h_occ else "")
    return f"{p} ↔ {h}"
