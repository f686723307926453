"""The method table (:data:`explorer.methods.METHODS`): what every row names is there, a
method is found by its one name or a former one, and each method does what its row says
(refuses by its cost model, stores its breakdown fields as numbers)."""

from __future__ import annotations

import math

import pytest

from components.lesson_export import method_choices
from components.panels import PANELS, report_parts
from components.teach_methods import TEACH_METHODS
from explorer.aligners import ALIGNERS
from explorer.api import DEFAULT_SECONDS, ScorerInfo, Value, breakdown_value, import_attr, lazy, score_many
from explorer.limits import LimitError, cost_model_of, using
from explorer.methods import METHODS, Method, Methods, UnknownMethodError, default_scorer, model_path
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer

BOTH = {**ALIGNERS, **SCORERS}
PAIR = analyze_pair(make_pair("John bought a new car last week in Paris.", "John purchased a car."))


def _embeddings_missing(info: object) -> bool:
    from explorer.lexical.embedding import is_available

    return "embeddings" in info.capabilities.needs and not is_available()  # type: ignore[attr-defined]


# -- the table ------------------------------------------------------------------------------


def test_every_string_a_row_names_resolves() -> None:
    """Panels, download figures and lesson parts are named by "module:attr" (the library
    imports no UI): each one imports, and each model file is shipped."""
    for row in METHODS.values():
        targets = [part.draw for part in row.report]
        if row.panel is not None:
            targets.append(row.panel)
        if row.lesson is not None:
            targets += [row.lesson.trace, row.lesson.figure]
        for target in targets:
            assert callable(import_attr(target)), f"{row.name}: {target}"
        for info in row.scorers:
            assert info.model is None or model_path(info.name).is_file(), info.name


def test_a_method_with_a_panel_adds_its_own_scorers_figures_to_the_download() -> None:
    """The download shows what the tabs show (the combined classifier's figures were once
    missing from it), drawn by scorers of the method's own."""
    for row in METHODS.values():
        if row.panel is not None:
            assert row.report, f"{row.name}: its figures are missing from the full-analysis download"
        for part in row.report:
            assert set(part.methods) <= {info.name for info in row.scorers}, (row.name, part.title)
    assert [p.title for p in report_parts()][:2] == ["N-gram match grid", "WER"]


def test_one_name_everywhere_and_former_names_still_work() -> None:
    assert set(PANELS) <= set(METHODS) and set(TEACH_METHODS) <= set(METHODS)
    assert PANELS["edit"].label == "Edit distance (pFSM / pPDA)"  # the tab's label is in URLs: unchanged
    for former, name in (("editdist", "edit"), ("mtmetrics", "bleu"), ("similarity", "embed")):
        assert METHODS.resolve(former).name == name
    assert method_choices("editdist,edit,pfsm") == [("edit", None), ("edit", None), ("edit", "pfsm")]
    assert default_scorer("editdist") == "pfsm" and default_scorer("ppda") == "ppda"
    with pytest.raises(UnknownMethodError, match="unknown method 'telepathy'; choose from: bleu, wer"):
        METHODS.resolve("telepathy")


def test_the_table_refuses_a_name_given_twice() -> None:
    toy = ScorerInfo("toy", "Toy", "a stand-in", lazy("builtins:object"), cost="bleu")
    with pytest.raises(ValueError, match="scorer 'toy' is named twice"):
        Methods([Method("a", "A", scorers=(toy,)), Method("b", "B", scorers=(toy,))])
    with pytest.raises(ValueError, match="alias 'toy' of 'b' is a variant of 'a'"):
        Methods([Method("a", "A", scorers=(toy,)), Method("b", "B", aliases=("toy",))])
    with pytest.raises(ValueError, match="needs its tab"):
        Method("c", "C", panel="components.panels.bow:render_bow_panel")


def test_an_aligner_takes_its_same_named_scorers_model_and_cost_model() -> None:
    assert ALIGNERS["pfsm"].model == SCORERS["pfsm"].model == "pfsm_sts_sick.json"
    assert ALIGNERS["itg_lex"].cost == "itg" and ALIGNERS["manli"].model == SCORERS["manli"].model


# -- each method does what its row says --------------------------------------------------


def test_every_method_names_its_cost_model_or_the_scorers_it_runs() -> None:
    """A scorer that runs others (the combined classifier) takes its cost model from
    theirs; they are registered scorers with cost models of their own."""
    for name, info in BOTH.items():
        runs = getattr(info, "runs", ())
        assert (info.cost is None) == bool(runs), f"{name}: give the row cost= or runs="
        for part in runs:
            assert SCORERS[part].cost is not None, f"{name} runs {part}, which has no cost model of its own"


@pytest.mark.parametrize("name", sorted(BOTH))
def test_a_method_refuses_by_its_rows_cost_model(name: str) -> None:
    """The method's own check finds its row (its built name is the row's name) and refuses
    by the row's cost model: a 300 x 300 pair refused at a memory limit just under the
    model's estimate, before any work."""
    from explorer.limits import cost_model, estimate

    info = BOTH[name]
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


def test_an_aligner_without_a_scorer_of_its_name_has_its_own_cpu_estimate() -> None:
    for name, info in ALIGNERS.items():
        assert name in SCORERS or info.seconds != DEFAULT_SECONDS, f"{name}: give the aligner's row seconds="


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


def test_the_warmup_labels_what_a_scorer_loads() -> None:
    from runtime.warmup import scorer_step_label

    assert scorer_step_label("manli").endswith(f"(scorer: {SCORERS['manli'].loads})")
    assert scorer_step_label("bleu") == f"{SCORERS['bleu'].label} (scorer)"
