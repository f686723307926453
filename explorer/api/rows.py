"""The rows of the explorer's registries: the info record that says what a method (a
scorer, an aligner), a dataset format or a trainer is, what it needs and how to build it.

A record says what a method needs (:class:`Capabilities`), so the UI and CLI can filter
methods instead of failing at run time, and how to build it: a factory given as
``lazy("module:attr")`` (imported on first use, so listing methods imports nothing heavy)
or as a callable. :class:`~explorer.api.registry.Registry` holds the rows by name.

>>> info = MethodInfo("upper", "Upper", "a stand-in", lazy("builtins:str.upper", "abc"),
...                   caps("wordnet", interactive=False))
>>> info.build(), info.capabilities.interactive, info.capabilities.flags()["wordnet"]
('ABC', False, True)
>>> caps("telepathy")
Traceback (most recent call last):
...
ValueError: unknown capability 'telepathy'; choose from: wordnet, tagger, ppdb, brown, model, embeddings, labels, graded, gold_alignments
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from explorer.pairs import Pair


# -- lazy imports ----------------------------------------------------------------------------


def import_attr(target: str) -> Any:
    """``"package.module:attr"`` -> the attribute (``attr`` may be dotted)."""
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"lazy target {target!r} is not 'module:attr'")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def lazy(target: str, *args: object, **kwargs: object) -> Callable[..., Any]:
    """A callable that imports ``target`` (``"module:attr"``) on first call and calls it
    with ``args``/``kwargs`` followed by the call's own arguments."""

    def call(*more: object, **more_kwargs: object) -> Any:
        return import_attr(target)(*args, *more, **kwargs, **more_kwargs)

    call.__qualname__ = call.__name__ = f"lazy({target})"
    return call


# -- capabilities and info records -----------------------------------------------------------


#: What a method may need. Resources: ``wordnet``, ``tagger``, ``ppdb``, ``brown`` (NLTK
#: data it reads), ``model`` (a trained model file it loads), ``embeddings`` (the static
#: embedding table of :mod:`explorer.lexical.embedding`). Data an evaluation must
#: supply (or a dataset format carries): ``labels`` (entailment labels), ``graded`` (graded
#: similarity scores), ``gold_alignments`` (token links).
NEEDS: tuple[str, ...] = ("wordnet", "tagger", "ppdb", "brown", "model", "embeddings", "labels", "graded",
                          "gold_alignments")


#: CPU seconds per pair and per token pair of a method that states none: the n-gram
#: metrics' (linear, well under a millisecond on an RTE pair).
DEFAULT_SECONDS: tuple[float, float] = (2e-4, 0.0)


@dataclass(frozen=True)
class Capabilities:
    """What a method needs (a subset of :data:`NEEDS`) and whether it is fast enough to
    rerun on every keystroke (``interactive``; the UI runs the others on request)."""

    needs: frozenset[str] = frozenset()
    interactive: bool = True

    def __post_init__(self) -> None:
        unknown = set(self.needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"unknown capability {sorted(unknown)[0]!r}; choose from: {', '.join(NEEDS)}")

    def flags(self) -> dict[str, bool]:
        """Every need as a flag, plus ``interactive``."""
        return {**{n: n in self.needs for n in NEEDS}, "interactive": self.interactive}


def caps(*needs: str, interactive: bool = True) -> Capabilities:
    """``caps("wordnet", "ppdb", interactive=False)``."""
    return Capabilities(frozenset(needs), interactive)


class Named(Protocol):
    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class MethodInfo:
    """What the CLI and UI show about a method, and how to build it: ``factory()``
    (e.g. ``lazy("module:Class")``), what it needs and whether it reruns on every
    keystroke (``capabilities``) and its shipped model file (relative to
    ``explorer/models/``) if it is trained."""

    name: str
    label: str
    description: str
    factory: Callable[[], object]
    capabilities: Capabilities = field(default_factory=Capabilities)
    model: str | None = None
    #: The key of its cost model in :data:`explorer.limits.COST_MODELS`, which
    #: :func:`explorer.limits.check` applies to a pair before the method starts (None: a
    #: scorer that runs others, whose cost model is derived from theirs, ``runs``).
    cost: str | None = field(default=None, kw_only=True)
    #: Estimated CPU seconds per pair and per text x hypothesis token pair, by which the
    #: app's worker pool tells a long job from a short one (:mod:`runtime.pool.cost`).
    seconds: tuple[float, float] = field(default=DEFAULT_SECONDS, kw_only=True)
    #: What its first run loads besides the shared resources (the app's warm-up step
    #: names it, :mod:`runtime.warmup`), e.g. ``"model and numba search kernels"``.
    loads: str = field(default="", kw_only=True)

    def build(self) -> object:
        return self.factory()


@dataclass(frozen=True)
class ScorerInfo(MethodInfo):
    """A registered scorer (``factory()`` returns a :class:`Scorer`).

    ``cutoff`` is set for a trained classifier whose value carries its own decision (a
    probability decided at 0.5): evaluation applies it as is (``cutoff_source = "model"``)
    instead of choosing a cutoff on a development set.
    """

    cutoff: float | None = None
    #: The result's scalar fields a batch stores as columns ``NAME__FIELD``, to filter
    #: and sort by (:func:`breakdown_value` reads them; a nested result gives its value).
    breakdown: tuple[str, ...] = field(default=(), kw_only=True)
    #: The registered scorers it runs on every pair (the combined classifier's), when it
    #: runs others: its cost model is theirs run in turn (:func:`explorer.limits.cost_model`,
    #: checked before the first starts) and its CPU estimate the sum of theirs
    #: (:mod:`explorer.scorers` sets ``seconds``); it names no ``cost`` of its own.
    runs: tuple[str, ...] = field(default=(), kw_only=True)

    def __post_init__(self) -> None:
        if self.runs and self.cost is not None:
            raise ValueError(f"{self.name}: a scorer that runs others takes its cost model from theirs; drop cost=")


class AlignerInfo(MethodInfo):
    """A registered aligner (``factory()`` returns an :class:`Aligner`)."""


Parser = Callable[[str, str], "list[Pair]"]  # (file text, display name) -> pairs


#: Which first non-blank line of a line format is a header, not a record: none, every
#: file's (``always``), or only in the format's TSV form (``tsv``: unless the line is a
#: JSON object, as SNLI and MultiNLI come both ways).
HEADERS: tuple[str, ...] = ("none", "always", "tsv")


@dataclass(frozen=True)
class LoaderInfo:
    """A dataset format: how to recognise it and how to parse it. ``gives`` says what
    its pairs carry (``labels``, ``graded``, ``gold_alignments``).

    The line facts say how a file may be read in pieces (:mod:`explorer.batch.source`)
    and its records counted before parsing (:mod:`explorer.datasets.counting`):
    ``ranged``, one record per non-blank line, so a byte range cut at line ends parses
    alone; ``header``, which first line is a header (:data:`HEADERS`); ``numbered``, its
    parser takes ``first_record=`` (the record number of a range's first line in the
    whole file), by which pairs without an id are numbered.
    """

    name: str
    description: str
    extensions: tuple[str, ...]
    sniff: Callable[[str], bool]
    parse: Parser
    gives: Capabilities = field(default_factory=Capabilities)
    ranged: bool = field(default=False, kw_only=True)
    header: str = field(default="none", kw_only=True)
    numbered: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.header not in HEADERS:
            raise ValueError(f"{self.name}: header {self.header!r}; choose from: {', '.join(HEADERS)}")
        if not self.ranged and (self.header != "none" or self.numbered):
            raise ValueError(f"{self.name}: a header or numbering by record is a line format's (ranged=True)")

    def has_header(self, first_line: bytes) -> bool:
        """Whether a file's first non-blank line (bytes, after any byte-order mark) is its header."""
        if self.header == "tsv":
            return not first_line.lstrip(b"\xef\xbb\xbf \t").startswith(b"{")
        return self.header == "always"


Log = Callable[[str], None]


@dataclass(frozen=True)
class TrainerInfo:
    """A trainer: ``module:function(pairs, out, options, log)`` trains and saves."""

    name: str
    description: str
    target: str
    capabilities: Capabilities = field(default_factory=Capabilities)

    def run(self, pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
        import_attr(self.target)(pairs, out, options, log)
