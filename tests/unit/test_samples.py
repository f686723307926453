"""The built-in samples: a typical set on which the methods behave as on RTE, and a
blind-spot set whose pairs each carry a lesson (sample_data/README.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from nltk.tokenize import TreebankWordTokenizer

from explorer import resources
from explorer.datasets import load, load_bytes
from explorer.decision.evaluation import score_pairs
from explorer.decision.measures import best_cutoff, classification_report

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
TYPICAL = SAMPLES / "typical.xml"
BLIND = SAMPLES / "blind_spots.xml"
LESSONS = {"negation", "antonym", "number", "role swap", "paraphrase", "short hypothesis", "embeddings"}


def test_typical_set_is_balanced_over_the_rte1_tasks() -> None:
    data = load(TYPICAL)
    assert len(data) == 56 and data.kind == "binary"
    counts = Counter((p.task, p.entails) for p in data.pairs)
    assert set(counts.values()) == {4}  # 4 entailed + 4 not, in each of the 7 tasks
    assert data.tasks == ("CD", "IE", "IR", "MT", "PP", "QA", "RC")


def test_every_blind_spot_has_a_lesson_and_a_note() -> None:
    data = load(BLIND)
    assert len(data) == 28 and set(data.tasks) == LESSONS
    assert all(p.note and len(p.note) < 200 for p in data.pairs)
    # Every lesson that is about a trap also has a control pair with the other label.
    for lesson in LESSONS - {"paraphrase"}:
        assert {p.entails for p in data.pairs if p.task == lesson} == {True, False}, lesson


def test_notes_are_kept_by_the_xml_csv_and_json_loaders() -> None:
    xml = (b'<entailment-corpus><pair id="1" value="TRUE"><t>A b.</t><h>A.</h>'
           b"<note>  look at  the   length </note></pair></entailment-corpus>")
    assert load_bytes(xml, "n.xml").pairs[0].note == "look at the length"
    csv = b"text,hypothesis,note\nA b.,A.,why it is here\nC d.,C.,\n"
    assert [p.note for p in load_bytes(csv, "n.csv").pairs] == ["why it is here", None]
    jsonl = b'{"text": "A b.", "hypothesis": "A.", "note": "short"}\n'
    assert load_bytes(jsonl, "n.jsonl").pairs[0].note == "short"
    plain = b'<entailment-corpus><pair id="1" value="TRUE"><t>A b.</t><h>A.</h></pair></entailment-corpus>'
    assert load_bytes(plain, "p.xml").pairs[0].note is None


@pytest.mark.parametrize("name", ["typical", "blind_spots"])
def test_gold_alignments_match_their_pairs(name: str) -> None:
    pairs = {p.id: p for p in load(SAMPLES / f"{name}.xml").pairs}
    gold = load(SAMPLES / f"{name}_align.txt")
    assert len(gold) == 6
    tokenize = TreebankWordTokenizer().tokenize
    for g in gold.pairs:
        pair = pairs[g.id]
        assert g.text_tokens == tuple(tokenize(pair.text)), g.id
        assert g.hypothesis_tokens == tuple(tokenize(pair.hypothesis)), g.id
        assert g.gold_alignment is not None and g.gold_alignment.sure
    labels = {pairs[g.id].entails for g in gold.pairs}
    assert labels == {True, False}  # gold for entailed and non-entailed pairs alike


def test_typical_set_puts_the_methods_above_chance_on_its_own() -> None:
    pairs = load(TYPICAL).pairs
    gold = [bool(p.entails) for p in pairs]
    accuracy = {name: best_cutoff(score_pairs(pairs, name), gold)[1] for name in ("bleu", "mbleu", "bow")}
    assert accuracy["mbleu"] > accuracy["bleu"] > 0.55  # the brevity penalty hurts (Szymanski)
    assert accuracy["bow"] >= 0.7 and accuracy["mbleu"] >= 0.7
    assert accuracy["mbleu"] < 0.9  # not a solved problem: hard pairs in both classes


def test_typical_set_with_rte1_dev_cutoffs_reproduces_mbleu_over_bleu(shared_file: Callable[..., Path]) -> None:
    dev = load(shared_file("nltk_data", "corpora", "rte", "rte1_dev.xml")).pairs
    dev_gold = [bool(p.entails) for p in dev]
    pairs = load(TYPICAL).pairs
    accuracy = {}
    for name in ("bleu", "mbleu"):
        cutoff, _ = best_cutoff(score_pairs(dev, name), dev_gold)
        accuracy[name] = classification_report(score_pairs(pairs, name), pairs, cutoff=cutoff).accuracy
    assert accuracy["mbleu"] > 0.6 and accuracy["mbleu"] > accuracy["bleu"]


def test_blind_spots_defeat_a_surface_cutoff() -> None:
    pairs = load(BLIND).pairs
    gold = [bool(p.entails) for p in pairs]
    majority = max(sum(gold), len(gold) - sum(gold)) / len(gold)
    for name in ("bleu", "mbleu", "bow"):
        _, acc = best_cutoff(score_pairs(pairs, name), gold)
        assert acc <= majority + 0.05, name  # no better than calling every pair the same


@pytest.mark.skipif(not (resources.is_available("wordnet") and resources.is_available("averaged_perceptron_tagger_eng")),
                    reason="needs WordNet and the POS tagger (MANLI's lexical similarity): ../shared or nltk.download")
def test_the_embeddings_lesson_is_where_embed_and_manli_disagree() -> None:
    # What the lesson's notes say: with the shipped cutoffs, the embedding scorer and MANLI
    # decide every pair differently, and each is right on half of them.
    from explorer.decision.resolve import resolve_cutoff

    pairs = [p for p in load(BLIND).pairs if p.task == "embeddings"]
    assert len(pairs) == 4 and sum(bool(p.entails) for p in pairs) == 2
    decisions = {}
    for name in ("embed", "manli"):
        cutoff = resolve_cutoff(name).value
        decisions[name] = [v > cutoff for v in score_pairs(pairs, name)]
    assert all(a != b for a, b in zip(decisions["embed"], decisions["manli"]))
    for name, decided in decisions.items():
        assert sum(d == p.entails for d, p in zip(decided, pairs)) == 2, name
