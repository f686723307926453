"""The explorer's contracts in one place: what a scorer, an aligner and their results
are, the info records the CLI and UI read, and the one registry helper behind every
``name -> info`` table (scorers, aligners, dataset formats, trainers, CLI commands, UI
panels).

A registry maps a name to a frozen info record. Records say what a method needs
(:class:`Capabilities`) so the UI and CLI can filter methods instead of failing at run
time, and how to build it: a factory given as ``"module:attr"`` (imported on first use,
so listing methods imports nothing heavy) or as a callable. Building is cached: one
instance per name and process.

Results share one contract (:class:`ScoreResult`, :class:`AlignResult`): ``value`` is the
number compared to a cutoff (higher = more entailed), ``to_json()`` gives a JSON-ready dict
and ``format()`` (also ``str(result)``) the one line the command line prints, as
sacreBLEU's ``Score.format()`` does. Reports of whole runs (an evaluation, a classifier's
test) keep the same two methods (:class:`Report`), so every command prints its record as
text or JSON through one renderer.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload, runtime_checkable

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
    #: The Teach page's method that steps through this scorer (a name of
    #: ``components.teach_methods.TEACH_METHODS``; its option offers this scorer when it
    #: has variants), or None.
    teach: str | None = field(default=None, kw_only=True)
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
        self._built: dict[str, object] = {}
        self._lock = threading.Lock()

    def unknown(self, name: str) -> Exception:
        known = ", ".join(self) or "(none yet)"
        return self.error(f"unknown {self.kind} {name!r}; choose from: {known}")

    def info(self, name: str) -> InfoT:
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


# -- scorers, aligners and their results ----------------------------------------------------------


@runtime_checkable
class ScoreResult(Protocol):
    """What every scorer returns: ``value`` (the number compared to a cutoff, higher =
    more entailed), ``to_json()`` (JSON-ready, ``value`` among its keys) and ``format()``
    (one line: the value, then what explains it). Each result type is a frozen
    dataclass that carries its breakdown; :class:`ResultMixin` gives the two methods."""

    @property
    def value(self) -> float: ...

    def to_json(self) -> dict[str, object]: ...

    def format(self) -> str: ...


class Scorer(Named, Protocol):
    """``score(pair)`` is the contract. A scorer may also have ``score_many(pairs)``:
    every pair's result in one go (values and breakdown, without what only the Pair page
    draws), raising when any pair is refused; :func:`score_many` uses it when there is
    one, and loops over ``score`` otherwise."""

    def score(self, pair: AnalyzedPair) -> ScoreResult: ...


@dataclass(frozen=True)
class Value:
    """A bare value: what a ``score_many`` that computes no breakdown returns per pair."""

    value: float

    def to_json(self) -> dict[str, object]:
        return {"value": self.value}

    def format(self) -> str:
        return fixed(self.value)


def score_many(scorer: Scorer, pairs: Sequence[AnalyzedPair]) -> list[ScoreResult | Exception]:
    """Every pair's result, or the exception it raised (a refusal past the limits, an
    error of the method): the one loop behind every batch of pairs, with one refusal
    policy (a refused pair never stops the others).

    The scorer's own ``score_many`` is tried first; when it raises, the pairs are scored
    one by one to find which were refused.
    """
    many = getattr(scorer, "score_many", None)
    if many is not None and pairs:
        try:
            return list(many(pairs))
        except Exception:  # noqa: BLE001 - some pair was refused: found below, one by one
            pass
    out: list[ScoreResult | Exception] = []
    for pair in pairs:
        try:
            out.append(scorer.score(pair))
        except Exception as err:  # noqa: BLE001 - the refusal is the pair's result
            out.append(err)
    return out


def breakdown_value(result: object, name: str) -> object:
    """A result's breakdown field ``name``: the attribute, or its ``value`` when the
    attribute is itself a result (BLEU-n's ``hypothesis_candidate``)."""
    got = getattr(result, name, None)
    return getattr(got, "value", got)


@runtime_checkable
class AlignResult(ScoreResult, Protocol):
    """What every aligner returns: a :class:`ScoreResult` with its ``alignment``."""

    @property
    def alignment(self) -> Alignment: ...


class Aligner(Named, Protocol):
    def align(self, pair: AnalyzedPair) -> AlignResult: ...


class Report(Protocol):
    """What a command prints: a record of a whole run (an evaluation, a classifier's
    test, a corpus's statistics) as JSON (``to_json()``) or as text (``format()``,
    lines ending without a newline). :func:`explorer.cli.output.emit` is the one
    renderer."""

    def to_json(self) -> dict[str, object]: ...

    def format(self) -> str: ...


@overload
def json_safe(value: dict[str, object]) -> dict[str, object]: ...
@overload
def json_safe(value: object) -> object: ...
def json_safe(value: object) -> object:
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


#: What must not reach a terminal raw from a file or folder name (or anything else read
#: from outside): C0 controls (escape sequences, bell, CR, line breaks), DEL, C1 controls
#: (0x9b starts an escape sequence on some terminals), Unicode line and paragraph
#: separators, the bidirectional controls that reorder the text after them, and lone
#: surrogates (undecodable bytes of a file name, which would stop the print itself).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]


def shown(text: object) -> str:
    """``text`` (a path, a name, a message holding them) as a terminal may show it: every
    character of :data:`_UNSAFE` escaped as Python writes it (``\\x1b``, ``\\n``,
    ``\\u202e``), everything else as it is."""
    return _UNSAFE.sub(_escape, str(text))


def fixed(number: float | None, digits: int = 4) -> str:
    """``number`` with ``digits`` decimals (``-`` for a figure that is not there)."""
    return "-" if number is None else f"{number:.{digits}f}"


def both_directions(hypothesis_candidate: float, text_candidate: float) -> str:
    """The ``detail()`` of a score averaged over its two directions (BLEU-n, NIST).

    >>> both_directions(0.5, 0.25)
    'hypothesis as candidate 0.5000, text as candidate 0.2500'
    """
    return f"hypothesis as candidate {hypothesis_candidate:.4f}, text as candidate {text_candidate:.4f}"


class ResultMixin:
    """``to_json()``, ``format()`` and ``str()`` for frozen result dataclasses.

    A subclass says what explains its value in :meth:`detail`; ``format()`` puts it
    after the value.
    """

    if TYPE_CHECKING:
        @property
        def value(self) -> float: ...

    def to_json(self) -> dict[str, object]:
        """The dataclass fields, plus ``value`` where it is a property (MANLI's), so every
        method's JSON carries the number compared to a cutoff under one name."""
        body: dict[str, object] = asdict(self)  # type: ignore[call-overload]
        if "value" not in body:
            body["value"] = self.value
        return json_safe(body)

    def detail(self) -> str:
        """What explains the value, in a few words (by default the alignment's size)."""
        alignment = getattr(self, "alignment", None)
        return f"{len(alignment.links)} links" if alignment is not None else ""

    def format(self) -> str:
        """``0.4213  (what explains it)``: one line, as the ``score`` command prints it.

        >>> from explorer.metrics.wer import wer_tokens
        >>> wer_tokens(("a", "cat", "sat"), ("a", "dog", "sat")).format()
        '0.6667  (WER 0.3333: 1 substituted, 0 deleted, 0 inserted words)'
        """
        detail = self.detail()
        return fixed(self.value) + (f"  ({detail})" if detail else "")

    def __str__(self) -> str:
        return self.format()


# -- signatures ----------------------------------------------------------------------------------


def file_digest(path: str | Path, length: int = 12) -> str | None:
    """The first ``length`` hex digits of a file's sha256 (None when unreadable)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:length]
    except OSError:
        return None


MODELS_DIR = Path(__file__).resolve().parent / "models"


def model_path(info: MethodInfo) -> Path | None:
    """The shipped model file of a scorer's or aligner's info record (None for
    methods without one)."""
    return MODELS_DIR / info.model if info.model else None


def method_signature(info: MethodInfo, *, model: str | Path | None = None,
                     cutoff_source: str | None = None) -> dict[str, object]:
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


def signature(method: str, *, model: str | Path | None = None, lexical: Mapping[str, object] | None = None,
              cutoff_source: str | None = None, **extra: object) -> dict[str, object]:
    """The settings behind a reported number, as sacreBLEU's signature records them:
    the method, the explorer's version, the model file and its sha256 prefix, the
    lexical configuration and where the cutoff came from."""
    from explorer import __version__

    sig: dict[str, object] = {"method": method, "version": __version__}
    if model is not None:
        sig["model"] = Path(model).name
        sig["model_sha256"] = file_digest(model)
    if lexical is not None:
        sig["lexical"] = dict(lexical)
    if cutoff_source is not None:
        sig["cutoff_source"] = cutoff_source
    sig.update(extra)
    return sig


def signature_text(sig: Mapping[str, object]) -> str:
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
    "HEADERS",
    "NEEDS",
    "Capabilities",
    "DEFAULT_SECONDS",
    "caps",
    "fixed",
    "LoaderInfo",
    "MethodInfo",
    "Registry",
    "Report",
    "ResultMixin",
    "ScoreResult",
    "Scorer",
    "ScorerInfo",
    "TrainerInfo",
    "UnknownNameError",
    "Value",
    "breakdown_value",
    "import_attr",
    "json_safe",
    "lazy",
    "method_signature",
    "model_path",
    "score_many",
    "signature",
    "shown",
    "signature_text",
]
