"""Cutoffs per scorer from the dataset, a development set or the shipped defaults
(explorer/decision/cutoffs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.datasets import Dataset, load
from explorer.decision import cutoffs
from explorer.decision.evaluation import score_pairs
from explorer.decision.measures import accuracy
from explorer.decision.rules import DEFAULT_RULE, OWN_RULE
from explorer.pairs import Pair
from explorer.scorers import SCORERS

TYPICAL = Path(__file__).resolve().parents[2] / "sample_data" / "typical.xml"


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cutoffs"
    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(directory))
    return directory


def _dataset(*labels: str | None) -> Dataset:
    pairs = tuple(
        Pair(id=str(i), text=f"The cat number {i} sat on the mat.", hypothesis=h, label=label)
        for i, (h, label) in enumerate(zip(
            ["The cat sat on the mat.", "A dog barked.", "The cat sat.", "Rain fell on Tuesday."] * 3, labels))
    )
    return Dataset(name="tiny.csv", format="csv", pairs=pairs)


def test_dataset_cutoffs_are_computed_once_and_cached_on_disk(private_cache: Path) -> None:
    data = load(TYPICAL)
    seen: list[tuple[str, int, int]] = []
    first = cutoffs.compute(data, ["bleu", "mbleu"], progress=lambda s, i, n: seen.append((s, i, n)))
    assert seen[-1] == ("mbleu", 56, 56) and any(s == "bleu" for s, _, _ in seen)
    choice = first["mbleu"]
    assert choice.source == "dataset" and choice.n == 56 and choice.refused == 0
    assert "typical.xml" in choice.detail and f"{100 * choice.accuracy:.1f}%" in choice.detail
    scores = score_pairs(data.pairs, "mbleu")
    assert accuracy(scores, [bool(p.entails) for p in data.pairs], choice.value) == pytest.approx(choice.accuracy)
    files = sorted(p.name for p in private_cache.iterdir() if p.is_file())
    assert len(files) == 2 and all(f.startswith("cutoff-") for f in files)
    # and every pair's score, per scorer (explorer.decision.pair_scores; tests/unit/test_pair_scores.py)
    assert sorted(p.name.rsplit("-", 1)[1] for p in (private_cache / "scores").iterdir()) == ["bleu.npy", "mbleu.npy"]
    # The second call reads the cache: an edited cache entry is what comes back.
    path = private_cache / next(f for f in files if f.endswith("-mbleu.json"))
    entry = json.loads(path.read_text())
    path.write_text(json.dumps({**entry, "value": 0.123}))
    assert cutoffs.compute(data, ["mbleu"])["mbleu"].value == 0.123
    assert cutoffs.compute(data, ["mbleu"], use_cache=False)["mbleu"].value == choice.value


def test_the_cache_key_is_the_content_not_the_file_name() -> None:
    data = _dataset(*["entailment", "non-entailment", "entailment", "non-entailment"] * 3)
    renamed = Dataset(name="other.csv", format="csv", pairs=data.pairs)
    edited = Dataset(name="tiny.csv", format="csv", pairs=data.pairs[1:])
    assert cutoffs.fingerprint(data.pairs) == cutoffs.fingerprint(renamed.pairs)
    assert cutoffs.fingerprint(data.pairs) != cutoffs.fingerprint(edited.pairs)


def test_partly_labelled_data_uses_its_labelled_subset_and_says_so() -> None:
    data = _dataset(*["entailment", None, "non-entailment", None] * 3)
    choice = cutoffs.compute(data, ["mbleu"])["mbleu"]
    assert choice.n == 6 and "6 unlabelled left out" in choice.detail
    with pytest.raises(cutoffs.CutoffError, match="no entailment labels"):
        cutoffs.compute(_dataset(*[None] * 12), ["mbleu"])


def test_pairs_a_scorer_refuses_are_left_out_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    class Picky:
        name = "picky"

        def score(self, analyzed):  # type: ignore[no-untyped-def]
            if "dog" in analyzed.pair.hypothesis:
                raise ValueError("over the size limit")
            return type("R", (), {"value": float(len(analyzed.pair.hypothesis))})()

    monkeypatch.setattr("explorer.scorers.get_scorer", lambda name: Picky())
    data = _dataset(*["entailment", "non-entailment", "entailment", "non-entailment"] * 3)
    choice = cutoffs.compute(data, ["picky"])["picky"]
    assert choice.refused == 3 and choice.n == 9 and "3 refused" in choice.detail


def test_every_scorer_has_a_shipped_default_from_rte_dev() -> None:
    defaults = cutoffs.default_cutoffs()
    own = {n for n in SCORERS if SCORERS[n].cutoff is not None}  # trained classifiers decide at their own
    assert set(defaults) == set(SCORERS) - own  # slow methods too: no fixed 0.5 anywhere
    for name, choice in defaults.items():
        assert choice.source == "default" and choice.n > 1000, name
        assert 0.5 <= choice.accuracy < 0.75, name  # above or at the majority on RTE, as published
        assert choice.origin.startswith("shipped default: best on rte1_dev.xml + rte2_dev.xml + rte3_dev.xml")
    body = json.loads(cutoffs.DEFAULT_FILE.read_text())
    assert body["command"].startswith("python -m explorer.decision.cutoffs build-default")
    assert body["data"] == ["rte1_dev.xml", "rte2_dev.xml", "rte3_dev.xml"]
    assert all(u.startswith(body["command"]) and u.endswith("--update") for u in body["updates"])
    assert defaults["mbleu"].accuracy > defaults["bleu"].accuracy  # Szymanski's ordering


def test_the_shipped_mbleu_cutoff_puts_the_typical_sample_above_chance() -> None:
    data = load(TYPICAL)
    cut = cutoffs.default_cutoffs()["mbleu"]
    got = accuracy(score_pairs(data.pairs, "mbleu"), [bool(p.entails) for p in data.pairs], cut.value)
    assert got > 0.6


def test_a_dev_set_cutoff_is_chosen_and_cached_by_the_default_rule() -> None:
    data = load(TYPICAL)
    assert cutoffs.cached(data.pairs, "mbleu", cutoffs.DEV) is None
    dev = cutoffs.compute(data, ["mbleu"], source=cutoffs.DEV)["mbleu"]
    own = cutoffs.compute(data, ["mbleu"])["mbleu"]
    assert (dev.rule, own.rule) == (DEFAULT_RULE, OWN_RULE) == ("midpoint", "best")
    assert dev.value > own.value and dev.accuracy == own.accuracy  # the same split, placed in the gap
    assert dev.detail.startswith("midpoint on typical.xml") and own.detail.startswith("best on typical.xml")
    assert cutoffs.cached(data.pairs, "mbleu", cutoffs.DEV) == dev


def test_build_default_writes_the_command_and_the_data(tmp_path: Path) -> None:
    out = tmp_path / "cut.json"
    assert cutoffs.main(["build-default", str(TYPICAL), "--scorer", "bleu,mbleu", "--out", str(out)]) == 0
    body = json.loads(out.read_text())
    assert body["data"] == ["typical.xml"] and body["pairs"] == 56
    assert set(body["cutoffs"]) == {"bleu", "mbleu"}
    assert cutoffs.default_cutoffs(out)["mbleu"].source == "default"
    assert cutoffs.main(["build-default", str(TYPICAL), "--scorer", "nope", "--out", str(out)]) == 2


def test_a_cutoff_that_calls_every_pair_the_same_is_marked_one_sided() -> None:
    import numpy as np

    gold = [True, True, True, False]  # the majority class (75%) beats every split
    flat = cutoffs.choose("wer", np.array([0.1, 0.4, 0.2, 0.3]), gold, source="dataset", name="x", refused=0)
    assert flat.one_sided and "no information" in flat.detail and flat.accuracy == 0.75
    split = cutoffs.choose("mbleu", np.array([0.9, 0.8, 0.7, 0.1]), gold, source="dataset", name="x", refused=0)
    assert not split.one_sided and split.accuracy == 1.0
    assert cutoffs.one_sided(np.array([0.1, np.nan, 0.3]), 0.0) and not cutoffs.one_sided(np.array([0.1, 0.3]), 0.2)
    shipped = cutoffs.default_cutoffs()
    assert shipped["wer"].one_sided and not shipped["mbleu"].one_sided


def test_rerunning_an_update_keeps_its_command_once() -> None:
    assert cutoffs._updates(["a", "b"], "a") == ["b", "a"] and cutoffs._updates([], "c") == ["c"]
