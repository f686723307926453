"""The layering rules, checked on every module's own imports (read from its source, so it
does not matter what other tests have imported already):

- ``explorer/`` (the library and CLI) imports neither Streamlit, Plotly nor ``components``;
- ``components/figures/`` (pure Plotly builders) imports no Streamlit and no other part
  of ``components`` than the figures;
- nothing but ``components/state.py`` touches ``st.session_state``: every key is defined
  there with its type;
- nothing but ``components/charts.py`` calls ``st.plotly_chart``, so every chart has the
  PNG/SVG export on its modebar.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Top-level packages a layer must not import, by folder.
FORBIDDEN: dict[str, set[str]] = {
    "explorer": {"streamlit", "plotly", "components", "app"},
    "components/figures": {"streamlit", "app"},
}


def modules(folder: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / folder).rglob("*.py"))


def imported(path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in the file, at any depth (function-level too);
    relative imports are resolved against the file's package."""
    package = path.relative_to(root).parent.parts
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
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
])
def test_the_check_sees_imports_anywhere(tmp_path: Path, source: str) -> None:
    (tmp_path / "explorer" / "metrics").mkdir(parents=True)
    (tmp_path / "components" / "figures").mkdir(parents=True)
    (tmp_path / "explorer" / "metrics" / "probe.py").write_text(source, encoding="utf-8")
    (tmp_path / "components" / "figures" / "fine.py").write_text("import plotly\n", encoding="utf-8")
    found = layering_violations(tmp_path)
    assert len(found) == 1 and found[0].startswith("explorer/metrics/probe.py:")


#: The app's functions the library names (by "module:attr", imported when used), with why:
#: the ``lesson`` command writes the Teach page's lessons, drawn by the app's figures.
NAMED_UPWARDS = {("explorer/cli/lesson.py", "components.lesson_export:write_deck")}


def test_the_library_names_the_app_only_where_allowed() -> None:
    named = {
        (path.relative_to(ROOT).as_posix(), node.value)
        for path in modules("explorer")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and re.fullmatch(r"(components|app)(\.\w+)*:\w+", node.value)
    }
    assert named == NAMED_UPWARDS
