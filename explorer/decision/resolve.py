"""Which cutoff a scorer uses here: one precedence for every caller.

The Pair page, the Evaluate page, ``evaluate`` (with or without ``--dev``) and a batch
result all ask :func:`resolve_cutoff`, each with what it has at hand, and get a
:class:`~explorer.decision.cutoffs.CutoffChoice` saying the value, where it came from and by
which rule. The first source that applies wins:

1. ``given``: a cutoff the caller names (a batch report at a chosen cutoff);
2. ``model``: the scorer's own decision (``ScorerInfo.cutoff``: a trained classifier
   decides at its probability's one half, whatever the data);
3. ``dev``: chosen on a development set's scores by ``rule``
   (:data:`~explorer.decision.rules.DEFAULT_RULE`, ``midpoint``, unless the caller picks
   another): the cutoff is tuned on other labelled data and carried here unchanged;
4. ``dataset``: the data's own cutoff, chosen on its labelled pairs by
   :data:`~explorer.decision.rules.OWN_RULE` (``best``), or one already chosen that way
   (cached on disk by :mod:`explorer.decision.cutoffs`, or a whole batch result's);
5. ``default``: the shipped cutoff (best on NLTK's RTE1-3 development sets pooled,
   :data:`~explorer.decision.cutoffs.DEFAULT_FILE`);
6. ``none``: 0.5, for a scorer with no shipped cutoff (one registered after the file
   was built).

A development set beats the data's own cutoff because that is the honest protocol
(Szymanski's: tune on dev, apply to test), and so a pair decides the same way on the Pair
page as on the Evaluate page with the same development set. A set on which no pair could
be scored gives no cutoff: the next source applies.

Nothing here scores a pair: the caller passes the scores it has (:class:`Scored`), and a
page that must stay fast passes only what is already computed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.decision import cutoffs
from explorer.decision.cutoffs import CutoffChoice, CutoffError
from explorer.decision.measures import EvaluationError
from explorer.decision.rules import CUTOFF_RULES, DEFAULT_RULE, OWN_RULE
from explorer.scorers import SCORERS

__all__ = ["FALLBACK_CUTOFF", "Scored", "reported_source", "resolve_cutoff"]

#: The cutoff of a scorer with no other (source ``none``).
FALLBACK_CUTOFF = 0.5


@dataclass(frozen=True)
class Scored:
    """One scorer's scores on a set's labelled pairs: what a cutoff is chosen on.

    Attributes:
        name: the set's name, for the record's detail ("typical.xml").
        scores: one score per labelled pair; NaN where the scorer refused the pair.
        gold: whether each pair is entailed.
    """

    name: str
    scores: np.ndarray
    gold: np.ndarray

    @classmethod
    def of(cls, name: str, scores: Sequence[float] | np.ndarray, gold: Sequence[bool] | np.ndarray) -> Scored:
        return cls(name, np.asarray(scores, dtype=float), np.asarray(gold, dtype=bool))


def _chosen(scorer: str, evidence: Scored, *, source: str, rule: str) -> CutoffChoice | None:
    refused = int(np.count_nonzero(~np.isfinite(evidence.scores)))
    try:
        return cutoffs.choose(scorer, evidence.scores, evidence.gold, source=source, name=evidence.name,
                              refused=refused, rule=rule)
    except CutoffError:  # no pair of the set could be scored
        return None


def resolve_cutoff(
    scorer: str, *, given: float | None = None, dev: Scored | None = None,
    own: Scored | CutoffChoice | None = None, rule: str = DEFAULT_RULE,
) -> CutoffChoice:
    """The cutoff ``scorer`` uses, by the precedence of the module docstring.

    Args:
        scorer: a registered scorer name (an unknown one has no model cutoff and no
            shipped default: it gets what the data gives, else 0.5).
        given: a cutoff the caller names; it wins.
        dev: the scorer's scores on a development set's labelled pairs.
        own: the scorer's scores on the data's own labelled pairs, or a cutoff already
            chosen on them (a cached or a batch result's record).
        rule: the rule a development-set cutoff is chosen by (one of
            :data:`explorer.decision.rules.CUTOFF_RULES`).

    Raises:
        EvaluationError: for an unknown rule (even when no development set is given, so a
            typo never passes silently).
    """
    if rule not in CUTOFF_RULES:
        raise EvaluationError(f"unknown cutoff rule {rule!r}; choose from: {', '.join(CUTOFF_RULES)}")
    nan = math.nan
    if given is not None:
        return CutoffChoice(scorer, float(given), cutoffs.GIVEN, "named by the caller", nan, 0, rule="")
    info = SCORERS.get(scorer)
    fixed = getattr(info, "cutoff", None)
    if fixed is not None:
        return CutoffChoice(scorer, float(fixed), cutoffs.MODEL,
                            f"a trained classifier, it decides at {fixed:g} whatever the data", nan, 0, rule="")
    if dev is not None and (found := _chosen(scorer, dev, source=cutoffs.DEV, rule=rule)) is not None:
        return found
    if isinstance(own, CutoffChoice):
        return own
    if own is not None and (found := _chosen(scorer, own, source=cutoffs.DATASET, rule=OWN_RULE)) is not None:
        return found
    shipped = cutoffs.default_cutoffs().get(scorer)
    if shipped is not None:
        return shipped
    return CutoffChoice(scorer, FALLBACK_CUTOFF, cutoffs.NONE, f"{FALLBACK_CUTOFF} assumed", nan, 0, rule="")


def reported_source(choice: CutoffChoice) -> str:
    """The source as reports name it (``evaluate --json``'s ``cutoff_source``, a batch
    report's): ``self`` for the data's own cutoff, else the record's source."""
    return "self" if choice.source == cutoffs.DATASET else choice.source
