"""A lesson, or a deck of several, as one self-contained HTML file that works from disk.

The file carries everything the Teach page's step player needs and fetches nothing: the
steps (sentence, caption, chapter, Plotly figure; the layouts most steps share stored
once), plotly.js from the installed plotly package, and the player's own script and style
sheet (``components/sections/step_player.{js,css}``, the very ones the page mounts), so the
keys, the clicker (arrows, PageUp/PageDown, space), ``F`` for full screen and the chapter
menu work the same with the network off or the server stopped.

Nothing a lesson carries is read as markup: the steps travel as JSON inside a
``<script type="application/json">`` block with every ``<`` escaped, and the player sets
every text with ``textContent``. :func:`deck_html` is pure (no Streamlit); the Teach
page's download button and the ``lesson`` command both call :func:`write_deck` or
:func:`deck_html`.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from components.figures.teaching import LessonStep, packed
from explorer.errors import ExplorerError
from explorer.pairs import Pair

SECTIONS = Path(__file__).resolve().parent / "sections"
#: The player module's entry (a Streamlit v2 component's default export), renamed in the
#: file so an inline script can call it.
_ENTRY = "export default function (component)"
#: Most lessons a file holds (each is a few hundred kB of figures on top of plotly.js).
MAX_LESSONS = 12

#: The page around the player: project-written, no user text.
_PAGE_STYLE = """
body { margin: 0; padding: 0.8rem 1.5rem; font-family: "Source Sans", "Source Sans Pro", sans-serif;
       color: #31333f; background: #ffffff; }
.tp-footer { font-size: 0.8rem; opacity: 0.6; margin-top: 0.3rem; }
"""


class LessonExportError(ExplorerError, ValueError):
    """A deck that cannot be written (none or too many lessons); the message says which."""


@dataclass(frozen=True)
class DeckLesson:
    """One lesson of a file: its title, its pair's sentences and its steps
    (:func:`components.teach_methods.lesson`)."""

    title: str
    text: str
    hypothesis: str
    steps: Sequence[LessonStep]


def deck_data(lessons: Sequence[DeckLesson]) -> dict[str, object]:
    """What the player reads from the file (plain JSON): every lesson's steps in one
    sequence, each step with its lesson's index, the shared layouts and each lesson's title
    and pair."""
    if not lessons:
        raise LessonExportError("a lesson file needs at least one lesson")
    if len(lessons) > MAX_LESSONS:
        raise LessonExportError(f"{len(lessons)} lessons; a file holds at most {MAX_LESSONS}")
    steps: list[dict[str, object]] = []
    layouts: list[object] = []
    seen: dict[str, int] = {}
    for k, lesson in enumerate(lessons):
        shown, _ = packed(lesson.steps, layouts, seen)
        steps += [{**step, "lesson": k} for step in shown]
    return {
        "id": "exported", "steps": steps, "layouts": layouts, "step": 1, "large": True, "fit": True,
        "lessons": [{"title": lesson.title, "pair": {"text": lesson.text, "hypothesis": lesson.hypothesis}}
                    for lesson in lessons],
        "pair": None, "plotly": None, "param": None, "play_seconds": 1.5,
        "config": {"responsive": True, "displaylogo": False},
    }


def _script_json(value: object) -> str:
    """JSON that cannot end its ``<script>`` block early (every ``<`` escaped)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _player_script() -> str:
    source = (SECTIONS / "step_player.js").read_text(encoding="utf-8")
    if source.count(_ENTRY) != 1:
        raise RuntimeError(f"step_player.js no longer has exactly one {_ENTRY!r}")
    return source.replace(_ENTRY, "function mountPlayer(component)")


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    code: str = get_plotlyjs()
    if "</script" in code.lower():
        raise RuntimeError("plotly.js contains '</script' and cannot be inlined as it is")
    return code


def deck_html(lessons: Sequence[DeckLesson], *, title: str) -> str:
    """The whole file: plotly.js, the player and every lesson's steps, nothing to fetch."""
    data = deck_data(lessons)
    mount = ('mountPlayer({ data: JSON.parse(document.getElementById("lesson-data").textContent), '
             'parentElement: document.getElementById("lesson") });')
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_PAGE_STYLE}{(SECTIONS / 'step_player.css').read_text(encoding='utf-8')}</style>",
        f'<script type="text/javascript">{_plotly_js()}</script>',
        '</head><body><main id="lesson"></main>',
        '<p class="tp-footer">Entailment Alignment Explorer, Teaching mode: → / PageDown / space next, '
        "← / PageUp back, 1-9 or the menu for a chapter, ] / [ the next / previous chapter, F full screen.</p>",
        f'<script type="application/json" id="lesson-data">{_script_json(data)}</script>',
        f'<script type="module">{_player_script()}\n{mount}</script>',
        "</body></html>",
    ])


def lesson_title(method: str, option: str | None, where: str) -> str:
    """``"MANLI on pair 12 of rte2_dev.xml"``, with the option's display name when it has one."""
    from components.teach_methods import TEACH_METHODS

    row = TEACH_METHODS[method]
    named = f" ({row.option.choices[option]})" if row.option is not None and option is not None else ""
    return f"{row.label}{named} on {where}"


@dataclass(frozen=True)
class DeckItem:
    """A lesson to put in a file: the pair, the Teach method and its option, and where the
    pair comes from (``"pair 12 of rte2_dev.xml"``, ``"a typed pair"``)."""

    pair: Pair
    method: str
    option: str | None
    where: str


def build_deck(items: Sequence[DeckItem]) -> list[DeckLesson]:
    """One lesson per item, traced here, in presentation form."""
    from components.teach_methods import TEACH_METHODS, lesson_of

    lessons = []
    for item in items:
        value = TEACH_METHODS[item.method].option_value(item.option)
        lessons.append(DeckLesson(lesson_title(item.method, value, item.where), item.pair.text, item.pair.hypothesis,
                                  lesson_of(item.method, value, item.pair, large=True)))
    return lessons


def deck_file(items: Sequence[DeckItem]) -> str:
    """The file of a deck (:func:`build_deck`, then :func:`deck_html`): the Teach page's
    download, run on one of the server's workers."""
    return _built(items)[1]


def _built(items: Sequence[DeckItem]) -> tuple[list[DeckLesson], str]:
    if len(items) > MAX_LESSONS:
        raise LessonExportError(f"{len(items)} lessons; a file holds at most {MAX_LESSONS}")
    lessons = build_deck(items)
    wheres = dict.fromkeys(item.where for item in items)
    title = lessons[0].title if len(lessons) == 1 else f"{len(lessons)} lessons on {', '.join(wheres)}"
    return lessons, deck_html(lessons, title=title)


def method_choices(spec: str) -> list[tuple[str, str | None]]:
    """``"manli,pfsm,bleu"`` -> ``[("manli", None), ("edit", "pfsm"), ("bleu", None)]``: each
    name a Teach method (its default option; a former name of it too: ``editdist``) or one
    of a method's option values (a scorer's name: ``pfsm``, ``bleu_pa``, ``itg_lex``)."""
    from components.teach_methods import TEACH_METHODS, UnknownTeachingMethod
    from explorer.methods import METHODS

    by_option = {value: (row.name, value) for row in TEACH_METHODS.values() if row.option is not None
                 for value in row.option.choices}
    chosen: list[tuple[str, str | None]] = []
    for name in (part.strip() for part in spec.split(",")):
        name = METHODS.aliases.get(name, name)
        if name in TEACH_METHODS:
            chosen.append((name, None))
        elif name in by_option:
            chosen.append(by_option[name])
        else:
            raise UnknownTeachingMethod(f"unknown teaching method {name!r}; choose from: "
                                        f"{', '.join(dict.fromkeys([*TEACH_METHODS, *by_option]))}")
    return chosen


def write_deck(pair: Pair, spec: str, out: Path, *, where: str) -> list[tuple[str, str, int]]:
    """The ``lesson`` command's work: a lesson per method of ``spec`` on ``pair`` written to
    ``out`` as one file; returns (method, title, steps) per lesson."""
    items = [DeckItem(pair, method, option, where) for method, option in method_choices(spec)]
    lessons, text = _built(items)
    out.write_text(text, encoding="utf-8")
    return [(item.method, lesson.title, len(lesson.steps)) for item, lesson in zip(items, lessons)]
