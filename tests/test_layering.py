"""The layering rules, checked on every module's imports (read with ``ast``, nothing is
imported, so the result does not depend on what other tests loaded):

* nothing under ``explorer/`` imports streamlit, plotly or ``components``;
* figure builders (``components/*figures*.py`` and ``components/figures/``) import no
  streamlit: they return Plotly figures and are tested without a running app.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_roots(source: str) -> set[str]:
    """Top-level package of every ``import`` / ``from ... import`` in the source,
    wherever it is (module level, functions, ``TYPE_CHECKING`` blocks)."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def _modules(*patterns: str) -> list[Path]:
    found = {p for pattern in patterns for p in ROOT.glob(pattern)}
    return sorted(p for p in found if "__pycache__" not in p.parts)


LIBRARY = _modules("explorer/**/*.py")
FIGURES = _modules("components/*figures*.py", "components/figures/**/*.py")


def test_the_checker_sees_nested_and_from_imports() -> None:
    source = "import os\nif True:\n    def f():\n        from streamlit import x\n        import plotly.express as px\n"
    assert imported_roots(source) == {"os", "streamlit", "plotly"}
    assert imported_roots("from . import sibling\n") == set()


def test_every_layer_has_modules() -> None:
    assert len(LIBRARY) > 40 and FIGURES


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_library_never_imports_the_ui(path: Path) -> None:
    bad = imported_roots(path.read_text(encoding="utf-8")) & {"streamlit", "plotly", "components", "app"}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: explorer/ must stay UI-free"


@pytest.mark.parametrize("path", FIGURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_figure_builders_never_import_streamlit(path: Path) -> None:
    assert "streamlit" not in imported_roots(path.read_text(encoding="utf-8")), (
        f"{path.relative_to(ROOT)} imports streamlit: figure builders return Plotly figures only"
    )
