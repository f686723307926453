"""The scorer registry: one plain dict read by the CLI and the UI alike.

A scorer turns an analysed pair into a frozen result whose ``value`` is a float where
higher means "more likely entailed / more similar"; the rest of the result is the
breakdown the UI draws. Adding a method is one module and one line here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from explorer.preprocess import AnalyzedPair


class ScoreResult(Protocol):
    @property
    def value(self) -> float: ...


class Scorer(Protocol):
    @property
    def name(self) -> str: ...

    def score(self, pair: AnalyzedPair) -> ScoreResult: ...


@dataclass(frozen=True)
class ScorerInfo:
    """What the CLI and UI show about a scorer, and how to build it."""

    name: str
    label: str
    description: str
    factory: Callable[[], Scorer]
    # False for scorers too slow to rerun on every keystroke (trained decoders, biparsers
    # on long pairs): the Pair page runs them only when asked.
    interactive: bool = True


def _bleu(variant: str) -> Callable[[], Scorer]:
    def build() -> Scorer:
        from explorer.metrics.bleu import BleuScorer

        return BleuScorer(variant=variant)  # type: ignore[arg-type]

    return build


def _manli() -> Scorer:
    from explorer.aligners.manli import ManliScorer

    return ManliScorer()


def _edit_distance(kind: str) -> Callable[[], Scorer]:
    def build() -> Scorer:
        from explorer.edit_distance.scoring import EditDistanceScorer

        return EditDistanceScorer(kind)

    return build


SCORERS: dict[str, ScorerInfo] = {
    "bleu": ScorerInfo("bleu", "BLEU", "Papineni BLEU-4: geometric mean, brevity penalty", _bleu("bleu")),
    "mbleu": ScorerInfo("mbleu", "Modified BLEU", "Szymanski: linear mean, no brevity penalty", _bleu("mbleu")),
    "bleu_pa": ScorerInfo("bleu_pa", "BLEU (Pérez & Alfonseca)", "linear mean with brevity penalty", _bleu("bleu_pa")),
    "manli": ScorerInfo("manli", "MANLI alignment score", "MANLI alignment score / number of tokens (MacCartney et al. 2008)", _manli),
    "pfsm": ScorerInfo("pfsm", "Probabilistic edit distance (pFSM)", "Wang & Cer 2012: log-sum over edit sequences, regressed on STS 2012 scores", _edit_distance("pfsm"), interactive=False),
    "ppda": ScorerInfo("ppda", "Probabilistic edit distance with jumps (pPDA)", "Wang & Cer 2012: pFSM plus forward/backward jumps of up to 5 tokens, regressed on STS 2012", _edit_distance("ppda"), interactive=False),
}


class UnknownScorerError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@cache
def get_scorer(name: str) -> Scorer:
    """The scorer registered under ``name`` (built once).

    Raises:
        UnknownScorerError: naming the known scorers.
    """
    try:
        info = SCORERS[name]
    except KeyError:
        raise UnknownScorerError(
            f"unknown scorer {name!r}; choose from: {', '.join(SCORERS)}"
        ) from None
    return info.factory()


def parse_scorer_names(spec: str) -> list[str]:
    """Split ``"bleu,mbleu"`` (or ``"all"``) and check every name."""
    names = list(SCORERS) if spec.strip() == "all" else [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise UnknownScorerError("no scorer named; give e.g. --scorer mbleu,bleu")
    for name in names:
        if name not in SCORERS:
            raise UnknownScorerError(f"unknown scorer {name!r}; choose from: {', '.join(SCORERS)}")
    return names
