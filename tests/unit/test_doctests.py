"""The examples in the docstrings of the first functions a newcomer calls run as written
(NLTK's habit): ``explorer.score``, ``align``, ``load``, ``list_scorers``, ``bleu_tokens``,
``load_many``, a result's ``format()``, the contracts of ``explorer.api``. They need nothing beside the repository (no NLTK
data), and they read ``sample_data/`` from the repository's root, as a newcomer would."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules whose docstring examples are part of the documentation: the package a Python
#: user imports, every module of the contracts (``explorer.api`` and its submodules, found
#: on disk so a new one is covered), the first metric and the dataset loaders.
MODULES = ("explorer", "explorer.api",
           *sorted(f"explorer.api.{path.stem}" for path in (ROOT / "explorer" / "api").glob("[!_]*.py")),
           "explorer.metrics.bleu", "explorer.datasets", "explorer.methods")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (printed above)"
    assert result.attempted > 0, f"{name} has no examples"


def test_the_public_functions_have_examples() -> None:
    import explorer
    from explorer.datasets import load_many
    from explorer.metrics.bleu import bleu_tokens

    for function in (explorer.score, explorer.align, explorer.load, explorer.list_scorers, bleu_tokens, load_many):
        assert ">>> " in (function.__doc__ or ""), function.__qualname__
