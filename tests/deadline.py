"""The one deadline every wait in the suite is bounded by.

Every wait in a test is for a condition of the page, the server or the process (a heading
drawn, a health check answered, a worker's pid gone), so a test passes as soon as the
condition holds and the deadline only decides how long a broken test takes to fail. It is
generous on purpose: the suite runs on machines other work shares, where a served app's
warm-up or an AppTest run of a page can take minutes.

``EXPLORER_TEST_DEADLINE_SCALE`` (a positive number, default 1) multiplies it on a machine
slower still, e.g. ``EXPLORER_TEST_DEADLINE_SCALE=3 make test``.
"""

from __future__ import annotations

import os

SCALE_VARIABLE = "EXPLORER_TEST_DEADLINE_SCALE"
#: Seconds any one wait may take on an ordinary machine, before the scale.
BASE_SECONDS = 300.0


def _scale() -> float:
    raw = os.environ.get(SCALE_VARIABLE, "1")
    try:
        scale = float(raw)
    except ValueError:
        scale = 0.0
    if not scale > 0:
        raise ValueError(f"{SCALE_VARIABLE} must be a positive number, not {raw!r}")
    return scale


#: Seconds any one wait may take (an AppTest run, a server's start, a job's result).
DEADLINE = BASE_SECONDS * _scale()
#: The same in milliseconds, as Playwright takes it.
DEADLINE_MS = int(DEADLINE * 1000)
