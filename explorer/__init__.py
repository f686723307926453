"""The Entailment Alignment Explorer's core library: what a Python user may rely on.

Everything here returns data; nothing imports streamlit or plotly. The UI lives in
``components/`` and ``app.py``, the command line in :mod:`explorer.cli`. ``import explorer``
imports nothing heavy: each name below is imported on first use.

One pair (each function's docstring has runnable examples, checked by
``tests/unit/test_doctests.py``):

- :func:`score` (``text, hypothesis, scorer=``) and :func:`align` (``aligner=``) run a
  registered method on one pair; :func:`list_scorers` and :func:`list_aligners` name them,
  filtered on what they need (``interactive=True``, ``model=False``, ...).
- The results: every scorer returns a :class:`ScoreResult` (``value``, the number compared to
  a cutoff, higher = more entailed; its own breakdown fields; ``format()``, also ``str()``,
  one line; ``to_json()``), every aligner an :class:`AlignResult` (the same, with its
  ``alignment``, an :class:`Alignment` of token links ``(text index, hypothesis index)``).
- :class:`Limits`: the bounds a pair must fit before a method starts; ``limits=`` raises or
  lowers them for one call.

Datasets:

- :func:`load` reads a file into a :class:`Dataset` (its :class:`Pair` records, format,
  kind, tasks); :func:`list_formats` names the formats, filtered on what their pairs carry.
- Groups of pairs (the phenomena a pair shows, the table of a whole dataset) are in
  :mod:`explorer.groups`; a whole dataset scored by many methods in :mod:`explorer.batch`.

Errors: every error raised on purpose is an :class:`ExplorerError` (and also the built-in
``ValueError`` or ``KeyError`` it always was): :class:`InputError` (an empty or unreadable
pair), :class:`UnknownNameError` (a method or format name no registry has; the message lists
them), :class:`LimitError` (a pair past a limit; the message says which and how to raise
it), :class:`DatasetError` (a file that cannot be read as a dataset, naming file and line).

>>> import explorer
>>> result = explorer.score("A man is cooking pasta.", "A man cooks.")
>>> isinstance(result, explorer.ScoreResult), result.to_json()["value"] == result.value
(True, True)
>>> try:
...     explorer.align("A man is cooking pasta.", "")
... except explorer.ExplorerError as err:
...     print(type(err).__name__, "-", err)
InputError - the hypothesis is empty; type at least one word

Contracts for writing a method or reading the registries (protocols, info records, the
registry helper) are in :mod:`explorer.api`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from explorer.alignment import Alignment
    from explorer.api import AlignResult, ScoreResult, UnknownNameError
    from explorer.datasets import Dataset, DatasetError
    from explorer.errors import ExplorerError
    from explorer.limits import LimitError, Limits
    from explorer.pairs import Pair
    from explorer.preprocess import AnalyzedPair, InputError

#: The public classes, each imported from its module on first use (:func:`__getattr__`), so
#: ``import explorer`` stays cheap.
_LAZY: dict[str, str] = {
    "AlignResult": "explorer.api",
    "Alignment": "explorer.alignment",
    "Dataset": "explorer.datasets",
    "DatasetError": "explorer.datasets",
    "ExplorerError": "explorer.errors",
    "InputError": "explorer.preprocess",
    "LimitError": "explorer.limits",
    "Limits": "explorer.limits",
    "Pair": "explorer.pairs",
    "ScoreResult": "explorer.api",
    "UnknownNameError": "explorer.api",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def _pair(text: str, hypothesis: str) -> AnalyzedPair:
    from explorer.preprocess import analyze_pair, make_pair

    return analyze_pair(make_pair(text, hypothesis))


def score(text: str, hypothesis: str, scorer: str = "mbleu", *, limits: Limits | None = None) -> ScoreResult:
    """Score one pair with a registered scorer (:func:`list_scorers`).

    The result is the scorer's own frozen record: ``value`` is the number compared to a
    cutoff (higher = more entailed), the other fields are its breakdown; ``to_json()``
    and ``format()`` (also ``str()``) are every result's. ``limits`` replaces the
    :class:`Limits` in force for this call.

    >>> import explorer
    >>> result = explorer.score("A man is cooking pasta.", "A man cooks.", scorer="mbleu")
    >>> round(result.value, 4)
    0.2708
    >>> [(o.n, o.matched, o.total) for o in result.orders][:2]  # modified BLEU's n-gram counts
    [(1, 3, 4), (2, 1, 3)]
    >>> print(result)
    0.2708  (n-grams matched 3/4 1/3 0/2 0/1, brevity penalty 0.607 (not applied))
    >>> explorer.score("A man is cooking pasta.", "A man cooks.", limits=explorer.Limits(max_tokens=5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    explorer.limits.LimitError: mbleu: the pair (6 x 4 tokens) needs 6 tokens on one side, over the limit of 5 ...

    Raises:
        explorer.ExplorerError: for empty text (:class:`InputError`), an unknown scorer
            name (:class:`UnknownNameError`) or a pair past the limits (:class:`LimitError`).
    """
    from explorer.limits import using
    from explorer.scorers import get_scorer

    with using(limits):
        return get_scorer(scorer).score(_pair(text, hypothesis))


def align(text: str, hypothesis: str, aligner: str = "bow", *, limits: Limits | None = None) -> AlignResult:
    """Align one pair with a registered aligner (:func:`list_aligners`); the result has
    ``alignment`` (token links ``(text index, hypothesis index)``) and ``value``.
    ``limits`` replaces the :class:`Limits` in force for this call.

    >>> import explorer
    >>> result = explorer.align("A man is cooking pasta.", "A man cooks.", aligner="itg")
    >>> sorted(result.alignment.links)  # A-A, man-man, .-.
    [(0, 0), (1, 1), (5, 3)]
    >>> print(result)
    0.6000  (cost 4 of 10 with nothing aligned, 3 links, 0 inversions)

    Raises:
        explorer.ExplorerError: for empty text (:class:`InputError`), an unknown aligner
            name (:class:`UnknownNameError`) or a pair past the limits (:class:`LimitError`).
    """
    from explorer.aligners import get_aligner
    from explorer.limits import using

    with using(limits):
        return get_aligner(aligner).align(_pair(text, hypothesis))


def load(path: str, *, fmt: str | None = None) -> Dataset:
    """Load a dataset file (format detected from content and extension; ``fmt`` names
    one of :func:`list_formats`).

    >>> import explorer
    >>> data = explorer.load("sample_data/typical.xml")
    >>> data.format, len(data), data.kind, data.tasks[:3]
    ('rte_xml', 56, 'binary', ('CD', 'IE', 'IR'))
    >>> first = data.pairs[0]
    >>> isinstance(first, explorer.Pair), first.entails in (True, False)
    (True, True)

    Raises:
        explorer.DatasetError: naming the file and line, for a file that cannot be read
            as a dataset.
    """
    from explorer.datasets import load as load_dataset

    return load_dataset(path, fmt=fmt)


def list_scorers(**capabilities: bool) -> list[str]:
    """Registered scorer names, e.g. ``list_scorers(interactive=True, model=False)``.

    >>> import explorer
    >>> explorer.list_scorers(interactive=True)[:3]
    ['bleu', 'mbleu', 'bleu_pa']
    >>> "manli" in explorer.list_scorers(interactive=False)  # slow: trained, run on request
    True
    """
    from explorer.scorers import SCORERS

    return SCORERS.names(**capabilities)


def list_aligners(**capabilities: bool) -> list[str]:
    """Registered aligner names, filtered on declared capabilities.

    >>> import explorer
    >>> explorer.list_aligners(interactive=True)  # fast enough to rerun on every keystroke
    ['bow', 'embed']
    >>> "manli" in explorer.list_aligners(model=True)  # loads a trained model file
    True
    """
    from explorer.aligners import ALIGNERS

    return ALIGNERS.names(**capabilities)


def list_formats(**gives: bool) -> list[str]:
    """Dataset format names, filtered on what their pairs carry.

    >>> import explorer
    >>> explorer.list_formats(gold_alignments=True)
    ['msr_align', 'edinburgh']
    """
    from explorer.datasets import LOADERS

    return LOADERS.names(**gives)


__all__ = [
    "__version__",
    # one pair
    "AlignResult",
    "Alignment",
    "Limits",
    "ScoreResult",
    "align",
    "list_aligners",
    "list_scorers",
    "score",
    # datasets
    "Dataset",
    "Pair",
    "list_formats",
    "load",
    # errors
    "DatasetError",
    "ExplorerError",
    "InputError",
    "LimitError",
    "UnknownNameError",
]
