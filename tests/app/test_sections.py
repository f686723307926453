"""Page sections under Streamlit's AppTest on their own (the annotation, alignment
editor and counterfactual sections are exercised through the pages in test_store_pages)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.pairs import Pair
from tests.deadline import DEADLINE


def _mt_experiment(pairs: tuple) -> None:  # type: ignore[type-arg]  # run as a script: builtins only
    from components.sections.mt_experiment import render_mtmetrics_comparison
    from explorer.datasets import Dataset

    render_mtmetrics_comparison(Dataset("fixture", "jsonl", pairs))


def test_mt_experiment_runs_the_classifier(classifier_pairs: tuple[Pair, ...]) -> None:
    app = AppTest.from_function(_mt_experiment, args=(classifier_pairs,), default_timeout=DEADLINE).run()
    assert not app.exception
    app.multiselect(key="mtmetrics_sets").set_value(["per", "bleu1"]).run()
    app.number_input(key="mtmetrics_folds").set_value(5).run()
    app.button(key="mtmetrics_run").click().run()
    assert not app.exception and not app.error
    table = app.dataframe[0].value
    assert list(table["features"]) == ["per", "bleu1"]
    assert list(table["paper accuracy % (MSRP)"]) == [71.9, 73.2]
