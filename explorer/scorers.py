"""The scorer registry: one plain dict read by the CLI and the UI alike.

A scorer turns an analysed pair into a frozen result whose ``value`` is a float where
higher means "more likely entailed / more similar"; the rest of the result is the
breakdown the UI draws. Its row (a :class:`~explorer.api.ScorerInfo`: how to build it, what
it needs, its cost model and CPU estimate, what its first run loads, the breakdown a batch
stores) sits in its method's row of :data:`explorer.methods.METHODS`; this registry is
every method's scorers, in that table's order. Adding a method is its module and one row
there (docs/ARCHITECTURE.md, "How to add a method").
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import cast

from explorer.api import Registry, Scorer, ScorerInfo, UnknownNameError
from explorer.methods import scorer_rows


def _running_others(rows: list[ScorerInfo]) -> list[ScorerInfo]:
    """The rows, a scorer that runs others (``runs``) with their CPU estimates added up
    (it runs them one after another on the pair) and their needs added to its own (a
    resource one of them lacks is the combined scorer's missing resource too)."""
    by_name = {row.name: row for row in rows}

    def running(row: ScorerInfo) -> ScorerInfo:
        parts = [by_name[n] for n in row.runs]
        needs = row.capabilities.needs.union(*(p.capabilities.needs for p in parts))
        return replace(row, seconds=(math.fsum(p.seconds[0] for p in parts), math.fsum(p.seconds[1] for p in parts)),
                       capabilities=replace(row.capabilities, needs=needs))

    return [running(row) if row.runs else row for row in rows]


class UnknownScorerError(UnknownNameError):
    """A scorer name the registry does not have."""


#: Every method's scorers (:data:`explorer.methods.METHODS`), by name.
SCORERS: Registry[ScorerInfo] = Registry("scorer", _running_others(scorer_rows()), error=UnknownScorerError)


def get_scorer(name: str) -> Scorer:
    """The scorer registered under ``name`` (built once).

    Raises:
        UnknownScorerError: naming the known scorers.
    """
    return cast(Scorer, SCORERS.build(name))


def parse_scorer_names(spec: str) -> list[str]:
    """Split ``"bleu,mbleu"`` (or ``"all"``) and check every name."""
    names = list(SCORERS) if spec.strip() == "all" else [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise UnknownScorerError("no scorer named; give e.g. --scorer mbleu,bleu")
    for name in names:
        SCORERS.info(name)
    return names


__all__ = ["SCORERS", "UnknownScorerError", "get_scorer", "parse_scorer_names"]
