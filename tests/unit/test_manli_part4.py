"""MANLI, issue 13 part 4: the features for function words, `be`, numbers and context,
the pair-shape features, and choosing a shipped model. Tiny hand-written pairs only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer import resources
from explorer.aligners.manli import (
    DEFAULT_MODEL_NAME,
    SHIPPED_MODELS,
    ManliAligner,
    ManliModelError,
    model_file,
    shipped_model,
    training_set_of,
)
from explorer.aligners.manli_features import FEATURES, INDEX, SurfaceSimilarity, excess, extract
from explorer.preprocess import analyze_pair

from .manli_blocks import block_feature, token_pair


def test_numbers_that_differ_are_flagged_and_equal_ones_are_not() -> None:
    text = ("The", "bridge", "is", "300", "metres", "long", ".")
    assert block_feature(text, ("It", "is", "200", "metres", "."), (3, 4), (2, 3), "sub:num_mismatch") == 1.0
    assert block_feature(text, ("It", "is", "300", "metres", "."), (3, 4), (2, 3), "sub:num_mismatch") == 0.0
    # A number against a word that is not a number: one side only.
    assert block_feature(text, ("It", "is", "300", "metres", "."), (4, 5), (2, 3), "sub:num_one_side") == 1.0
    assert block_feature(text, ("It", "is", "300", "metres", "."), (3, 4), (2, 3), "sub:num_one_side") == 0.0
    # A block whose numbers include the other side's is not a mismatch.
    assert block_feature(text, ("300", "metres"), (3, 5), (0, 2), "sub:num_mismatch") == 0.0


@pytest.mark.skipif(not (resources.is_available("wordnet") and resources.is_available("averaged_perceptron_tagger_eng")),
                    reason="needs WordNet lemmas and the POS tagger (to see 'is' as 'be'): ../shared or nltk.download")
def test_be_against_another_verb_is_mixed() -> None:
    text = ("The", "town", "became", "a", "city", ".")
    hyp = ("The", "town", "is", "a", "city", ".")
    assert block_feature(text, hyp, (2, 3), (2, 3), "sub:be_mixed") == 1.0
    assert block_feature(("The", "town", "was", "small"), hyp, (2, 3), (2, 3), "sub:be_mixed") == 0.0


def test_function_words_without_context_are_unsupported() -> None:
    # "of" links: the second copy sits between matching words, the first does not.
    text = ("news", "of", "today", "and", "price", "of", "oil")
    hyp = ("price", "of", "oil")
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:stop_unsupported") == 0.0
    assert block_feature(text, hyp, (1, 2), (1, 2), "sub:stop_unsupported") == 1.0
    # Both copies of "of" are equally good matches for the hypothesis's "of": a rival.
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:rival") == 1.0
    assert block_feature(text, hyp, (1, 2), (1, 2), "sub:rival_unsupported") == 1.0
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:rival_unsupported") == 0.0
    assert block_feature(text, hyp, (6, 7), (2, 3), "sub:rival") == 0.0
    # Two tokens of context on each side: price/price and the sentence ends match.
    assert block_feature(text, hyp, (5, 6), (1, 2), "sub:context2") == pytest.approx((1 + 1 + 0 + 1) / 4)


def test_excess_is_the_share_without_a_partner() -> None:
    assert excess(10, 4) == pytest.approx(0.6)
    assert excess(4, 10) == 0.0
    assert excess(0, 3) == 0.0
    feats = extract(analyze_pair(token_pair(("a", "b", "c", "d"), ("b",))), SurfaceSimilarity())
    assert feats.deleted[:, INDEX["del:excess"]] == pytest.approx([0.75] * 4)
    assert feats.inserted[:, INDEX["ins:excess"]] == pytest.approx([0.0])
    c = feats.find((1, 2), (0, 1))
    assert feats.aligned[c, INDEX["sub:weak_excess"]] == pytest.approx(0.0)  # an exact match is not weak
    c = feats.find((0, 1), (0, 1))
    assert feats.aligned[c, INDEX["sub:weak_excess"]] == pytest.approx(0.75)  # nothing alike


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
    from explorer.training import load_training_pairs

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
    pairs = load_training_pairs([*files, str(edi)])
    assert [p.id for p in pairs] == ["1", "e1"]
    assert pairs[0].gold_alignment is not None and (2, 2) in pairs[0].gold_alignment.sure  # the majority's link
    assert (3, 2) not in pairs[0].gold_alignment.links
