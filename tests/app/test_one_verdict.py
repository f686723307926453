"""One pair, one verdict: the same data and development set open on the Pair, Dataset,
Evaluate, Compare and Errors pages judge the same pairs "entails" for each scorer.

Each page is read as a user reads it: the Pair page's scores table pair by pair, the
Dataset table's decision column, the Evaluate page's chosen cutoff (the dotted line of its
accuracy curves, exact) applied to the scores, the Compare table's agreement groups and the
Errors page's outcomes of tagged pairs (its annotations export), each with the gold label.
``combined`` decides at its own cutoff (0.5) however the data looks, and with a development
set ``bleu`` and ``mbleu`` decide at the cutoff chosen there: pages that decided by the best
cutoff on the data judged disagreed on 9 of 56 and 12-13 of 56 pairs of this sample.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import state
from components.data import dataset_scores, load_file
from components.figures.compare import BOTH_RIGHT, BOTH_WRONG, ONLY_X, ONLY_Y
from explorer.datasets import load
from explorer.scorers import SCORERS
from explorer.store import ENV_VAR, Store
from explorer.store.crosstab import CORRECT, INCORRECT
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
DATA = ROOT / "sample_data" / "typical.xml"  # the dataset the app opens on
DEV = ROOT / "sample_data" / "pairs.csv"
#: Scorers whose verdicts differed between pages: a trained classifier (its own cutoff
#: against the best on the data) and tuned scorers whose development-set cutoff is far
#: from the best on the data. wer is on another scale (negative scores).
NAMES = ("bleu", "mbleu", "wer", "combined")
#: The Compare page shows two scorers at a time.
COMPARED = (("bleu", "mbleu"), ("wer", "combined"))
PAIRS = load(DATA).pairs
GOLD = {p.id: bool(p.entails) for p in PAIRS}
TIMEOUT = 2 * DEADLINE  # combined scores the whole sample once (tests/deadline.py)

Verdicts = dict[str, frozenset[str]]  # scorer -> ids of the pairs judged "entails"


@pytest.fixture
def tagged_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh store in which every pair of the sample carries a tag, so the Errors page
    lists (and exports) every pair with its outcome."""
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv(ENV_VAR, str(path))
    store = Store(path)
    dataset_id = store.add_dataset(load(DATA))
    store.tag_pairs(dataset_id, [p.id for p in PAIRS], ["negation"], author="tester")
    yield path


def _table(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    for df in [*at.dataframe, *at.table]:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a {column!r} column")


def _switch(at: AppTest, page: str) -> None:
    at.switch_page(f"components/pages/{page}.py").run()
    assert not at.exception, at.exception


def _entails(decided: dict[str, bool]) -> frozenset[str]:
    return frozenset(pid for pid, yes in decided.items() if yes)


def evaluate_page(at: AppTest, dev: Path | None) -> Verdicts:
    """Choose the development set (or none) and read each scorer's cutoff from the accuracy
    curves' dotted lines (one per scorer, in order; exact, unlike the rounded table)."""
    _switch(at, "evaluate")
    at.multiselect(key="evaluate_scorers").set_value(list(NAMES)).run()
    at.selectbox(key="evaluate_dev").set_value("this data itself" if dev is None else f"sample: {dev.name}").run()
    assert not at.exception, at.exception
    summary = _table(at, "cutoff source")
    assert len(summary) == len(NAMES)
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith("-accuracy_curves"))
    shapes = json.loads(chart.proto.spec)["layout"]["shapes"]
    assert len(shapes) == len(NAMES)
    loaded = load_file(DATA, origin="built-in sample")
    verdicts = {}
    for name, shape in zip(NAMES, shapes, strict=True):
        scores = dataset_scores(loaded, name)  # the page's own, cached in this process
        verdicts[name] = _entails({p.id: float(s) > shape["x0"] for p, s in zip(PAIRS, scores, strict=True)})
    return verdicts


def pair_page(at: AppTest) -> Verdicts:
    """Every pair opened in turn; each scorer's decision from the scores table."""
    _switch(at, "pair")
    decided: dict[str, dict[str, bool]] = {n: {} for n in NAMES}
    for pair in PAIRS:
        at.session_state[state.PAIR_ID.key] = pair.id
        at.run()
        assert not at.exception, at.exception
        table = _table(at, "decision").set_index("name")
        for name in NAMES:
            decided[name][pair.id] = table.loc[name, "decision"] == "entails"
    return {n: _entails(d) for n, d in decided.items()}


def dataset_page(at: AppTest) -> Verdicts:
    _switch(at, "dataset")
    verdicts = {}
    for name in NAMES:
        at.selectbox(key="dataset_scorer").set_value(name).run()
        assert not at.exception, at.exception
        table = _table(at, "decision")
        assert len(table) == len(PAIRS)
        verdicts[name] = _entails(dict(zip(table["id"], table["decision"] == "entails", strict=True)))
    return verdicts


def compare_page(at: AppTest) -> Verdicts:
    """Each scorer's decision from the agreement group: right means it matched gold."""
    _switch(at, "compare")
    verdicts = {}
    for x, y in COMPARED:
        at.selectbox(key="compare_x").set_value(x)
        at.selectbox(key="compare_y").set_value(y).run()
        assert not at.exception, at.exception
        table = _table(at, "agreement")
        x_label, y_label = SCORERS[x].label, SCORERS[y].label
        x_right = {BOTH_RIGHT, ONLY_X.format(x=x_label)}
        y_right = {BOTH_RIGHT, ONLY_Y.format(y=y_label)}
        assert set(table["agreement"]) <= x_right | y_right | {BOTH_WRONG}
        for name, right in ((x, x_right), (y, y_right)):
            verdicts[name] = _entails({pid: (group in right) == GOLD[pid]
                                       for pid, group in zip(table["id"], table["agreement"], strict=True)})
    return verdicts


def errors_page(at: AppTest) -> Verdicts:
    """The tagged pairs' outcomes under each scorer the page offers (the fast ones)."""
    _switch(at, "errors")
    verdicts = {}
    for name in [n for n in NAMES if SCORERS[n].capabilities.interactive]:
        at.selectbox(key="errors_scorer").set_value(name).run()
        assert not at.exception, at.exception
        table = _table(at, "pair_id")  # the annotated pairs, as exported
        assert len(table) == len(PAIRS) and set(table["outcome"]) <= {CORRECT, INCORRECT}
        verdicts[name] = _entails({str(pid): (outcome == CORRECT) == GOLD[str(pid)]
                                   for pid, outcome in zip(table["pair_id"], table["outcome"], strict=True)})
    return verdicts


def verdicts_by_page(dev: Path | None) -> dict[str, Verdicts]:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    # Evaluate first: it keeps the development set in the session, as a user would choose it.
    return {"Evaluate": evaluate_page(at, dev), "Pair": pair_page(at), "Dataset": dataset_page(at),
            "Compare": compare_page(at), "Errors": errors_page(at)}


@pytest.mark.slow
@pytest.mark.parametrize("dev", [None, DEV], ids=["no development set", "development set"])
def test_every_page_judges_the_same_pairs_entailed(dev: Path | None, tagged_store: Path) -> None:
    pages = verdicts_by_page(dev)
    reference = pages["Pair"]
    for name in NAMES:
        # not a set every page could agree on trivially: some pairs each way
        assert 0 < len(reference[name]) < len(PAIRS), name
        for page, verdicts in pages.items():
            if name in verdicts:
                assert verdicts[name] == reference[name], (
                    f"{name}: {page} judges {len(verdicts[name] ^ reference[name])} of {len(PAIRS)} pairs "
                    "otherwise than the Pair page")
    assert {p for p, v in pages.items() if "combined" in v} == {"Evaluate", "Pair", "Dataset", "Compare"}
