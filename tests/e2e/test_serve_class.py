"""The class server (``make serve-class``: Caddy asking the class server's gate about every
request, in front of Streamlit processes), served on a free port: nothing of Streamlit
answers without the password, an unauthenticated upload is refused before its body reaches
Streamlit, a wrong-password flood is refused cheaply past its limit while a student signs
in, the gate's cookie opens the websocket and a forged one does not, oversized credentials
are refused and not kept, made-up uploads are bounded per session, every request for upload
URLs is answered while the page reruns itself, the app works through the proxy with the
password (websocket, sticky uploads over two processes, a real browser), every process loads
its methods before a student arrives, a crashed Streamlit process is restarted, and SIGTERM
leaves nothing running. Needs Debian's caddy package (``.ci/run`` installs it); skipped
without it."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import psutil
import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from serve import caddy
from serve.gate import COOKIE, FAILURE_WINDOW_S, FAILURES_ALLOWED
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
from tests.e2e.streamlit_client import FINISHED, Session, basic_auth, element_kind

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


def _methods_loaded(served: ServedClass) -> str:
    """The server's output once both processes say their methods are loaded."""
    deadline = time.monotonic() + 2 * DEADLINE  # two warm-ups at once on a shared machine
    while True:
        with open(served.log, encoding="utf-8") as handle:
            log = handle.read()
        if all(f"serve-class: app {i}: every method loaded" in log for i in (1, 2)):
            return log
        assert time.monotonic() < deadline, f"no process said its methods were loaded:\n{log}"
        time.sleep(1)


def _quiet(apps: list[psutil.Process], *, most: int = 64 * 1024) -> None:
    """Until the processes read less than ``most`` bytes in a second: their warm-up and an
    earlier test's runs, which read model files and caches, are over."""
    deadline = time.monotonic() + DEADLINE
    before = bytes_read(apps)
    while True:
        time.sleep(1)
        now = bytes_read(apps)
        if now - before < most:
            return
        assert time.monotonic() < deadline, f"the Streamlit processes never stopped reading ({now - before:,} B/s)"
        before = now


def test_every_process_loads_its_methods_before_the_first_student(served: ServedClass) -> None:
    assert "could not load the methods" not in _methods_loaded(served)


def test_the_caddyfile_adapts() -> None:
    require_caddy()
    env = caddy.caddy_environment(port=8501, gate_port=4000, gate_secret="s3cret", upstreams=[4001, 4002],
                                  max_upload_mib=200, state_dir=caddy.CADDYFILE.parent)
    done = subprocess.run(["caddy", "adapt", "--adapter", "caddyfile", "--config", str(caddy.CADDYFILE)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for wanted in (f'"max_size":{201 * 1024 * 1024}', '"policy":"cookie"', '"dial":"127.0.0.1:4002"',
                   '"dial":"127.0.0.1:4000"', '"X-Gate-Secret":["s3cret"]', '"max_header_bytes":16384',
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
    _methods_loaded(served)  # the warm-up reads files: what it reads is not the upload
    _quiet(apps)
    before = bytes_read(apps)
    answer, sent = put_without_password(served.port, UPLOAD_BYTES)
    read = bytes_read(apps) - before
    assert answer.startswith(b"HTTP/1.1 401"), answer[:100]
    # Caddy answered without reading the body: the client could not push more than the
    # sockets' buffers hold before the connection was closed on it.
    assert sent < 32 * 1024 * 1024, f"{sent:,} of {UPLOAD_BYTES:,} bytes went out before the 401"
    # Streamlit read no more than Caddy's health checks in the meantime: not the upload.
    assert read < 1024 * 1024, f"the Streamlit processes read {read:,} bytes during the refused upload"


def _from(source: str, port: int, headers: str = "") -> str:
    """The status line of ``GET /`` sent from the local address ``source`` (another client,
    as the gate counts them: every 127.x address is this machine)."""
    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE, source_address=(source, 0)) as sock:
        sock.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n".encode())
        answer = b""
        while b"\r\n" not in answer and (chunk := sock.recv(4096)):
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode(errors="replace")


def _server_process(root: int, name: str) -> psutil.Process:
    (found,) = [p for p in psutil.Process(root).children(recursive=True) if name in " ".join(p.cmdline())]
    return found


def _cpu(processes: list[psutil.Process]) -> float:
    return sum(sum(p.cpu_times()[:2]) for p in processes)


def test_a_wrong_password_flood_is_refused_cheaply_while_a_student_signs_in(served: ServedClass) -> None:
    front = [_server_process(served.pid, "serve.gate"), _server_process(served.pid, "caddy run")]
    cpu_before = _cpu(front)
    guesses = 6 * FAILURES_ALLOWED
    refused = threading.Event()

    def guess(n: int) -> str:
        status = _from("127.0.0.2", served.port, f"Authorization: {basic_auth(served.user, f'guess {n}')}\r\n")
        if " 429 " in status + " ":
            refused.set()
        return status

    started = time.monotonic()
    with ThreadPoolExecutor(8) as flood:
        statuses = flood.map(guess, range(guesses))
        assert refused.wait(DEADLINE), "the flood was never refused"

        async def sign_in() -> int:  # a student on another address, during the flood
            session = Session(served.url, auth=served.auth, timeout=DEADLINE)
            title = session.expect(lambda m: element_kind(m) == "heading" and m.delta.new_element.heading.body == "Pair")
            await session.open()
            await session.wait(title)
            await session.close()
            return session.received_messages

        assert asyncio.run(sign_in()) > 0
        counted = Counter(status.split(" ")[1] for status in statuses)
    # The limit's bucket drains one failure each FAILURE_WINDOW_S / FAILURES_ALLOWED seconds:
    # a flood this long may have that many more checked.
    checked = FAILURES_ALLOWED + int((time.monotonic() - started) / (FAILURE_WINDOW_S / FAILURES_ALLOWED)) + 1
    assert counted["401"] <= checked and counted["429"] >= guesses - checked, counted
    # Caddy's basicauth spent 0.77 s of CPU on each new wrong password (92 s for these); the
    # gate checks FAILURES_ALLOWED of them with scrypt (about 50 ms each) and no more.
    assert _cpu(front) - cpu_before < 15, f"{_cpu(front) - cpu_before:.1f} s of CPU for {guesses} wrong passwords"


def test_the_session_cookie_opens_the_websocket_and_a_forged_one_does_not(served: ServedClass) -> None:
    from websockets.exceptions import InvalidStatus

    status, _ = _status(served.url + "/_stcore/health", auth=basic_auth(*served.auth))
    signed_in = Session(served.url, auth=served.auth, timeout=DEADLINE)
    asyncio.run(signed_in.http("GET", "/_stcore/health"))
    cookie = signed_in.cookies[COOKIE]
    expiry, signature = cookie.split(".")

    async def visit(value: str) -> int:
        session = Session(served.url, timeout=DEADLINE)  # no password: the cookie alone
        session.cookies[COOKIE] = value
        title = session.expect(lambda m: element_kind(m) == "heading" and m.delta.new_element.heading.body == "Pair")
        await session.open()
        await session.wait(title)
        await session.close()
        return session.received_messages

    assert asyncio.run(visit(cookie)) > 0
    for forged in (f"{int(expiry) + 3600}.{signature}", f"{expiry}.{'A' * len(signature)}"):
        with pytest.raises(InvalidStatus) as refused:
            asyncio.run(visit(forged))
        assert refused.value.response.status_code == 401


def test_oversized_credentials_and_heads_are_refused_and_not_kept(served: ServedClass) -> None:
    proxy = _server_process(served.pid, "caddy run")
    assert _from("127.0.0.3", served.port, f"Authorization: Basic {'QUFB' * 500}\r\n").startswith("HTTP/1.1 431")
    rss_before = proxy.memory_info().rss
    for n in range(20):  # 700 KB each: Caddy's basicauth kept such passwords (+56 MB for twenty)
        status = _from("127.0.0.3", served.port, f"Authorization: Basic {str(n) * 700_000}\r\n")
        assert status.startswith("HTTP/1.1 431") or not status, status
    grown = proxy.memory_info().rss - rss_before
    assert grown < 16 * 2**20, f"Caddy grew by {grown / 2**20:.0f} MB"


def test_files_no_widget_asked_for_are_bounded_per_session(served: ServedClass) -> None:
    """Twelve 1 MiB files PUT under one session with made-up names, never handed to a widget:
    its Streamlit process keeps at most components.upload_bounds.SESSION_FILES of them (by
    Streamlit's own count of its uploads' bytes, /_stcore/metrics)."""
    from components.upload_bounds import SESSION_FILES

    async def made_up_files() -> int:
        session = Session(served.url, auth=served.auth, timeout=DEADLINE)
        title = session.expect(lambda m: element_kind(m) == "heading" and m.delta.new_element.heading.body == "Pair")
        await session.open()
        await session.wait(title)
        for n in range(12):
            put, _ = await session.put_file(f"made-up-{n}.csv", bytes([65 + n]) * 2**20)
            assert put.status == 204
        deadline = time.monotonic() + DEADLINE
        held = -1
        while time.monotonic() < deadline:  # the metric is cached for 5 s: until it counts them
            metrics = (await session.http("GET", "/_stcore/metrics")).body.decode()
            lines = [line for line in metrics.splitlines() if 'cache_type="UploadedFileManager"' in line]
            held = sum(int(line.rsplit(" ", 1)[1]) for line in lines)
            if held >= SESSION_FILES * 2**20:
                break
            await asyncio.sleep(0.5)
        await session.close()
        return held

    held = asyncio.run(made_up_files())
    assert SESSION_FILES * 2**20 <= held <= SESSION_FILES * 2**20 + 64 * 1024, f"{held / 2**20:.1f} MiB held"


def test_every_request_for_upload_urls_is_answered_while_the_page_reruns_itself(served: ServedClass) -> None:
    """Sessions asking for upload URLs every few milliseconds from the moment they open
    until the Pair page is drawn, through the first run's start and the page's own
    ``st.rerun`` (its figures, in a run of their own), get every answer: Streamlit alone
    dropped an answer still queued when a run started, and the uploader waited forever
    (components.upload_answers). Without it a third of such sessions lost one or more."""

    async def flood() -> tuple[int, set[str], set[str]]:
        session = Session(served.url, auth=served.auth, timeout=DEADLINE)
        answered: set[str] = set()
        starts = [0]

        def note(m: ForwardMsg) -> bool:
            kind = m.WhichOneof("type")
            if kind == "file_urls_response":
                answered.add(m.file_urls_response.response_id)
            starts[0] += kind == "new_session"
            return False

        noted = session.expect(note)
        drawn = session.expect(lambda m: m.WhichOneof("type") == "script_finished" and m.script_finished == FINISHED)
        await session.open()
        asked: list[str] = []
        deadline = time.monotonic() + DEADLINE
        while not drawn.done() and time.monotonic() < deadline:
            asked.append(await session.ask_upload_urls("pairs.csv"))
            await asyncio.sleep(0.003)
        await session.wait(drawn)
        # Answers come in the order asked: once the last one is in, a missing one is lost.
        last = uuid.uuid4().hex
        final = session.expect(lambda m: m.WhichOneof("type") == "file_urls_response"
                               and m.file_urls_response.response_id == last)
        await session.ask_upload_urls("pairs.csv", last)
        await session.wait(final)
        noted.cancel()
        await session.close()
        return starts[0], set(asked), answered

    async def sessions() -> list[tuple[int, set[str], set[str]]]:
        return [await flood() for _ in range(3)]

    for runs, asked, answered in asyncio.run(sessions()):
        assert runs >= 2, f"{runs} run(s): the page no longer reruns itself, so this no longer tests the rerun"
        assert len(asked - answered) == 0, f"{len(asked - answered)} of {len(asked)} requests for upload URLs never answered"


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
