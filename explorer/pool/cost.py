"""Whether a job is long, decided before it starts, from the pair sizes and the methods.

The pool runs long jobs in a lane of its own at a lower priority (:mod:`.scheduler`), so a
long pair cannot hold back other visitors' short ones. A method's CPU time on a pair is
about a fixed part plus a part per text x hypothesis token pair (the growth each method's
cost model in :mod:`explorer.limits` states); :data:`SECONDS_PER_PAIR` and
:data:`SECONDS_PER_TOKEN_PAIR` hold both, per scorer, fitted to the CPU seconds measured on
an RTE2 pair of 35 x 32 words and on the 1,999 x 50-token pair on this 2-core machine
(``bench/bench_pool.py --only costs`` prints the estimates beside the measured times). A
job whose estimate passes :data:`LONG_SECONDS` is long: no RTE2 dev pair's strip is (the
longest takes about 0.55 s of CPU), the slow methods on the long pair are (about 7.6 s).
Token counts are estimated from white space (the tokenizer splits a little more), since the
estimate must cost nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from explorer.pairs import Pair

#: Estimated CPU seconds per pair, by scorer (aligners use their scorer's).
SECONDS_PER_PAIR: dict[str, float] = {
    "pos_per": 0.01, "bow": 0.01, "itg": 0.02, "itg_stop": 0.02, "itg_entail": 0.02, "itg_lex": 0.067,
    "pfsm": 0.066, "ppda": 0.05,
}
#: Estimated CPU seconds per text x hypothesis token pair, by scorer. MANLI (and the
#: combined classifier, which runs it) grows with its candidate edits, which the limits
#: refuse past 300,000: its small-pair rate bounds it.
SECONDS_PER_TOKEN_PAIR: dict[str, float] = {
    "wer": 6.4e-7, "pos_per": 1e-6, "bow": 5.3e-6, "itg": 9e-7, "itg_stop": 9e-7, "itg_entail": 9e-7,
    "itg_lex": 2e-5, "manli": 1.25e-4, "combined": 1.1e-4, "pfsm": 2.2e-5, "ppda": 2.7e-5,
}
#: Every other method costs about this per pair (the n-gram metrics).
SECONDS_PER_METHOD = 2e-4
#: A job estimated above this many CPU seconds goes to the long lane.
LONG_SECONDS = 1.0
#: A Teach lesson (the trace and every step's figure), estimated CPU seconds per squared
#: text x hypothesis token pair, by method: the ITG trace reads every cell of its chart,
#: about (p x h)² / 4 of them (2.7 s for the 30 x 30 pair at the teaching limit); the other
#: methods' lessons stay under 0.3 s at that limit.
LESSON_SECONDS_PER_SQUARED_TOKEN_PAIR: dict[str, float] = {"itg": 3.3e-6}


def words(pair: Pair) -> tuple[int, int]:
    """Estimated tokens of the text and of the hypothesis."""
    return len(pair.text.split()) + 1, len(pair.hypothesis.split()) + 1


def estimate(pairs: Iterable[Pair], methods: Sequence[str]) -> float:
    """Estimated CPU seconds for ``methods`` on every pair."""
    per_token_pair = sum(SECONDS_PER_TOKEN_PAIR.get(m, 0.0) for m in methods)
    per_pair = sum(SECONDS_PER_PAIR.get(m, SECONDS_PER_METHOD) for m in methods)
    total = 0.0
    for pair in pairs:
        p, h = words(pair)
        total += per_pair + per_token_pair * p * h
    return total


def is_long(pairs: Iterable[Pair], methods: Sequence[str]) -> bool:
    """Whether ``methods`` on ``pairs`` is a long job (:data:`LONG_SECONDS`)."""
    return estimate(pairs, methods) > LONG_SECONDS


def lesson_is_long(pair: Pair, method: str) -> bool:
    """Whether the Teach lesson of ``method`` on ``pair`` is a long job."""
    p, h = words(pair)
    return LESSON_SECONDS_PER_SQUARED_TOKEN_PAIR.get(method, 0.0) * (p * h) ** 2 > LONG_SECONDS
