"""The simulated class of ``bench/bench_class.py``: students and one hostile student, each a
browser tab without the browser (``tests/e2e/streamlit_client.Session``).

A **student** first opens an RTE pair by link, then repeats, with 5-15 s of thinking between
actions: open another RTE pair by link (4 in 10), type a pair of their own (3 in 10), open
the Evaluate page or the Dataset page (1.5 in 10 each; a typed pair on another page goes
back to the Pair page first). What is timed, per action (``time.monotonic()`` in the client):

- ``RTE pair (link)``: a new tab loads ``/?dataset=rte:rte2_dev.xml&pair=ID`` (the old tab's
  websocket closed): from the first HTTP request to the arrival of that pair's verdict strip
  (the ``st.html`` element whose ``data-pair`` is the pair's mark). The strip is sent in the
  middle of the page's first run, with every method's verdict (``data-pending`` says how many
  slow methods it left to a button: none for RTE2 pairs); the figures follow in a second run.
- ``typed pair``: on the Pair page, the text box is set (one rerun), 1-3 s later the
  hypothesis box (a second rerun, as a browser sends each box on leaving it): from sending
  the second rerun to the arrival of the typed pair's strip.
- ``Evaluate page``, ``Dataset page``, ``Pair page (back)``: from sending the page switch to
  the end of the page's run (``script_finished``, successfully, of a run begun after it).

An action that has no answer within the timeout counts as that long and is named in the
table; the tab is then closed and the student opens a new link.

The **hostile student** types a 1,999 x 50-token pair (inside every limit) with 5 quick
reruns (each a word changed, 0.5 s apart; timed to the last one's strip), then uploads a
50 MB CSV of pairs (refused past the pair limit), or a CSV of a given number of pairs
(accepted within the limits), different bytes every time, through Streamlit's upload
endpoint and hands it to the Dataset page (timed: the PUT, and the page's run that loads the
file: for an accepted upload, its first page of pairs), and again, with 5 s between steps.
"""

from __future__ import annotations

import asyncio
import functools
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from explorer.pairs import content_mark
from explorer.preprocess import clean_text
from tests.e2e.streamlit_client import Session, element_html, element_kind, run_finished

Predicate = Callable[[ForwardMsg], bool]

RTE_LINK = "RTE pair (link)"
TYPED = "typed pair"
EVALUATE = "Evaluate page"
DATASET = "Dataset page"
PAIR_BACK = "Pair page (back)"
HOSTILE_PAIR = "hostile: 1,999 x 50 pair"
HOSTILE_PUT = "hostile: upload PUT"
HOSTILE_LOAD = "hostile: upload loaded"
STUDENT_ACTIONS = (RTE_LINK, TYPED, EVALUATE, DATASET, PAIR_BACK)
TEXT_BOX, HYPOTHESIS_BOX = "Text (premise)", "Hypothesis"


@dataclass(frozen=True)
class Material:
    """What the class works on: RTE2 dev pairs (id, mark), RTE1 dev pairs to type, words."""

    rte_pairs: list[tuple[str, str]]
    typed_sources: list[tuple[str, str]]
    words: list[str]


def load_material(rte_dir: Path) -> Material:
    """Pairs of NLTK's RTE corpus: RTE2 dev for the links, RTE1 dev for typed pairs."""
    from explorer.datasets import load

    rte2 = load(rte_dir / "rte2_dev.xml").pairs
    rte1 = load(rte_dir / "rte1_dev.xml").pairs
    words = sorted({w for p in rte1 for w in p.text.split() if w.isalpha()})
    return Material([(p.id, content_mark(p.text, p.hypothesis)) for p in rte2],
                    [(p.text, p.hypothesis) for p in rte1], words)


def typed_mark(text: str, hypothesis: str) -> str:
    """The strip's ``data-pair`` for a typed pair (the page cleans typed text first)."""
    return content_mark(clean_text(text), clean_text(hypothesis))


def strip_for(mark: str) -> Predicate:
    """A predicate: the verdict strip for the pair with this mark, or the page's refusal of it."""
    needle = f'data-pair="{mark}"'

    def check(msg: ForwardMsg) -> bool:
        if needle in element_html(msg):
            return True
        return element_kind(msg) == "alert" and "tokens per side" in msg.delta.new_element.alert.body

    return check


def states(*values: WidgetState) -> dict[str, WidgetState]:
    return {value.id: value for value in values}


@dataclass
class Record:
    action: str
    phase: str
    started: float
    seconds: float  # math.inf: no answer within the timeout
    student: int


@dataclass
class Class:
    """What every simulated tab shares: where the app is, the material, the clock and the records."""

    url: str
    auth: tuple[str, str] | None
    material: Material
    think: tuple[float, float]
    timeout: float
    phases: list[tuple[str, float, float]]  # (name, start, end) in time.monotonic()
    seed: int = 0
    records: list[Record] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    uploads_allowed: Callable[[], bool] = lambda: True

    @property
    def end(self) -> float:
        return self.phases[-1][2]

    def phase_at(self, moment: float) -> str:
        return next((name for name, start, end in self.phases if start <= moment < end), "")

    def running(self) -> bool:
        return time.monotonic() < self.end

    def record(self, action: str, started: float, seconds: float, student: int) -> None:
        phase = self.phase_at(started)
        if phase:
            self.records.append(Record(action, phase, started, seconds, student))

    def session(self) -> Session:
        return Session(self.url, auth=self.auth, timeout=self.timeout)


async def _timed(session: Session, predicate: Predicate, send: Callable[[], Awaitable[None]], timeout: float) -> float:
    """Seconds from ``send()`` to the first message matching ``predicate``."""
    future = session.expect(predicate)
    started = time.monotonic()
    await send()
    return await session.wait(future, timeout) - started


async def open_rte_pair(cls: Class, rng: random.Random) -> tuple[Session, float]:
    """A new tab on an RTE2 pair's link; the seconds to its strip (the run that draws the
    figures is then awaited too, untimed, so the next action starts on a settled page)."""
    pair_id, mark = rng.choice(cls.material.rte_pairs)
    session = cls.session()
    strip, done = session.expect(strip_for(mark)), session.expect(run_finished())
    started = time.monotonic()
    try:
        await session.open(f"dataset=rte:rte2_dev.xml&pair={pair_id}")
        seconds = await session.wait(strip, cls.timeout) - started
        await session.wait(done, cls.timeout)
    except BaseException:
        await session.close()
        raise
    return session, seconds


async def type_pair(session: Session, text: str, hypothesis: str, rng: random.Random, timeout: float) -> float:
    """Text box, 1-3 s of typing, hypothesis box; seconds from the second rerun to the strip."""
    await session.rerun(widgets=states(session.text_value(TEXT_BOX, text)))
    await asyncio.sleep(rng.uniform(1.0, 3.0))
    typed = states(session.text_value(HYPOTHESIS_BOX, hypothesis))
    return await _timed(session, strip_for(typed_mark(text, hypothesis)), lambda: session.rerun(widgets=typed), timeout)


async def switch(session: Session, page: str, timeout: float) -> float:
    """Seconds from switching to ``page`` to the end of its run."""
    return await _timed(session, run_finished(), lambda: session.switch_page(page), timeout)


def fresh_typed_pair(cls: Class, rng: random.Random) -> tuple[str, str]:
    """An RTE1 pair with a number added to the hypothesis, so no server has seen it before."""
    text, hypothesis = rng.choice(cls.material.typed_sources)
    return text, f"{hypothesis.rstrip('.')} in {rng.randint(1000, 999_999)}."


async def student(cls: Class, index: int) -> None:
    rng = random.Random(cls.seed * 1000 + index)
    await asyncio.sleep(rng.uniform(0, cls.think[1]))  # the class arrives over the first think time
    session: Session | None = None
    page = ""
    while cls.running():
        action = RTE_LINK if session is None else rng.choices(
            [RTE_LINK, TYPED, EVALUATE, DATASET], weights=[4, 3, 1.5, 1.5])[0]
        if action == TYPED and page != "Pair":
            action = PAIR_BACK
        started = time.monotonic()
        try:
            if action == RTE_LINK:
                if session is not None:
                    await session.close()
                    session = None
                session, seconds = await open_rte_pair(cls, rng)
                page = "Pair"
            elif action == TYPED and session is not None:
                seconds = await type_pair(session, *fresh_typed_pair(cls, rng), rng, cls.timeout)
            elif session is not None:
                page = {EVALUATE: "Evaluate", DATASET: "Dataset", PAIR_BACK: "Pair"}[action]
                seconds = await switch(session, page, cls.timeout)
            cls.record(action, started, seconds, index)
        except Exception as err:  # no answer in time, or the server closed the tab
            cls.record(action, started, math.inf, index)
            if not isinstance(err, (asyncio.TimeoutError, TimeoutError)):
                cls.notes.append(f"student {index}: {action}: {type(err).__name__}: {err}"[:300])
            if session is not None:
                await session.close()
            session = None
        await asyncio.sleep(rng.uniform(*cls.think))
    if session is not None:
        await session.close()


def long_pair(cls: Class, rng: random.Random, text_tokens: int = 1999, hypothesis_tokens: int = 50) -> tuple[str, str]:
    words = cls.material.words
    return (" ".join(rng.choice(words) for _ in range(text_tokens)),
            " ".join(rng.choice(words) for _ in range(hypothesis_tokens)))


def upload_base(cls: Class, megabytes: int, seed: int = 7, *, pairs: int = 0) -> bytes:
    """A CSV of pairs of about ``megabytes`` MB, or of ``pairs`` pairs when that is not 0
    (made once; each upload changes its first row)."""
    rng = random.Random(seed)
    words = cls.material.words
    rows = []
    size = 0
    i = 0
    while (i < pairs - 1) if pairs else (size < megabytes * 1_000_000):
        text = " ".join(rng.choice(words) for _ in range(12))
        row = f"{i},{text},{' '.join(text.split()[:5])},{rng.choice(['entailment', 'contradiction'])}\n"
        rows.append(row)
        size += len(row)
        i += 1
    return "".join(rows).encode()


async def _long_pair_round(cls: Class, session: Session, rng: random.Random) -> None:
    """The 1,999 x 50 pair, five quick reruns; timed from the first to the last one's strip."""
    text, hypothesis = long_pair(cls, rng)
    started = time.monotonic()
    for rerun in range(5):
        text = f"{text.rsplit(' ', 1)[0]} {rng.choice(cls.material.words)}"
        typed = states(session.text_value(TEXT_BOX, text), session.text_value(HYPOTHESIS_BOX, hypothesis))
        if rerun < 4:
            await session.rerun(widgets=typed)
            await asyncio.sleep(0.5)
    await _timed(session, strip_for(typed_mark(text, hypothesis)), lambda: session.rerun(widgets=typed), 600)
    cls.record(HOSTILE_PAIR, started, time.monotonic() - started, -1)


async def _upload_round(cls: Class, session: Session, data: bytes, name: str) -> None:
    """An upload through the Dataset page's file uploader: the PUT, then the page's run with it."""
    await switch(session, "Dataset", 600)
    source = states(session.choice_value("Source", "Upload a file"))
    await _timed(session, run_finished(), lambda: session.rerun(widgets=source), 600)
    started = time.monotonic()
    put, state = await session.upload("Dataset file", name, data)
    cls.record(HOSTILE_PUT, started, put.seconds if put.status == 204 else math.inf, -1)
    if put.status != 204:
        cls.notes.append(f"hostile upload {name}: HTTP {put.status} {put.body[:120]!r}")
        return
    started = time.monotonic()
    seconds = await _timed(session, run_finished(), lambda: session.rerun(widgets=states(state)), 600)
    cls.record(HOSTILE_LOAD, started, seconds, -1)


async def hostile(cls: Class, start: float, upload_mb: int, upload_pairs: int = 0) -> None:
    """The hostile student (see the module's docstring), from ``start`` until the end;
    ``upload_pairs``: uploads of that many pairs (within the limits: accepted) instead of
    ``upload_mb`` MB."""
    rng = random.Random(cls.seed * 1000 + 999)
    make = functools.partial(upload_base, cls, upload_mb, pairs=upload_pairs)
    base = await asyncio.get_running_loop().run_in_executor(None, make) if upload_mb or upload_pairs else b""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    session: Session | None = None
    round_ = 0
    while cls.running():
        round_ += 1
        try:
            if session is None:
                session, _ = await open_rte_pair(cls, rng)
                session.timeout = 600  # a 50 MB upload into a busy server: give it time
            await _long_pair_round(cls, session, rng)
            await asyncio.sleep(5)
            if base and cls.uploads_allowed() and cls.running():
                head = f"id,text,hypothesis,label\nu{round_}-{rng.random()},a b,a,entailment\n".encode()
                await _upload_round(cls, session, head + base, f"hostile-{round_}.csv")
                await asyncio.sleep(5)
                await switch(session, "Pair", 600)
        except Exception as err:
            cls.notes.append(f"hostile round {round_}: {type(err).__name__}: {err}"[:300])
            if session is not None:
                await session.close()
            session = None
            await asyncio.sleep(5)
    if session is not None:
        await session.close()
