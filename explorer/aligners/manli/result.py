"""A MANLI alignment with its scores: what :class:`explorer.aligners.manli.aligner.ManliAligner`
returns and :func:`explorer.aligners.manli.entailment.entailment_score` reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.alignment import Alignment, Edit
from explorer.api import ResultMixin


@dataclass(frozen=True)
class ManliResult(ResultMixin):
    """A MANLI alignment: the edits carry their scores and features.

    ``total`` is the alignment's total score (the sum of every edit's score, DEL and
    INS included); ``normalized`` divides it by the pair's number of tokens (the paper's
    entailment score). ``entailment`` is the ``manli`` scorer's value for this alignment
    (:func:`entailment_score`) and is the ``value`` compared to a cutoff.
    """

    alignment: Alignment
    total: float
    normalized: float
    n_candidates: int
    weights: tuple[tuple[str, float], ...] = field(compare=False, default=())
    entailment: float | None = None

    @property
    def edits(self) -> tuple[Edit, ...]:
        return self.alignment.edits or ()

    @property
    def value(self) -> float:
        """The number compared to a cutoff: :attr:`entailment` (:attr:`normalized` for a
        result built without its pair)."""
        return self.normalized if self.entailment is None else self.entailment

    def detail(self) -> str:
        return f"{len(self.edits)} edits, {len(self.alignment.links)} links, total {self.total:+.3f}"
