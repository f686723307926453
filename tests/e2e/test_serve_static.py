"""The class server's proxy compresses what it sends and lets browsers keep Streamlit's
hashed bundles (serve/Caddyfile: ``encode``, and a year's Cache-Control on
``/static/(js|css|media)/NAME.HASH.EXT``), while a request without the password still gets
nothing of them: a 401 without the bundle, compressed or cached. Needs Debian's caddy
package; skipped without it."""

from __future__ import annotations

import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit

from serve import caddy
from tests.deadline import DEADLINE
from tests.e2e.class_server import ServedClass, class_server, require_caddy
from tests.e2e.streamlit_client import basic_auth

PASSWORD = "static files password"
BUNDLES = Path(streamlit.__file__).parent / "static" / "static" / "js"

pytestmark = pytest.mark.slow


def _bundle() -> str:
    """The path of Streamlit's main script bundle (its name carries its content hash)."""
    (found,) = [p.name for p in BUNDLES.glob("index.*.js") if re.fullmatch(r"index\.[A-Za-z0-9_-]{8}\.js", p.name)]
    return f"/static/js/{found}"


def _get(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=DEADLINE) as response:
            return int(response.status), {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


@pytest.fixture(scope="module")
def served() -> Iterator[ServedClass]:
    require_caddy()
    with class_server(PASSWORD, processes=1, workers=1) as server:
        yield server


def test_the_caddyfile_compresses_and_marks_hashed_bundles() -> None:
    require_caddy()
    env = caddy.caddy_environment(port=8501, gate_port=4000, gate_secret="s", upstreams=[4001], max_upload_mib=200,
                                  state_dir=caddy.CADDYFILE.parent)
    done = subprocess.run(["caddy", "adapt", "--adapter", "caddyfile", "--config", str(caddy.CADDYFILE)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for wanted in ('"handler":"encode"', '"zstd":{}', '"gzip":{}', '"require":{"headers":{"Cache-Control":null}}'):
        assert wanted in done.stdout.replace(" ", "")


@pytest.mark.parametrize("encoding", ["gzip", "zstd"])
def test_with_the_password_a_bundle_comes_compressed_and_kept_a_year(served: ServedClass, encoding: str) -> None:
    path = _get(served.url + _bundle(), {"Authorization": basic_auth(served.user, PASSWORD),
                                         "Accept-Encoding": encoding})
    status, headers, body = path
    plain = (BUNDLES / _bundle().rsplit("/", 1)[1]).stat().st_size
    assert status == 200
    assert headers.get("content-encoding") == encoding
    assert len(body) < plain / 2  # script compresses to well under half
    cache = headers.get("cache-control", "")
    assert "max-age=31536000" in cache and "immutable" in cache, cache


def test_the_page_itself_is_compressed_but_not_kept(served: ServedClass) -> None:
    status, headers, _ = _get(served.url + "/", {"Authorization": basic_auth(served.user, PASSWORD),
                                               "Accept-Encoding": "gzip"})
    assert status == 200 and headers.get("content-encoding") == "gzip"
    assert "max-age=31536000" not in headers.get("cache-control", "")  # a new release must reach the browser


@pytest.mark.parametrize("auth", [None, "wrong"])
def test_without_the_password_a_bundle_is_neither_sent_nor_cached(served: ServedClass, auth: str | None) -> None:
    headers = {"Accept-Encoding": "gzip, zstd"}
    if auth:
        headers["Authorization"] = basic_auth(served.user, "not " + PASSWORD)
    status, answer, body = _get(served.url + _bundle(), headers)
    assert status == 401
    assert answer.get("cache-control") == "no-store"  # the refusal is never kept in place of the bundle
    assert len(body) < 200 and b"function" not in body and b"streamlit" not in body.lower()
