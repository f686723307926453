"""The combined entailment classifier (explorer/combined.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.combined import (
    DEFAULT_FEATURES,
    DEFAULT_MODEL,
    FEATURES,
    CombinedError,
    CombinedModel,
    CombinedScorer,
    alignment_features,
    feature_matrix,
    parse_features,
    train,
)
from explorer.preprocess import analyze_pair, make_pair

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"
NAMES = ("scorer:bleu", "scorer:mbleu", "len:ldr")


def synthetic(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = x[:, 0] - 0.5 * x[:, 2] + rng.normal(scale=0.5, size=n) > 0
    return x, y


def test_training_finds_the_informative_features_and_explains_each_decision() -> None:
    x, y = synthetic()
    model = train(x, y, NAMES, c=1.0)
    assert model.weights[0] > 0 and model.weights[2] < 0
    assert abs(model.weights[1]) < abs(model.weights[0])
    assert np.mean((model.decision(x) > 0) == y) > 0.8
    parts = model.explain(x[0])
    assert sum(p.contribution for p in parts) + model.intercept == pytest.approx(float(model.decision(x[0])))
    assert abs(parts[0].contribution) >= abs(parts[-1].contribution)
    assert model.probability(x[:1])[0] == pytest.approx(1 / (1 + np.exp(-model.decision(x[0]))))


def test_model_round_trips_through_json(tmp_path) -> None:  # type: ignore[no-untyped-def]
    x, y = synthetic()
    model = train(x, y, NAMES, info={"trained_on_files": ["a"]})
    path = tmp_path / "m.json"
    model.save(path)
    again = CombinedModel.load(path)
    assert again.features == model.features
    assert np.allclose(again.decision(x), model.decision(x), atol=1e-4)
    assert again.info["trained_on"] == 200


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"model": "manli"}, "not a combined-classifier file"),
        ({"model": "combined", "intercept": 0, "features": [{"name": "nope", "mean": 0, "scale": 1, "weight": 1}]}, "unknown features nope"),
        ({"model": "combined", "intercept": 0, "features": [{"name": "len:ldr", "mean": 0, "scale": 0, "weight": 1}]}, "scale must be positive"),
        ({"model": "combined", "features": []}, "malformed"),
    ],
)
def test_bad_model_files_are_refused(tmp_path, payload, message) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(CombinedError, match=message):
        CombinedModel.load(path)


def test_training_refuses_one_class_and_bad_shapes() -> None:
    x, y = synthetic()
    with pytest.raises(CombinedError, match="single class"):
        train(x, np.ones(len(y), dtype=bool), NAMES)
    with pytest.raises(CombinedError, match="does not match"):
        train(x[:, :2], y, NAMES)
    with pytest.raises(CombinedError, match="unknown features"):
        train(x, y, ("scorer:bleu", "x", "y"))


def test_feature_sets_parse() -> None:
    assert parse_features("default") == DEFAULT_FEATURES
    assert parse_features("lex:,len:ldr") == (*[f for f in FEATURES if f.startswith("lex:")], "len:ldr")
    with pytest.raises(CombinedError, match="no feature family"):
        parse_features("foo:")


def test_scorer_features_alone_need_no_aligner() -> None:
    pair = analyze_pair(make_pair("A man is reading a book.", "A man reads."))
    x = feature_matrix([pair], ("scorer:bleu", "scorer:mbleu"))
    assert x.shape == (1, 2) and 0 <= x[0, 1] <= 1


@pytest.mark.slow
def test_alignment_features_see_negation_and_numbers() -> None:
    plain = analyze_pair(make_pair("The firm sold 40 cars in May.", "The firm sold 40 cars."))
    flipped = analyze_pair(make_pair("The firm sold 40 cars in May.", "The firm did not sell 45 cars."))
    a, b = alignment_features(plain), alignment_features(flipped)
    assert set(a) | {f for f in FEATURES if f.startswith("scorer:")} >= set(FEATURES)
    assert a["lex:negation_mismatch"] == 0 and b["lex:negation_mismatch"] == 1
    assert a["lex:number_mismatch"] == 0 and b["lex:number_mismatch"] == 1
    assert a["manli:coverage"] == 1.0 and a["manli:unaligned_content"] == 0
    # without the ITG biparse (the default feature set needs none) the rest is unchanged
    no_itg = alignment_features(plain, itg=False)
    assert "scorer:itg" not in no_itg and "itg:inversions" not in no_itg
    assert no_itg == {k: v for k, v in a.items() if k not in ("scorer:itg", "itg:inversions")}


@pytest.mark.slow
def test_shipped_model_is_small_and_scores_a_pair() -> None:
    assert DEFAULT_MODEL.stat().st_size < 20_000
    scorer = CombinedScorer()
    result = scorer.score(analyze_pair(make_pair("The firm sold 40 cars in May.", "The firm sold 40 cars.")))
    assert 0 < result.value < 1
    assert result.entailed == (result.value > 0.5)
    total = result.intercept + sum(c.contribution for c in result.contributions)
    assert total == pytest.approx(result.decision)
    assert {c.feature for c in result.contributions} == set(scorer.model.features)
    # the shipped file is the documented default (retrain it when the default changes)
    assert scorer.model.features == DEFAULT_FEATURES


def test_combined_command_trains_saves_and_reports(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from explorer.cli import main

    sample = str(SAMPLE_DATA / "typical.xml")
    out = tmp_path / "model.json"
    args = ["combined", f"{sample},{sample}", sample, "--features", "scorer:bleu,scorer:mbleu,scorer:per",
            "--save-model", str(out), "--json"]
    assert main(args) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["features"] == ["scorer:bleu", "scorer:mbleu", "scorer:per"]
    assert payload["results"]["combined"]["overall"]["n"] == 56
    model = CombinedModel.load(out)
    assert model.info["trained_on"] == 112 and model.features == tuple(payload["features"])
    assert model.info["trained_on_files"] == ["typical.xml", "typical.xml"]
    assert main([*args[:-1], "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("train typical.xml+typical.xml (112), test typical.xml; logistic regression, C=0.03")
    assert "weights (standardised features), largest first:" in text and f"saved {out}" in text


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--folds", "5"], "unrecognized arguments: --folds 5", id="folds"),
    pytest.param(["--gamma", "2"], "unrecognized arguments: --gamma 2", id="gamma"),
    pytest.param(["--each"], "unrecognized arguments: --each", id="each"),
])
def test_combined_command_refuses_the_svm_options(argv, message, capsys) -> None:  # type: ignore[no-untyped-def]
    from explorer.cli import main

    sample = str(SAMPLE_DATA / "typical.xml")
    assert main(["combined", sample, sample, *argv]) == 2
    assert message in capsys.readouterr().err


def test_classify_has_no_combined_path(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from explorer.cli import main

    sample = str(SAMPLE_DATA / "typical.xml")
    assert main(["classify", sample, sample, "--classifier", "combined"]) == 2
    assert "unrecognized arguments: --classifier combined" in capsys.readouterr().err
    assert main(["classify", sample, sample, "--save-model", str(tmp_path / "m.json")]) == 2
    assert "unrecognized arguments: --save-model" in capsys.readouterr().err

