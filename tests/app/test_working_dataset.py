"""One working dataset under AppTest: whatever was opened last (a file, the gold alignments
of the Aligners page, a batch result) is every page's, the URL names it with a ref the
server checks, a link to a pair the dataset lacks says so, and the Evaluate page reads the
scores the background job stored instead of scoring again."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from components import state
from components.batch_folders import key_of
from tests.app.test_app import page as go
from tests.app.test_app import param
from tests.app.test_app import start as fresh
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
DATASET, EVALUATE, ERRORS = "components/pages/dataset.py", "components/pages/evaluate.py", "components/pages/errors.py"
ALIGNERS, PAIR = "components/pages/aligners.py", "components/pages/pair.py"
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)


def sidebar(at: AppTest) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def test_gold_alignments_opened_on_the_aligners_page_survive_the_dataset_page_and_a_reload() -> None:
    at = go(fresh({}), ALIGNERS)
    at.selectbox(key="aligners_gold").set_value(next(o for o in at.selectbox(key="aligners_gold").options
                                                     if "typical_align" in o)).run()
    at.button(key="aligners_load").click().run()
    assert not at.exception
    assert "typical_align.txt" in sidebar(at)
    assert param(at, "dataset") == "sample:typical_align.txt"
    go(at, DATASET)  # used to load the first sample over it
    assert "typical_align.txt" in sidebar(at) and param(at, "dataset") == "sample:typical_align.txt"
    assert at.radio(key="dataset_source").value == "Built-in sample"
    assert "typical_align.txt" in at.selectbox(key="dataset_sample").value
    go(at, PAIR)
    assert "typical_align.txt" in sidebar(at) and param(at, "dataset") == "sample:typical_align.txt"
    again = fresh({"dataset": "sample:typical_align.txt"})
    assert "typical_align.txt" in sidebar(again) and not again.toast


def test_the_msr_gold_alignments_have_a_ref(shared_file) -> None:  # type: ignore[no-untyped-def]
    shared_file("data", "msr_align", "RTE2_dev_A.align.txt")
    at = fresh({"dataset": "msr:rte2-dev"})
    assert not at.toast and "MSR RTE2 dev gold" in sidebar(at)
    go(at, DATASET)
    assert "MSR RTE2 dev gold" in sidebar(at) and param(at, "dataset") == "msr:rte2-dev"
    assert at.radio(key="dataset_source").value == "MSR gold alignments"
    go(at, PAIR)
    assert param(at, "dataset") == "msr:rte2-dev"


@pytest.mark.parametrize("ref", ["msr:../../etc/passwd", "batch:../../etc", "batch:0123456789abcdef",
                                 "batch:/tmp", "sample:../app.py", "rte:../../x.xml"])
def test_a_ref_that_names_nothing_known_opens_nothing(ref: str) -> None:
    at = fresh({"dataset": ref})
    assert any("show the sample" in w.value for w in at.warning), [w.value for w in at.warning]
    assert "typical.xml" in sidebar(at)


def test_a_link_to_a_pair_the_dataset_lacks_says_so() -> None:
    at = fresh({"dataset": "sample:typical.xml", "pair": "477"})
    assert any("There is no pair 477 in typical.xml (56 pairs)" in w.value for w in at.warning)
    assert not at.html  # no verdict strip: no other pair is shown in its place
    at.selectbox(key=state.pair_pick(at.session_state[state.DATASET.key].key).key).set_value("3").run()
    assert not at.warning and param(at, "pair") == "3"
    assert 'data-pending="0"' in at.html[0].value


def test_the_dataset_page_opens_a_sample_and_an_upload_only_when_asked() -> None:
    at = go(fresh({"dataset": "sample:blind_spots.xml"}), DATASET)
    assert "blind_spots.xml" in sidebar(at)
    at.selectbox(key="dataset_sample").set_value(next(o for o in at.selectbox(key="dataset_sample").options
                                                      if o.startswith("CSV"))).run()
    assert "pairs.csv" in sidebar(at) and param(at, "dataset") == "sample:pairs.csv"
    at.radio(key="dataset_source").set_value("Upload a file").run()
    assert "pairs.csv" in sidebar(at)  # nothing uploaded yet: the dataset stays


# ---------------------------------------------------------------- batch results

def snli_like_result(folder: Path) -> Path:
    """A small batch result of SNLI-like pairs (no task, 3-way labels)."""
    from tests.app.test_batch_results import build_result

    rows = [("A man rides a bicycle in a park.", "A man rides a bicycle.", "entailment"),
            ("Two children play in the snow.", "Two children sleep indoors.", "contradiction"),
            ("A woman cooks dinner in a small kitchen.", "A woman cooks for her family.", "neutral"),
            ("A dog runs across a wide field.", "An animal runs outside.", "entailment"),
            ("Three workers fix the roof of a barn.", "Nobody is working.", "contradiction"),
            ("An old man reads a newspaper on a bench.", "A man reads.", "entailment")]
    data = folder / "snli_like.jsonl"
    data.write_text("".join(json.dumps({"sentence1": t, "sentence2": h, "gold_label": g, "pairID": f"{i}n",
                                        "annotator_labels": [g]}) + "\n" for i, (t, h, g) in enumerate(rows)),
                    encoding="utf-8")
    return build_result(data, folder / "out", chunk_size=3)


@pytest.fixture(scope="module")
def snli_result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snli_like_result(tmp_path_factory.mktemp("snli_batch"))


def open_batch(result: Path) -> AppTest:
    at = go(fresh({}), DATASET)
    at.text_input(key="batch_folder").set_value(str(result)).run()
    at.button(key="batch_open").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_a_batch_result_is_the_working_dataset_of_every_page_and_its_link(snli_result: Path) -> None:
    at = open_batch(snli_result)
    ref = param(at, "dataset")
    assert ref == f"batch:{key_of(str(snli_result))}" and str(snli_result) not in ref
    assert "snli_like.jsonl" in sidebar(at) and "typical.xml" not in sidebar(at)
    # Its header names the kind of labels in words, and the table has no "None" tasks.
    assert any("3-way labels (entailment / neutral / contradiction)" in c.value for c in at.caption)
    table = next(d.value for d in at.dataframe if "decision" in d.value.columns)
    assert set(table["task"]) == {""}
    # The Pair page reached from the sidebar shows the batch's pairs, not the sample.
    go(at, PAIR)
    assert at.text_area(key="pair_hypothesis").value == "A man rides a bicycle."
    assert "snli_like.jsonl" in sidebar(at) and param(at, "dataset") == ref
    scores = next(t.value for t in at.table if "score from" in t.value.columns).set_index("name")
    assert scores.loc["wer", "cutoff from"].startswith("this dataset: best on the whole batch result")
    # A reload (a fresh session on the URL) reopens the result and the pair.
    again = fresh({"dataset": ref, "pair": "3n"})
    assert not again.toast and "snli_like.jsonl" in sidebar(again)
    assert again.text_area(key="pair_hypothesis").value == "An animal runs outside."
    # A pair the result lacks: the page says so, with the result's size.
    missing = fresh({"dataset": ref, "pair": "99n"})
    assert any("There is no pair 99n in snli_like.jsonl" in w.value and "(6 pairs)" in w.value for w in missing.warning)
    # Opening another dataset closes the batch result.
    go(at, DATASET)
    at.button(key="batch_close").click().run()
    assert "snli_like.jsonl" not in sidebar(at) and param(at, "dataset") == "sample:typical.xml"


def test_the_pair_page_reads_a_batch_pairs_stored_slow_scores(tmp_path: Path) -> None:
    """A batch result holding a slow scorer: its pair's verdict comes from the stored value."""
    from explorer.batch.runner import prepare, refusals, write_chunk
    from explorer.batch.schema import arrow_schema, write_manifest
    from explorer.batch.worker import compact_pair, score_chunk
    from explorer.datasets import load
    from tests.unit.test_batch import ROWS, write_csv

    data = load(write_csv(tmp_path / "slow.csv", ROWS[:4]))
    out = tmp_path / "out"
    scorers = ["mbleu", "pfsm"]
    manifest = prepare(data, scorers, out, chunk_size=4)
    write_chunk(out, 0, data.pairs, 0, score_chunk([compact_pair(p) for p in data.pairs], scorers),
                arrow_schema(scorers))
    manifest.complete = True
    manifest.refused = refusals(out, manifest)
    write_manifest(out, manifest)
    at = open_batch(out)
    go(at, PAIR)
    scores = next(t.value for t in at.table if "score from" in t.value.columns).set_index("name")
    assert scores.loc["pfsm", "score from"] == "stored by the batch result"
    assert scores.loc["manli", "score from"] == "this page"  # not in the result


# ---------------------------------------------------------------- no work done twice

def test_evaluate_reads_the_scores_the_background_job_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from components import data
    from explorer.datasets import load
    from explorer.decision import cutoffs

    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path))
    csv = load(Path(APP).parent / "sample_data" / "pairs.csv")
    cutoffs.compute(csv, ["pfsm"])  # what the background job runs: it stores every pair's score
    live = data.dataset_scores(data.load_file(Path(APP).parent / "sample_data" / "pairs.csv",
                                              origin=data.SAMPLE_ORIGIN), "pfsm")
    data._SCORED.clear()
    scored: list[tuple[str, int]] = []
    real = data._chunk_scores

    def spy(key: str, scorer: str, start: int, pairs: object) -> np.ndarray:
        scored.append((scorer, start))
        return real(key, scorer, start, pairs)  # type: ignore[arg-type]

    monkeypatch.setattr(data, "_chunk_scores", spy)
    at = go(fresh({"dataset": "sample:pairs.csv"}), EVALUATE)
    at.multiselect(key="evaluate_scorers").set_value(["mbleu", "pfsm"]).run()
    assert not at.exception and not at.error
    assert ("pfsm", 0) not in scored and ("mbleu", 0) in scored  # read, not scored; mbleu has no stored scores
    read = data.dataset_scores(data.load_file(Path(APP).parent / "sample_data" / "pairs.csv",
                                              origin=data.SAMPLE_ORIGIN), "pfsm")
    np.testing.assert_allclose(read, live)  # the stored scores are the ones scoring gives
    assert ("pfsm", 0) not in scored


def test_the_errors_page_does_not_print_the_store_path() -> None:
    from explorer.store import default_path

    at = go(fresh({}), ERRORS)
    assert not any(str(default_path()) in c.value for c in at.caption)
    assert any("annotation store" in c.value for c in at.caption)
