"""Benchmark: the worker pool the app scores in (``runtime/pool``), and the app's cold start.

Four targets (``--only warmup,costs,load,cold``), each printing its figures with the load
average::

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_pool [--only ...]

- ``warmup``: a pool as the app starts it (the fork server imports :mod:`runtime.pool.zygote`,
  which runs every warm-up step); each step's wall and CPU seconds as the fork server
  recorded them, the seconds until the first worker was ready, and which disk caches
  (Brown tables, WordNet index, PPDB, numba kernels) were there before it started.
  ``--cold-caches`` runs it with empty cache folders (``EXPLORER_CACHE_DIR``,
  ``NUMBA_CACHE_DIR``), i.e. a first start on a new machine.
- ``costs``: the long/short estimate of :mod:`runtime.pool.cost` beside the CPU seconds
  each scorer really takes (warm, in this process) on the RTE2 dev pairs with the highest
  estimates and on the 1,999 x 50-token pair (its fast and its slow methods).
- ``load``: ``--sessions`` simulated students, each a thread that submits what the Pair page
  submits for a pair (one job: every scorer on an RTE2 dev pair, the strip), waits for it,
  thinks ``--think`` seconds (uniform), again, for ``--duration`` seconds. Run twice: alone,
  then beside one hostile student (``--hostile``), who types the 1,999 x 50-token pair of
  the issue (inside every limit) and changes it five times in quick succession (each
  request superseding the last), then asks for the slow methods on it, again and again.
  Prints the students' strip latency (p50 / p95 / max, seconds from submit to every
  scorer's result), the CPU seconds per wall second of every pool process (the fork
  server, the workers, and the workers replaced during the run), and the memory (RSS and
  PSS) of the pool's processes at the end.
- ``cold``: ``python -m streamlit run app.py`` started fresh, Chromium opening the page as
  soon as the health check answers; the seconds from the server process's start to the
  first verdict and to the first complete verdict strip on screen (polled every 0.1 s), each warm-up line the page
  showed and when, and the memory of the server's processes then. ``--workers 0`` runs
  the app without the pool, for comparison; ``--root DIR`` serves another checkout's
  ``app.py`` (e.g. ``git archive main | tar -x -C DIR``: the app before the pool).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.pairs import Pair  # noqa: E402
from explorer.preprocess import make_pair, tokenize  # noqa: E402
from explorer.scorers import SCORERS  # noqa: E402
from runtime import warmup  # noqa: E402
from runtime.pool import Pool, PoolError, cost, tasks  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


# -- /proc: CPU and memory of a process tree ---------------------------------------------------


def _children(pid: int) -> list[int]:
    """Children of every thread of ``pid`` (a child started by a thread is listed under it)."""
    out: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as handle:
                out += [int(c) for c in handle.read().split()]
        except OSError:
            continue
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and every descendant."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def cpu_seconds(pid: int, *, reaped: bool) -> float:
    """User + system CPU seconds of ``pid`` (and of its children it has waited for, when
    ``reaped``: a fork server's replaced workers)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    utime, stime, cutime, cstime = (int(fields[k]) for k in (11, 12, 13, 14))
    return (utime + stime + (cutime + cstime if reaped else 0)) / TICK


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of one process in MB."""
    rss = pss = 0.0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, pss


def fork_server_pid() -> int | None:
    """This process's multiprocessing fork server (a child running ``forkserver``)."""
    for child in _children(os.getpid()):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as handle:
                if b"forkserver" in handle.read():
                    return child
        except OSError:
            continue
    return None


def pool_cpu(fork_server: int) -> float:
    """CPU seconds of the fork server, its live workers and the workers it has reaped."""
    return cpu_seconds(fork_server, reaped=True) + sum(cpu_seconds(p, reaped=False) for p in tree(fork_server)[1:])


def role(pid: int) -> str:
    """What a process of the server's tree is, from its command line and parent."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{parent}/cmdline", "rb") as handle:
            parent_command = handle.read()
    except (OSError, ValueError):
        return "?"
    if "streamlit run" in command:
        return "streamlit server"
    if "resource_tracker" in command:
        return "resource tracker"
    if "runtime.cutoff_jobs" in command:
        return "background cutoff job"
    if "forkserver" in command:
        return "worker" if b"forkserver" in parent_command else "fork server (zygote)"
    return command[:22]


def memory_lines(pids: list[int]) -> list[str]:
    lines, rss_sum, pss_sum = [], 0.0, 0.0
    for pid in pids:
        rss, pss = memory_mb(pid)
        rss_sum, pss_sum = rss_sum + rss, pss_sum + pss
        lines.append(f"  {role(pid):<22} pid {pid:<7} RSS {rss:7.0f} MB  PSS {pss:7.0f} MB")
    lines.append(f"  {'all':<22} {'':<11} RSS {rss_sum:7.0f} MB  PSS {pss_sum:7.0f} MB (PSS counts shared pages once)")
    return lines


# -- pairs ---------------------------------------------------------------------------------------


def rte_pairs() -> list[Pair]:
    from explorer.datasets import load
    from explorer.resources import import_nltk

    nltk = import_nltk()
    return list(load(Path(str(nltk.data.find("corpora/rte/rte2_dev.xml")))).pairs)


def hostile_pair(pairs: list[Pair], variant: int) -> Pair:
    """1,999 text tokens and 50 hypothesis tokens from RTE2 sentences (the issue's long
    pair: inside every limit); ``variant`` changes its last word (a retyped pair)."""
    words: list[str] = []
    for pair in pairs:
        words += tokenize(pair.text)
        if len(words) >= 2_100:
            break
    hypothesis = tokenize(" ".join(p.hypothesis for p in pairs[:12]))[:49]
    return make_pair(" ".join(words[:1_998]) + f" v{variant}", " ".join(hypothesis) + f" w{variant}")


# -- targets -------------------------------------------------------------------------------------


def cache_state() -> list[str]:
    from explorer.cache import cache_dir

    folder = cache_dir()
    kept = sorted(p.name for p in folder.glob("*")) if folder.is_dir() else []
    wanted = {"Brown NIST weights": "nist_brown", "Brown idf": "idf-brown", "WordNet IC": "ic-brown",
              "WordNet index": "wordnet-index-", "PPDB": "ppdb-lexical-"}
    numba = os.environ.get("NUMBA_CACHE_DIR") or str(ROOT / "explorer")
    kernels = list(Path(numba).rglob("*.nbi"))
    return [f"{what}: {'warm' if any(n.startswith(prefix) for n in kept) else 'cold'}"
            for what, prefix in wanted.items()] + [f"numba kernels: {len(kernels)} cached index files"]


def start_pool(workers: int, long_workers: int, budget: float) -> tuple[Pool, float]:
    started = time.monotonic()
    pool = Pool(workers, long_workers=long_workers, budget=budget).start()
    while pool.ready < workers + long_workers:
        time.sleep(0.02)
    return pool, time.monotonic() - started


def bench_warmup(args: argparse.Namespace) -> None:
    print(f"== warm-up (load {load_average()})")
    print("disk caches before: " + "; ".join(cache_state()))
    started = time.monotonic()
    pool = Pool(1, long_workers=1, budget=60).start()
    while not pool.ready:
        time.sleep(0.01)
    first = time.monotonic() - started
    status = warmup.read_status(warmup.status_path(os.getpid()))
    pool.close()
    if status is None:
        print("no warm-up status was written")
        return
    print(f"{'step':<72} {'wall s':>7} {'CPU s':>7}")
    for label, wall, cpu in status.timings:
        if wall >= 0.05 or cpu >= 0.05:
            print(f"{label:<72} {wall:7.2f} {cpu:7.2f}")
    rest = [t for t in status.timings if t[1] < 0.05 and t[2] < 0.05]
    print(f"{f'the other {len(rest)} steps':<72} {sum(t[1] for t in rest):7.2f} {sum(t[2] for t in rest):7.2f}")
    print(f"{'all steps (the fork server)':<72} {sum(t[1] for t in status.timings):7.2f} "
          f"{sum(t[2] for t in status.timings):7.2f}")
    print(f"first worker ready {first:.2f} s after the pool was asked for (fork server start + imports + "
          f"steps + fork); errors: {len(status.errors)} (load {load_average()})")


def bench_costs(args: argparse.Namespace) -> None:
    from explorer.preprocess import analyze_pair
    from explorer.scorers import get_scorer

    print(f"== costs: estimated vs measured CPU seconds (load {load_average()})")
    for step in warmup.default_steps():
        step.run()
    pairs = rte_pairs()
    names = list(SCORERS)

    def measured(pair: Pair, methods: list[str]) -> float:
        analyzed, total = analyze_pair(pair), 0.0
        for name in methods:
            started = time.process_time()
            try:
                get_scorer(name).score(analyzed)
            except Exception:  # noqa: BLE001 - a refusal costs what it costs
                pass
            total += time.process_time() - started
        return total

    ranked = sorted(pairs, key=lambda p: -cost.estimate([p], names))
    for pair in ranked[:5] + [ranked[len(ranked) // 2]]:
        p, h = cost.words(pair)
        print(f"  RTE2 pair {pair.id} ({p} x {h} words), every scorer: estimated {cost.estimate([pair], names):.2f} s, "
              f"measured {measured(pair, names):.2f} s")
    fast = SCORERS.names(interactive=True)
    slow = SCORERS.names(interactive=False)
    for what, methods, variant in (("fast", fast, 1), ("slow", slow, 2)):
        pair = hostile_pair(pairs, variant)
        print(f"  the 1,999 x 50 pair, {what} methods: estimated {cost.estimate([pair], methods):.2f} s, "
              f"measured {measured(pair, methods):.2f} s; long: {cost.is_long([pair], methods)}")
    print(f"  long above {cost.LONG_SECONDS:g} s (load {load_average()})")


class Latencies:
    def __init__(self) -> None:
        self.values: list[float] = []
        self.failed: list[str] = []
        self.lock = threading.Lock()

    def add(self, seconds: float) -> None:
        with self.lock:
            self.values.append(seconds)

    def fail(self, why: str) -> None:
        with self.lock:
            self.failed.append(why)

    def line(self, what: str) -> str:
        if not self.values:
            return f"{what}: no answers ({len(self.failed)} failed)"
        ordered = sorted(self.values)
        p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
        return (f"{what}: n={len(ordered)} p50 {statistics.median(ordered):.2f} s, p95 {p95:.2f} s, "
                f"max {ordered[-1]:.2f} s; {len(self.failed)} failed")


def student(pool: Pool, name: str, pairs: list[Pair], stop: float, think: tuple[float, float],
            out: Latencies, seed: int) -> None:
    rng = random.Random(seed)
    names = list(SCORERS)
    time.sleep(rng.uniform(0, think[1]))  # students do not all start in the same second
    while time.monotonic() < stop:
        pair = rng.choice(pairs)
        started = time.monotonic()
        try:
            pool.submit(name, tasks.score_pair, pair, names, long=cost.is_long([pair], names)).result(300)
            out.add(time.monotonic() - started)
        except PoolError as err:
            out.fail(type(err).__name__)
        time.sleep(rng.uniform(*think))


def hostile(pool: Pool, pairs: list[Pair], stop: float, log: list[str]) -> None:
    fast = SCORERS.names(interactive=True)
    slow = SCORERS.names(interactive=False)
    variant = 0
    while time.monotonic() < stop:
        tickets = []
        for _ in range(5):  # five quick reruns: each supersedes the previous
            variant += 1
            pair = hostile_pair(pairs, variant)
            tickets.append(pool.submit("hostile", tasks.score_pair, pair, fast, long=cost.is_long([pair], fast)))
            time.sleep(0.3)
        for ticket in tickets:
            try:
                ticket.result(600)
                log.append("fast: done")
            except PoolError as err:
                log.append(f"fast: {type(err).__name__}")
        try:  # the page's "Run slow methods" button on the last one
            pool.submit("hostile", tasks.score_pair, pair, slow, long=cost.is_long([pair], slow)).result(600)
            log.append("slow: done")
        except PoolError as err:
            log.append(f"slow: {type(err).__name__}")


def run_load(pool: Pool, pairs: list[Pair], args: argparse.Namespace, with_hostile: bool) -> None:
    server = fork_server_pid()
    assert server is not None, "no fork server: the pool did not start one"
    stop = time.monotonic() + args.duration
    out = Latencies()
    threads = [threading.Thread(target=student, args=(pool, f"s{k}", pairs, stop, tuple(args.think), out, k))
               for k in range(args.sessions)]
    log: list[str] = []
    if with_hostile:
        threads.append(threading.Thread(target=hostile, args=(pool, pairs, stop, log)))
    load_before = load_average()
    cpu_before, own_before, wall_before = pool_cpu(server), sum(os.times()[:2]), time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - wall_before
    cpu = pool_cpu(server) - cpu_before
    own = sum(os.times()[:2]) - own_before
    label = "with the hostile student" if with_hostile else "alone"
    print(f"-- {args.sessions} students {label}, {args.duration:.0f} s, think {args.think[0]:g}-{args.think[1]:g} s "
          f"(load {load_before} -> {load_average()})")
    print("   " + out.line("strip of an RTE2 pair"))
    print(f"   pool processes: {cpu / wall:.2f} CPU seconds per wall second ({cpu:.0f} s in {wall:.0f} s); "
          f"this driver (the server's part): {own / wall:.2f}")
    if with_hostile:
        counts = {k: log.count(k) for k in sorted(set(log))}
        print(f"   hostile student's requests: {counts}")
    print(f"   pool counters: {pool.stats()}")
    print("\n".join(memory_lines(tree(server))))


def bench_load(args: argparse.Namespace) -> None:
    pairs = rte_pairs()
    workers = args.workers or len(os.sched_getaffinity(0))
    print(f"== load: {workers} short-lane workers, {max(1, workers // 2)} long-lane (load {load_average()})")
    pool, ready = start_pool(workers, max(1, workers // 2), args.budget)
    print(f"pool ready in {ready:.1f} s")
    try:
        run_load(pool, pairs, args, with_hostile=False)
        if args.hostile:
            run_load(pool, pairs, args, with_hostile=True)
    finally:
        pool.close()


def bench_cold(args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, free_port

    print(f"== cold start of {args.root}/app.py, EXPLORER_WORKERS={'default' if args.workers is None else args.workers}"
          f" (load {load_average()})")
    print("disk caches: " + "; ".join(cache_state()))
    for run in range(args.cold_runs):
        port = free_port()
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        if args.workers is not None:
            env["EXPLORER_WORKERS"] = str(args.workers)
        with sync_playwright() as playwright, tempfile.TemporaryFile() as log:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            load_before = load_average()
            started = time.monotonic()
            server = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                 "--server.port", str(port), "--server.address", "127.0.0.1"],
                cwd=args.root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                page = browser.new_page()
                url = f"http://127.0.0.1:{port}"
                while True:
                    try:
                        page.goto(url, wait_until="commit", timeout=2_000)
                        break
                    except Exception:  # noqa: BLE001 - not listening yet
                        if time.monotonic() - started > 120:
                            raise
                        time.sleep(0.1)
                opened = time.monotonic() - started
                seen: dict[str, float] = {}
                strip = first = None
                while time.monotonic() - started < 300:
                    text = page.evaluate("() => [...document.querySelectorAll('[data-testid=stProgress]')]"
                                         ".map(e => e.innerText).join(' | ')")
                    if text and text.split("(")[-1].split(",")[0] not in {k.split("(")[-1].split(",")[0] for k in seen}:
                        seen[text] = time.monotonic() - started
                    if first is None and page.query_selector('.verdict-strip:not([data-methods="0"])'):
                        first = time.monotonic() - started
                    if page.query_selector('.verdict-strip[data-pending="0"]'):
                        strip = time.monotonic() - started
                        first = strip if first is None else first  # it came complete between two looks
                        break
                    time.sleep(0.1)
                pids = tree(server.pid)
                memory = memory_lines(pids)
            finally:
                import signal

                os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
                browser.close()
        print(f"-- run {run + 1}: page opened {opened:.1f} s after the process started; first verdict "
              f"{'not seen' if first is None else f'{first:.1f} s'}, first complete strip "
              f"{'not seen' if strip is None else f'{strip:.1f} s'} (load {load_before} -> {load_average()})")
        for text, at in seen.items():
            print(f"   {at:5.1f} s  {text[:150]}")
        print("\n".join(memory))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="warmup,costs,load,cold")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--think", type=float, nargs=2, default=(5.0, 15.0), metavar=("MIN", "MAX"))
    parser.add_argument("--hostile", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--workers", type=int, default=None, help="short-lane workers (default: usable cores)")
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--cold-runs", type=int, default=2)
    parser.add_argument("--cold-caches", action="store_true", help="empty cache folders (a first start)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py the cold target serves")
    args = parser.parse_args(argv)
    if args.cold_caches:
        os.environ["EXPLORER_CACHE_DIR"] = tempfile.mkdtemp(prefix="explorer-cache-")
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cache-")
    only = set(args.only.split(","))
    if "warmup" in only:
        bench_warmup(args)
    if "costs" in only:
        bench_costs(args)
    if "load" in only:
        bench_load(args)
    if "cold" in only:
        bench_cold(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
