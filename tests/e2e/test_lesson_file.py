"""An exported lesson deck opened from disk in Chromium with every network request blocked
and counted: none may be made, and the keys, the clicker's keys, the chapters and full
screen work on the file alone (no server runs in this module).

The deck is written by the ``lesson`` command itself (a subprocess), two lessons on a pair
typed here. Waits are for page conditions, never fixed sleeps.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deadline import DEADLINE_MS
from tests.e2e.browser import ROOT, checked_page, require_chromium

SCREEN = {"width": 1280, "height": 720}
STATE = """() => { const root = document.querySelector('.tp');
  return root ? {step: root.dataset.step, drawn: root.dataset.drawnStep, chapter: root.dataset.chapter,
    sentence: root.querySelector('.tp-sentence').textContent, lesson: root.querySelector('.tp-lesson').textContent,
    hypothesis: root.querySelector('.tp-hypothesis').textContent,
    svg: (root.querySelector('.tp-figure .main-svg') || {outerHTML: ''}).outerHTML,
    chapters: root.querySelector('.tp-chapters').options.length} : null; }"""


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_chromium()
    folder = tmp_path_factory.mktemp("lesson")
    data = folder / "pairs.csv"
    data.write_text("id,text,hypothesis,label\n"
                    "p1,The ferry left the harbour at dawn with forty cars.,The ferry left at dawn.,1\n", encoding="utf-8")
    out = folder / "deck.html"
    done = subprocess.run([sys.executable, "-m", "explorer", "lesson", str(data), "--pair", "p1", "--method", "bleu,wer",
                           "--out", str(out)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "2 lessons" in done.stdout
    return out


def _wait_drawn(page: Any, step: int) -> dict[str, Any]:
    page.wait_for_function(f"""() => {{ const root = document.querySelector('.tp');
        return root && root.dataset.step === '{step}' && root.dataset.drawnStep === '{step}'
          && root.querySelector('.tp-figure .main-svg'); }}""", timeout=DEADLINE_MS)
    state: dict[str, Any] = page.evaluate(STATE)
    return state


def test_the_deck_steps_from_disk_with_no_network(deck: Path) -> None:
    html = deck.read_text(encoding="utf-8")
    assert "http://" not in html.split("<script type=\"application/json\"")[1].split("</script>")[0]
    requests: list[str] = []
    with checked_page(SCREEN) as page:
        def block(route: Any) -> None:
            requests.append(route.request.url)
            route.abort()

        page.context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                           else block(route))
        page.on("request", lambda request: None if request.url == deck.as_uri() else requests.append(request.url))
        page.goto(deck.as_uri())
        first = _wait_drawn(page, 1)
        assert first["chapters"] >= 4 and "BLEU" in first["lesson"] and first["hypothesis"] == "The ferry left at dawn."
        seen = [first]
        for key, step in (("ArrowRight", 2), ("PageDown", 3), ("Space", 4), ("ArrowLeft", 3), ("PageUp", 2)):
            page.keyboard.press(key)
            seen.append(_wait_drawn(page, step))
        assert seen[1]["sentence"] != seen[0]["sentence"] and seen[2]["sentence"] != seen[1]["sentence"]
        assert seen[-1]["sentence"] == seen[1]["sentence"]  # back where it was
        page.keyboard.press("2")  # the lesson's second chapter: the 2-grams
        second = _wait_drawn(page, int(page.evaluate("document.querySelector('.tp').dataset.step")))
        assert second["chapter"] == "2-grams" and second["svg"] != first["svg"]
        page.keyboard.press("End")
        last = _wait_drawn(page, int(page.evaluate("document.querySelector('.tp').dataset.steps")))
        assert "Word error rate" in last["lesson"] and last["chapter"] == "The score"
        page.keyboard.press("f")
        page.wait_for_function("() => document.fullscreenElement === document.querySelector('.tp')", timeout=DEADLINE_MS)
    assert requests == []
