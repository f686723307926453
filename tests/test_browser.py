"""One real-browser smoke test: the app starts under ``streamlit run``, and headless
Chromium (Debian's /usr/bin/chromium, driven by Playwright) sees its title and a rendered
Plotly chart. AppTest cannot see either."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
START_TIMEOUT = 90.0  # generous: CI machines are shared


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def app_url() -> Iterator[str]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent; install Debian's chromium package to run the browser test")
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if server.poll() is not None:
                output = server.stdout.read().decode(errors="replace") if server.stdout else ""
                pytest.fail(f"streamlit exited with {server.returncode}:\n{output}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not answer on {url} within {START_TIMEOUT:.0f} s")
            time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_app_renders_title_and_a_plotly_chart_in_chromium(app_url: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(app_url, wait_until="domcontentloaded", timeout=60_000)
            page.wait_for_selector("h1:has-text('Pair')", timeout=60_000)
            # Plotly draws the n-gram grid into an SVG inside .js-plotly-plot.
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
            assert "Entailment Alignment Explorer" in page.title()
            assert page.locator(".js-plotly-plot").count() >= 1
            assert page.locator("[data-testid='stException']").count() == 0
            assert not errors, errors
        finally:
            browser.close()
