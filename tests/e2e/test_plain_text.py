"""A shared link to an upload whose every field carries markup, opened in Chromium on every
page: the browser fetches no URL of the file's choosing and draws no image, link, script,
formula, emoji or coloured text from it (what tests/app/test_plain_text.py checks in the
strings the script sends, checked here in the drawn page)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.app.test_plain_text import NAME, hostile_jsonl
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium, served_app, settle

STEP = 180_000  # ms per browser wait: the machine is shared
PAGES = ["", "dataset", "evaluate", "errors", "compare", "mtmetrics", "aligners", "teach"]


def _from_the_file(url: str) -> bool:
    """Whether a request goes where the file's images and links point (the name's images
    are relative: a file name has no slash)."""
    where = urlsplit(url)
    return where.netloc in ("127.0.0.1:9", "www.example.com") or where.path.endswith(("/f.png", "/g.png"))

#: What the page would hold if any markup of the file were rendered.
RENDERED = """() => ({
  images: [...document.querySelectorAll('img')].map(e => e.getAttribute('src') || '')
            .filter(s => s.includes('127.0.0.1:9') || s.endsWith('f.png') || s.endsWith('g.png')),
  links: [...document.querySelectorAll('a')].map(e => e.getAttribute('href') || e.getAttribute('xlink:href') || '')
            .filter(h => /127\\.0\\.0\\.1:9|javascript:|example\\.com|mailto:|f\\.png|g\\.png/.test(h)),
  scripts: [...document.querySelectorAll('script')].filter(e => e.textContent.includes('pwned')).length,
  ran: window.pwned === 1,
  formulas: document.querySelectorAll('.katex').length,
  emoji: document.body.innerText.includes('\\u{1F604}'),
  coloured: [...document.querySelectorAll('span')].filter(e => e.textContent === 'x' && e.className.includes('red')).length,
  shown: document.body.innerText.includes('[l](javascript:alert(1))'),
})"""


@pytest.fixture(scope="module")
def shared_link(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app serving a kept upload, and the query that reopens it (as a copied link)."""
    require_chromium()
    folder = tmp_path_factory.mktemp("plain")
    kept = folder / "uploads"
    kept.mkdir()
    data = hostile_jsonl()
    key = hashlib.sha1(data).hexdigest()[:16]  # components.data.content_key
    (kept / f"{key}.bin").write_bytes(data)
    (kept / f"{key}.name").write_text(NAME, encoding="utf-8")
    with served_app({"ENTAILMENT_EXPLORER_STORE": str(folder / "store.sqlite3"), "EXPLORER_UPLOADS_DIR": str(kept),
                     "EXPLORER_BACKGROUND_CUTOFFS": "0"}) as url:
        yield f"{url}/{{page}}?dataset=upload:{key}"


def test_a_shared_link_to_a_hostile_upload_renders_nothing_of_it(shared_link: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            fetched: list[str] = []
            tab.on("request", lambda r: fetched.append(r.url) if _from_the_file(r.url) else None)
            for page in PAGES:
                tab.goto(shared_link.format(page=page))
                # the sidebar is drawn after the page: its dataset line says the file is open
                tab.get_by_text("(4 pairs, uploaded file)").first.wait_for(timeout=STEP)
                settle(tab, STEP, rounds=3)
                found = tab.evaluate(RENDERED)
                if page in ("", "dataset"):  # the pair's text is shown, as written
                    assert found["shown"], page
                found.pop("shown")
                assert found == {"images": [], "links": [], "scripts": 0, "ran": False, "formulas": 0, "emoji": False,
                                 "coloured": 0}, (page or "pair", found)
                assert tab.locator("[data-testid='stException']").count() == 0
            assert not fetched, fetched
        finally:
            browser.close()

