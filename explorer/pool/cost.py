"""Whether a job is long, decided before it starts, from the pair sizes and the methods.

The pool runs long jobs in a lane of its own at a lower priority (:mod:`.scheduler`), so a
long pair cannot hold back other visitors' short ones. What makes a job long is the slow
work every method does per text x hypothesis token pair (the growth each method's cost
model in :mod:`explorer.limits` states): :data:`SECONDS_PER_TOKEN_PAIR` holds, per scorer,
the seconds per token pair measured on the 1,990 x 42-token pair of ``bench/bench_pool.py
--costs`` on this 2-core machine under load (so on the slow side). A job whose estimate
passes :data:`LONG_SECONDS` is long. Token counts are estimated from white space (the
tokenizer splits a little more), since the estimate must cost nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from explorer.pairs import Pair

#: Estimated seconds per text x hypothesis token pair, by scorer (aligners use their
#: scorer's). Methods not listed (the n-gram metrics) cost well under a microsecond.
SECONDS_PER_TOKEN_PAIR: dict[str, float] = {
    "wer": 1.5e-6, "pos_per": 3e-6, "bow": 2e-5, "itg": 3e-6, "itg_stop": 2e-6, "itg_entail": 3e-6,
    "itg_lex": 8e-5, "manli": 3e-4, "combined": 3.2e-4, "pfsm": 3e-4, "ppda": 1e-4,
}
#: Every method pays this per pair (analysis, tags, a lookup or two).
SECONDS_PER_METHOD = 2e-4
#: A job estimated above this many seconds goes to the long lane.
LONG_SECONDS = 1.0


def words(pair: Pair) -> tuple[int, int]:
    """Estimated tokens of the text and of the hypothesis."""
    return len(pair.text.split()) + 1, len(pair.hypothesis.split()) + 1


def estimate(pairs: Iterable[Pair], methods: Sequence[str]) -> float:
    """Estimated seconds for ``methods`` on every pair."""
    per_pair = sum(SECONDS_PER_TOKEN_PAIR.get(m, 0.0) for m in methods)
    total = 0.0
    for pair in pairs:
        p, h = words(pair)
        total += per_pair * p * h + SECONDS_PER_METHOD * len(methods)
    return total


def is_long(pairs: Iterable[Pair], methods: Sequence[str]) -> bool:
    """Whether ``methods`` on ``pairs`` is a long job (:data:`LONG_SECONDS`)."""
    return estimate(pairs, methods) > LONG_SECONDS
