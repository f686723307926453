"""The Pair page on a server still warming up: the verdicts of the scorers that need no
warm-up come at once, every other method is marked as still loading and named under the
strip, and the strip is filled in when the warm-up is done, with the same early verdicts."""

from __future__ import annotations

import html
import threading
from typing import Any

import pytest

from explorer.scorers import SCORERS
from tests.app.test_app import start


def _chip(strip: str, label: str) -> str | None:
    """The verdict (✓ or ✗) the strip shows for ``label`` (uninformative or not), None when
    it shows none."""
    return next((mark for mark in "✓✗" for end in ("</span>", " (uninformative)</span>")
                 if f"{mark} {html.escape(label)}{end}" in strip), None)


def test_fast_verdicts_come_before_the_warm_up_and_the_rest_after(monkeypatch: pytest.MonkeyPatch) -> None:
    from components.sections import verdicts
    from components.warmup import scorers_before_warm
    from runtime import warmup

    strips: list[str] = []
    first_strip = threading.Event()
    render = verdicts.render_strip

    def recorded(slot: Any, rows: Any, gold: Any, pending: Any = (), **kwargs: Any) -> None:
        strips.append(verdicts.strip_html(rows, gold, pending, **kwargs))
        first_strip.set()
        render(slot, rows, gold, pending, **kwargs)

    def methods_load() -> None:  # the warm-up ends only once the page has drawn a strip
        if not first_strip.wait(20):
            raise RuntimeError("the page drew no verdict before the warm-up ended")

    monkeypatch.setattr(verdicts, "render_strip", recorded)
    fake = warmup.Warmup(lambda: [warmup.Step("every method", methods_load)])
    previous = warmup.replace_for_tests(fake)
    try:
        at = start()
    finally:
        first_strip.set()
        fake.wait(30)
        warmup.replace_for_tests(previous)
    assert not fake.status().errors, fake.status().errors  # the strip came while it ran
    fast = scorers_before_warm()
    slow = [n for n in SCORERS if n not in fast]
    assert {"bleu", "mbleu", "wer", "per"} <= set(fast) and {"manli", "itg", "pfsm", "nist1"} <= set(slow)
    early, final = strips[0], at.html[0].value
    assert f'data-methods="{len(fast)}"' in early and f'data-pending="{len(slow)}"' in early
    assert all(_chip(early, SCORERS[n].label) for n in fast)
    assert not any(_chip(early, SCORERS[n].label) for n in slow)
    (line,) = [part for part in early.split("<div") if "Still loading:" in part]
    assert all(html.escape(SCORERS[n].label) in line for n in slow)  # named, not only greyed out
    # Then every method, and the early verdicts stand (one pair, one verdict: the same run
    # fills the strip in; a later run may decide with the dataset's own cutoffs, chosen since).
    assert 'data-pending="0"' in final and "Still loading" not in final
    filled = strips[1]
    assert 'data-pending="0"' in filled
    assert all(_chip(filled, SCORERS[n].label) == _chip(early, SCORERS[n].label) for n in fast)
