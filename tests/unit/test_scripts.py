"""Every script under bench/ and experiments/ imports and answers ``--help``, so none can
rot silently between the runs that use it (run in-process: ``main(["--help"])``)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Modules that are helpers of the scripts, not scripts (no ``main``).
HELPERS = {"bench.__init__", "bench.class_flood", "bench.class_students", "bench.server_usage", "experiments.__init__", "experiments.common"}
SCRIPTS = sorted(
    f"{folder}.{path.stem}"
    for folder in ("bench", "experiments")
    for path in (ROOT / folder).glob("*.py")
    if f"{folder}.{path.stem}" not in HELPERS
)


def test_the_script_list_is_not_empty() -> None:
    assert "experiments.combined_rte" in SCRIPTS and "bench.bench_bleu" in SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_answers_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    module = importlib.import_module(name)
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage:"), out[:200]


def test_helpers_are_imported_by_a_script() -> None:
    """A helper module that no script imports any more would rot unseen: each is named in one."""
    sources = "\n".join(p.read_text(encoding="utf-8") for folder in ("bench", "experiments")
                        for p in (ROOT / folder).glob("*.py"))
    for helper in HELPERS - {"bench.__init__", "experiments.__init__"}:
        assert f"from {helper} import" in sources, helper
