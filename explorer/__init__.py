"""The Entailment Alignment Explorer's core library.

Everything here returns data; nothing imports streamlit or plotly. The UI lives in
``components/`` and ``app.py``; the command line in :mod:`explorer.cli`.

A small public API (imports nothing heavy until called; each function's docstring has
runnable examples, checked by ``tests/unit/test_doctests.py``)::

    import explorer
    explorer.score("A man is cooking pasta.", "A man cooks.", scorer="mbleu").value
    explorer.align("A man is cooking pasta.", "A man cooks.", aligner="bow").alignment
    dataset = explorer.load("sample_data/typical.xml")
    explorer.list_scorers(interactive=True)   # names, filtered on declared capabilities
    explorer.list_aligners(), explorer.list_formats()

Results print themselves: ``print(result)`` is one line (the value, then what explains
it) and ``result.to_json()`` a JSON-ready dict.

Contracts (protocols, info records, the registry helper) are in :mod:`explorer.api`,
the one exception base in :mod:`explorer.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from explorer.api import AlignResult, ScoreResult
    from explorer.datasets import Dataset
    from explorer.preprocess import AnalyzedPair


def _pair(text: str, hypothesis: str) -> AnalyzedPair:
    from explorer.preprocess import analyze_pair, make_pair

    return analyze_pair(make_pair(text, hypothesis))


def score(text: str, hypothesis: str, scorer: str = "mbleu") -> ScoreResult:
    """Score one pair with a registered scorer (:func:`list_scorers`).

    The result is the scorer's own frozen record: ``value`` is the number compared to a
    cutoff (higher = more entailed), the other fields are its breakdown; ``to_json()``
    and ``format()`` (also ``str()``) are every result's.

    >>> import explorer
    >>> result = explorer.score("A man is cooking pasta.", "A man cooks.", scorer="mbleu")
    >>> round(result.value, 4)
    0.2708
    >>> [(o.n, o.matched, o.total) for o in result.orders][:2]  # modified BLEU's n-gram counts
    [(1, 3, 4), (2, 1, 3)]
    >>> print(result)
    0.2708  (n-grams matched 3/4 1/3 0/2 0/1, brevity penalty 0.607 (not applied))

    Raises:
        explorer.errors.ExplorerError: for empty text or an unknown scorer name.
    """
    from explorer.scorers import get_scorer

    return get_scorer(scorer).score(_pair(text, hypothesis))


def align(text: str, hypothesis: str, aligner: str = "bow") -> AlignResult:
    """Align one pair with a registered aligner (:func:`list_aligners`); the result has
    ``alignment`` (token links ``(text index, hypothesis index)``) and ``value``.

    >>> import explorer
    >>> result = explorer.align("A man is cooking pasta.", "A man cooks.", aligner="itg")
    >>> sorted(result.alignment.links)  # A-A, man-man, .-.
    [(0, 0), (1, 1), (5, 3)]
    >>> print(result)
    0.6000  (cost 4 of 10 with nothing aligned, 3 links, 0 inversions)

    Raises:
        explorer.errors.ExplorerError: for empty text or an unknown aligner name.
    """
    from explorer.aligners import get_aligner

    return get_aligner(aligner).align(_pair(text, hypothesis))


def load(path: str, *, fmt: str | None = None) -> Dataset:
    """Load a dataset file (format detected from content and extension; ``fmt`` names
    one of :func:`list_formats`).

    >>> import explorer
    >>> data = explorer.load("sample_data/typical.xml")
    >>> data.format, len(data), data.kind, data.tasks[:3]
    ('rte_xml', 56, 'binary', ('CD', 'IE', 'IR'))
    >>> first = data.pairs[0]
    >>> first.entails in (True, False)
    True

    Raises:
        explorer.datasets.DatasetError: naming the file and line, for a file that cannot
            be read as a dataset.
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
    """Registered aligner names, filtered on declared capabilities."""
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


__all__ = ["__version__", "align", "list_aligners", "list_formats", "list_scorers", "load", "score"]
