"""Every per-method table outside the registries agrees with them.

A registry row describes its method whole (:mod:`explorer.scorers`, :mod:`explorer.aligners`,
:data:`components.panels.PANELS`, :data:`components.teach_methods.TEACH_METHODS`). The few
tables still keyed by a method's name sit where layering puts them (cost families in
:mod:`explorer.limits`, Plotly figure builders in ``components``); each is checked here against the registries: same names, nothing missing,
nothing extra, so forgetting one fails here instead of silently elsewhere.
"""

from __future__ import annotations

import math

import pytest

from components.panels import PANELS, report_methods, report_parts
from components.teach_methods import TEACH_METHODS
from explorer.aligners import ALIGNERS
from explorer.api import DEFAULT_SECONDS, Value, breakdown_value, import_attr, score_many
from explorer.datasets import LOADERS
from explorer.limits import COST_MODELS, LimitError, cost_model_of, using
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer

METHODS = {**ALIGNERS, **SCORERS}
PAIR = analyze_pair(make_pair("John bought a new car last week in Paris.", "John purchased a car."))


def _embeddings_missing(info: object) -> bool:
    from explorer.lexical.embedding import is_available

    return "embeddings" in info.capabilities.needs and not is_available()  # type: ignore[attr-defined]


# -- cost models ----------------------------------------------------------------------------


def test_every_cost_model_is_named_by_a_row_and_every_named_one_exists() -> None:
    named = {info.cost for info in METHODS.values() if info.cost is not None}
    assert named == set(COST_MODELS), "COST_MODELS and the rows' cost= disagree"


def test_a_method_in_both_registries_has_one_cost_model() -> None:
    for name in set(SCORERS) & set(ALIGNERS):
        assert SCORERS[name].cost == ALIGNERS[name].cost, name


def test_every_method_names_its_cost_model_or_the_scorers_it_runs() -> None:
    """A scorer that runs others (the combined classifier) takes its cost model from
    theirs; they are registered scorers with cost models of their own."""
    for name, info in METHODS.items():
        runs = getattr(info, "runs", ())
        assert (info.cost is None) == bool(runs), f"{name}: give the row cost= or runs="
        for part in runs:
            assert SCORERS[part].cost is not None, f"{name} runs {part}, which has no cost model of its own"


@pytest.mark.parametrize("name", sorted(METHODS))
def test_a_method_refuses_by_its_rows_cost_model(name: str) -> None:
    """The method's own check finds its row (its built name is the row's name) and refuses
    by the row's cost model: a 300 x 300 pair refused at a memory limit just under the
    model's estimate, before any work."""
    from explorer.limits import cost_model, estimate

    info = METHODS[name]
    if _embeddings_missing(info):
        pytest.skip("the wordllama package (its shipped table) is not installed")
    assert info.cost is None or cost_model_of(name) == info.cost
    method = (ALIGNERS if name in ALIGNERS else SCORERS).build(name)
    assert method.name == name
    words = " ".join(f"w{i}" for i in range(300))
    pair = analyze_pair(make_pair(words, words))
    need = estimate(cost_model(name), 300, 300).memory_mb
    run = method.align if name in ALIGNERS else method.score
    with using(max_memory_mb=need * 0.99, max_token_pairs=10**9, max_candidates=10**12, max_word_pairs=10**9), \
            pytest.raises(LimitError) as refused:
        run(pair)
    assert refused.value.method == name and refused.value.limit == "max_memory_mb"


# -- the worker pool's CPU estimates ------------------------------------------------------


def test_an_aligner_without_a_scorer_of_its_name_has_its_own_cpu_estimate() -> None:
    for name, info in ALIGNERS.items():
        assert name in SCORERS or info.seconds != DEFAULT_SECONDS, f"{name}: give the aligner's row seconds="


# -- batch breakdown ----------------------------------------------------------------------


@pytest.mark.parametrize("name", [  # the slow methods load their lexical resources: seconds
    pytest.param(n, marks=[] if info.capabilities.interactive else [pytest.mark.slow])
    for n, info in sorted(SCORERS.items()) if info.breakdown])
def test_every_breakdown_field_is_a_number_on_the_scorers_batch_result(name: str) -> None:
    """A misspelt field would be a column of nulls in every batch."""
    if _embeddings_missing(SCORERS[name]):
        pytest.skip("the wordllama package (its shipped table) is not installed")
    [result] = score_many(get_scorer(name), [PAIR])
    assert not isinstance(result, Exception), result
    for field in SCORERS[name].breakdown:
        got = breakdown_value(result, field)
        assert isinstance(got, int | float) and math.isfinite(got), f"{name}: no number at {field!r} ({got!r})"


def test_score_many_loops_when_a_scorer_has_no_batch_path_and_keeps_refusals_per_pair() -> None:
    class OnlyScore:
        name = "toy"

        def score(self, pair: object) -> Value:
            if pair.pair.id == "bad":  # type: ignore[attr-defined]
                raise ValueError("refused")
            return Value(1.0)

    good, bad = (analyze_pair(Pair(id=i, text="A b.", hypothesis="A b.")) for i in ("good", "bad"))
    results = score_many(OnlyScore(), [good, bad, good])
    assert [getattr(r, "value", None) for r in results] == [1.0, None, 1.0]
    assert isinstance(results[1], ValueError)


# -- the Teach page -----------------------------------------------------------------------


def test_every_teach_method_a_scorer_names_exists_and_every_teach_method_is_named() -> None:
    named = {info.teach for info in SCORERS.values() if info.teach is not None}
    assert named == set(TEACH_METHODS), "ScorerInfo.teach and TEACH_METHODS disagree"


def test_a_teach_option_of_variants_offers_exactly_the_scorers_naming_its_method() -> None:
    for method, row in TEACH_METHODS.items():
        scorers = {n for n, info in SCORERS.items() if info.teach == method}
        choices = set(row.option.choices) if row.option is not None else set()
        if choices and choices <= set(SCORERS):  # an option of variants: one scorer each
            assert choices == scorers, method
        else:  # no variants: one scorer of the method's name
            assert scorers == {method}, method


def test_every_teach_row_resolves() -> None:
    for row in TEACH_METHODS.values():
        assert callable(import_attr(row.trace)) and callable(import_attr(row.figure))


# -- the Pair page's panels and the full-analysis download --------------------------------


def test_every_panel_adds_figures_to_the_download_and_every_part_resolves() -> None:
    for panel in PANELS.values():
        assert panel.report, f"{panel.name}: its figures are missing from the full-analysis download"
    for part in report_parts():
        assert callable(import_attr(part.draw)), part.draw
        assert part.methods and set(part.methods) <= set(SCORERS), part


def test_the_download_runs_every_scorer_with_a_panel_of_its_own() -> None:
    """A scorer with a panel of its name has its figures in the download (the combined
    classifier's once were missing)."""
    assert {n for n in PANELS if n in SCORERS} <= set(report_methods())


# -- other tables keyed by a method's or a format's name --------------------------------


def test_tables_keyed_by_scorer_names_name_registered_scorers() -> None:
    from explorer.combined import SCORER_FEATURES
    from explorer.edit_distance.scoring import DEFAULT_MODELS

    assert set(SCORER_FEATURES) <= set(SCORERS)
    for kind, path in DEFAULT_MODELS.items():
        assert SCORERS[kind].model == path.name, kind


# -- a loader's line facts -----------------------------------------------------------------


def _seeds() -> list[tuple[str, str, bytes, str]]:
    from tests.unit.loader_fuzz import SEEDS

    return [(seed, name, data, fmt) for seed, (name, data, fmt) in sorted(SEEDS.items())]


@pytest.mark.parametrize(("seed", "name", "data", "fmt"), _seeds(), ids=[s[0] for s in _seeds()])
def test_a_rows_line_facts_are_how_a_batch_reads_the_format(tmp_path, seed, name, data, fmt) -> None:  # type: ignore[no-untyped-def]
    """A ranged format really is cut by lines: read in ranges of one record each, a file
    gives the whole-file loader's pairs (ids numbered by record), its header is the
    first line exactly when the row's ``header`` says so, and its records are counted
    on its bytes; a format not ranged (or a JSON list) is loaded whole."""
    from explorer.batch.source import _ranges, iter_pairs, scan
    from explorer.datasets import load
    from explorer.datasets.counting import count_records

    info = LOADERS[fmt]
    path = tmp_path / name
    path.write_bytes(data)
    whole = load(path)
    assert whole.format == fmt
    source = scan(path, 1)
    if not info.ranged or seed == "json_list":
        assert source is None
        return
    assert source is not None and source.format == fmt and len(source.ranges) == source.records == len(whole)
    assert bool(source.header) == (info.header == "always" or (info.header == "tsv" and seed.endswith("tsv")))
    assert count_records(data, name) == len(whole)
    ranged = [p for pairs, _ in _ranges(source) for p in pairs]
    assert [(p.id, p.text, p.hypothesis, p.label, p.score) for p in ranged] == \
        [(p.id, p.text, p.hypothesis, p.label, p.score) for p in whole.pairs]
    assert sum(len(pairs) for pairs, _ in iter_pairs(path)) == len(whole)


@pytest.mark.parametrize("fmt", sorted(LOADERS))
def test_a_numbered_format_numbers_pairs_without_an_id_from_the_record_given(fmt: str) -> None:
    """``numbered`` is true exactly for the parsers that take ``first_record=``: a range
    starting at record 5 numbers its first pair without an id 5."""
    info = LOADERS[fmt]
    records = {"jsonl": '{"text": "A b c.", "hypothesis": "A b."}\n',
               "csv": "text,hypothesis\nA b c.,A b.\n", "sts": "3.0\tA b c.\tA b.\n"}
    if not info.numbered:
        with pytest.raises(TypeError):
            info.parse("", "x", first_record=5)  # type: ignore[call-arg]
        return
    pairs: list[Pair] = info.parse(records[fmt], "x", first_record=5)  # type: ignore[call-arg]
    assert [p.id for p in pairs] == ["5"]


def test_the_warmup_labels_what_a_scorer_loads() -> None:
    from runtime.warmup import scorer_step_label

    assert scorer_step_label("manli").endswith(f"(scorer: {SCORERS['manli'].loads})")
    assert scorer_step_label("bleu") == f"{SCORERS['bleu'].label} (scorer)"
