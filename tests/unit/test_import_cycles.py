"""No import loop among the library's modules (``explorer/``), read from the sources.

An edge A -> B is any import of B in A: at module level *and* inside a function. A
function-level import only defers a loop to the first call (that is how the loops this
test guards against had come back: a module importing its own background job, which
imported it), so it counts. One kind of edge does not: a module importing its own
enclosing package (``explorer.teaching.bleu`` -> ``explorer.teaching``). Python imports a
package before any of its submodules anyway, so that edge adds no order, and a package's
``__init__`` may lazily import its own submodules (a registry dispatching to them).

``from P import N`` is an edge to the module ``P.N`` when that is a module, else to ``P``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def module_names(root: Path, package: str = "explorer") -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``package`` under ``root``."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_edges(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known:
                    out.add(target)
                elif base in known:
                    out.add(base)
    return {m for m in out if m != name and not name.startswith(m + ".")}  # own packages: see the docstring


def import_cycles(root: Path, package: str = "explorer") -> list[list[str]]:
    """Every set of modules that import one another in a loop (strongly connected
    components of more than one module), each sorted, by Tarjan's algorithm."""
    known = module_names(root, package)
    graph = {name: sorted(import_edges(name, path, known)) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # the graph is a few hundred modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(cycles)


def test_no_import_loop_inside_explorer() -> None:
    assert len(module_names(ROOT)) > 50
    cycles = import_cycles(ROOT)
    assert not cycles, "import loops among explorer modules:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_import_loop_inside_runtime() -> None:
    assert len(module_names(ROOT, "runtime")) > 10
    cycles = import_cycles(ROOT, "runtime")
    assert not cycles, "import loops among runtime modules:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root


@pytest.mark.parametrize(("files", "expected"), [
    pytest.param({"explorer/__init__.py": "", "explorer/a.py": "from explorer import b\n",
                  "explorer/b.py": "import explorer.a\n"}, [["explorer.a", "explorer.b"]], id="module-level"),
    pytest.param({"explorer/__init__.py": "", "explorer/a.py": "from explorer.b import X\n",
                  "explorer/b.py": "def f():\n    from .a import Y\n"}, [["explorer.a", "explorer.b"]],
                 id="function-level-and-relative"),
    pytest.param({"explorer/__init__.py": "", "explorer/p/__init__.py": "def f():\n    from explorer.p import c\n",
                  "explorer/p/c.py": "from explorer.p import helper\n"}, [], id="a-package-and-its-own-submodule"),
    pytest.param({"explorer/__init__.py": "", "explorer/a.py": "from explorer import b\n",
                  "explorer/b.py": "from explorer import c\n", "explorer/c.py": "import json\n"}, [], id="a-chain"),
])
def test_the_check_finds_loops_through_any_import(tmp_path: Path, files: dict[str, str],
                                                  expected: list[list[str]]) -> None:
    assert import_cycles(_tree(tmp_path, files)) == expected
