"""The layering rules, checked on every module's own imports (read from its source, so it
does not matter what other tests have imported already):

- ``explorer/`` (the library and CLI) imports neither Streamlit, Plotly, ``components`` nor
  ``runtime``: it is what a Python user, the CLI and the experiments import;
- ``runtime/`` (the server's processes and caches) imports neither Streamlit, Plotly nor
  ``components``;
- ``serve/`` (the class server) imports no ``components``;
- ``components/`` and ``app.py`` import the library only through modules that declare
  ``__all__``, and only names listed there (or a submodule that declares its own): what
  the app relies on is what a module says is public;
- ``components/figures/`` (pure Plotly builders) imports no Streamlit and no other part
  of ``components`` than the figures;
- nothing but ``components/state.py`` touches ``st.session_state``: every key is defined
  there with its type;
- nothing but ``components/charts.py`` calls ``st.plotly_chart``, so every chart has the
  PNG/SVG export on its modebar.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Top-level packages a layer must not import, by folder.
FORBIDDEN: dict[str, set[str]] = {
    "explorer": {"streamlit", "plotly", "components", "runtime", "app", "serve"},
    "runtime": {"streamlit", "plotly", "components", "app", "serve"},
    "serve": {"streamlit", "plotly", "components", "app"},
    "components/figures": {"streamlit", "app"},
}


@functools.cache
def tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once per test process (several checks walk every module)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def modules(folder: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / folder).rglob("*.py"))


def imported(path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in the file, at any depth (function-level too);
    relative imports are resolved against the file's package."""
    package = path.relative_to(root).parent.parts
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield node.lineno, ".".join([*base, node.module] if node.module else base)
            else:
                yield node.lineno, node.module or ""


def layering_violations(root: Path) -> list[str]:
    broken = []
    for folder, forbidden in FORBIDDEN.items():
        for path in modules(folder, root):
            for line, name in imported(path, root):
                if name.split(".")[0] in forbidden:
                    broken.append(f"{path.relative_to(root)}:{line} imports {name}")
    return broken


def test_the_layers_hold_for_every_module() -> None:
    assert all(modules(folder) for folder in FORBIDDEN)
    broken = layering_violations(ROOT)
    assert not broken, "layering broken:\n" + "\n".join(broken)


def _module_file(name: str, root: Path) -> Path | None:
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _declared_all(path: Path) -> set[str] | None:
    """The names of the module's ``__all__`` (a literal list or tuple), or None without one."""
    for node in tree(path).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = node.value
            assert isinstance(value, ast.List | ast.Tuple), f"{path}: __all__ is not a literal list"
            return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return None


def undeclared_library_imports(root: Path) -> list[str]:
    """Imports of the library by the UI (``components/``, ``app.py``) that pass a module
    without ``__all__``, or take a name its ``__all__`` does not list."""
    found = []
    declared: dict[Path, set[str] | None] = {}  # each library module parsed once, not once per import of it
    for path in [*modules("components", root), root / "app.py"]:
        for node in ast.walk(tree(path)):
            where = f"{path.relative_to(root)}:{node.lineno}" if isinstance(node, ast.stmt) else ""
            if isinstance(node, ast.Import):
                used = [(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "explorer"]
            elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "explorer":
                used = [(str(node.module), alias.name) for alias in node.names]
            else:
                continue
            for module, name in used:
                if name is not None and _module_file(f"{module}.{name}", root):
                    module, name = f"{module}.{name}", None  # a submodule: it answers for itself
                source = _module_file(module, root)
                if source is not None and source not in declared:
                    declared[source] = _declared_all(source)
                public = declared[source] if source is not None else None
                if public is None:
                    found.append(f"{where} imports {module}, which declares no __all__")
                elif name is not None and name not in public:
                    found.append(f"{where} imports {module}.{name}, which its __all__ does not list")
    return found


def test_the_ui_imports_the_library_through_declared_surfaces() -> None:
    broken = undeclared_library_imports(ROOT)
    assert not broken, "library imports outside a module's __all__:\n" + "\n".join(broken)


def test_the_surface_check_sees_a_missing_all_and_an_unlisted_name(tmp_path: Path) -> None:
    (tmp_path / "explorer" / "metrics").mkdir(parents=True)
    (tmp_path / "components").mkdir()
    (tmp_path / "explorer" / "__init__.py").write_text('__all__ = ["score"]\n', encoding="utf-8")
    (tmp_path / "explorer" / "metrics" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "explorer" / "metrics" / "open.py").write_text("def f(): ...\n", encoding="utf-8")
    (tmp_path / "explorer" / "metrics" / "listed.py").write_text('__all__ = ["g"]\ndef g(): ...\ndef h(): ...\n',
                                                                 encoding="utf-8")
    (tmp_path / "app.py").write_text("from explorer import score\nfrom explorer.metrics import listed\n",
                                     encoding="utf-8")
    (tmp_path / "components" / "page.py").write_text(
        "from explorer.metrics.open import f\ndef p():\n    from explorer.metrics.listed import g, h\n",
        encoding="utf-8")
    found = undeclared_library_imports(tmp_path)
    assert found == ["components/page.py:1 imports explorer.metrics.open, which declares no __all__",
                     "components/page.py:3 imports explorer.metrics.listed.h, which its __all__ does not list"]


def test_figures_import_only_figures_from_components() -> None:
    broken = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in modules("components/figures")
        for line, name in imported(path)
        if name.startswith("components.") and not name.startswith("components.figures")
    ]
    assert not broken, "\n".join(broken)


def test_only_state_touches_session_state() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in [*modules("components"), ROOT / "app.py"]
        if path.name != "state.py" or path.parent.name != "components"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "session_state" in line
    ]
    assert not offenders, "session state outside components/state.py:\n" + "\n".join(offenders)


def test_only_charts_draws_plotly_charts() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in [*modules("components"), ROOT / "app.py"]
        if path.relative_to(ROOT).as_posix() != "components/charts.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "st.plotly_chart(" in line
    ]
    assert not offenders, "charts drawn without components.charts.plotly_chart:\n" + "\n".join(offenders)


@pytest.mark.parametrize("source", [
    "import streamlit as st\n",
    "def f():\n    from plotly import graph_objects\n",
    "from components.state import DATASET\n",
    "from runtime.pool import cost\n",
])
def test_the_check_sees_imports_anywhere(tmp_path: Path, source: str) -> None:
    (tmp_path / "explorer" / "metrics").mkdir(parents=True)
    (tmp_path / "components" / "figures").mkdir(parents=True)
    (tmp_path / "explorer" / "metrics" / "probe.py").write_text(source, encoding="utf-8")
    (tmp_path / "components" / "figures" / "fine.py").write_text("import plotly\n", encoding="utf-8")
    found = layering_violations(tmp_path)
    assert len(found) == 1 and found[0].startswith("explorer/metrics/probe.py:")


#: The library modules that name the app's functions (by "module:attr", imported by whoever
#: calls them), with why: the ``lesson`` command writes the Teach page's lessons, drawn by
#: the app's figures; the method table names each method's panel, its figures in the
#: full-analysis download and its lesson's figures, which the app draws.
NAMED_UPWARDS = {"explorer/cli/lesson.py", "explorer/methods.py"}


def test_the_library_names_the_app_only_where_allowed() -> None:
    named = {
        path.relative_to(ROOT).as_posix()
        for path in modules("explorer")
        for node in ast.walk(tree(path))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and re.fullmatch(r"(components|app)(\.\w+)*:\w+", node.value)
    }
    assert named == NAMED_UPWARDS


@pytest.mark.parametrize(("folder", "source"), [
    ("runtime/pool", "def f():\n    import streamlit\n"),
    ("runtime", "from components.lru import SizedLRU\n"),
    ("serve", "from components import uploads\n"),
])
def test_the_check_holds_runtime_and_serve_too(tmp_path: Path, folder: str, source: str) -> None:
    for needed in FORBIDDEN:
        (tmp_path / needed).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "probe.py").write_text(source, encoding="utf-8")
    found = layering_violations(tmp_path)
    assert len(found) == 1 and found[0].startswith(f"{folder}/probe.py:")
