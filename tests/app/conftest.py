"""Every AppTest starts from a fresh process as far as the app's state goes: AppTest runs
the pages in this process, so what one test scored, uploaded or cached would otherwise
decide what a later one shows (the Pair page takes a dataset's own cutoffs once this
process has scored it), and the layer would pass or fail by its order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st


def _forget_process_state() -> None:
    from components import analysis, data, workers

    data.reset()  # scored datasets, batch results' cutoffs, uploads
    analysis.reset()  # kept results: the Pair page prefers one computed here to a stored score
    workers.reset()  # a pool a test started (the next test reads EXPLORER_WORKERS again)
    st.cache_data.clear()
    st.cache_resource.clear()  # opened batch results (each a DuckDB connection) and stores


@pytest.fixture(autouse=True)
def fresh_app_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test with its own cutoff cache, uploads folder and annotation store on disk,
    and none of the process-wide caches an earlier test filled."""
    monkeypatch.setenv("EXPLORER_CUTOFF_CACHE", str(tmp_path / "app-cutoffs"))
    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(tmp_path / "app-uploads"))
    monkeypatch.setenv("ENTAILMENT_EXPLORER_STORE", str(tmp_path / "app-store" / "store.sqlite3"))
    _forget_process_state()
    yield
    _forget_process_state()
