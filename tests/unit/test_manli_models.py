"""MANLI's shipped models by name (`msr`, `msr_edi`), model files, training sets recognised
by name, and training from several gold files. Tiny hand-written data only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.aligners.manli import (
    DEFAULT_MODEL_NAME,
    SHIPPED_MODELS,
    ManliAligner,
    ManliModelError,
    model_file,
    shipped_model,
    training_set_of,
)
from explorer.aligners.manli.evidence import SurfaceSimilarity
from explorer.aligners.manli.names import FEATURES


def test_shipped_models_are_named_complete_and_differ(repo_root: Path) -> None:
    assert DEFAULT_MODEL_NAME == next(iter(SHIPPED_MODELS))
    for shipped in SHIPPED_MODELS.values():
        payload = json.loads(shipped.path.read_text())
        assert set(payload["weights"]) == set(FEATURES), shipped.file
        assert shipped.path.parent == repo_root / "explorer" / "models"
    assert json.loads(SHIPPED_MODELS["msr_edi"].path.read_text())["info"]["trained_on"] == 800 + 714
    assert not np.allclose(shipped_model("msr").weights, shipped_model("msr_edi").weights)


def test_model_names_and_paths_resolve(tmp_path: Path) -> None:
    assert model_file("msr") == SHIPPED_MODELS["msr"].path
    assert model_file(str(SHIPPED_MODELS["msr_edi"].path)) == SHIPPED_MODELS["msr_edi"].path
    with pytest.raises(ManliModelError, match="msr, msr_edi"):
        model_file(str(tmp_path / "missing.json"))
    with pytest.raises(ManliModelError, match="no shipped MANLI model"):
        shipped_model("edinburgh")
    aligner = ManliAligner(similarity=SurfaceSimilarity())
    assert np.array_equal(aligner.with_model("msr_edi").model.weights, shipped_model("msr_edi").weights)


def test_training_sets_are_recognised_by_name() -> None:
    assert training_set_of("RTE2_dev_A.align.txt") == "msr_rte2_dev"
    assert training_set_of("msr-rte2-dev-abc") == "msr_rte2_dev"
    assert training_set_of("gold.train.sure.json") == "edinburgh_train"
    assert training_set_of("gold.test.sure.json") is None
    assert training_set_of("typical_align.txt") is None


def test_align_eval_takes_a_shipped_model_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"id": "1", "source": "A dog barked .", "target": "The dog barked .",
                                 "sureAlign": "1-1 2-2 3-3"}]))
    assert main(["align-eval", str(gold), "--aligner", "manli", "--model", "msr_edi", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["signature"]["model"] == "manli_msr_edi.json"
    assert main(["align-eval", str(gold), "--aligner", "manli", "--model", "nowhere.json"]) != 0
    assert "msr, msr_edi" in capsys.readouterr().err


def test_training_merges_msr_annotators_and_appends_other_gold_files(tmp_path: Path) -> None:
    from explorer.datasets import load_many

    # Two hand-written "annotators" who disagree on one link, and one Edinburgh++ record.
    head = "# sentence pair 1\nthe cat sat on a mat .\nNULL ({ / / }) a ({ 1 / / }) cat ({ 2 / / }) "
    files = []
    for name, sat in (("A", "3"), ("B", "3"), ("C", "4")):
        path = tmp_path / f"x_{name}.align.txt"
        path.write_text(head + f"sat ({{ {sat} / / }}) \n", encoding="utf-8")
        files.append(str(path))
    edi = tmp_path / "gold.train.sure.json"
    edi.write_text(json.dumps([{"id": "e1", "source": "A dog barked .", "target": "The dog barked .",
                                "sureAlign": "1-1 2-2 3-3"}]))
    pairs = load_many([*files, str(edi)]).pairs
    assert [p.id for p in pairs] == ["1", "e1"]
    assert pairs[0].gold_alignment is not None and (2, 2) in pairs[0].gold_alignment.sure  # the majority's link
    assert (3, 2) not in pairs[0].gold_alignment.links
