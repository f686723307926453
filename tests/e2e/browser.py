"""Serving the app for the real-browser tests: Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.deadline import DEADLINE, DEADLINE_MS

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
#: True once no script is running and no stale element (a leftover of the previous run) remains.
IDLE = """() => !document.querySelector(
    '[data-testid="stStatusWidgetRunningIcon"], [data-testid="stStatusWidgetRunningManIcon"], [data-stale="true"]')"""
#: Resolves after the browser has drawn two frames: what the page does on the frame after a
#: run's last element (a component asking for another run) has been done by then.
NEXT_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
#: Milliseconds between two looks at a page's runs while waiting for them to finish.
POLL_MS = 50


class Runs:
    """The script runs of one browser tab, read from its websocket frames (Streamlit's
    protobuf messages): every run the page asked for (a ``rerun_script`` message: page
    load, widget change, page switch) and every run the server started (``new_session``)
    and ended (``script_finished``). A run cut short for another (``st.rerun``, a newer
    request) is not an end.

    The page has settled when the last of these is a run that ended: a request after it, or
    a run started after it, means more is coming. That holds however long the server takes
    to start the run a click asked for, which a pause before looking at the page did not."""

    ASKED, STARTED, ENDED, CUT = "asked", "started", "ended", "cut"

    def __init__(self, page: Any) -> None:
        self.events: list[str] = []
        self.sent: list[str] = []  # every message the page sent, by kind
        page.on("websocket", self._watch)

    def _watch(self, socket: Any) -> None:
        socket.on("framesent", self._sent)
        socket.on("framereceived", self._received)

    def _sent(self, payload: bytes | str) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        if isinstance(payload, str):
            return
        kind = str(BackMsg.FromString(payload).WhichOneof("type"))
        self.sent.append(kind)
        if kind == "rerun_script":
            self.events.append(self.ASKED)

    def _received(self, payload: bytes | str) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if isinstance(payload, str):
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.events.append(self.STARTED)
        elif kind == "script_finished":
            early = msg.script_finished == ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
            self.events.append(self.CUT if early else self.ENDED)

    @property
    def asked(self) -> int:
        """How many runs the page has asked for."""
        return self.events.count(self.ASKED)

    def settled(self) -> bool:
        return bool(self.events) and self.events[-1] == self.ENDED


_RUNS: weakref.WeakKeyDictionary[Any, Runs] = weakref.WeakKeyDictionary()


def watch_runs(page: Any) -> Runs:
    """Follow ``page``'s script runs (:class:`Runs`) from now on: call it before the page
    opens the app, as :func:`checked_page` does. :func:`settle` needs it."""
    if page not in _RUNS:
        _RUNS[page] = Runs(page)
    return _RUNS[page]


def settle(page: Any, timeout: float) -> None:
    """Wait until every run the page asked for, and any run those started, has ended and
    the page has drawn it: no run going, no stale element (a leftover of the previous run)
    left, and still no new run asked for once the browser has drawn the next frames.
    ``timeout`` is in milliseconds, for the whole wait."""
    runs = _RUNS.get(page)
    if runs is None:
        raise RuntimeError("settle() needs a page followed by watch_runs() before it opened the app")
    deadline = time.monotonic() + timeout / 1000

    def left() -> float:
        remaining = (deadline - time.monotonic()) * 1000
        if remaining <= 0:
            raise AssertionError(f"the page did not settle within {timeout / 1000:.0f} s; its runs: {runs.events[-8:]}")
        return remaining

    while True:
        while not runs.settled():
            left()
            page.wait_for_timeout(POLL_MS)  # a look at the runs every POLL_MS, events arrive meanwhile
        page.wait_for_function(IDLE, timeout=left())
        page.evaluate(NEXT_FRAMES)
        if runs.settled():
            return


def require_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent; install Debian's chromium package to run the browser test")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_tree(server: subprocess.Popen[bytes], *, group: bool, grace: float = 30.0) -> None:
    """Stop a server the tests started and everything below it: SIGTERM (to its process
    group when ``group``, else to the server alone, which then stops its children itself),
    then, once the server has exited or ``grace`` seconds have passed, SIGKILL to whatever
    of its process tree is still there, including children in sessions of their own, and
    wait until they are gone: no server, worker or proxy outlives its test to hold a port
    or a core in the next one."""
    try:
        tree = [psutil.Process(server.pid), *psutil.Process(server.pid).children(recursive=True)]
    except psutil.Error:
        tree = []
    try:
        if group:
            os.killpg(server.pid, signal.SIGTERM)
        else:
            server.send_signal(signal.SIGTERM)
    except OSError:
        pass
    try:
        server.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    _, left = psutil.wait_procs(tree, timeout=0 if server.poll() is None else grace)
    for process in left:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(left, timeout=grace)
    server.wait()


class ServerError(RuntimeError):
    """The app server exited or never answered its health check (the message has its output)."""


@dataclass(frozen=True)
class Served:
    url: str
    pid: int


@contextmanager
def streamlit_server(env: dict[str, str] | None = None, *, timeout: float = DEADLINE) -> Iterator[Served]:
    """``streamlit run app.py`` on a free localhost port until the block ends; yields its URL
    and process id once the health check answers. Shared by the browser tests and the
    browser benchmarks (``bench/``).

    The server's output goes to a temporary file (a pipe nobody reads would fill up and
    stall a chatty server) and is in the :class:`ServerError` if it dies or never answers.
    It runs in a session of its own, so the end of the block stops anything it started too
    (background cutoff jobs).
    """
    port = free_port()
    environment = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})}
    if os.environ.get("EXPLORER_WORKERS_SET_BY_TESTS") == "1" and "EXPLORER_WORKERS" not in (env or {}):
        del environment["EXPLORER_WORKERS"]  # the test process's in-process setting: served apps use the pool
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1"],
            cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )

        def output() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")

        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                if server.poll() is not None:
                    raise ServerError(f"streamlit exited with {server.returncode}:\n{output()}")
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise ServerError(f"streamlit did not answer on {url} within {timeout:.0f} s:\n{output()}")
                time.sleep(0.3)
            yield Served(url, server.pid)
        finally:
            stop_tree(server, group=True)


@contextmanager
def served_app(env: dict[str, str] | None = None) -> Iterator[str]:
    """:func:`streamlit_server` for a test: yields the URL; a server that does not start
    fails the test with its output."""
    try:
        with streamlit_server(env) as served:
            yield served.url
    except ServerError as err:
        pytest.fail(str(err))


@contextmanager
def throwaway_app(folder: Path) -> Iterator[str]:
    """:func:`served_app` with a store and an uploads folder of its own in ``folder``."""
    with served_app({"ENTAILMENT_EXPLORER_STORE": str(folder / "store.sqlite3"),
                     "EXPLORER_UPLOADS_DIR": str(folder / "uploads")}) as url:
        yield url


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright, closed at the end of the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def checked_page(viewport: dict[str, int], **options: Any) -> Iterator[Any]:
    """A tab of a fresh browser for a test; at the end of the block the page shows no
    Streamlit exception and raised no JavaScript error."""
    with chromium() as browser:
        tab = browser.new_page(viewport=viewport, **options)
        watch_runs(tab)
        tab.set_default_timeout(DEADLINE_MS)  # waits without their own timeout
        errors: list[str] = []
        tab.on("pageerror", lambda err: errors.append(str(err)))
        yield tab
        assert tab.locator("[data-testid='stException']").count() == 0
        assert not errors, errors
