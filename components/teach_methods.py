"""The Teach page's methods: one row each, and the lesson a row makes of a pair.

A row is a method's whole description for the page: its display name, its trace function
(``explorer.teaching.*``, run lazily), its one option (a variant or a model, with the
names the page shows) and its figure builder (``components.figures.teaching``). The page
reads nothing else, so adding a method is a trace module, a figure builder and one row.

:func:`trace_of` is the one expensive call (the method's own computation on the pair);
:func:`lesson` turns a trace into what the browser steps through: every step's sentence,
caption and figure, sent once. :func:`lesson_of` does both, and is what the page runs on
the server's workers (:mod:`components.workers`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from components.figures.teaching import LessonStep, StepFigure
from explorer.api import Registry, import_attr
from explorer.errors import ExplorerError
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair
from explorer.teaching import Trace


class UnknownTeachingMethod(ExplorerError, KeyError):
    """A method or option the Teach page does not know; the message lists the known ones."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class TeachOption:
    """A method's one choice: the widget ``label``, the trace's keyword ``argument``, the
    ``choices`` (value -> display name) and the ``default`` value."""

    label: str
    argument: str
    choices: dict[str, str]
    default: str


@dataclass(frozen=True)
class TeachMethod:
    """A method the Teach page steps through (the scorers it steps through name it in their
    registry row: ``ScorerInfo.teach``). ``trace`` and ``figure`` are ``"module:attr"``
    (imported on first use): ``trace(pair, **{option.argument: value})`` returns a trace
    whose ``steps`` each have an ``explain`` sentence; ``figure(trace, index, large=...)``
    returns that step's :class:`StepFigure`."""

    name: str
    label: str
    trace: str
    figure: str
    option: TeachOption | None = field(default=None)
    #: The lesson's estimated CPU seconds per squared text x hypothesis token pair, by which
    #: the server's workers tell a long lesson (:func:`runtime.pool.cost.lesson_is_long`):
    #: the ITG trace reads every cell of its chart, about (p x h)² / 4 of them (2.7 s for the
    #: 30 x 30 pair at the teaching limit); the other lessons stay under 0.3 s there.
    lesson_seconds: float = 0.0

    def option_value(self, value: str | None) -> str | None:
        """``value`` checked against the option's choices (``None``: the default)."""
        if self.option is None:
            return None
        if value is None:
            return self.option.default
        if value not in self.option.choices:
            raise UnknownTeachingMethod(f"unknown {self.option.label.lower()} {value!r} for {self.label}; "
                                        f"choose from: {', '.join(self.option.choices)}")
        return value

    def run(self, pair: AnalyzedPair, option: str | None = None) -> Trace:
        tracer: Callable[..., Trace] = import_attr(self.trace)
        value = self.option_value(option)
        return tracer(pair) if self.option is None else tracer(pair, **{self.option.argument: value})

    def step_figure(self, trace: Trace, index: int, *, large: bool = False) -> StepFigure:
        if not 0 <= index < len(trace.steps):
            raise IndexError(f"step {index} of a {len(trace.steps)}-step trace")
        build: Callable[..., StepFigure] = import_attr(self.figure)
        return build(trace, index, large=large)


_FIGURES = "components.figures.teaching"

#: The methods, in the order the Teach page offers them.
TEACH_METHODS: Registry[TeachMethod] = Registry("teaching method", [
    TeachMethod("bleu", "BLEU / modified BLEU", "explorer.teaching.bleu:trace_bleu", f"{_FIGURES}:bleu_figure",
                TeachOption("Variant", "variant", {"mbleu": "modified BLEU", "bleu": "BLEU", "bleu_pa": "BLEU P&A"},
                            "mbleu")),
    TeachMethod("wer", "Word error rate (WER)", "explorer.teaching.wer:trace_wer", f"{_FIGURES}:wer_figure"),
    TeachMethod("itg", "Bracketing ITG", "explorer.teaching.itg:trace_itg", f"{_FIGURES}:itg_figure",
                TeachOption("Variant", "variant", {"itg": "exact matches", "itg_entail": "cheap text nulls",
                                                   "itg_stop": "stoplist", "itg_lex": "lexical similarity"}, "itg"),
                lesson_seconds=3.3e-6),
    TeachMethod("manli", "MANLI", "explorer.teaching.manli:trace_manli", f"{_FIGURES}:manli_figure"),
    TeachMethod("edit", "pFSM / pPDA edit distance", "explorer.teaching.edit:trace_edit", f"{_FIGURES}:edit_figure",
                TeachOption("Model", "kind", {"ppda": "pPDA (with jumps)", "pfsm": "pFSM"}, "ppda")),
    TeachMethod("embed", "Static embeddings", "explorer.teaching.embed:trace_embed", f"{_FIGURES}:embed_figure",
                TeachOption("Result", "result", {"links": "word links (aligner)", "score": "sentence score (scorer)"},
                            "links")),
], error=UnknownTeachingMethod)


def trace_of(method: str, option: str | None, pair: AnalyzedPair) -> Trace:
    """The method's trace on the pair: the one expensive call of a lesson (the method's own
    computation), made once per pair, method and option."""
    return TEACH_METHODS.info(method).run(pair, option)


#: The most a lesson may send the browser, in bytes of JSON (as :func:`packed`): the 30 x 30
#: ITG lesson of ordinary words is about 9 MB; 30 tokens of 40 combining marks each made 21 MB.
MAX_LESSON_BYTES = 12 * 1024 * 1024


class LessonTooLarge(ExplorerError, ValueError):
    """A lesson over :data:`MAX_LESSON_BYTES`; the message names the limit."""


def packed(steps: Sequence[LessonStep]) -> tuple[list[dict[str, object]], list[object]]:
    """The steps with each figure's layout replaced by an index into a list of the distinct
    layouts (most steps of a method share one, so it is sent once)."""
    layouts: list[object] = []
    seen: dict[str, int] = {}
    out: list[dict[str, object]] = []
    for step in steps:
        figure = step["figure"]
        text = json.dumps(figure["layout"], sort_keys=True)
        if text not in seen:
            seen[text] = len(layouts)
            layouts.append(figure["layout"])
        out.append({**step, "figure": {"data": figure["data"], "layout": seen[text]}})
    return out, layouts


def lesson(method: str, trace: Trace, *, large: bool) -> list[LessonStep]:
    """Every step of a trace as the browser shows it: ``sentence`` (the step's explanation),
    ``caption`` and ``figure`` (Plotly JSON). Plain JSON types only.

    Raises:
        LessonTooLarge: when the steps would send more than :data:`MAX_LESSON_BYTES`.
    """
    row = TEACH_METHODS.info(method)
    steps: list[LessonStep] = []
    for index, step in enumerate(trace.steps):
        shown = row.step_figure(trace, index, large=large)
        steps.append({"sentence": step.explain, "caption": shown.caption, "figure": shown.figure})
    size = len(json.dumps(packed(steps)))
    if size > MAX_LESSON_BYTES:
        raise LessonTooLarge(
            f"this {row.label} lesson has {len(steps)} steps and would send the browser {size / 2**20:.1f} MB, over "
            f"the {MAX_LESSON_BYTES / 2**20:.0f} MB a lesson may send (teach_methods.MAX_LESSON_BYTES): "
            "use fewer or shorter words, or another method")
    return steps


def lesson_of(method: str, option: str | None, pair: Pair, *, large: bool) -> list[LessonStep]:
    """The lesson of a pair (:func:`trace_of`, then :func:`lesson`): the job the Teach page
    sends to a worker. Only the steps come back; the trace stays in the worker (the ITG
    chart's at the teaching limit is about 15 MB pickled, 33 MB in memory), which keeps its
    last two, so a layout switch on the same worker does not trace again."""
    return lesson(method, _trace(method, option, pair), large=large)


@lru_cache(maxsize=2)
def _trace(method: str, option: str | None, pair: Pair) -> Trace:
    return trace_of(method, option, analyze_pair(pair))
