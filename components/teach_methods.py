"""The Teach page's methods, read off the method table, and the lesson a method makes of a pair.

A method's lesson is described in its row of :data:`explorer.methods.METHODS` (``lesson``:
its display name, its trace function ``explorer.teaching.*``, its one option, its figure
builder in ``components.figures.teaching``, its chapters); :data:`TEACH_METHODS` holds those
rows by the method's name, each with what the page does with it. The page reads nothing
else, so adding a method's lesson is a trace module, a figure builder and the row's ``lesson``.

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

from components.figures.teaching import LessonStep, StepFigure, packed
from explorer.api import Registry, import_attr
from explorer.errors import ExplorerError
from explorer.methods import METHODS, Lesson, LessonOption, Method
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair
from explorer.teaching import Trace, size_refusal


class UnknownTeachingMethod(ExplorerError, KeyError):
    """A method or option the Teach page does not know; the message lists the known ones."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


#: A method's one choice (the table's record).
TeachOption = LessonOption


@dataclass(frozen=True)
class TeachMethod:
    """A method the Teach page steps through (its row's :class:`explorer.methods.Lesson`, under
    the method's name; ``scorers`` are the method's). ``trace`` and ``figure`` are ``"module:attr"``
    (imported on first use): ``trace(pair, **{option.argument: value})`` returns a trace
    whose ``steps`` each have an ``explain`` sentence; ``figure(trace, index, large=...)``
    returns that step's :class:`StepFigure`."""

    name: str
    label: str
    trace: str
    figure: str
    option: TeachOption | None = field(default=None)
    #: The chapter of a step by its ``phase`` (:attr:`explorer.methods.Lesson.chapters`).
    chapters: dict[str, str] = field(default_factory=dict)
    #: One plain sentence on what the method asks of a pair: the lesson opens with it.
    asks: str = ""
    #: The lesson's estimated CPU seconds per squared token pair (:attr:`explorer.methods.Lesson.seconds`).
    lesson_seconds: float = 0.0
    #: The method's scorers, the first the one its verdict uses when the option names none.
    scorers: tuple[str, ...] = ()

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

    def chapter(self, step: object) -> str:
        """The name of the chapter ``step`` belongs to (its phase's, or ``Steps``)."""
        name = self.chapters.get(str(getattr(step, "phase", "")), "Steps")
        return name.format(step=step)

    def step_figure(self, trace: Trace, index: int, *, large: bool = False) -> StepFigure:
        if not 0 <= index < len(trace.steps):
            raise IndexError(f"step {index} of a {len(trace.steps)}-step trace")
        build: Callable[..., StepFigure] = import_attr(self.figure)
        return build(trace, index, large=large)


def _teach_method(row: Method, lesson: Lesson) -> TeachMethod:
    return TeachMethod(row.name, lesson.label, lesson.trace, lesson.figure, lesson.option, lesson.chapters,
                       lesson.asks, lesson.seconds, tuple(info.name for info in row.scorers))


#: The methods with a lesson, in the order the Teach page offers them.
TEACH_METHODS: Registry[TeachMethod] = Registry(
    "teaching method", [_teach_method(row, row.lesson) for row in METHODS.values() if row.lesson is not None],
    error=UnknownTeachingMethod)


def trace_of(method: str, option: str | None, pair: AnalyzedPair) -> Trace:
    """The method's trace on the pair: the one expensive call of a lesson (the method's own
    computation), made once per pair, method and option."""
    return TEACH_METHODS.info(method).run(pair, option)


def unteachable(pairs: Sequence[Pair]) -> dict[str, str]:
    """The pairs no lesson can be built on, by id, each with the few words a picker shows
    beside it: the size check every trace makes first
    (:func:`explorer.teaching.size_refusal`, one limit for every method), on token counts
    only (tokenising, no lesson built), or why the pair could not be tokenised."""
    marks: dict[str, str] = {}
    for pair in pairs:
        try:
            refusal = size_refusal(analyze_pair(pair))
        except ExplorerError as err:  # a side past the tokenizer's own limit
            marks[pair.id] = f"cannot be taught ({str(err).split(';')[0]})"
            continue
        if refusal is not None:
            marks[pair.id] = refusal.mark
    return marks


#: The most a lesson may send the browser, in bytes of JSON (as the step player packs it:
#: :func:`components.figures.teaching.packed`); 30 tokens of 600 combining marks made lessons
#: of 5-34 MB before tokens were bounded (explorer.teaching.TEACHING_MAX_TOKEN_CHARS).
MAX_LESSON_BYTES = 12 * 1024 * 1024


class LessonTooLarge(ExplorerError, ValueError):
    """A lesson over :data:`MAX_LESSON_BYTES`; the message names the limit."""


def lesson(method: str, trace: Trace, *, large: bool, closing: str = "") -> list[LessonStep]:
    """Every step of a trace as the browser shows it: ``sentence`` (the step's explanation),
    ``caption``, ``figure`` (Plotly JSON) and ``chapter``. Plain JSON types only. The
    lesson opens with what the method asks and ends with ``closing`` (the verdict), and is
    shaped (:func:`shaped`): no step that changes nothing, at most :data:`MAX_STEPS`.

    Raises:
        LessonTooLarge: when the steps would send more than :data:`MAX_LESSON_BYTES`.
    """
    row = TEACH_METHODS.info(method)
    steps: list[LessonStep] = []
    for index, step in enumerate(trace.steps):
        shown = row.step_figure(trace, index, large=large)
        steps.append({"sentence": step.explain, "caption": shown.caption, "figure": shown.figure,
                      "chapter": row.chapter(step)})
    steps = shaped(steps)
    steps[0] = {**steps[0], "sentence": f"{row.asks} {steps[0]['sentence']}".strip()}
    steps[-1] = {**steps[-1], "sentence": f"{steps[-1]['sentence']} {closing}".strip()}
    size = len(json.dumps(packed(steps)))
    if size > MAX_LESSON_BYTES:
        raise LessonTooLarge(
            f"this {row.label} lesson has {len(steps)} steps and would send the browser {size / 2**20:.1f} MB, over "
            f"the {MAX_LESSON_BYTES / 2**20:.0f} MB a lesson may send (teach_methods.MAX_LESSON_BYTES): "
            "use fewer or shorter words, or another method")
    return steps


#: The most steps a lesson shows (a lecture's attention; longer traces are shown in runs).
MAX_STEPS = 40


def _same(before: LessonStep, after: LessonStep) -> bool:
    return before["figure"] == after["figure"] and before["caption"] == after["caption"]


def shaped(steps: list[LessonStep], budget: int = MAX_STEPS) -> list[LessonStep]:
    """The lesson a class follows: a step that changes neither the figure nor the caption's
    numbers joins the step before (its sentence added); past ``budget`` steps, consecutive
    steps of one chapter are shown in runs of equal length (the shortest that fits; the
    first and the last step stay alone), each run the figure where it ends."""
    kept = _joined(steps)
    if len(kept) <= budget or len(kept) < 3:
        return kept
    middle = kept[1:-1]
    runs: list[list[LessonStep]] = []
    for step in middle:
        if runs and runs[-1][0]["chapter"] == step["chapter"]:
            runs[-1].append(step)
        else:
            runs.append([step])
    size = 2
    while 2 + sum(-(-len(run) // size) for run in runs) > budget:
        size += 1
    out = [kept[0]]
    for run in runs:
        for start in range(0, len(run), size):
            chunk = run[start:start + size]
            last = chunk[-1]
            said = last["sentence"] if len(chunk) == 1 else (
                f"({len(chunk)} steps in one; the figure shows where they end.) {last['sentence']}")
            out.append({**last, "sentence": said})
    return _joined([*out, kept[-1]])  # two runs may end on the same figure


def _joined(steps: list[LessonStep]) -> list[LessonStep]:
    """A step that changes neither the figure nor the caption joins the one before."""
    kept: list[LessonStep] = []
    for step in steps:
        if kept and _same(kept[-1], step):
            # The joined step opens the later chapter when the earlier one keeps a step of its own.
            keeps = len(kept) > 1 and kept[-2]["chapter"] == kept[-1]["chapter"]
            kept[-1] = {**kept[-1], "sentence": f"{kept[-1]['sentence']} {step['sentence']}",
                        "chapter": step["chapter"] if keeps else kept[-1]["chapter"]}
        else:
            kept.append(step)
    return kept


def verdict(method: str, option: str | None, pair: AnalyzedPair) -> str:
    """The lesson's last words: the scorer it teaches (the option's, else the method's own)
    on the pair against its cutoff (:func:`explorer.decision.resolve.resolve_cutoff`, with
    no data: a trained model's or the shipped default)."""
    from explorer.decision.cutoffs import SOURCE_LABELS
    from explorer.decision.resolve import resolve_cutoff
    from explorer.scorers import SCORERS

    row = TEACH_METHODS.info(method)
    value = row.option_value(option)
    name = value if value in row.scorers else next(iter(row.scorers), None)
    if name is None:
        return ""
    score = float(SCORERS.build(name).score(pair).value)  # type: ignore[attr-defined]
    cut = resolve_cutoff(name)
    decided = "entails" if score > cut.value else "does not entail"
    return (f"Verdict: {SCORERS[name].label} = {score:.4f} {'>' if score > cut.value else '<='} cutoff "
            f"{cut.value:.4f} ({SOURCE_LABELS.get(cut.source, cut.source)}): {decided}.")


def lesson_of(method: str, option: str | None, pair: Pair, *, large: bool) -> list[LessonStep]:
    """The lesson of a pair (:func:`trace_of`, then :func:`lesson`): the job the Teach page
    sends to a worker. Only the steps come back; the trace stays in the worker (the ITG
    chart's at the teaching limit is about 15 MB pickled, 33 MB in memory), which keeps its
    last two, so a layout switch on the same worker does not trace again."""
    analyzed = analyze_pair(pair)
    return lesson(method, _trace(method, option, pair), large=large, closing=verdict(method, option, analyzed))


@lru_cache(maxsize=2)
def _trace(method: str, option: str | None, pair: Pair) -> Trace:
    return trace_of(method, option, analyze_pair(pair))
