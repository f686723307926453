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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def settle(page, timeout: float, *, pause_ms: int = 300, rounds: int = 2) -> None:  # type: ignore[no-untyped-def]
    """Wait until the run an action started has finished and no stale element (a leftover
    of the previous run) remains, ``rounds`` times after a ``pause_ms`` pause each: a run
    may start another (a new pair's figures follow its strip)."""
    for _ in range(rounds):
        page.wait_for_timeout(pause_ms)
        page.wait_for_function(IDLE, timeout=timeout)


def require_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent; install Debian's chromium package to run the browser test")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
            try:
                os.killpg(server.pid, signal.SIGTERM)
            except OSError:
                pass
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


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
        tab.set_default_timeout(DEADLINE_MS)  # waits without their own timeout
        errors: list[str] = []
        tab.on("pageerror", lambda err: errors.append(str(err)))
        yield tab
        assert tab.locator("[data-testid='stException']").count() == 0
        assert not errors, errors
