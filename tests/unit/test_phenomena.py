"""The phenomenon detectors (explorer.groups.phenomena / detectors): each one true (or its
number high) on a pair that has the phenomenon and false on one that does not; the table,
its cache on disk, the limits (a refused pair is a missing value) and the built-in slices."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from explorer.groups import detectors
from explorer.groups.detectors import Value
from explorer.groups.phenomena import (
    FAST,
    PHENOMENA,
    PHENOMENON_ALIGNERS,
    PhenomenonError,
    builtin_slices,
    phenomena_chunk,
    phenomena_table,
    phenomenon_values,
)
from explorer.limits import using
from explorer.pairs import Pair


def pair(text: str, hypothesis: str, task: str | None = None) -> Pair:
    return Pair(id="p", text=text, hypothesis=hypothesis, task=task)


#: name -> (a pair that has it, a pair that does not)
BOOL_CASES = {
    "negation_only_in_h": (pair("The shop opened on Sunday.", "The shop did not open on Sunday."),
                           pair("The shop did not open on Sunday.", "The shop never opened on Sunday.")),
    "negation_only_in_t": (pair("Nobody came to the late show.", "Many people came to the late show."),
                           pair("The band played until midnight.", "The band played late.")),
    "number_mismatch": (pair("The club signed 12 players last year.", "The club signed twenty players."),
                        pair("The club signed twelve players last year.", "The club signed 12 players.")),
    "name_absent": (pair("The mayor opened the new bridge.", "Mayor Hallgren opened the bridge."),
                    pair("The World Health Organization met in Geneva.", "The WHO met in Geneva.")),
    "antonym_pair": (pair("The soup in the bowl was cold.", "The soup was hot."),
                     pair("The soup in the bowl was cold.", "The soup was chilly.")),
    "quantifier_one_side": (pair("Some farmers sold their land.", "All farmers sold their land."),
                            pair("Some farmers sold their land.", "Some farmers sold land.")),
    "modal_one_side": (pair("The council will close the road.", "The council closed the road."),
                       pair("The road was closed in May.", "The road was closed.")),
}


@pytest.mark.parametrize("name", list(BOOL_CASES))
def test_each_bool_detector_finds_its_phenomenon_and_only_it(name: str) -> None:
    has, lacks = BOOL_CASES[name]
    assert phenomenon_values(has, [name]) == {name: True}
    assert phenomenon_values(lacks, [name]) == {name: False}


def test_every_fast_bool_phenomenon_has_a_case() -> None:
    fast_bools = {n for n in FAST if PHENOMENA[n].kind == "bool"}
    assert fast_bools == set(BOOL_CASES)


def test_negation_words_count_on_both_sides() -> None:
    both = pair("He did not win.", "He never won.")
    assert phenomenon_values(both, ["negation_only_in_h", "negation_only_in_t"]) == {
        "negation_only_in_h": False, "negation_only_in_t": False}


def test_absent_names_lists_the_names_the_text_lacks() -> None:
    facts = detectors.PairFacts(pair("Anna Berg met the minister in Oslo.", "Berg met Lindqvist in Oslo."))
    assert detectors.absent_names(facts) == ["Lindqvist"]


def test_overlap_lengths_and_task() -> None:
    same = pair("Three boats left the harbour at dawn.", "Three boats left the harbour.", task="IE")
    apart = pair("Three boats left the harbour at dawn.", "A storm flooded several villages inland.")
    a, b = phenomenon_values(same, None), phenomenon_values(apart, None)
    assert a["overlap"] == 1.0 and isinstance(b["overlap"], float) and b["overlap"] < 0.5
    assert a["h_length"] == 6.0  # five words and the full stop
    assert a["length_ratio"] == pytest.approx(6 / 8)
    assert a["task"] == "IE" and b["task"] == ""
    # lemmas count: "left" in the hypothesis against "leave" in the text
    assert phenomenon_values(pair("The boats leave early.", "The boats left."), ["overlap"])["overlap"] == 1.0


def test_names_are_identifiers_and_rows_say_what_they_find() -> None:
    for name, row in PHENOMENA.items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name) and row.name == name
        assert row.description and "\n" not in row.description
    for aligner in PHENOMENON_ALIGNERS:
        assert PHENOMENA[f"unaligned_h_content_{aligner}"].slow
        assert PHENOMENA[f"antonym_aligned_{aligner}"].needs[0] == aligner
    assert not any(PHENOMENA[n].slow for n in FAST)


def test_builtin_slices_cover_every_bool_and_threshold_numbers() -> None:
    slices = builtin_slices()
    for name, row in PHENOMENA.items():
        if row.kind == "bool":
            assert slices[name] == name
    assert slices["low_overlap"] == "overlap < 0.5"
    assert slices["long_hypothesis"] == "h_length > 15"
    assert slices["unaligned_by_manli"] == "unaligned_h_content_manli >= 1"
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", s) for s in slices)


def test_unknown_names_are_refused_naming_the_known_ones() -> None:
    with pytest.raises(PhenomenonError, match="unknown phenomena sarcasm; known: negation_only_in_h"):
        phenomenon_values(pair("a b", "a"), ["sarcasm"])


@pytest.mark.slow
@pytest.mark.parametrize("aligner", PHENOMENON_ALIGNERS)
def test_unaligned_content_per_aligner(aligner: str) -> None:
    name = f"unaligned_h_content_{aligner}"
    # "Qwxz" resembles no text word in spelling, meaning or embedding: no aligner links it
    stranger = phenomenon_values(pair("The dog ran home.", "The dog saw Qwxz."), [name])[name]
    same = phenomenon_values(pair("The dog ran home.", "The dog ran home."), [name])[name]
    assert isinstance(stranger, float) and stranger >= 1
    assert same == 0


@pytest.mark.slow
def test_antonym_aligned_per_aligner() -> None:
    cold = pair("The water in the tank is cold.", "The water is hot.")
    cheap = pair("He bought a cheap car.", "He bought an expensive car.")
    same = pair("He bought a cheap car.", "He bought a car.")
    names = [f"antonym_aligned_{a}" for a in PHENOMENON_ALIGNERS]
    assert phenomenon_values(cold, ["antonym_aligned_bow"]) == {"antonym_aligned_bow": True}
    assert phenomenon_values(cheap, ["antonym_aligned_manli"]) == {"antonym_aligned_manli": True}
    assert not any(phenomenon_values(same, names).values())
    # the registered ITG links identical words only, so it never links antonyms; the
    # detector does see them through the ITG with the lexical similarity
    facts = detectors.PairFacts(cheap)
    assert detectors.antonym_aligned(facts, "itg") is False
    assert detectors.antonym_aligned(facts, "itg_lex") is True


def test_a_pair_past_a_limit_has_no_value_instead_of_an_error() -> None:
    long_pair = pair("The old bridge over the wide river was closed for repairs.", "The old bridge was shut.")
    with using(max_tokens=5):
        values = phenomenon_values(long_pair, ["unaligned_h_content_bow", "antonym_aligned_itg"])
    assert values == {"unaligned_h_content_bow": None, "antonym_aligned_itg": None}
    with using(max_word_pairs=4):
        assert phenomenon_values(long_pair, ["antonym_pair"]) == {"antonym_pair": None}
        table = phenomena_table([long_pair], ["antonym_pair", "overlap"])
    assert table["antonym_pair"].isna().all() and table["overlap"].notna().all()


PAIRS = [
    pair("The shop opened on Sunday.", "The shop did not open on Sunday.", task="IR"),
    pair("The club signed 12 players last year.", "The club signed twenty players.", task="QA"),
    pair("Some farmers sold their land.", "Some farmers sold land."),
]


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_table_has_one_row_per_pair_in_order_with_typed_columns(cache: Path) -> None:
    seen: list[tuple[int, int]] = []
    table = phenomena_table(PAIRS, None, progress=lambda i, n: seen.append((i, n)), chunk_size=2)
    assert list(table.columns) == list(FAST)
    assert list(table.index) == [0, 1, 2]
    assert table["negation_only_in_h"].tolist() == [True, False, False]
    assert table["number_mismatch"].tolist() == [False, True, False]
    assert table["task"].tolist() == ["IR", "QA", ""]
    assert str(table["negation_only_in_h"].dtype) == "boolean" and table["overlap"].dtype == np.float64
    assert seen == [(2, 3), (3, 3)]
    for i, p in enumerate(PAIRS):
        assert table.iloc[i].to_dict() == phenomenon_values(p, None)


def test_a_second_table_of_the_same_pairs_reads_the_disk(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = phenomena_table(PAIRS, ["negation_only_in_h", "overlap", "task"])
    assert len(list((cache / "phenomena").glob("*.npy"))) == 2  # the task is cheap and not kept

    def only_the_task(chunk: Sequence[Pair], wanted: Sequence[str]) -> dict[str, list[Value]]:
        assert list(wanted) == ["task"], f"computed again: {wanted}"
        return phenomena_chunk(chunk, wanted)

    again = phenomena_table(PAIRS, ["negation_only_in_h", "overlap"], run_chunk=only_the_task)
    assert again.equals(first[["negation_only_in_h", "overlap"]])
    # an edited pair is another dataset: computed afresh
    edited = [*PAIRS[:2], pair("Some farmers sold their land.", "No farmer sold land.")]
    assert phenomena_table(edited, ["negation_only_in_h"])["negation_only_in_h"].tolist() == [True, False, True]


def test_the_pool_job_computes_what_the_process_does() -> None:
    from runtime.pool import tasks

    assert tasks.phenomena_chunk(PAIRS, ["number_mismatch", "h_length"]) == {
        "number_mismatch": [False, True, False], "h_length": [8.0, 6.0, 5.0]}


@pytest.mark.slow  # forks a pool worker that loads the bag-of-words aligner
def test_a_table_computed_on_the_worker_pool_equals_one_computed_here(cache: Path) -> None:
    from runtime.pool import Pool, tasks

    names = ["unaligned_h_content_bow", "antonym_aligned_bow", "negation_only_in_h"]
    here = phenomena_table(PAIRS, names)
    for stale in (cache / "phenomena").glob("*.npy"):
        stale.unlink()
    pool = Pool(1, long_workers=1, budget=120.0, start_method="fork").start()
    try:
        sent: list[int] = []

        def on_pool(chunk, wanted):  # type: ignore[no-untyped-def]
            sent.append(len(chunk))
            return pool.submit("groups", tasks.phenomena_chunk, list(chunk), list(wanted)).result(120.0)

        there = phenomena_table(PAIRS, names, run_chunk=on_pool, chunk_size=2)
    finally:
        pool.close()
    assert sent == [2, 1]
    assert there.equals(here)
