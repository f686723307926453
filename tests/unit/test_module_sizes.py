"""Modules a newcomer can read: none over 650 lines in the code folders, and a library root
that stays a short list (the rest lives in packages by role)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 650
FOLDERS = ("explorer", "runtime", "components", "bench", "experiments", "serve")
#: Modules at the root of ``explorer/``, ``__init__`` and ``__main__`` included.
MAX_ROOT_MODULES = 19


def test_no_module_is_over_650_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
    }
    assert len(sizes) > 100  # the folders were read
    over = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by role): {over}"


def test_the_library_root_stays_short() -> None:
    modules = sorted(p.name for p in (ROOT / "explorer").glob("*.py"))
    assert len(modules) <= MAX_ROOT_MODULES, (
        f"{len(modules)} modules at the root of explorer/ (at most {MAX_ROOT_MODULES}): {modules}; "
        "put a new module in the package of its role")
