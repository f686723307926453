"""A class on one server: N simulated students (and one hostile one) against a served
explorer, speaking Streamlit's websocket protocol (browsers would take the cores the server
needs), with the server's CPU and memory across all its processes.

What a student does and what is timed: ``bench/class_students.py``. Without ``--url`` it
starts the server itself: ``make serve-class``'s class server (``--serve class``, the
default: Caddy with the password in front of ``--processes`` Streamlit processes) or a plain
``streamlit run app.py`` (``--serve plain``, what ``make run`` serves). With ``--url`` it
uses a running one (``--password`` for the class server; ``--server-pid`` names the process
tree to measure, else the process listening on the URL's port).

In order: an intruder without the password (does the websocket open, how many pages are
drawn, what a 190 MB upload gets and how many bytes the Streamlit processes read meanwhile);
a warm-up tab (its times are the server's first visit); then the class, for ``--duration``
seconds per phase: ``--hostile compare`` (the default) runs a calm phase and then the same
class with the hostile student, so the hostile student's effect is a difference within one
run; ``on`` and ``off`` run one phase. ``--flood N`` adds a phase in which N clients send
wrong passwords as fast as they are answered (``bench/class_flood.py``), with the CPU of the
server's front (Caddy and the class server's gate) per phase. During the last phase, one real Chromium tab
(``/usr/bin/chromium``) opens an RTE pair and types a pair, timed to their strips. Prints
p50 / p95 (nearest rank) per action and phase, the server's CPU per wall second (all its
processes: Caddy, every Streamlit process and everything they started) and its peak RSS and
PSS, the client's own CPU, and the load average. Run:

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_class --students 20 --duration 240
    .venv/bin/python -m bench.bench_class --students 20 --duration 60 --hostile off --flood 8 --no-browser
    .venv/bin/python -m bench.bench_class --phase busy   # or sixty, flood, upload (see PHASES)
    .venv/bin/python -m bench.bench_class --serve plain --students 5 --duration 120
    .venv/bin/python -m bench.bench_class --url http://HOST:8501 --password PW --server-pid PID
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import secrets
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench import use_shared_nltk_data  # noqa: E402
from bench.class_flood import Flood, front_cpu, front_processes  # noqa: E402
from bench.class_students import (  # noqa: E402
    HOSTILE_LOAD,
    HOSTILE_PAIR,
    HOSTILE_PUT,
    RTE_LINK,
    STUDENT_ACTIONS,
    TYPED,
    Class,
    Material,
    fresh_typed_pair,
    hostile,
    load_material,
    open_rte_pair,
    student,
    switch,
    typed_mark,
)
from bench.server_usage import UsageSampler  # noqa: E402
from serve.class_server import available_cores, default_processes, default_workers  # noqa: E402
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402
from tests.e2e.class_server import USER, bytes_read, class_server, streamlit_processes  # noqa: E402
from tests.e2e.streamlit_client import Session  # noqa: E402

INTRUDER_UPLOAD = 190 * 1024 * 1024
CORES = available_cores()


def load_average() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def listening_pid(url: str) -> int | None:
    """The local process listening on the URL's port (None when it is not on this machine)."""
    port = urllib.parse.urlsplit(url).port or 80
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            parent = psutil.Process(conn.pid).parent()  # the class server above Caddy
            if parent is not None and "serve" in " ".join(parent.cmdline()):
                return parent.pid
            return conn.pid
    return None


# -- the intruder ----------------------------------------------------------------------------


async def intruder(url: str, root: int | None) -> list[str]:
    """What a client without the password gets: the websocket, pages drawn, a 190 MB upload."""
    from websockets.exceptions import InvalidStatus

    from tests.e2e.class_server import put_without_password

    lines = []
    apps = streamlit_processes(root) if root else []
    session = Session(url, timeout=120)
    try:
        await session.open()
    except InvalidStatus as refused:
        lines.append(f"websocket without the password: HTTP {refused.response.status_code}; pages drawn: 0")
        before = bytes_read(apps)
        started = time.monotonic()
        port = urllib.parse.urlsplit(url).port or 80
        answer, sent = await asyncio.get_running_loop().run_in_executor(None, put_without_password, port,
                                                                        INTRUDER_UPLOAD)
        seconds = time.monotonic() - started
        status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "no answer (connection closed)"
        read = f"{(bytes_read(apps) - before) / 2**20:.2f} MB" if apps else "(not measured: not on this machine)"
        lines.append(f"190 MB upload without the password: {status} after {seconds:.3f} s, {sent / 2**20:.0f} MB "
                     f"sent before the server closed the connection; the Streamlit processes read {read} meanwhile")
        return lines
    await asyncio.sleep(5)
    lines.append(f"websocket without the password: opened; {session.received_messages} messages "
                 f"({session.received_bytes / 1024:.0f} kB) of a page drawn in 5 s")
    before = bytes_read(apps)
    put, _ = await session.put_file("intruder.csv", b"\0" * INTRUDER_UPLOAD)
    lines.append(f"190 MB upload without the password: HTTP {put.status} after {put.seconds:.2f} s; the Streamlit "
                 f"processes read {(bytes_read(apps) - before) / 2**20:.0f} MB meanwhile")
    await session.close()
    return lines


# -- the browser check -----------------------------------------------------------------------


def browser_check(url: str, auth: tuple[str, str] | None, material: Material, seed: int, timeout: float) -> list[str]:
    """One Chromium tab during the load: an RTE pair by link, then a typed pair, each to its strip."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        return [f"browser check skipped: {CHROMIUM} is absent"]
    rng = random.Random(seed)
    pair_id, mark = rng.choice(material.rte_pairs)
    cls = Class(url, auth, material, (0, 0), timeout, [("", 0, 0)])
    text, hypothesis = fresh_typed_pair(cls, rng)
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            credentials = {"username": auth[0], "password": auth[1]} if auth else None
            page = browser.new_context(http_credentials=credentials,  # type: ignore[arg-type]
                                       viewport={"width": 1400, "height": 1000}).new_page()
            page.on("pageerror", lambda err: errors.append(str(err)))
            started = time.monotonic()
            page.goto(f"{url}/?dataset=rte:rte2_dev.xml&pair={pair_id}", timeout=timeout * 1000)
            page.wait_for_selector(f'.verdict-strip[data-pair="{mark}"]', timeout=timeout * 1000)
            link = time.monotonic() - started
            for _ in range(2):
                page.wait_for_timeout(300)
                page.wait_for_function(IDLE, timeout=timeout * 1000)
            boxes = page.locator("textarea")
            boxes.nth(0).fill(text)
            boxes.nth(0).press("Control+Enter")
            boxes.nth(1).fill(hypothesis)
            started = time.monotonic()
            boxes.nth(1).press("Control+Enter")
            page.wait_for_selector(f'.verdict-strip[data-pair="{typed_mark(text, hypothesis)}"]',
                                   timeout=timeout * 1000)
            typed = time.monotonic() - started
        except Exception as err:
            return [f"browser check: FAILED ({type(err).__name__}: {str(err).splitlines()[0][:200]})"]
        finally:
            browser.close()
    return [f"Chromium tab during the load: RTE pair link to its strip {link:.2f} s; typed pair (Ctrl+Enter "
            f"on the hypothesis) to its strip {typed:.2f} s; page errors: {len(errors)}"]


# -- the class -------------------------------------------------------------------------------


async def warm_up(url: str, auth: tuple[str, str] | None, material: Material) -> list[str]:
    """The server's first visit: an RTE pair, the Evaluate page, the Dataset page."""
    cls = Class(url, auth, material, (0, 0), 900, [("", 0, 0)])
    started = time.monotonic()
    session, first = await open_rte_pair(cls, random.Random(0))
    evaluate = await switch(session, "Evaluate", 900)
    dataset = await switch(session, "Dataset", 900)
    await session.close()
    return [f"warm-up (first visit): RTE pair strip {first:.1f} s, Evaluate {evaluate:.1f} s, Dataset {dataset:.1f} s "
            f"({time.monotonic() - started:.0f} s in all)"]


async def run_class(cls: Class, students: int, hostile_from: float | None, upload: tuple[int, int],
                    sampler: UsageSampler, max_rss_mb: float, browser: bool, flood: Flood | None = None) -> list[str]:
    said: list[str] = []

    def uploads_allowed() -> bool:
        if sampler.latest_rss() > max_rss_mb:
            if not said:
                said.append(f"the hostile student's uploads stopped: the server's RSS passed {max_rss_mb:.0f} MB")
            return False
        return True

    async def progress(every: float = 60.0) -> None:
        start = cls.phases[0][1]
        while cls.running():
            await asyncio.sleep(min(every, max(0.1, cls.end - time.monotonic())))
            now = time.monotonic()
            done = [r for r in cls.records if r.started >= now - every]
            print(f"  {now - start:4.0f} s: {len(done)} actions in the last {every:.0f} s "
                  f"({sum(math.isinf(r.seconds) for r in done)} without answer); server "
                  f"{sampler.cores(now - every, now):.2f} cores, RSS {sampler.latest_rss():,.0f} MB; "
                  f"load average {load_average()}", flush=True)

    cls.uploads_allowed = uploads_allowed
    tasks = [asyncio.create_task(student(cls, i)) for i in range(students)]
    tasks.append(asyncio.create_task(progress()))
    if hostile_from is not None:
        tasks.append(asyncio.create_task(hostile(cls, hostile_from, *upload)))
    if flood is not None:
        _, start, end = next(phase for phase in cls.phases if phase[0] == "flood")
        tasks.append(asyncio.create_task(flood.run(start, end)))
        tasks.append(asyncio.create_task(_front_usage(cls, flood, said)))
    if browser:
        name, start, end = cls.phases[-1]
        await asyncio.sleep(max(0.0, start + (end - start) / 3 - time.monotonic()))
        said += await asyncio.get_running_loop().run_in_executor(
            None, browser_check, cls.url, cls.auth, cls.material, cls.seed + 7, cls.timeout)
    # Actions begun before the end may finish within one timeout; then whatever is still
    # waiting (the hostile student's long uploads) is stopped and named.
    _, pending = await asyncio.wait(tasks, timeout=max(0.0, cls.end + cls.timeout - time.monotonic()))
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    if pending:
        said.append(f"{len(pending)} simulated tab(s) still waiting {cls.timeout:.0f} s after the end were stopped")
    return said


async def _front_usage(cls: Class, flood: Flood, said: list[str]) -> None:
    """The CPU of Caddy and the gate per phase, read at each phase's start and end."""
    front = front_processes(flood.root)
    for name, start, end in cls.phases:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        before = front_cpu(front)
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        said.append(f"the server's front (Caddy and the gate), {name}: "
                    f"{(front_cpu(front) - before) / (end - start):.3f} cores on average")
    said.append(flood.summary())


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q, method="higher")) if values else math.nan


def seconds_cell(value: float, timeout: float) -> str:
    if math.isnan(value):
        return "-"
    return f">{timeout:.0f}" if math.isinf(value) else f"{value:.2f}"


def report(cls: Class, sampler: UsageSampler, client_cpu: float, wall: float) -> list[str]:
    lines = [f"{'action':<26} {'phase':<8} {'n':>4} {'p50 s':>7} {'p95 s':>7} {'max s':>7} {'no answer':>9}"]
    for action in (*STUDENT_ACTIONS, HOSTILE_PAIR, HOSTILE_PUT, HOSTILE_LOAD):
        for phase, _, _ in cls.phases:
            values = [r.seconds for r in cls.records if r.action == action and r.phase == phase]
            if not values:
                continue
            lines.append(f"{action:<26} {phase:<8} {len(values):>4} {seconds_cell(percentile(values, 50), cls.timeout):>7} "
                         f"{seconds_cell(percentile(values, 95), cls.timeout):>7} "
                         f"{seconds_cell(max(values), cls.timeout):>7} {sum(map(math.isinf, values)):>9}")
    lines.append("")
    for phase, start, end in cls.phases:
        rss, pss = sampler.peak(start, end)
        cores = sampler.cores(start, end)
        actions = sum(1 for r in cls.records if r.phase == phase and r.action in STUDENT_ACTIONS)
        per_action = f"; {cores * (end - start) / actions:.2f} core-s per student action" if actions else ""
        lines.append(f"server, {phase}: {cores:.2f} cores on average (busiest 10 s: "
                     f"{sampler.busiest(start, end):.2f}); peak RSS {rss:,.0f} MB, peak PSS {pss:,.0f} MB "
                     f"(all its processes){per_action}")
    if len(cls.phases) == 2:
        for action in (RTE_LINK, TYPED):
            p95 = [percentile([r.seconds for r in cls.records if r.action == action and r.phase == phase], 95)
                   for phase, _, _ in cls.phases]
            lines.append(f"the {cls.phases[1][0]} phase moves the others' p95 for '{action}' by "
                         f"{p95[1] - p95[0]:+.2f} s")
    lines.append(f"bench client (the simulated students): {client_cpu / wall:.2f} cores on average")
    return lines


@contextmanager
def server(args: argparse.Namespace) -> Iterator[tuple[str, tuple[str, str] | None, int | None]]:
    """(url, credentials, process-tree root) of the server the class uses."""
    if args.url:
        auth = (args.user, args.password) if args.password else None
        yield args.url.rstrip("/"), auth, args.server_pid or listening_pid(args.url)
    elif args.serve == "plain":
        with streamlit_server(timeout=180) as served:
            yield served.url, None, served.pid
    else:
        password = args.password or secrets.token_urlsafe(12)
        with class_server(password, processes=args.processes, timeout=180,
                          workers=args.workers or default_workers(CORES, args.processes)) as served:
            yield served.url, served.auth, served.pid


#: The named classes of ``--phase``: a busy class (20 students who think 1-3 s, calm then
#: with the hostile student), sixty students (5-15 s), a wrong-password flood beside a class
#: of 20, and the hostile student's accepted 100,000-pair uploads beside a class of 20.
PHASES: dict[str, dict[str, object]] = {
    "busy": {"students": 20, "think": [1.0, 3.0], "hostile": "compare"},
    "sixty": {"students": 60, "think": [5.0, 15.0], "hostile": "off"},
    "flood": {"students": 20, "hostile": "off", "flood": 8},
    "upload": {"students": 20, "hostile": "compare", "upload_pairs": 100_000},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--duration", type=float, default=240, help="seconds per phase (default 240)")
    parser.add_argument("--hostile", choices=["compare", "on", "off"], default="compare")
    parser.add_argument("--upload-mb", type=int, default=50, help="the hostile student's uploads (0: none)")
    parser.add_argument("--upload-pairs", type=int, default=0,
                        help="the hostile student's uploads hold this many pairs instead (100000: accepted)")
    parser.add_argument("--phase", choices=list(PHASES),
                        help="a named class (its settings replace the defaults; flags given too still count)")
    parser.add_argument("--flood", type=int, default=0, metavar="N",
                        help="a last phase with N clients sending wrong passwords (default 0: none)")
    parser.add_argument("--think", type=float, nargs=2, default=(5.0, 15.0), metavar=("MIN", "MAX"))
    parser.add_argument("--timeout", type=float, default=120, help="seconds an action may take (default 120)")
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--serve", choices=["class", "plain"], default="class", help="the server to start")
    parser.add_argument("--processes", type=int, default=default_processes(CORES),
                        help="Streamlit processes of the started class server (default: what serve-class "
                             f"chooses here, {default_processes(CORES)})")
    parser.add_argument("--workers", type=int, help="EXPLORER_WORKERS per Streamlit process (default: serve-class's)")
    parser.add_argument("--user", default=USER)
    parser.add_argument("--password", default=os.environ.get("ENTAILMENT_EXPLORER_PASSWORD"))
    parser.add_argument("--server-pid", type=int, help="root of the server's process tree (with --url)")
    parser.add_argument("--max-server-gb", type=float, default=8.0,
                        help="the hostile student stops uploading past this server RSS (a shared machine)")
    parser.add_argument("--no-browser", action="store_true", help="leave out the Chromium tab")
    parser.add_argument("--no-intruder", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.phase:
        given = parser.parse_args(argv, namespace=argparse.Namespace(**PHASES[args.phase]))
        args = given
    use_shared_nltk_data()
    import nltk

    material = load_material(Path(str(nltk.data.find("corpora/rte"))))
    print(f"load average at start: {load_average()} ({os.cpu_count()} cores; the machine may be shared)", flush=True)
    with server(args) as (url, auth, root):
        print(f"server: {url} ({'password' if auth else 'no password'}; process tree {root})", flush=True)
        sampler = UsageSampler(root).start() if root else UsageSampler(os.getpid())
        if not args.no_intruder:
            for line in asyncio.run(intruder(url, root)):
                print(line, flush=True)
        for line in asyncio.run(warm_up(url, auth, material)):
            print(line, flush=True)
        me = psutil.Process()
        client_before, started = sum(me.cpu_times()[:2]), time.monotonic()
        names = {"compare": ["calm", "hostile"], "on": ["hostile"], "off": ["calm"]}[args.hostile]
        names += ["flood"] if args.flood else []
        phases = [(name, started + i * args.duration, started + (i + 1) * args.duration) for i, name in enumerate(names)]
        hostile_from = next((start for name, start, _ in phases if name == "hostile"), None)
        cls = Class(url, auth, material, tuple(args.think), args.timeout, phases, seed=args.seed)  # type: ignore[arg-type]
        print(f"class: {args.students} students, {len(phases)} phase(s) of {args.duration:.0f} s "
              f"({', '.join(names)}), think {args.think[0]:.0f}-{args.think[1]:.0f} s", flush=True)
        flood = (Flood(urllib.parse.urlsplit(url).port or 80, auth[0] if auth else args.user, args.flood,
                       root=root or 0) if args.flood else None)
        said = asyncio.run(run_class(cls, args.students, hostile_from, (args.upload_mb, args.upload_pairs), sampler,
                                     args.max_server_gb * 1024, not args.no_browser, flood))
        wall = time.monotonic() - started
        client_cpu = sum(me.cpu_times()[:2]) - client_before
        sampler.stop()
        print()
        for line in report(cls, sampler, client_cpu, wall) + said:
            print(line)
        for note in dict.fromkeys(cls.notes):
            print(f"  note: {note}")
    print(f"load average at end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
