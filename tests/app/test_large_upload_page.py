"""A large upload on the Dataset page costs a page, not the file: its first page of pairs is
scored and sent alone (the browser gets a page of rows), later pages on request, and the
whole dataset only when someone asks for it (components/pages/dataset.py)."""

from __future__ import annotations

import gc

import pytest
from streamlit.testing.v1 import AppTest

from components import data, uploads
from tests.app.test_uploads import APP, DATASET, TIMEOUT

PAIRS = 2_600  # over the page's whole-dataset mark (2,000), six pages of 500


def csv_pairs(n: int) -> bytes:
    rows = "".join(f"q{i},The ferry to the island left at {i % 24} o'clock.,A ferry left.,"
                   f"{'entailment' if i % 3 else 'contradiction'}\n" for i in range(n))
    return ("id,text,hypothesis,label\n" + rows).encode()


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(tmp_path))
    data.reset()
    gc.collect()


def uploaded(monkeypatch: pytest.MonkeyPatch) -> tuple[AppTest, list[int]]:
    """The Dataset page with the large upload, and the first pair of every chunk scored."""
    scored: list[int] = []
    real = data._chunk_scores

    def counting(key: str, scorer: str, start: int, pairs: object) -> object:
        scored.append(start)
        return real(key, scorer, start, pairs)  # type: ignore[arg-type]

    monkeypatch.setattr(data, "_chunk_scores", counting)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(DATASET).run()
    at.radio(key="dataset_source").set_value("Upload a file").run()
    at.file_uploader(key="dataset_upload").set_value(("ferries.csv", csv_pairs(PAIRS), "text/csv")).run()
    assert not at.exception and not at.error
    return at, scored


def test_a_large_upload_shows_its_first_page_scoring_only_that_page(monkeypatch: pytest.MonkeyPatch) -> None:
    at, scored = uploaded(monkeypatch)
    table = at.dataframe[0].value
    assert list(table["id"][:2]) == ["q0", "q1"] and len(table) == 500
    assert sorted(set(scored)) == list(range(0, 500, data.CHUNK))  # the first page's chunks, no more
    assert any("scored a page at a time" in c.value for c in at.caption)
    assert len(at.selectbox(key="dataset_pick").options) == 500  # the pick list is the page too

    page = next(n for n in at.number_input if n.key.startswith("dataset_page_"))
    page.set_value(6).run()
    table = at.dataframe[0].value
    assert list(table["id"]) == [f"q{i}" for i in range(2_500, PAIRS)]
    assert sorted(set(scored)) == [*range(0, 500, data.CHUNK), *range(2_500, PAIRS, data.CHUNK)]


def test_scoring_the_whole_upload_is_asked_for_and_still_sends_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    at, scored = uploaded(monkeypatch)
    at.button(key="dataset_score_all").click().run()
    assert not at.exception and not at.error
    assert sorted(set(scored)) == list(range(0, PAIRS, data.CHUNK))
    assert any(f"of {PAIRS:,} pairs" in c.value for c in at.caption)  # every pair in the filters now
    assert len(at.dataframe[0].value) == 500
    assert uploads.DATASETS  # the dataset stays cached while the session uses it


def test_a_large_uploads_background_job_starts_only_when_asked(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: object) -> None:
    from runtime import cutoff_jobs

    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path))
    monkeypatch.setenv("EXPLORER_BACKGROUND_CUTOFFS", "1")
    asked: list[str] = []

    def request(self: object, fp: str, data: bytes, file_name: str, name: str, scorers: list[str],
                n_labelled: int) -> cutoff_jobs.JobStatus:
        asked.append(name)  # recorded, not run: scoring 2,600 pairs with every method is not this test's
        return cutoff_jobs.JobStatus(fp, name, cutoff_jobs.REFUSED, tuple(scorers), error="not run in this test")

    monkeypatch.setattr(cutoff_jobs.CutoffJobs, "request", request)
    at, _ = uploaded(monkeypatch)
    at.switch_page("components/pages/pair.py").run()
    assert not at.exception and "ferries.csv" not in asked  # (the sample the app opened on has its job)
    ask = next(b for b in at.button if b.key.startswith("cutoff_job_ask_"))
    ask.click().run()
    assert not at.exception and asked.count("ferries.csv") == 1
