"""Benchmark scripts that print figures (docs/BENCHMARKS.md); shared set-up below."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

SHARED_NLTK_DATA = Path(__file__).resolve().parents[2] / "shared" / "nltk_data"


def use_shared_nltk_data() -> None:
    """Point NLTK at ``../shared/nltk_data`` when it is there and NLTK_DATA is not set."""
    if SHARED_NLTK_DATA.is_dir():
        os.environ.setdefault("NLTK_DATA", str(SHARED_NLTK_DATA))


def median_seconds(function: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``function``, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
