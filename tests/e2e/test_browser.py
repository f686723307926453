"""One real-browser smoke test: the app starts under ``streamlit run``, and headless
Chromium (Debian's /usr/bin/chromium, driven by Playwright) sees its title and a rendered
Plotly chart. AppTest cannot see either."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deadline import DEADLINE_MS
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium, served_app


@pytest.fixture
def app_url() -> Iterator[str]:
    require_chromium()
    with served_app() as url:
        yield url


def test_app_renders_title_and_a_plotly_chart_in_chromium(app_url: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(app_url, wait_until="domcontentloaded", timeout=DEADLINE_MS)
            page.wait_for_selector("h1:has-text('Pair')", timeout=DEADLINE_MS)
            # Plotly draws the n-gram grid into an SVG inside .js-plotly-plot.
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=DEADLINE_MS)
            assert "Entailment Alignment Explorer" in page.title()
            assert page.locator(".js-plotly-plot").count() >= 1
            assert page.locator("[data-testid='stException']").count() == 0
            assert not errors, errors
        finally:
            browser.close()
