"""Property-based fuzzing of every loader: a mutated valid file either loads as a
dataset whose fields are well-typed (no garbage, see tests/loader_fuzz.py) or is refused
with DatasetError; no other exception escapes. Bounded: a fixed number of examples per
seed, derandomised so that CI sees the same cases (bench/fuzz_loaders.py runs the long,
random version)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .loader_fuzz import MUTATIONS, SEEDS, mutate, run_case

_mutations = st.lists(
    st.tuples(st.sampled_from(sorted(MUTATIONS)), st.integers(min_value=0, max_value=2**32)),
    min_size=1, max_size=3,
)
_FUZZ = settings(
    max_examples=40, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeds_load_cleanly(seed):
    name, data, fmt = SEEDS[seed]
    outcome, detail = run_case(data, name)
    assert outcome == "accepted", detail
    assert f"({fmt})" in detail


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(SEEDS))
@_FUZZ
@given(mutations=_mutations, forced=st.booleans())
def test_mutated_files_load_or_are_refused(seed, mutations, forced):
    name, data, fmt = SEEDS[seed]
    outcome, detail = run_case(mutate(data, mutations), name, fmt if forced else None)
    assert outcome in ("accepted", "refused"), f"{seed} {mutations} forced={forced}: {outcome}: {detail}"


@_FUZZ
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".xml", ".tsv", ".txt", ".csv", ".json", ".jsonl"]))
def test_random_bytes_are_refused_or_loaded(data, suffix):
    outcome, detail = run_case(data, "random" + suffix)
    assert outcome in ("accepted", "refused"), f"{data!r}: {outcome}: {detail}"


@_FUZZ
@given(text=st.text(max_size=200), seed=st.sampled_from(sorted(SEEDS)))
def test_unicode_text_in_a_file_is_refused_or_loaded(text, seed):
    name, data, fmt = SEEDS[seed]
    middle = len(data) // 2
    mutated = data[:middle] + text.encode("utf-8", "surrogatepass") + data[middle:]
    outcome, detail = run_case(mutated, name, fmt)
    assert outcome in ("accepted", "refused"), f"{text!r}: {outcome}: {detail}"
