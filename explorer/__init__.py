"""The Entailment Alignment Explorer's core library.

Everything here returns data; nothing imports streamlit or plotly. The UI lives in
``components/`` and ``app.py``; the command line in :mod:`explorer.cli`.

A small public API (imports nothing heavy until called)::

    import explorer
    explorer.score("A man is cooking pasta.", "A man cooks.", scorer="mbleu").value
    explorer.align("A man is cooking pasta.", "A man cooks.", aligner="bow").alignment
    dataset = explorer.load("sample_data/typical.xml")
    explorer.list_scorers(interactive=True)   # names, filtered on declared capabilities
    explorer.list_aligners(), explorer.list_formats()

Contracts (protocols, info records, the registry helper) are in :mod:`explorer.api`,
the one exception base in :mod:`explorer.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from explorer.datasets import Dataset


def _pair(text: str, hypothesis: str) -> Any:
    from explorer.preprocess import analyze_pair, make_pair

    return analyze_pair(make_pair(text, hypothesis))


def score(text: str, hypothesis: str, scorer: str = "mbleu") -> Any:
    """Score one pair with a registered scorer; the result's ``value`` is the number
    compared to a cutoff (higher = more entailed).

    Raises:
        explorer.errors.ExplorerError: for empty text or an unknown scorer name.
    """
    from explorer.scorers import get_scorer

    return get_scorer(scorer).score(_pair(text, hypothesis))


def align(text: str, hypothesis: str, aligner: str = "bow") -> Any:
    """Align one pair with a registered aligner; the result has ``alignment`` and
    ``value``."""
    from explorer.aligners import get_aligner

    return get_aligner(aligner).align(_pair(text, hypothesis))


def load(path: str, *, fmt: str | None = None) -> Dataset:
    """Load a dataset file (format detected from content and extension)."""
    from explorer.datasets import load as load_dataset

    return load_dataset(path, fmt=fmt)


def list_scorers(**capabilities: bool) -> list[str]:
    """Registered scorer names, e.g. ``list_scorers(interactive=True, model=False)``."""
    from explorer.scorers import SCORERS

    return SCORERS.names(**capabilities)


def list_aligners(**capabilities: bool) -> list[str]:
    """Registered aligner names, filtered on declared capabilities."""
    from explorer.aligners import ALIGNERS

    return ALIGNERS.names(**capabilities)


def list_formats(**gives: bool) -> list[str]:
    """Dataset format names, e.g. ``list_formats(gold_alignments=True)``."""
    from explorer.datasets import LOADERS

    return LOADERS.names(**gives)


__all__ = ["__version__", "align", "list_aligners", "list_formats", "list_scorers", "load", "score"]
