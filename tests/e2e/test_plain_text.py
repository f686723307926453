"""A shared link to an upload whose every field carries markup, opened in Chromium on every
page: the browser fetches no URL of the file's choosing and draws no image, link, script,
formula, emoji or coloured text from it (what tests/app/test_plain_text.py checks in the
strings the script sends, checked here in the drawn page)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, urlsplit

import pytest

from tests.app.test_plain_text import NAME, TEACH_HYPOTHESIS, hostile_jsonl, hostile_teach_json
from tests.deadline import DEADLINE_MS
from tests.e2e.browser import checked_page, require_chromium, served_app, settle

STEP = DEADLINE_MS  # ms per browser wait (tests/deadline.py)
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


def _keep(folder: Path, data: bytes, name: str) -> str:
    """Keep a file as the app keeps an upload; its key (:func:`components.data.content_key`)."""
    key = hashlib.sha1(data).hexdigest()[:16]
    (folder / f"{key}.bin").write_bytes(data)
    (folder / f"{key}.name").write_text(name, encoding="utf-8")
    return key


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """The app serving two kept uploads (the hostile dataset, and a short hostile pair for
    the Teach page): its address and the two keys."""
    require_chromium()
    folder = tmp_path_factory.mktemp("plain")
    kept = folder / "uploads"
    kept.mkdir()
    key = _keep(kept, hostile_jsonl(), NAME)
    teach_key = _keep(kept, hostile_teach_json(), NAME.replace(".jsonl", ".json"))
    with served_app({"ENTAILMENT_EXPLORER_STORE": str(folder / "store.sqlite3"), "EXPLORER_UPLOADS_DIR": str(kept),
                     "EXPLORER_BACKGROUND_CUTOFFS": "0"}) as url:
        yield url, key, teach_key


#: What :data:`RENDERED` finds on a page that drew nothing of the file.
NOTHING = {"images": [], "links": [], "scripts": 0, "ran": False, "formulas": 0, "emoji": False, "coloured": 0}


@contextmanager
def watched_tab() -> Iterator[Any]:
    """A checked Chromium tab (:func:`checked_page`); on leaving, no request went where the
    file's images and links point."""
    with checked_page({"width": 1400, "height": 1000}) as tab:
        fetched: list[str] = []
        tab.on("request", lambda r: fetched.append(r.url) if _from_the_file(r.url) else None)
        yield tab
        assert not fetched, fetched


def drawn_nothing(tab: Any, where: str) -> dict[str, object]:
    """What :data:`RENDERED` found besides ``shown``, checked to be :data:`NOTHING`."""
    found = tab.evaluate(RENDERED)
    shown = found.pop("shown")
    assert found == NOTHING, (where, found)
    assert tab.locator("[data-testid='stException']").count() == 0, where
    return {"shown": shown}


def test_a_shared_link_to_a_hostile_upload_renders_nothing_of_it(served: tuple[str, str, str]) -> None:
    with watched_tab() as tab:
        for page in PAGES:
            tab.goto(f"{served[0]}/{page}?dataset=upload:{served[1]}")
            # the sidebar is drawn after the page: its dataset line says the file is open
            tab.get_by_text("(4 pairs, uploaded file)").first.wait_for(timeout=STEP)
            settle(tab, STEP)
            found = drawn_nothing(tab, page or "pair")
            if page in ("", "dataset"):  # the pair's text is shown, as written
                assert found["shown"], page


def test_teach_lessons_of_a_hostile_pair_draw_nothing_of_it(served: tuple[str, str, str]) -> None:
    """Every Teach method on a file's short pair whose tokens are tags and links: the step
    player's sentences and Plotly's labels show them as typed."""
    from components.teach_methods import TEACH_METHODS

    url, _, teach_key = served
    with watched_tab() as tab:
        for name in TEACH_METHODS:
            label = quote_plus(TEACH_METHODS[name].label)
            tab.goto(f"{url}/teach?dataset=upload:{teach_key}&teach_source=A+pair+from+the+dataset"
                     f"&teach_method={label}")
            tab.locator(".tp .main-svg").first.wait_for(timeout=STEP)  # a figure drawn by plotly.js
            settle(tab, STEP)
            drawn_nothing(tab, name)
            drawn = tab.evaluate("() => ({bold: [...document.querySelectorAll('.tp .main-svg text, .tp .main-svg "
                                 "tspan')].filter(e => e.textContent === 'red' && "
                                 "(e.style.fontWeight === 'bold' || e.getAttribute('font-weight') === 'bold'))"
                                 ".length, text: document.querySelector('.tp').innerText})")
            assert drawn["bold"] == 0, name  # the file's <b> is not drawn bold
            assert TEACH_HYPOTHESIS in drawn["text"], name  # the pair, shown as typed
