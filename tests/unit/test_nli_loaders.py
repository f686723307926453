"""SNLI and MultiNLI loaders, JSON-lines and TSV forms (hand-written files in the
release formats; invented sentences)."""

from __future__ import annotations

import json

import pytest

from explorer.datasets import DatasetError, detect_format, load, load_bytes
from explorer.pairs import CONTRADICTION, ENTAILMENT, NEUTRAL

from .loader_fuzz import _MNLI_RECORDS, _SNLI_RECORDS, SEEDS


@pytest.mark.parametrize("seed", ["snli_jsonl", "snli_tsv"])
def test_snli_both_forms(seed):
    name, data, _ = SEEDS[seed]
    dataset = load_bytes(data, name)
    assert dataset.format == "snli" and dataset.kind == "three_way"
    assert [p.label for p in dataset.pairs] == ([NEUTRAL, None, CONTRADICTION] if seed == "snli_jsonl"
                                                else [NEUTRAL, None, ENTAILMENT])
    assert [p.entails for p in dataset.pairs][1] is None
    assert dataset.pairs[0].id == "c1#0r1n" and dataset.pairs[0].task is None
    assert dataset.notes == ("1 of 3 pairs have gold_label '-' (the annotators reached no consensus); "
                             "they are kept, unlabelled",)


def test_snli_tsv_keeps_unbalanced_quotes():
    dataset = load_bytes(SEEDS["snli_tsv"][1], "snli.txt")
    assert dataset.pairs[2].text == 'Two men carry a "canoe.'


@pytest.mark.parametrize("seed", ["mnli_jsonl", "mnli_tsv"])
def test_multinli_genre_is_the_task(seed):
    name, data, _ = SEEDS[seed]
    dataset = load_bytes(data, name)
    assert dataset.format == "multinli"
    assert dataset.tasks == (("fiction", "telephone") if seed == "mnli_jsonl" else ("fiction", "government"))
    assert all(p.task for p in dataset.pairs)


def test_binary_view_counts_only_entailment(tmp_path):
    path = tmp_path / "snli_1.0_dev.jsonl"
    path.write_bytes(SEEDS["snli_jsonl"][1])
    dataset = load(path)
    assert [p.entails for p in dataset.pairs] == [False, None, False]


def test_detection_prefers_nli_over_generic_jsonl():
    assert detect_format(SEEDS["snli_jsonl"][1].decode(), "x.jsonl") == "snli"
    assert detect_format(SEEDS["mnli_jsonl"][1].decode(), "x.jsonl") == "multinli"
    generic = json.dumps({"sentence1": "a", "sentence2": "b", "label": "neutral"})
    assert detect_format(generic, "x.jsonl") == "jsonl"


def _jsonl(records):
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


@pytest.mark.parametrize(
    "change, match",
    [
        ({"gold_label": "entails"}, r"line 1: unknown gold_label 'entails'; expected entailment, neutral"),
        ({"gold_label": None}, r"line 1: gold_label is null"),
        ({"pairID": ["x"]}, r"line 1: pairID is a list"),
        ({"pairID": True}, r"line 1: pairID is a boolean"),
        ({"sentence1": 5}, r"line 1: sentence1 is an integer"),
    ],
)
def test_bad_records_are_refused(change, match):
    records = [dict(_SNLI_RECORDS[0], **change)] + _SNLI_RECORDS[1:]
    with pytest.raises(DatasetError, match=r"snli\.jsonl: " + match):
        load_bytes(_jsonl(records), "snli.jsonl")


def test_missing_pair_id_and_duplicate_ids_are_refused():
    first = {k: v for k, v in _MNLI_RECORDS[0].items() if k != "pairID"}
    with pytest.raises(DatasetError):  # without pairID the record is not recognised or is refused
        load_bytes(_jsonl([_MNLI_RECORDS[1], first]), "mnli.jsonl")
    with pytest.raises(DatasetError, match="line 2: no 'pairID' field"):
        load_bytes(_jsonl([_MNLI_RECORDS[1], first]), "mnli.jsonl", fmt="multinli")
    with pytest.raises(DatasetError, match="pair id '501e' occurs more than once"):
        load_bytes(_jsonl([_MNLI_RECORDS[0], _MNLI_RECORDS[0]]), "mnli.jsonl")


def test_empty_sentences_are_skipped_and_counted():
    records = [dict(_SNLI_RECORDS[0], sentence2=""), *_SNLI_RECORDS[1:], dict(_SNLI_RECORDS[2], pairID="z", sentence1=" ")]
    dataset = load_bytes(_jsonl(records), "snli.jsonl")
    assert [p.id for p in dataset.pairs] == ["c1#0r1e", "c2#1r1c"]
    assert dataset.notes[1] == "2 pairs skipped because sentence1 or sentence2 is empty (the first at line 1)"


def test_tsv_field_counts():
    name, data, _ = SEEDS["mnli_tsv"]
    lines = data.decode().split("\n")
    extra = "\n".join([lines[0], lines[1] + "\tmore"]) + "\n"
    with pytest.raises(DatasetError, match="line 2 has 16 tab-separated fields; expected 15"):
        load_bytes(extra.encode(), name)
    short = "\n".join([lines[0], "\t".join(lines[1].split("\t")[:6])]) + "\n"
    with pytest.raises(DatasetError, match="line 2 has 6 tab-separated fields"):
        load_bytes(short.encode(), name)


def test_all_no_consensus_is_unlabelled():
    records = [dict(r, gold_label="-") for r in _SNLI_RECORDS]
    dataset = load_bytes(_jsonl(records), "snli.jsonl")
    assert dataset.kind == "unlabelled" and dataset.notes[0].startswith("3 of 3 pairs")


def test_snli_shaped_records_without_pair_ids_keep_their_labels_as_generic_jsonl():
    records = [{k: v for k, v in r.items() if k != "pairID"} for r in _MNLI_RECORDS[:1]]
    dataset = load_bytes(_jsonl(records), "x.jsonl")
    assert dataset.format == "jsonl"
    assert [(p.label, p.task) for p in dataset.pairs] == [(ENTAILMENT, "fiction")]
    no_consensus = [{k: v for k, v in r.items() if k != "pairID"} for r in _MNLI_RECORDS]
    with pytest.raises(DatasetError, match=r"x\.jsonl: line 2: unknown label '-'"):
        load_bytes(_jsonl(no_consensus), "x.jsonl")
