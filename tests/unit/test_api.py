"""The contracts package (``explorer.api``): the registry helper, declared capabilities,
signatures, the one exception base; and the public surface of ``explorer`` itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

import explorer
from explorer.api import (
    AlignResult,
    Registry,
    ScoreResult,
    ScorerInfo,
    UnknownNameError,
    caps,
    import_attr,
    lazy,
    method_signature,
)
from explorer.errors import ExplorerError


def test_registry_builds_once_and_names_the_known_entries() -> None:
    built: list[int] = []

    def factory() -> object:
        built.append(1)
        return object()

    reg: Registry[ScorerInfo] = Registry("widget", [ScorerInfo("a", "A", "first", factory)])
    assert reg.build("a") is reg.build("a") and len(built) == 1
    with pytest.raises(UnknownNameError, match="unknown widget 'b'; choose from: a"):
        reg.build("b")
    assert reg["a"].label == "A" and list(reg) == ["a"]  # still a plain dict of infos


def test_lazy_targets_import_on_call() -> None:
    join = lazy("os.path:join", "x")
    assert join("y") in ("x/y", "x\\y")
    with pytest.raises(ValueError, match="module:attr"):
        import_attr("os.path.join")


def test_capabilities_filter_methods() -> None:
    assert "mbleu" in explorer.list_scorers(interactive=True)
    assert "manli" not in explorer.list_scorers(interactive=True)
    assert "manli" in explorer.list_scorers(model=True) and "bleu" not in explorer.list_scorers(model=True)
    assert set(explorer.list_formats(gold_alignments=True)) == {"msr_align", "edinburgh"}
    assert caps("wordnet", interactive=False).flags()["wordnet"] is True
    with pytest.raises(ValueError, match="unknown capability"):
        caps("wordnett")


def test_signature_records_model_digest_and_lexical_switches() -> None:
    from explorer.aligners import ALIGNERS
    from explorer.scorers import SCORERS

    sig = method_signature(ALIGNERS["manli"])
    assert sig["method"] == "manli" and sig["version"] == explorer.__version__
    assert sig["model"] == "manli_rte2dev.json" and len(sig["model_sha256"]) == 12
    assert isinstance(sig["lexical"], dict)
    assert "model" not in method_signature(SCORERS["mbleu"], cutoff_source="dev") and \
        method_signature(SCORERS["mbleu"], cutoff_source="dev")["cutoff_source"] == "dev"


def test_every_project_error_shares_one_base_and_keeps_its_builtin() -> None:
    from explorer.aligners import UnknownAlignerError
    from explorer.datasets import DatasetError
    from explorer.preprocess import InputError
    from explorer.scorers import UnknownScorerError
    from explorer.store import StoreError

    for cls, builtin in ((DatasetError, ValueError), (InputError, ValueError), (UnknownScorerError, KeyError),
                         (UnknownAlignerError, KeyError), (StoreError, RuntimeError)):
        assert issubclass(cls, ExplorerError) and issubclass(cls, builtin)
    assert str(UnknownScorerError("unknown scorer 'x'")) == "unknown scorer 'x'"  # no KeyError quotes


def test_public_api_scores_and_aligns() -> None:
    result = explorer.score("A dog ran in the park.", "A dog ran.", scorer="mbleu")
    assert 0 < result.value <= 1 and str(result) == result.format() == f"{result.value:.4f}  ({result.detail()})"
    aligned = explorer.align("A dog ran in the park.", "A dog ran.", aligner="bow")
    assert aligned.alignment.h_len == 4 and aligned.to_json()["value"] == aligned.value
    with pytest.raises(ExplorerError, match="unknown scorer"):
        explorer.score("a", "b", scorer="nope")


def test_the_contracts_package_lists_every_public_name_of_its_modules() -> None:
    """``explorer.api.__all__`` is every public name the submodules define (read from their
    sources: classes, functions, constants and aliases not starting with ``_``), each the
    submodule's own object: ``from explorer.api import X`` is the one import, and complete."""
    import ast
    import importlib
    from pathlib import Path

    import explorer.api

    defined: dict[str, str] = {}
    for path in sorted(Path(explorer.api.__file__).parent.glob("[!_]*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            else:
                continue
            for name in names:
                if not name.startswith("_"):
                    # (an @overload repeats a def in its own module)
                    assert defined.get(name, path.stem) == path.stem, f"{name} in {defined[name]} and {path.stem}"
                    defined[name] = path.stem
    assert set(defined.values()) == {"registry", "results", "rows", "signatures", "text"}
    assert sorted(explorer.api.__all__) == sorted(defined)
    for name, module in defined.items():
        assert getattr(explorer.api, name) is getattr(importlib.import_module(f"explorer.api.{module}"), name), name


def test_the_public_surface_resolves_every_name_it_lists() -> None:
    for name in explorer.__all__:
        assert getattr(explorer, name) is not None, name
    assert explorer.ScoreResult is ScoreResult and explorer.ExplorerError is ExplorerError
    assert issubclass(explorer.UnknownNameError, KeyError) and issubclass(explorer.LimitError, explorer.ExplorerError)
    assert set(explorer.__all__) <= set(dir(explorer))
    with pytest.raises(AttributeError, match="no attribute 'scorer'"):
        explorer.scorer  # noqa: B018 - the attribute access is the test


def test_limits_hold_for_one_call_only() -> None:
    from explorer import limits

    before = limits.current()
    with pytest.raises(explorer.LimitError, match="max_tokens"):
        explorer.align("A man is cooking pasta.", "A man cooks.", aligner="bow", limits=explorer.Limits(max_tokens=3))
    assert limits.current() == before
    assert explorer.align("A man is cooking pasta.", "A man cooks.", aligner="bow").alignment.links  # the defaults again


def test_import_explorer_is_cheap() -> None:
    code = "import sys, explorer; print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'nltk', 'explorer')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['explorer']"


@pytest.mark.slow  # every aligner built and run, the edit-distance and MANLI models loaded
def test_every_method_result_serialises_to_strict_json() -> None:
    """Each registered aligner's result (the edit-distance ones included) has the shared
    ``to_json``/``format`` contract, and its JSON is strict (no NaN, no objects)."""
    import json

    from explorer.aligners import ALIGNERS

    for name in ALIGNERS:
        result = explorer.align("The cat sat on the red mat.", "A cat sat on a mat.", aligner=name)
        body = result.to_json()
        assert body["value"] == pytest.approx(result.value), name
        json.dumps(body, allow_nan=False)
        assert isinstance(result, AlignResult), name
        assert result.format().startswith(f"{result.value:.4f}  ("), name


def test_every_scorer_result_keeps_the_contract_and_one_name_per_quantity() -> None:
    """``explorer.score`` returns a :class:`ScoreResult` for every registered scorer: its
    JSON carries ``value`` and no old alias of it (``score``, ``alignment_score``), and
    its text is the value then what explains it."""
    import json

    from explorer.scorers import SCORERS

    for name in SCORERS:
        result = explorer.score("The cat sat on the red mat.", "A cat sat on a mat.", scorer=name)
        assert isinstance(result, ScoreResult), name
        assert not hasattr(result, "score") and not hasattr(result, "alignment_score"), name
        body = result.to_json()
        assert body["value"] == pytest.approx(result.value) and not {"score", "alignment_score"} & set(body), name
        json.dumps(body, allow_nan=False)
        line = result.format()
        assert line.startswith(f"{result.value:.4f}  (") and line.endswith(")") and "\n" not in line, name


def test_interactive_has_one_home() -> None:
    """Whether a method reruns on every keystroke is its ``capabilities.interactive``
    alone: the info record has no second field, and ``names()`` filters on it."""
    from explorer.scorers import SCORERS

    info = ScorerInfo("slow", "Slow", "a stand-in", object, caps(interactive=False))
    assert not hasattr(info, "interactive") and info.capabilities.interactive is False
    with pytest.raises(TypeError):
        ScorerInfo("slow", "Slow", "a stand-in", object, interactive=False)  # type: ignore[call-arg]
    assert SCORERS.names(interactive=False) == [n for n, i in SCORERS.items() if not i.capabilities.interactive]
