"""Optional server-side timing of the Pair page's script, for the browser benchmarks.

With ``EXPLORER_TIMING_LOG=FILE`` set in the server's environment, each run of the Pair page
appends one JSON line to FILE: the pair's mark (the verdict strip's ``data-pair``), the
seconds from the script's start to the strip being sent, and to the script's end, and how
many verdicts came from stored scores. ``bench/bench_browser_timings.py`` sets it and reads
the lines back, so a benchmark can tell the server's share of a timing from the browser's.
Unset (the default), nothing is measured or written.
"""

from __future__ import annotations

import json
import os
import time

ENV = "EXPLORER_TIMING_LOG"


class PageTimer:
    """Marks taken during one run of a page; :meth:`write` appends them (when enabled)."""

    def __init__(self) -> None:
        self.path = os.environ.get(ENV) or None
        self.start = time.perf_counter()
        self.marks: dict[str, object] = {}

    def mark(self, name: str, **extra: object) -> None:
        if self.path is None:
            return
        self.marks[name] = round(time.perf_counter() - self.start, 4)
        self.marks.update(extra)

    def write(self) -> None:
        if self.path is None or not self.marks:
            return
        self.marks["end"] = round(time.perf_counter() - self.start, 4)
        try:
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(self.marks) + "\n")
        except OSError:
            pass  # a timing log that cannot be written never breaks the page
