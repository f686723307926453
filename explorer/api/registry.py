"""The one registry helper behind every ``name -> info`` table of the explorer: scorers,
aligners, dataset formats, trainers, CLI commands, UI panels.

A :class:`Registry` is a plain dict of info records (:mod:`explorer.api.rows`) with one
"unknown name" error that lists the known names, a build cached once per name and
process, and a filter on declared capabilities.

>>> from explorer.api.rows import MethodInfo, caps
>>> shapes = Registry("shape", [MethodInfo("box", "Box", "four sides", list),
...                             MethodInfo("ring", "Ring", "one side", dict, caps(interactive=False))])
>>> shapes.names(interactive=True)
['box']
>>> shapes.build("box") is shapes.build("box")  # built once
True
>>> shapes.info("cone")
Traceback (most recent call last):
...
explorer.api.registry.UnknownNameError: unknown shape 'cone'; choose from: box, ring
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Generic, TypeVar

from explorer.api.rows import Capabilities, Named
from explorer.errors import ExplorerError

_InfoT = TypeVar("_InfoT", bound=Named)


class Registry(dict[str, _InfoT], Generic[_InfoT]):
    """``name -> info``, with a cached build and one "unknown" error.

    It is a plain dict of info records (``REG[name]``, ``in``, ``.items()`` work as
    before), plus :meth:`info` (raises ``error`` naming the known entries),
    :meth:`build` (the info's ``build()`` once per name and process) and :meth:`names`
    (filter on capabilities).
    """

    def __init__(self, kind: str, entries: Iterable[_InfoT], *,
                 error: type[Exception] | None = None) -> None:
        super().__init__((e.name, e) for e in entries)
        self.kind = kind
        self.error: type[Exception] = error or UnknownNameError
        self._built: dict[str, object] = {}
        self._lock = threading.Lock()

    def unknown(self, name: str) -> Exception:
        known = ", ".join(self) or "(none yet)"
        return self.error(f"unknown {self.kind} {name!r}; choose from: {known}")

    def info(self, name: str) -> _InfoT:
        try:
            return self[name]
        except KeyError:
            raise self.unknown(name) from None

    def build(self, name: str) -> object:
        """The object built from ``name``'s info (built once, then cached); the typed
        getters (:func:`explorer.scorers.get_scorer`, ...) say what it is."""
        info = self.info(name)
        try:
            return self._built[name]
        except KeyError:
            pass
        # Built outside the lock (a slow model load must not hold up other names; a
        # factory may itself use a registry); if two threads race, the first one kept wins.
        built = info.build()  # type: ignore[attr-defined]
        with self._lock:
            return self._built.setdefault(name, built)

    def clear_cache(self) -> None:
        with self._lock:
            self._built.clear()

    def names(self, **wanted: bool) -> list[str]:
        """Names whose capabilities match every ``flag=value`` given, e.g.
        ``names(interactive=True)`` or ``names(gold_alignments=False)``."""
        out = []
        for name, info in self.items():
            declared = getattr(info, "capabilities", None) or getattr(info, "gives", None) or Capabilities()
            values = declared.flags()
            if all(values.get(k, False) == v for k, v in wanted.items()):
                out.append(name)
        return out


class UnknownNameError(ExplorerError, KeyError):
    """A name no registry entry has; the message lists the known names."""

    def __str__(self) -> str:
        return str(self.args[0])
