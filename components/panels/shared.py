"""What the method panels share: the registry's instance of a method, typed, and the
pair's gold alignment when it fits the tokens a method aligned."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from explorer.alignment import Alignment
from explorer.pairs import Pair

M = TypeVar("M")


def registered(get: Callable[[str], object], name: str, kind: type[M]) -> M:
    """``get(name)`` (a registry's cached instance, shared with every page and the CLI),
    checked to be a ``kind``."""
    method = get(name)
    if not isinstance(method, kind):
        raise TypeError(f"{name!r} is registered as a {type(method).__name__}, not a {kind.__name__}")
    return method


def fitting_gold(pair: Pair, p_len: int, h_len: int) -> Alignment | None:
    """The pair's gold alignment when it indexes ``p_len`` text and ``h_len`` hypothesis
    tokens (a dataset that tokenises differently gets none)."""
    gold = pair.gold_alignment
    if gold is None or (gold.p_len, gold.h_len) != (p_len, h_len):
        return None
    return gold
