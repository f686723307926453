"""Batch results of the NLI formats: MultiNLI's genre becomes the task, a no-consensus
label (``-``) stays an unlabelled pair, and the query layer's figures skip it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.batch.query import BatchResult, Filters
from explorer.batch.runner import prepare, write_chunk
from explorer.batch.schema import arrow_schema
from explorer.batch.worker import compact_pair, score_chunk
from explorer.datasets import load
from explorer.decision.evaluation import evaluate

#: Written for this test, in MultiNLI's JSON-lines shape.
RECORDS = [
    ("fiction", "entailment", "The lighthouse keeper climbed the stairs every night.", "The keeper climbed stairs."),
    ("fiction", "contradiction", "She packed her bags and left before dawn.", "She stayed in bed all morning."),
    ("government", "neutral", "The committee published its report on Friday.", "The report was long."),
    ("government", "-", "Officials met to discuss the budget.", "Officials discussed money."),
    ("travel", "entailment", "The train to the coast leaves from platform four.", "A train leaves from platform four."),
    ("travel", "neutral", "Tourists crowded the old market at noon.", "The market sells spices."),
]


@pytest.fixture()
def multinli(tmp_path: Path) -> Path:
    path = tmp_path / "mnli_sample.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for i, (genre, label, s1, s2) in enumerate(RECORDS):
            out.write(json.dumps({"annotator_labels": [label], "genre": genre, "gold_label": label,
                                  "pairID": f"{i}n", "promptID": str(i), "sentence1": s1,
                                  "sentence2": s2}) + "\n")
    return path


def test_a_multinli_batch_keeps_genres_and_unlabelled_pairs(multinli: Path, tmp_path: Path) -> None:
    data = load(multinli)
    scorers = ["mbleu", "wer"]
    out = tmp_path / "out"
    manifest = prepare(data, scorers, out, chunk_size=4)
    schema = arrow_schema(scorers)
    for index in range(manifest.n_chunks):
        pairs = data.pairs[index * 4 : index * 4 + manifest.chunk_rows(index)]
        write_chunk(out, index, pairs, index * 4, score_chunk([compact_pair(p) for p in pairs], scorers), schema)
    result = BatchResult.open(out)
    assert result.distinct("task") == ["fiction", "government", "travel"]
    row = result.pair("3n")
    assert row is not None and row["label"] is None and row["entails"] is None
    assert result.count(Filters(labels=("(none)",))) == 1
    labelled = [p for p in data.pairs if p.label is not None]
    report = result.report("mbleu")
    assert report["n"] == len(labelled) == 5
    assert set(report["by_task"]) == {"fiction", "government", "travel"}
    assert report["by_task"]["government"]["n"] == 1
    from explorer.datasets import Dataset

    (want,) = evaluate(Dataset(data.name, data.format, tuple(labelled)), ["mbleu"])
    assert report["accuracy"] == pytest.approx(want.to_json()["accuracy"])
