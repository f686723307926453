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


def _bow() -> Scorer:
    from explorer.aligners.bow import BowScorer

    return BowScorer()


def _itg(variant: str) -> Callable[[], Scorer]:
    def build() -> Scorer:
        from explorer.aligners.itg import ItgScorer

        return ItgScorer(variant)

    return build


def _mt(module: str, cls: str, **options: object) -> Callable[[], Scorer]:
    """Finch et al. (2005) MT-metric scorers, imported on first use."""

    def build() -> Scorer:
        import importlib

        return getattr(importlib.import_module(module), cls)(**options)  # type: ignore[no-any-return]

    return build


def _manli() -> Scorer:
    from explorer.aligners.manli import ManliScorer

    return ManliScorer()


def _combined() -> Scorer:
    from explorer.combined import CombinedScorer

    return CombinedScorer()


def _edit_distance(kind: str) -> Callable[[], Scorer]:
    def build() -> Scorer:
        from explorer.edit_distance.scoring import EditDistanceScorer

        return EditDistanceScorer(kind)

    return build


SCORERS: dict[str, ScorerInfo] = {
    "bleu": ScorerInfo("bleu", "BLEU", "Papineni BLEU-4: geometric mean, brevity penalty", _bleu("bleu")),
    "mbleu": ScorerInfo("mbleu", "Modified BLEU", "Szymanski: linear mean, no brevity penalty", _bleu("mbleu")),
    "bleu_pa": ScorerInfo("bleu_pa", "BLEU (Pérez & Alfonseca)", "linear mean with brevity penalty", _bleu("bleu_pa")),
    "wer": ScorerInfo("wer", "1 - WER", "Finch et al.: 1 - word error rate, both directions averaged", _mt("explorer.metrics.wer", "WerScorer")),
    "per": ScorerInfo("per", "1 - PER", "Finch et al.: 1 - position-independent error rate, both directions", _mt("explorer.metrics.per", "PerScorer")),
    "pos_per": ScorerInfo("pos_per", "POS-decomposed PER", "Finch et al.: share of matched words, split by POS tag", _mt("explorer.metrics.per", "PosPerScorer"), interactive=False),
    **{f"bleu{n}": ScorerInfo(f"bleu{n}", f"BLEU-{n} (no BP)", f"Finch et al.: geometric mean of orders 1-{n}, no brevity penalty, both directions", _mt("explorer.metrics.bleu", "BleuNScorer", n=n)) for n in range(1, 5)},
    **{f"nist{n}": ScorerInfo(f"nist{n}", f"NIST-{n}", f"Finch et al.: NIST up to order {n}, Brown information weights, both directions", _mt("explorer.metrics.nist", "NistScorer", max_n=n)) for n in range(1, 6)},
    "bow": ScorerInfo("bow", "Bag-of-words alignment", "idf-weighted log similarity of each hypothesis word's best text match, per hypothesis word", _bow),
    "itg": ScorerInfo("itg", "Bracketing ITG", "Wu 2005: best biparse, unit costs, exact matches", _itg("itg"), interactive=False),
    "itg_stop": ScorerInfo("itg_stop", "Bracketing ITG (stoplist)", "ITG with stopwords and punctuation left out of the lexical rules", _itg("itg_stop"), interactive=False),
    "itg_entail": ScorerInfo("itg_entail", "Bracketing ITG (cheap text nulls)", "ITG where unaligned text words cost 0.1", _itg("itg_entail"), interactive=False),
    "itg_lex": ScorerInfo("itg_lex", "Bracketing ITG (lexical similarity)", "ITG whose links use the shared WordNet/PPDB similarity", _itg("itg_lex"), interactive=False),
    "manli": ScorerInfo("manli", "MANLI entailment score", "MANLI alignment (MacCartney et al. 2008): share of hypothesis content words aligned + 0.1 x hypothesis-side score per hypothesis token", _manli, interactive=False),
    "pfsm": ScorerInfo("pfsm", "Probabilistic edit distance (pFSM)", "Wang & Cer 2012: log-sum over edit sequences, regressed on STS 2012 scores", _edit_distance("pfsm"), interactive=False),
    "combined": ScorerInfo("combined", "Combined classifier", "logistic regression over the fast scorers and MANLI/ITG/lexical alignment features, trained on RTE1-3 dev: probability of entailment", _combined, interactive=False),
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
