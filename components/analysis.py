"""Per-pair results of the methods, kept for the whole server (every session shares them).

The Pair page reruns its script on every widget change (a cutoff slider, a tab, a click in
the alignment editor); scoring the pair again each time would repeat the same work. Results
are kept in a bounded LRU keyed by the scorer's registry entry and the pair's content (text,
hypothesis and any tokens the dataset gives), so a revisited pair, a reload or another
session's identical pair costs a dictionary lookup. Failures are never kept: a method that
raised is tried again on the next run. Results are frozen objects, safe to share.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair
from explorer.scorers import SCORERS, get_scorer

#: How many (method, pair) results are kept (a result is a few kB; 4,096 is ~70 pairs × 24
#: scorers, well under 100 MB).
MAX_ENTRIES = 4096


class LRU:
    """A small thread-safe least-recently-used map (Streamlit serves sessions on threads)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            if key not in self._data:
                return None
            self._data.move_to_end(key)
            return self._data[key]

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


RESULTS = LRU(MAX_ENTRIES)


def pair_key(pair: Pair) -> tuple[object, ...]:
    """What a method's result on a pair depends on: its words and the dataset's tokens."""
    return (pair.text, pair.hypothesis, pair.text_tokens, pair.hypothesis_tokens)


def _key(name: str, pair: Pair) -> tuple[object, ...]:
    # id() of the registry entry: a scorer registered again under the same name (tests do)
    # is a different method, and must not be served the old one's results.
    return (name, id(SCORERS.get(name)), *pair_key(pair))


def cached_result(name: str, analyzed: AnalyzedPair) -> Any | None:
    """The scorer's kept result on this pair, or None (nothing is computed)."""
    return RESULTS.get(_key(name, analyzed.pair))


def score(name: str, analyzed: AnalyzedPair) -> Any:
    """The scorer's result on the pair, computed once and kept."""
    key = _key(name, analyzed.pair)
    found = RESULTS.get(key)
    if found is None:
        found = get_scorer(name).score(analyzed)
        RESULTS.put(key, found)
    return found


def align(name: str, analyzed: AnalyzedPair) -> Any:
    """The aligner's result on the pair, computed once and kept (panels redraw on every
    rerun of the page; the alignment does not change)."""
    from explorer.aligners import ALIGNERS, get_aligner

    key = ("align", name, id(ALIGNERS.get(name)), *pair_key(analyzed.pair))
    found = RESULTS.get(key)
    if found is None:
        found = get_aligner(name).align(analyzed)
        RESULTS.put(key, found)
    return found


def score_each(names: Sequence[str], analyzed: AnalyzedPair,
               attempt: Callable[[Callable[[], Any], str], Any | None]) -> dict[str, Any]:
    """Each scorer's result (kept ones at once, the rest computed through ``attempt``, which
    reports a failure and returns None: a failing scorer is left out)."""
    results: dict[str, Any] = {}
    for name in names:
        result = cached_result(name, analyzed)
        if result is None:
            result = attempt(lambda n=name: score(n, analyzed), SCORERS[name].label)  # type: ignore[misc]
        if result is not None:
            results[name] = result
    return results
