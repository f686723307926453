"""The aligner registry: one plain dict read by the CLI (``align-eval``) and the UI.

An aligner turns an analysed pair into a frozen result carrying an
:class:`explorer.alignment.Alignment` (``alignment``) and its score (``score``),
plus whatever breakdown the UI draws. Adding an aligner is one module and one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from explorer.alignment import Alignment
from explorer.preprocess import AnalyzedPair


class AlignResult(Protocol):
    @property
    def alignment(self) -> Alignment: ...

    @property
    def score(self) -> float: ...


class Aligner(Protocol):
    @property
    def name(self) -> str: ...

    def align(self, pair: AnalyzedPair) -> AlignResult: ...


@dataclass(frozen=True)
class AlignerInfo:
    name: str
    label: str
    description: str
    factory: Callable[[], Aligner]


def _bow() -> Aligner:
    from explorer.aligners.bow import BowAligner

    return BowAligner()


def _itg(variant: str) -> Callable[[], Aligner]:
    def build() -> Aligner:
        from explorer.aligners.itg import ItgAligner

        return ItgAligner(variant)

    return build


def _manli() -> Aligner:
    from explorer.aligners.manli import ManliAligner

    return ManliAligner()


def _edit_distance(kind: str) -> Callable[[], Aligner]:
    def build() -> Aligner:
        from explorer.edit_distance.scoring import EditDistanceScorer

        return EditDistanceScorer(kind)

    return build


ALIGNERS: dict[str, AlignerInfo] = {
    "bow": AlignerInfo("bow", "Bag of words", "each hypothesis word to its most similar text word (Levenshtein on lemmas)", _bow),
    "itg": AlignerInfo("itg", "Bracketing ITG", "links of the best Bracketing ITG biparse (exact matches)", _itg("itg")),
    "itg_lex": AlignerInfo("itg_lex", "Bracketing ITG (lexical similarity)", "ITG links using the shared WordNet/PPDB similarity", _itg("itg_lex")),
    "manli": AlignerInfo("manli", "MANLI", "phrase-based NLI aligner (MacCartney et al. 2008), simulated annealing, trained weights", _manli),
    "pfsm": AlignerInfo("pfsm", "pFSM edit sequence", "Viterbi edit sequence of the probabilistic edit-distance FSM (Wang & Cer 2012)", _edit_distance("pfsm")),
    "ppda": AlignerInfo("ppda", "pPDA edit sequence", "Viterbi edit sequence of the pPDA, with jumps (Wang & Cer 2012)", _edit_distance("ppda")),
}


class UnknownAlignerError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@cache
def get_aligner(name: str) -> Aligner:
    """The aligner registered under ``name`` (built once)."""
    try:
        info = ALIGNERS[name]
    except KeyError:
        known = ", ".join(ALIGNERS) or "(none yet)"
        raise UnknownAlignerError(f"unknown aligner {name!r}; choose from: {known}") from None
    return info.factory()
