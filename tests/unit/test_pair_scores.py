"""The per-pair scores the cutoff job keeps (explorer/decision/pair_scores.py): written by
``cutoffs.compute``, read back by position, bounded in pairs and in datasets."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from explorer.datasets import Dataset
from explorer.decision import cutoffs, pair_scores
from explorer.pairs import Pair


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path))
    return tmp_path


def pairs() -> tuple[Pair, ...]:
    return (
        Pair("1", "Ann sold her red car on Monday.", "Ann sold a car.", label="entailment"),
        Pair("2", "Bo walked to the old mill.", "Bo drove to the mill.", label="non-entailment"),
        Pair("3", "Cal painted the fence blue.", "The fence is green.", label="non-entailment"),
        Pair("4", "Dee opened a bakery in Orrin.", "A bakery opened in Orrin.", label="entailment"),
        Pair("5", "No label here.", "None at all."),
    )


def test_compute_keeps_every_labelled_pair_s_score_equal_to_scoring_it() -> None:
    from explorer.preprocess import analyze_pair
    from explorer.scorers import get_scorer

    data = Dataset("tiny.xml", "test", pairs())
    cutoffs.compute(data, ["bleu", "wer"])
    labelled = cutoffs.labelled(data.pairs)
    fp = cutoffs.fingerprint(labelled)
    for name in ("bleu", "wer"):
        for i, pair in enumerate(labelled):
            stored = pair_scores.value(fp, name, cutoffs.DATASET, i, len(labelled))
            assert stored == float(get_scorer(name).score(analyze_pair(pair)).value)
    # Read back for another length (a different dataset's index) or out of range: nothing.
    assert pair_scores.value(fp, "bleu", cutoffs.DATASET, 0, len(labelled) + 1) is None
    assert pair_scores.value(fp, "bleu", cutoffs.DATASET, len(labelled), len(labelled)) is None
    assert pair_scores.value(fp, "mbleu", cutoffs.DATASET, 0, len(labelled)) is None  # never scored


def test_a_cached_cutoff_without_stored_scores_is_kept_and_the_scores_are_added(cache: Path) -> None:
    data = Dataset("tiny.xml", "test", pairs())
    first = cutoffs.compute(data, ["bleu"])["bleu"]
    fp = cutoffs.fingerprint(cutoffs.labelled(data.pairs))
    pair_scores.path(fp, "bleu", cutoffs.DATASET).unlink()  # e.g. cached before scores were kept
    again = cutoffs.compute(data, ["bleu"])["bleu"]
    assert again == first
    assert pair_scores.has(fp, "bleu", cutoffs.DATASET)


def test_large_datasets_keep_no_scores_and_old_datasets_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pair_scores.storable(1) and pair_scores.storable(pair_scores.MAX_PAIRS)
    assert not pair_scores.storable(0) and not pair_scores.storable(pair_scores.MAX_PAIRS + 1)
    monkeypatch.setattr(pair_scores, "MAX_PAIRS", 3)  # the tiny set (4 labelled) is now too large
    data = Dataset("tiny.xml", "test", pairs())
    cutoffs.compute(data, ["bleu"])
    fp = cutoffs.fingerprint(cutoffs.labelled(data.pairs))
    assert cutoffs.lookup(fp, "bleu") is not None and not pair_scores.has(fp, "bleu", cutoffs.DATASET)

    monkeypatch.setattr(pair_scores, "MAX_DATASETS", 2)
    for k, name in enumerate(["a" * 24, "b" * 24, "c" * 24]):
        pair_scores.save(name, "bleu", cutoffs.DATASET, np.arange(3.0))
        stamp = 1_000_000 + k
        os.utime(pair_scores.path(name, "bleu", cutoffs.DATASET), (stamp, stamp))
    pair_scores.save("d" * 24, "bleu", cutoffs.DATASET, np.arange(3.0))
    kept = sorted(p.name[0] for p in pair_scores.folder().glob("*.npy"))
    assert kept == ["c", "d"]  # the newest one written before, and the one being written
    assert pair_scores.value("d" * 24, "bleu", cutoffs.DATASET, 2, 3) == 2.0


def test_an_unreadable_file_is_no_score() -> None:
    target = pair_scores.path("e" * 24, "bleu", cutoffs.DATASET)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not numpy")
    assert pair_scores.value("e" * 24, "bleu", cutoffs.DATASET, 0, 3) is None
    assert pair_scores.load("e" * 24, "bleu", cutoffs.DATASET) is None
