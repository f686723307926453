"""The explorer's contracts: what every method, result and registry row is. A module per
concern; every name is also here, so ``from explorer.api import X`` is the one import.

- :mod:`~explorer.api.results`: the contracts of a :class:`Scorer` and an :class:`Aligner`
  and of what they return (:class:`ScoreResult`, :class:`AlignResult`, a command's
  :class:`Report`); :class:`ResultMixin` gives a result its ``to_json()`` and ``format()``;
  :func:`score_many`, the one loop over a batch of pairs.
- :mod:`~explorer.api.rows`: a registry's rows, the info records (:class:`ScorerInfo`,
  :class:`AlignerInfo`, :class:`LoaderInfo`, :class:`TrainerInfo`), what a method needs
  (:class:`Capabilities`, :func:`caps`) and its factory imported on first use (:func:`lazy`).
- :mod:`~explorer.api.registry`: :class:`Registry`, the ``name -> info`` dict behind every
  table (scorers, aligners, dataset formats, trainers, CLI commands, UI panels), with one
  :class:`UnknownNameError`.
- :mod:`~explorer.api.text`: strict JSON (:func:`json_safe`), fixed decimals (:func:`fixed`),
  names made safe for a terminal (:func:`shown`).
- :mod:`~explorer.api.signatures`: the settings behind a reported number (:func:`signature`).

A scorer is a registry row whose factory builds an object with ``score(pair)``:

>>> from explorer.scorers import SCORERS
>>> info = SCORERS.info("mbleu")
>>> isinstance(info, ScorerInfo), info.capabilities.interactive
(True, True)
>>> SCORERS.info("nope")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
explorer.scorers.UnknownScorerError: unknown scorer 'nope'; choose from: ...
"""

from __future__ import annotations

from explorer.api.registry import Registry, UnknownNameError
from explorer.api.results import (
    Aligner,
    AlignResult,
    Report,
    ResultMixin,
    Scorer,
    ScoreResult,
    Value,
    breakdown_value,
    score_many,
)
from explorer.api.rows import (
    DEFAULT_SECONDS,
    HEADERS,
    NEEDS,
    AlignerInfo,
    Capabilities,
    LoaderInfo,
    Log,
    MethodInfo,
    Named,
    Parser,
    ScorerInfo,
    TrainerInfo,
    caps,
    import_attr,
    lazy,
)
from explorer.api.signatures import MODELS_DIR, file_digest, method_signature, model_path, signature, signature_text
from explorer.api.text import both_directions, fixed, json_safe, shown

#: Every public name of the submodules, by module (tests/unit/test_api.py holds it to them).
__all__ = [
    # results
    "AlignResult",
    "Aligner",
    "Report",
    "ResultMixin",
    "ScoreResult",
    "Scorer",
    "Value",
    "breakdown_value",
    "score_many",
    # rows
    "DEFAULT_SECONDS",
    "HEADERS",
    "NEEDS",
    "AlignerInfo",
    "Capabilities",
    "LoaderInfo",
    "Log",
    "MethodInfo",
    "Named",
    "Parser",
    "ScorerInfo",
    "TrainerInfo",
    "caps",
    "import_attr",
    "lazy",
    # registry
    "Registry",
    "UnknownNameError",
    # text
    "both_directions",
    "fixed",
    "json_safe",
    "shown",
    # signatures
    "MODELS_DIR",
    "file_digest",
    "method_signature",
    "model_path",
    "signature",
    "signature_text",
]
