"""Fetching missing NLTK resources (explorer/resources.py), for real: a tiny NLTK index
and package are served over HTTP on localhost and NLTK's own downloader fetches,
checks and unpacks them."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import socket
import threading
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nltk
import pytest
from nltk.downloader import Downloader

from explorer import resources
from tests.deadline import DEADLINE

WORDS = "the\nof\nand\n"


def _package() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("stopwords/", "")
        archive.writestr("stopwords/english", WORDS)
    return buffer.getvalue()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An NLTK data server on 127.0.0.1 with one package, ``stopwords``; yields the
    index URL and the directory it serves (tests may break the package there)."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    port = httpd.server_address[1]
    raw = _package()
    (served / "stopwords.zip").write_bytes(raw)
    (served / "index.xml").write_text(
        '<?xml version="1.0"?>\n<nltk_data><packages>\n'
        f'<package id="stopwords" name="Stopwords" subdir="corpora" '
        f'url="http://127.0.0.1:{port}/stopwords.zip" size="{len(raw)}" '
        f'unzipped_size="{len(WORDS)}" checksum="{hashlib.md5(raw).hexdigest()}" '
        f'sha256_checksum="{hashlib.sha256(raw).hexdigest()}" unzip="1"/>\n'
        "</packages><collections/></nltk_data>\n"
    )
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/index.xml", served
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def empty_nltk_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """NLTK sees only an empty data directory; loopback servers are allowed.

    NLTK refuses loopback and private addresses as a guard against server-side request
    forgery; with ``ENFORCE`` off it warns instead, which lets it reach the test's own
    server. Nothing else about the download is changed.
    """
    data = tmp_path / "nltk_data"
    data.mkdir()
    monkeypatch.setattr(nltk.data, "path", [str(data)])
    monkeypatch.setattr("nltk.pathsec.ENFORCE", False)
    resources.is_available.cache_clear()
    yield data
    resources.is_available.cache_clear()


@pytest.mark.filterwarnings("ignore:Security Violation:RuntimeWarning")
def test_ensure_downloads_a_missing_resource_with_progress(server: tuple[str, Path], empty_nltk_data: Path) -> None:
    url, _ = server
    assert not resources.is_available("stopwords")
    seen: list[tuple[str, float, str]] = []
    report = resources.ensure(
        ["stopwords"], downloader=Downloader(server_index_url=url), download_dir=str(empty_nltk_data),
        progress=lambda *event: seen.append(event),
    )
    assert report.fetched == ("stopwords",) and not report.failed and not report.offline
    assert (empty_nltk_data / "corpora" / "stopwords" / "english").read_text() == WORDS
    assert resources.is_available("stopwords")
    percents = [p for _, p, _ in seen]
    assert percents == sorted(percents) and seen[-1] == ("stopwords", 100.0, "installed")
    assert report.format() == "NLTK resources: fetched stopwords; all found."
    # Found now, so a second call has nothing to do.
    again = resources.ensure(["stopwords"], downloader=Downloader(server_index_url=url))
    assert again.wanted == () and again.format().startswith("NLTK resources: all")


@pytest.mark.filterwarnings("ignore:Security Violation:RuntimeWarning")
def test_a_package_that_fails_its_checksum_is_not_installed(server: tuple[str, Path], empty_nltk_data: Path) -> None:
    url, served = server
    tampered = _package().replace(b"the\n", b"THE\n")
    (served / "stopwords.zip").write_bytes(tampered)
    report = resources.ensure(["stopwords"], downloader=Downloader(server_index_url=url),
                              download_dir=str(empty_nltk_data))
    assert report.fetched == () and report.failed[0][0] == "stopwords" and not report.offline
    assert "mismatch" in report.failed[0][1]  # NLTK's own integrity check refused it
    assert not resources.is_available("stopwords")
    assert "still missing (stopwords): the download failed" in report.format()


@pytest.mark.filterwarnings("ignore:Security Violation:RuntimeWarning")
def test_offline_means_degraded_with_one_line_saying_so(empty_nltk_data: Path) -> None:
    with socket.socket() as sock:  # a port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    report = resources.ensure(["stopwords", "wordnet"],
                              downloader=Downloader(server_index_url=f"http://127.0.0.1:{port}/index.xml"))
    assert report.offline and report.wanted == ("stopwords", "wordnet") and not report.fetched
    line = report.format()
    assert "\n" not in line and "2 still missing (stopwords, wordnet)" in line
    assert "cannot be reached" in line and "degraded" in line and "make resources" in line


def test_the_make_run_entry_point_prints_one_line_when_all_is_found(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resources, "missing", lambda: [])
    monkeypatch.setattr(resources, "is_available", functools.cache(lambda nltk_id: True))
    assert resources.main(["ensure"]) == 0
    assert capsys.readouterr().err == f"NLTK resources: all {len(resources.RESOURCES)} found.\n"
    assert resources.main(["bogus"]) == 2


@pytest.mark.slow
def test_wordnet_loads_without_the_version_map_from_its_disk_cache_and_reads_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The explorer's WordNet reader skips NLTK's map of WordNet 3.0 onto itself and keeps
    its lemma index on disk; its index, lemmas and synsets are those of NLTK's own reader."""
    if not resources.is_available("wordnet"):
        pytest.skip("the NLTK resource 'wordnet' is not installed")
    from nltk.corpus import wordnet
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from explorer.preprocess import lemma

    resources.prepare_wordnet()
    assert lemma("bought", "VBD") == "buy" and lemma("geese", "NNS") == "goose"
    reader = type(wordnet)
    assert reader is not WordNetCorpusReader and issubclass(reader, WordNetCorpusReader)
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    with warnings.catch_warnings():  # "no multilingual functions": none are wanted here
        warnings.simplefilter("ignore")
        first = reader(wordnet.root, None)  # parses the index files, keeps the index on disk
        assert [p.name for p in tmp_path.glob("wordnet-index-*.json")] and first.map30 is None
        second = reader(wordnet.root, None)  # reads it from there
        stock = WordNetCorpusReader(wordnet.root, None)  # NLTK's own reader, with its map
    assert stock.map30  # (which it does build)
    assert first._lemma_pos_offset_map == second._lemma_pos_offset_map == stock._lemma_pos_offset_map
    for word in ("car", "bank", "run", "quickly", "happy", "glad"):
        for pos in (None, "a", "s"):
            names = [s.name() for s in stock.synsets(word, pos)]
            assert [s.name() for s in second.synsets(word, pos)] == names
        assert [h.name() for s in second.synsets(word) for h in s.hypernyms()] == \
            [h.name() for s in stock.synsets(word) for h in s.hypernyms()]
        assert second._morphy(word + "s", "n") == stock._morphy(word + "s", "n")


@pytest.mark.slow  # a fresh interpreter importing NLTK, scikit-learn and scipy
def test_nltk_is_imported_without_the_bridges_the_explorer_never_uses() -> None:
    """In a fresh interpreter: NLTK imports and tokenises without pulling scikit-learn and
    scipy.stats in, and both still import afterwards for whoever needs them."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from explorer import resources\n"
        "from explorer.preprocess import tokenize\n"
        "print(tokenize('Ilse bought a car.'))\n"
        "print(sorted(n for n in resources.NLTK_UNUSED_BRIDGES if n in sys.modules))\n"
        "import sklearn.linear_model, scipy.stats\n"
        "print(scipy.stats.pearsonr([1, 2, 3], [1, 2, 4]).statistic > 0.9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["('Ilse', 'bought', 'a', 'car', '.')", "[]", "True"]


@pytest.mark.slow
def test_ppdb_is_parsed_once_then_read_from_the_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not resources.is_available("mwa_ppdb"):
        pytest.skip("the NLTK resource 'mwa_ppdb' is not installed")
    from explorer.lexical import ppdb

    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    ppdb.load_ppdb.cache_clear()
    try:
        parsed = ppdb.load_ppdb()
        kept = list(tmp_path.glob("ppdb-lexical-*.json"))
        assert len(kept) == 1 and len(parsed) > 1000
        ppdb.load_ppdb.cache_clear()
        assert ppdb.load_ppdb() == parsed  # from the cache file
        kept[0].write_text("[1, 2", encoding="utf-8")  # a torn file is parsed again
        ppdb.load_ppdb.cache_clear()
        assert ppdb.load_ppdb() == parsed
    finally:
        ppdb.load_ppdb.cache_clear()


@pytest.mark.filterwarnings("ignore:Security Violation:RuntimeWarning")
def test_the_make_run_entry_point_offline_prints_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, empty_nltk_data: Path
) -> None:
    with socket.socket() as sock:  # a port nobody listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(resources, "default_downloader",
                        lambda: Downloader(server_index_url=f"http://127.0.0.1:{port}/index.xml"))
    assert resources.main(["ensure"]) == 0
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.splitlines()) == 1 and "Traceback" not in out.err
    assert f"{len(resources.RESOURCES)} still missing" in out.err and "cannot be reached" in out.err
