"""The explorer's contracts in one place: what a scorer, an aligner and their results
are, the info records the CLI and UI read, and the one registry helper behind every
``name -> info`` table (scorers, aligners, dataset formats, trainers, CLI commands, UI
panels).

A registry maps a name to a frozen info record. Records say what a method needs
(:class:`Capabilities`) so the UI and CLI can filter methods instead of failing at run
time, and how to build it: a factory given as ``"module:attr"`` (imported on first use,
so listing methods imports nothing heavy) or as a callable. Building is cached: one
instance per name and process.

Results share one contract: ``value`` is the number compared to a cutoff (higher = more
entailed), ``to_json()`` gives a JSON-ready dict, ``summary()`` a one-line human form.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, is_dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from explorer.errors import ExplorerError

if TYPE_CHECKING:
    from explorer.alignment import Alignment
    from explorer.pairs import Pair
    from explorer.preprocess import AnalyzedPair

T = TypeVar("T")
InfoT = TypeVar("InfoT", bound="Named")


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


def lazy(target: str, *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """A callable that imports ``target`` (``"module:attr"``) on first call and calls it
    with ``args``/``kwargs`` followed by the call's own arguments."""

    def call(*more: Any, **more_kwargs: Any) -> Any:
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
    (e.g. ``lazy("module:Class")``), what it needs (``capabilities``) and its shipped
    model file (relative to ``explorer/models/``) if it is trained."""

    name: str
    label: str
    description: str
    factory: Callable[[], Any]
    capabilities: Capabilities = field(default_factory=Capabilities)
    model: str | None = None
    # False for methods too slow to rerun on every keystroke (trained decoders, biparsers
    # on long pairs): the Pair page runs them only when asked. Defaults to (and, when
    # given, overrides) ``capabilities.interactive``; the two always agree.
    interactive: bool | None = None

    def __post_init__(self) -> None:
        if self.interactive is None:
            object.__setattr__(self, "interactive", self.capabilities.interactive)
        elif self.interactive != self.capabilities.interactive:
            object.__setattr__(self, "capabilities", replace(self.capabilities, interactive=self.interactive))

    def build(self) -> Any:
        return self.factory()


@dataclass(frozen=True)
class ScorerInfo(MethodInfo):
    """A registered scorer (``factory()`` returns a :class:`Scorer`).

    ``cutoff`` is set for a trained classifier whose value carries its own decision (a
    probability decided at 0.5): evaluation applies it as is (``cutoff_source = "model"``)
    instead of choosing a cutoff on a development set.
    """

    cutoff: float | None = None


class AlignerInfo(MethodInfo):
    """A registered aligner (``factory()`` returns an :class:`Aligner`)."""


Parser = Callable[[str, str], "list[Pair]"]  # (file text, display name) -> pairs


@dataclass(frozen=True)
class LoaderInfo:
    """A dataset format: how to recognise it and how to parse it. ``gives`` says what
    its pairs carry (``labels``, ``graded``, ``gold_alignments``)."""

    name: str
    description: str
    extensions: tuple[str, ...]
    sniff: Callable[[str], bool]
    parse: Parser
    gives: Capabilities = field(default_factory=Capabilities)


Log = Callable[[str], None]


@dataclass(frozen=True)
class TrainerInfo:
    """A trainer: ``module:function(pairs, out, options, log)`` trains and saves."""

    name: str
    description: str
    target: str
    capabilities: Capabilities = field(default_factory=Capabilities)

    def run(self, pairs: Any, out: Path, options: dict[str, str], log: Log) -> None:
        import_attr(self.target)(pairs, out, options, log)


# -- the registry ------------------------------------------------------------------------------


class Registry(dict[str, InfoT], Generic[InfoT]):
    """``name -> info``, with a cached build and one "unknown" error.

    It is a plain dict of info records (``REG[name]``, ``in``, ``.items()`` work as
    before), plus :meth:`info` (raises ``error`` naming the known entries),
    :meth:`build` (the info's ``build()`` once per name and process) and :meth:`names`
    (filter on capabilities).
    """

    def __init__(self, kind: str, entries: Iterable[InfoT], *,
                 error: type[Exception] | None = None) -> None:
        super().__init__((e.name, e) for e in entries)
        self.kind = kind
        self.error: type[Exception] = error or UnknownNameError
        self._built: dict[str, Any] = {}
        self._lock = threading.Lock()

    def unknown(self, name: str) -> Exception:
        known = ", ".join(self) or "(none yet)"
        return self.error(f"unknown {self.kind} {name!r}; choose from: {known}")

    def info(self, name: str) -> InfoT:
        try:
            return self[name]
        except KeyError:
            raise self.unknown(name) from None

    def build(self, name: str) -> Any:
        """The object built from ``name``'s info (built once, then cached)."""
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
            if hasattr(info, "interactive"):
                values["interactive"] = info.interactive
            if all(values.get(k, False) == v for k, v in wanted.items()):
                out.append(name)
        return out


class UnknownNameError(ExplorerError, KeyError):
    """A name no registry entry has; the message lists the known names."""

    def __str__(self) -> str:
        return str(self.args[0])


# -- scorers, aligners and their results ----------------------------------------------------------


class ScoreResult(Protocol):
    @property
    def value(self) -> float: ...


class Scorer(Named, Protocol):
    def score(self, pair: AnalyzedPair) -> ScoreResult: ...


class AlignResult(ScoreResult, Protocol):
    @property
    def alignment(self) -> Alignment: ...


class Aligner(Named, Protocol):
    def align(self, pair: AnalyzedPair) -> AlignResult: ...


def json_safe(value: Any) -> Any:
    """NaN and infinities become null (strict JSON); sets become sorted lists, tuples
    lists, dict values recursively safe."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Enum):
        return json_safe(value.value)
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):  # numpy arrays and scalars
        return json_safe(value.tolist())
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, set | frozenset):  # e.g. an Alignment's links: sorted for stable output
        try:
            items = sorted(value)
        except TypeError:
            items = list(value)
        return [json_safe(v) for v in items]
    return value


def result_to_json(result: Any) -> dict[str, Any]:
    """A result as a JSON-ready dict: its own ``to_json()`` if it has one, else its
    dataclass fields, else ``{"value": ...}``."""
    to_json = getattr(result, "to_json", None)
    if callable(to_json):
        return json_safe(to_json())  # type: ignore[no-any-return]
    if is_dataclass(result) and not isinstance(result, type):
        return json_safe(asdict(result))  # type: ignore[no-any-return]
    return {"value": float(result.value)}


def summary(result: Any) -> str:
    """A result in one line: ``value 0.4213`` plus the alignment's link count when it
    has one."""
    line = f"value {float(result.value):.4f}"
    alignment = getattr(result, "alignment", None)
    if alignment is not None and hasattr(alignment, "links"):
        line += f", {len(alignment.links)} links"
    return line


class ResultMixin:
    """``to_json()`` and ``summary()`` for frozen result dataclasses."""

    def to_json(self) -> dict[str, Any]:
        """The dataclass fields, plus ``value`` where it is a property (MANLI's), so every
        method's JSON carries the number compared to a cutoff under one name."""
        body = asdict(self)  # type: ignore[call-overload]
        if "value" not in body and hasattr(self, "value"):
            body["value"] = self.value
        return json_safe(body)  # type: ignore[no-any-return]

    def summary(self) -> str:
        return summary(self)


# -- signatures ----------------------------------------------------------------------------------


def file_digest(path: str | Path, length: int = 12) -> str | None:
    """The first ``length`` hex digits of a file's sha256 (None when unreadable)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:length]
    except OSError:
        return None


MODELS_DIR = Path(__file__).resolve().parent / "models"


def model_path(info: Any) -> Path | None:
    """The shipped model file of a scorer's or aligner's info record (None for
    methods without one)."""
    name = getattr(info, "model", None)
    return MODELS_DIR / name if name else None


def method_signature(info: Any, *, model: str | Path | None = None, cutoff_source: str | None = None) -> dict[str, Any]:
    """:func:`signature` of a registered method: its model file (``model`` overrides
    the shipped one) and, when the model file records one, its lexical configuration."""
    path = Path(model) if model is not None else model_path(info)
    lexical = None
    if path is not None:
        try:
            import json

            payload = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(payload, dict) and isinstance(payload.get("lexical"), dict):
                lexical = payload["lexical"]
        except (OSError, ValueError):
            pass
    return signature(info.name, model=path, lexical=lexical, cutoff_source=cutoff_source)


def signature(method: str, *, model: str | Path | None = None, lexical: Mapping[str, Any] | None = None,
              cutoff_source: str | None = None, **extra: Any) -> dict[str, Any]:
    """The settings behind a reported number, as sacreBLEU's signature records them:
    the method, the explorer's version, the model file and its sha256 prefix, the
    lexical configuration and where the cutoff came from."""
    from explorer import __version__

    sig: dict[str, Any] = {"method": method, "version": __version__}
    if model is not None:
        sig["model"] = Path(model).name
        sig["model_sha256"] = file_digest(model)
    if lexical is not None:
        sig["lexical"] = dict(lexical)
    if cutoff_source is not None:
        sig["cutoff_source"] = cutoff_source
    sig.update(extra)
    return sig


def signature_text(sig: Mapping[str, Any]) -> str:
    """``method:mbleu|version:0.1.0|...`` (one line, for text output)."""
    parts = []
    for key, value in sig.items():
        if isinstance(value, Mapping):
            value = ",".join(f"{k}={v}" for k, v in value.items())
        parts.append(f"{key}:{value}")
    return "|".join(parts)


__all__ = [
    "Aligner",
    "AlignerInfo",
    "AlignResult",
    "NEEDS",
    "Capabilities",
    "caps",
    "LoaderInfo",
    "MethodInfo",
    "Registry",
    "ResultMixin",
    "ScoreResult",
    "Scorer",
    "ScorerInfo",
    "TrainerInfo",
    "UnknownNameError",
    "import_attr",
    "json_safe",
    "lazy",
    "method_signature",
    "model_path",
    "result_to_json",
    "signature",
    "signature_text",
    "summary",
]
