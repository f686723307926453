"""The class server (``make serve-class``: Caddy with basic authentication in front of
Streamlit processes), served on a free port: nothing of Streamlit answers without the
password, an unauthenticated upload is refused before its body reaches Streamlit, the app
works through the proxy with the password (websocket, sticky uploads over two processes,
a real browser), every process loads its methods before a student arrives, a crashed
Streamlit process is restarted, and SIGTERM leaves nothing running. Needs Debian's caddy package (``.ci/run`` installs it); skipped without it."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import psutil
import pytest

from serve import caddy
from tests.deadline import DEADLINE, DEADLINE_MS
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.e2e.class_server import (
    ServedClass,
    bytes_read,
    class_server,
    put_without_password,
    require_caddy,
    streamlit_processes,
)
from tests.e2e.streamlit_client import Session, basic_auth, element_kind

PASSWORD = "lecture-2 password"
#: A path of every kind Streamlit serves, and the method a client would use.
ENDPOINTS = [
    ("GET", "/"), ("GET", "/_stcore/health"), ("GET", "/_stcore/metrics"), ("GET", "/_stcore/host-config"),
    ("GET", "/_stcore/script-health-check"), ("GET", "/media/0123456789abcdef.png"), ("GET", "/static/js/index.js"),
    ("GET", "/component/streamlit_x/index.html"), ("GET", "/_stcore/stream"),
    ("PUT", "/_stcore/upload_file/session/file"), ("DELETE", "/_stcore/upload_file/session/file"),
]
UPLOAD_BYTES = 190 * 1024 * 1024

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served() -> Iterator[ServedClass]:
    """Two Streamlit processes behind Caddy, so the sticky cookie has a choice to get wrong."""
    require_caddy()
    with class_server(PASSWORD, processes=2, workers=1) as server:
        yield server


def _status(url: str, *, method: str = "GET", auth: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, method=method, headers={"Authorization": auth} if auth else {})
    try:
        with urllib.request.urlopen(request, timeout=DEADLINE) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_every_process_loads_its_methods_before_the_first_student(served: ServedClass) -> None:
    deadline = time.monotonic() + 2 * DEADLINE  # two warm-ups at once on a shared machine
    while True:
        with open(served.log, encoding="utf-8") as handle:
            log = handle.read()
        if all(f"serve-class: app {i}: every method loaded" in log for i in (1, 2)):
            break
        assert time.monotonic() < deadline, f"no process said its methods were loaded:\n{log}"
        time.sleep(1)
    assert "could not load the methods" not in log


def test_the_caddyfile_adapts() -> None:
    require_caddy()
    env = caddy.caddy_environment(port=8501, user="class", password_hash="$2a$14$" + "x" * 53, upstreams=[4001, 4002],
                                  max_upload_mib=200, state_dir=caddy.CADDYFILE.parent)
    done = subprocess.run(["caddy", "adapt", "--adapter", "caddyfile", "--config", str(caddy.CADDYFILE)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for wanted in (f'"max_size":{201 * 1024 * 1024}', '"policy":"cookie"', '"dial":"127.0.0.1:4002"', '"http_basic"',
                   '"listen":[":8501"]', '"disabled":true'):
        assert wanted in done.stdout


def test_nothing_of_streamlit_answers_without_the_password(served: ServedClass) -> None:
    wrong = basic_auth(served.user, "not " + PASSWORD)
    for method, path in ENDPOINTS:
        for auth in (None, wrong):
            status, body = _status(served.url + path, method=method, auth=auth)
            assert status == 401, (method, path, auth is not None)
            assert b"streamlit" not in body.lower()
    from websockets.exceptions import InvalidStatus

    for credentials in (None, (served.user, "not " + PASSWORD)):
        session = Session(served.url, auth=credentials, timeout=DEADLINE)
        with pytest.raises(InvalidStatus) as refused:
            asyncio.run(session.open())
        assert refused.value.response.status_code == 401
        assert session.received_messages == 0  # no page drawn


def test_an_upload_without_the_password_never_reaches_streamlit(served: ServedClass) -> None:
    apps = streamlit_processes(served.pid)
    assert len(apps) == 2
    before = bytes_read(apps)
    answer, sent = put_without_password(served.port, UPLOAD_BYTES)
    read = bytes_read(apps) - before
    assert answer.startswith(b"HTTP/1.1 401"), answer[:100]
    # Caddy answered without reading the body: the client could not push more than the
    # sockets' buffers hold before the connection was closed on it.
    assert sent < 32 * 1024 * 1024, f"{sent:,} of {UPLOAD_BYTES:,} bytes went out before the 401"
    # Streamlit read no more than Caddy's health checks in the meantime: not the upload.
    assert read < 1024 * 1024, f"the Streamlit processes read {read:,} bytes during the refused upload"


def test_with_the_password_the_app_works_through_the_proxy(served: ServedClass) -> None:
    status, body = _status(served.url + "/", auth=basic_auth(*served.auth))
    assert status == 200 and b"<html" in body.lower()
    assert _status(served.url + "/_stcore/health", auth=basic_auth(*served.auth)) == (200, b"ok")

    async def visit() -> tuple[str, int, bool]:
        session = Session(served.url, auth=served.auth, timeout=DEADLINE)
        title = session.expect(lambda m: element_kind(m) == "heading" and m.delta.new_element.heading.body == "Pair")
        await session.open("dataset=sample:typical.xml")
        await session.wait(title)
        # Uploads go to the process holding the session (else Streamlit answers 400:
        # unknown session), so this also checks the sticky cookie over two processes.
        put, _ = await session.put_file("pairs.csv", b"id,text,hypothesis,label\n1,a b,a,entailment\n")
        await session.close()
        return session.cookies.get("explorer_upstream", ""), put.status, "_streamlit_xsrf" in session.cookies

    sticky, upload_status, xsrf = asyncio.run(visit())
    assert sticky, "Caddy set no sticky cookie"
    assert upload_status == 204
    assert xsrf  # Streamlit's XSRF protection is on behind the proxy


def test_a_browser_with_the_password_gets_the_page(served: ServedClass) -> None:
    require_chromium()
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            refused = browser.new_context().new_page()
            # Asked for credentials it does not have, Chromium gives up on the page.
            with pytest.raises(PlaywrightError, match="ERR_INVALID_AUTH_CREDENTIALS"):
                refused.goto(served.url, timeout=DEADLINE_MS)
            assert refused.locator("textarea").count() == 0
            context = browser.new_context(http_credentials={"username": served.user, "password": PASSWORD})
            page = context.new_page()
            page.goto(served.url, timeout=DEADLINE_MS)
            # The Pair page's text boxes come over the websocket: the browser's upgrade went
            # through the proxy with the credentials.
            page.wait_for_selector("h1:has-text('Pair')", timeout=DEADLINE_MS)
            page.locator("textarea").first.wait_for(timeout=DEADLINE_MS)
        finally:
            browser.close()


def test_a_crashed_process_is_restarted_and_sigterm_stops_everything() -> None:
    require_caddy()
    with class_server(PASSWORD, processes=1, workers=1) as served:
        supervisor = psutil.Process(served.pid)
        (first,) = streamlit_processes(served.pid)
        first.kill()
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            replaced = [p for p in streamlit_processes(served.pid) if p.pid != first.pid]
            if replaced and _status(served.url + "/_stcore/health", auth=basic_auth(*served.auth)) == (200, b"ok"):
                break
            time.sleep(0.5)
        else:
            pytest.fail("the killed Streamlit process was not replaced")
        with open(served.log, encoding="utf-8") as handle:
            assert "app 1 stopped unexpectedly (killed by SIGKILL); restarting it" in handle.read()
        everything = [supervisor, *supervisor.children(recursive=True)]
        assert any("caddy" in p.name() for p in everything)
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=DEADLINE) == 0
        gone, alive = psutil.wait_procs(everything, timeout=DEADLINE)
        assert not alive, [p.pid for p in alive]
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", served.port), timeout=5).close()
