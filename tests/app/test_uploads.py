"""Uploads in the app: read by the bounded reader (never parsed in the server), refused
past the app's limits with a message naming them (the old dataset stays), and kept in
caches bounded by measured bytes (components/uploads.py)."""

from __future__ import annotations

import gc
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import data, state, uploads
from components.data import load_uploaded
from explorer.datasets import DatasetError
from runtime.isolated_reader import ReadLimitError
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
DATASET = "components/pages/dataset.py"
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)


def sts(n: int, salt: str = "") -> bytes:
    return "".join(f"{i % 6}\tA man plays guitar {salt}{i}.\tA man plays music.\n" for i in range(n)).encode()


@pytest.fixture(autouse=True)
def empty_caches() -> None:
    uploads.DATASETS.clear()
    uploads.SOURCES.clear()
    gc.collect()


def dataset_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(DATASET).run()
    at.radio(key="dataset_source").set_value("Upload a file").run()
    assert not at.exception
    return at


def test_streamlit_refuses_files_past_the_apps_upload_limit() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] == uploads.MAX_UPLOAD_MB
    assert uploads.LIMITS.bytes == uploads.MAX_UPLOAD_MB * 1024 * 1024


def test_a_kept_upload_is_readable_by_its_owner_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    folder = tmp_path / "cache" / "uploads"
    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(folder))
    old = os.umask(0o022)  # the usual umask: files 0644, folders 0755 unless asked otherwise
    try:
        loaded = data.remember_upload(sts(3), "three.tsv")
    finally:
        os.umask(old)
    assert (folder.stat().st_mode & 0o777, (folder.parent.stat().st_mode & 0o777)) == (0o700, 0o700)
    kept = sorted(folder.iterdir())
    assert [p.name for p in kept] == [f"{loaded.key}.bin", f"{loaded.key}.name"]
    assert [p.stat().st_mode & 0o777 for p in kept] == [0o600, 0o600]


def test_an_uploads_pairs_leave_the_store_with_it_unless_annotated(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.store import Store

    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(tmp_path / "uploads"))
    monkeypatch.setattr(data, "UPLOADS_KEPT", 1)
    store = Store(tmp_path / "store.sqlite3")
    ids = {}
    for name in ("plain.tsv", "annotated.tsv"):
        loaded = data.remember_upload(sts(4, salt=name), name)
        ids[name] = store.add_dataset(loaded.dataset)
        data.note_stored_upload(loaded, str(store.path), ids[name])  # what the Pair page's first view does
        if name == "annotated.tsv":
            store.add_note(ids[name], "1", "the verb decides it", author="ann")
    # the second upload dropped the first: its pairs went with it, nobody had annotated them
    names = {d.id: d.name for d in store.datasets()}
    assert list(names.values()) == ["annotated.tsv"] and names[ids["annotated.tsv"]] == "annotated.tsv"
    data.remember_upload(sts(2, salt="third"), "third.tsv")  # drops the annotated one: its pairs stay
    assert [d.name for d in store.datasets()] == ["annotated.tsv"]
    assert [n.body for n in store.notes(ids["annotated.tsv"])] == ["the verb decides it"]
    assert not list((tmp_path / "uploads").glob("*.store"))  # nothing left beside the dropped uploads


def test_a_session_never_annotates_a_dataset_that_took_its_uploads_store_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from components import store_access
    from explorer.store import ENV_VAR

    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(tmp_path / "uploads"))
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "store.sqlite3"))
    mine = data.remember_upload(sts(3, salt="mine"), "mine.tsv")
    store = store_access.get_store()
    first = store.add_dataset(mine.dataset)
    assert store_access._still_stored(mine, first)
    assert store.delete_unannotated(first)  # the upload was dropped
    other = store.add_dataset(load_uploaded(sts(3, salt="other"), "other.tsv").dataset)
    assert other == first  # SQLite gave the id to the next dataset
    assert not store_access._still_stored(mine, first)  # so the session registers its upload again


def test_showing_an_upload_stores_none_of_its_pairs_until_one_is_tagged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from components import store_access
    from explorer.store import ENV_VAR

    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(tmp_path / "uploads"))
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "store.sqlite3"))
    at = dataset_page()
    at.file_uploader(key="dataset_upload").set_value(("shown.tsv", sts(4, salt="shown"), "text/plain")).run()
    assert not at.exception and list(at.dataframe[0].value["tags"]) == ["", "", "", ""]
    store = store_access.get_store()
    assert "shown.tsv" not in {d.name for d in store.datasets()}  # shown with its (empty) tag column, not stored
    loaded = at.session_state[state.DATASET.key]
    store.tag_pairs(store_access.store_dataset_id(loaded), ["2"], ["negation"], author="ann")
    at.run()
    assert "shown.tsv" in {d.name for d in store.datasets()}
    assert list(at.dataframe[0].value["tags"]) == ["", "negation", "", ""]  # ids 1-4


def test_an_upload_is_never_parsed_in_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    def in_server(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed in the server process")

    monkeypatch.setattr(uploads, "load_bytes", in_server)
    loaded = load_uploaded(sts(5), "five.tsv")
    assert len(loaded.dataset) == 5
    with pytest.raises(AssertionError):  # the explorer's own files are parsed here
        data.load_file(data.DEFAULT_SAMPLE, origin=data.SAMPLE_ORIGIN)


def test_the_uploader_says_what_the_limits_are() -> None:
    at = dataset_page()
    uploader = at.get("file_uploader")[0]
    assert "100,000 pairs" in uploader.help and f"{uploads.MAX_UPLOAD_MB} MB" in uploader.help
    assert "batch" in uploader.help
    assert uploader.proto.max_upload_size_mb == uploads.MAX_UPLOAD_MB


def test_a_file_over_the_pair_limit_is_refused_naming_batch_and_the_dataset_stays() -> None:
    at = dataset_page()
    before = at.session_state[state.DATASET.key].key
    at.file_uploader(key="dataset_upload").set_value(("huge.tsv", sts(100_001), "text/tab-separated-values")).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("100,001 records is over the 100,000-pair limit" in e and "python -m explorer batch" in e
               for e in errors), errors
    assert at.session_state[state.DATASET.key].key == before


def test_the_parsed_datasets_are_kept_within_their_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    one = load_uploaded(sts(200, "a"), "a.tsv")
    size = uploads.DATASETS.total
    assert size > 200 * 100  # measured, not counted
    monkeypatch.setattr(uploads.DATASETS, "budget", int(size * 2.5))
    monkeypatch.setattr(uploads.SOURCES, "budget", len(sts(200, "a")) * 2)
    for salt in "bcde":
        load_uploaded(sts(200, salt), f"{salt}.tsv")
    assert uploads.DATASETS.total <= size * 2.5 and len(uploads.DATASETS) == 2
    assert uploads.SOURCES.total <= len(sts(200, "a")) * 2 and len(uploads.SOURCES) == 2
    assert data.dataset_source(one) is None  # the oldest file went first


def test_uploads_held_past_the_servers_budget_are_refused_until_one_is_let_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    before = uploads.LIVE.total  # whatever else is alive in this process
    first = load_uploaded(sts(300, "a"), "a.tsv")
    held, size = uploads.LIVE.total, uploads.LIVE.total - before
    monkeypatch.setattr(uploads, "LIVE_BYTES", held + size // 2)  # room for half another
    with pytest.raises(ReadLimitError, match=r"b\.tsv: this server already holds .* MB of uploaded datasets") as err:
        load_uploaded(sts(300, "b"), "b.tsv")  # the cache let go, but a session still holds the first
    assert err.value.limit == "live"
    del first
    gc.collect()
    assert len(load_uploaded(sts(300, "b"), "b.tsv").dataset) == 300


def test_a_shared_link_to_an_upload_over_the_limits_opens_the_sample_and_says_why() -> None:
    folder = data.uploads_dir()
    folder.mkdir(parents=True, exist_ok=True)
    key = "0123456789abcdef"
    (folder / f"{key}.bin").write_bytes(sts(100_001))
    (folder / f"{key}.name").write_text("kept.tsv", encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["dataset"] = f"upload:{key}"
    at.run()
    assert not at.exception
    assert at.session_state[state.DATASET.key].name == data.DEFAULT_SAMPLE.name
    assert any("100,000-pair limit" in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_malformed_upload_still_says_which_line() -> None:
    with pytest.raises(DatasetError, match="line 2"):
        load_uploaded(b"1\ta\tb\n2\tc\n", "broken.tsv")
