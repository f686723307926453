"""The ``manli`` scorer: an entailment value read off a MANLI alignment.

An alignment's entailment score (:func:`entailment_score`) is the share of the
hypothesis's content words (not stopwords, not punctuation) that the alignment links to
the text, plus :data:`HYPOTHESIS_SCORE_WEIGHT` times the hypothesis side of the
alignment score per hypothesis token (the total without the DEL edits: text left out
costs an entailment nothing). The paper's normalisation (MacCartney, Galley & Manning
2008), the total divided by the number of tokens of the problem, is kept as
``problem_normalized``; it transferred worst across the RTE sets (docs/RESULTS.md,
"The `manli` entailment score").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.alignment import EditKind
from explorer.api import ResultMixin

if TYPE_CHECKING:
    from explorer.aligners.manli.result import ManliResult
    from explorer.preprocess import AnalyzedPair


#: Weight of the hypothesis-side alignment score per hypothesis token in the ``manli``
#: entailment value; it mostly breaks ties between equal coverages (0.03-0.3 transfer
#: alike, docs/RESULTS.md).
HYPOTHESIS_SCORE_WEIGHT = 0.1


@dataclass(frozen=True)
class ManliScore(ResultMixin):
    """The ``manli`` scorer's result: the entailment value and its parts.

    Attributes:
        value: ``content_coverage + HYPOTHESIS_SCORE_WEIGHT * hypothesis_score``.
        total: the alignment's total score (every edit).
        n_tokens: tokens of the problem (text + hypothesis).
        aligned_links: the alignment as ``"p-h ..."``.
        content_coverage: share of hypothesis content words linked to the text (of all
            hypothesis tokens when it has no content word).
        hypothesis_score: the total without DEL edits, per hypothesis token.
        problem_normalized: the paper's score, total / n_tokens.
        unaligned_content: hypothesis positions of the content words left unaligned.
    """

    value: float
    total: float
    n_tokens: int
    aligned_links: str
    content_coverage: float = 0.0
    hypothesis_score: float = 0.0
    problem_normalized: float = 0.0
    unaligned_content: tuple[int, ...] = ()

    def detail(self) -> str:
        return (f"content words aligned {self.content_coverage:.0%}, hypothesis-side score "
                f"{self.hypothesis_score:+.3f} per word, total {self.total:+.3f}")


def entailment_score(pair: AnalyzedPair, result: ManliResult) -> ManliScore:
    """The ``manli`` scorer's value for a MANLI alignment of ``pair`` (its own or an edited one)."""
    hyp = pair.hypothesis
    h_len = len(hyp)
    aligned = [False] * h_len
    deleted = 0.0
    for edit in result.edits:
        if edit.is_aligned and edit.h_span is not None:
            for j in range(*edit.h_span):
                aligned[j] = True
        elif edit.kind is EditKind.DEL:
            deleted += edit.score
    content = [j for j in range(h_len) if not (hyp.stop[j] or hyp.is_punct[j])]
    counted = content or list(range(h_len))
    coverage = sum(aligned[j] for j in counted) / len(counted) if counted else 1.0
    hypothesis_score = (result.total - deleted) / max(h_len, 1)
    return ManliScore(
        value=coverage + HYPOTHESIS_SCORE_WEIGHT * hypothesis_score,
        total=result.total,
        n_tokens=len(pair.text) + h_len,
        aligned_links=result.alignment.to_sure_align(),
        content_coverage=coverage,
        hypothesis_score=hypothesis_score,
        problem_normalized=result.normalized,
        unaligned_content=tuple(j for j in content if not aligned[j]),
    )
