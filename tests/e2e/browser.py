"""Serving the app for the real-browser tests: Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
START_TIMEOUT = 90.0  # generous: CI machines are shared


def require_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent; install Debian's chromium package to run the browser test")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served_app(env: dict[str, str] | None = None) -> Iterator[str]:
    """``streamlit run app.py`` on a free localhost port until the block ends; yields its URL.

    The server's output goes to a temporary file (a pipe nobody reads would fill up and
    stall a chatty server) and is shown if the server dies or never answers.
    """
    port = free_port()
    environment = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})}
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1"],
            cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT,
        )

        def output() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")

        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                if server.poll() is not None:
                    pytest.fail(f"streamlit exited with {server.returncode}:\n{output()}")
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"streamlit did not answer on {url} within {START_TIMEOUT:.0f} s:\n{output()}")
                time.sleep(0.3)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
