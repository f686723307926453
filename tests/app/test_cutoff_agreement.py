"""Every front end decides a scorer by the same cutoff for the same data and development
set: the Pair page, the Evaluate page, ``evaluate --dev`` and a batch result
(explorer/decision/resolve.py is the one precedence they all ask)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.batch.query import BatchResult
from explorer.batch.runner import QUIET_SCHEDULER, run_batch
from explorer.cli import main as cli_main
from explorer.datasets import load
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
DATA = ROOT / "sample_data" / "typical.xml"  # the dataset the app opens on
DEV = ROOT / "sample_data" / "pairs.csv"
#: Scorers whose best and midpoint cutoffs on the development set differ, so a front end
#: using the other rule, or preferring the dataset's own cutoff, shows another number.
SCORERS = ["bleu", "mbleu", "wer"]


def _table(at: AppTest, column: str):  # type: ignore[no-untyped-def]
    for df in [*at.dataframe, *at.table]:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a {column!r} column")


def app_cutoffs() -> tuple[dict[str, float], dict[str, float]]:
    """(Evaluate page's, Pair page's) cutoff per scorer, as the pages show them (4 decimals)."""
    from explorer.scorers import SCORERS as REGISTRY

    at = AppTest.from_file(APP, default_timeout=DEADLINE).run()
    assert not at.exception, at.exception
    at.switch_page("components/pages/evaluate.py").run()
    at.multiselect(key="evaluate_scorers").set_value(SCORERS).run()
    at.selectbox(key="evaluate_dev").set_value(f"sample: {DEV.name}").run()
    assert not at.exception, at.exception
    summary = _table(at, "cutoff source")
    assert (summary["cutoff source"] == DEV.name).all()
    label = {REGISTRY[n].label: n for n in SCORERS}
    evaluate = {label[row.scorer]: float(row.cutoff) for row in summary.itertuples()}
    at.switch_page("components/pages/pair.py").run()
    assert not at.exception, at.exception
    scores = _table(at, "cutoff from").set_index("name")
    pair = {n: float(scores.loc[n, "cutoff"]) for n in SCORERS}
    assert all(scores.loc[n, "cutoff from"].startswith(f"development set: midpoint on {DEV.name}") for n in SCORERS)
    return evaluate, pair


def cli_cutoffs(capsys: pytest.CaptureFixture[str]) -> dict[str, float]:
    assert cli_main(["evaluate", str(DATA), "--dev", str(DEV), "--scorer", ",".join(SCORERS), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert {r["cutoff_source"] for r in results} == {"dev"}
    return {r["scorer"]: r["cutoff"] for r in results}


def batch_cutoffs(tmp_path: Path) -> dict[str, float]:
    """Both sets scored as batch results; the data's cutoffs chosen on the dev result."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs=QUIET_SCHEDULER) as local, Client(local) as client:
        run_batch(load(DATA), SCORERS, tmp_path / "data", chunk_size=20, client=client)
        run_batch(load(DEV), SCORERS, tmp_path / "dev", chunk_size=20, client=client)
    data, dev = BatchResult.open(tmp_path / "data"), BatchResult.open(tmp_path / "dev")
    chosen = {n: data.cutoff(n, dev=dev.scored(n)) for n in SCORERS}
    assert {c.source for c in chosen.values()} == {"dev"}
    return {n: c.value for n, c in chosen.items()}


@pytest.mark.slow
def test_pair_evaluate_cli_and_batch_use_the_same_cutoff(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    evaluate, pair = app_cutoffs()
    cli = cli_cutoffs(capsys)
    batch = batch_cutoffs(tmp_path)
    for name in SCORERS:
        assert cli[name] == pytest.approx(batch[name], abs=1e-12), name
        assert evaluate[name] == pair[name] == round(cli[name], 4), name
