"""Lessons with a shape: every method (each option) on the sample pairs inside the teaching
limit and on a few RTE dev pairs stays within MAX_STEPS steps, no step repeats the one
before (figure and caption: the numbers), each opens with what the method asks and closes
with the verdict against the cutoff; MANLI's rounds that change nothing are one sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from components.teach_methods import MAX_STEPS, TEACH_METHODS, lesson, shaped, trace_of, verdict
from explorer.datasets import load
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair, make_pair
from explorer.teaching import TEACHING_MAX_TOKENS

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = [(name, value) for name, row in TEACH_METHODS.items()
            for value in (row.option.choices if row.option else [None])]


def _inside(pairs: list[Pair]) -> list[AnalyzedPair]:
    analyzed = [analyze_pair(p) for p in pairs]
    return [a for a in analyzed if 0 < len(a.text) <= TEACHING_MAX_TOKENS and 0 < len(a.hypothesis) <= TEACHING_MAX_TOKENS]


def _pairs() -> list[AnalyzedPair]:
    pairs = _inside([*load(ROOT / "sample_data" / "typical.xml").pairs])[::4]
    pairs += _inside([*load(ROOT / "sample_data" / "blind_spots.xml").pairs])[::4]
    rte = Path(os.environ.get("NLTK_DATA", "")) / "corpora" / "rte" / "rte2_dev.xml"
    if rte.is_file():  # the longest teachable RTE2 dev pairs (the most steps)
        long = sorted(_inside(list(load(rte).pairs)), key=lambda a: -len(a.text) * len(a.hypothesis))
        pairs += long[:2]
    return pairs


PAIRS = _pairs()


@pytest.mark.slow
@pytest.mark.parametrize(("method", "option"), VARIANTS)
def test_every_lesson_fits_and_every_step_changes_something(method: str, option: str | None) -> None:
    row = TEACH_METHODS[method]
    for pair in PAIRS:
        steps = lesson(method, trace_of(method, option, pair), large=False, closing="Verdict: closing words.")
        where = (method, option, " ".join(pair.hypothesis.tokens))
        assert 2 <= len(steps) <= MAX_STEPS, (where, len(steps))
        for before, after in zip(steps, steps[1:]):
            assert (before["figure"], before["caption"]) != (after["figure"], after["caption"]), where
        assert steps[0]["sentence"].startswith(row.asks) and steps[-1]["sentence"].endswith("closing words.")
        assert all(step["chapter"] for step in steps)


def test_manli_folds_rounds_that_change_nothing() -> None:
    pair = analyze_pair(make_pair("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle."))
    trace = trace_of("manli", None, pair)
    assert len(trace.steps) < 60  # 102 before the folding
    assert any("proposals changed nothing, temperature" in s.explain for s in trace.steps)
    for before, after in zip(trace.steps, trace.steps[1:]):
        assert before.links != after.links or before.total != after.total or after.phase != "anneal"
    assert trace.steps[-1].value == pytest.approx(trace.value)


def test_shaping_joins_still_steps_and_keeps_the_budget() -> None:
    figure = {"data": [], "layout": {}}
    steps = [{"sentence": f"s{k}", "caption": f"c{k // 2}", "figure": {**figure, "k": k // 2}, "chapter": "A"}
             for k in range(100)]
    out = shaped(steps, budget=10)  # type: ignore[arg-type]
    assert len(out) <= 10 and out[0]["sentence"] == "s0 s1" and out[-1]["sentence"] == "s98 s99"


def test_the_verdict_names_the_scorer_and_its_cutoff() -> None:
    pair = analyze_pair(make_pair("The cat sat on the mat.", "The cat sat."))
    said = verdict("bleu", "bleu_pa", pair)
    assert said.startswith("Verdict: BLEU (Pérez & Alfonseca) = ") and "cutoff" in said and "entail" in said
    assert verdict("edit", "pfsm", pair).startswith("Verdict: Probabilistic edit distance (pFSM)")
