"""The worker pool's scheduler with real processes and tiny jobs: results and errors come
back, sessions take turns, a newer request supersedes the older, a time budget stops a job
and its worker is replaced, a crashing worker is replaced, long jobs cannot hold back short
ones, and nothing hangs (every wait below has a bound)."""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.limits import LimitError, check
from runtime.pool import (
    BudgetExceeded,
    Pool,
    PoolClosed,
    PoolError,
    RemoteError,
    Superseded,
    WorkerLost,
    configured_budget,
    configured_long_workers,
    configured_workers,
    cost,
    usable_cores,
)
from tests.deadline import DEADLINE
from tests.unit import pool_jobs as jobs

WAIT = DEADLINE  # seconds any single wait may take before the test fails (tests/deadline.py)


@pytest.fixture
def pool() -> Iterator[Pool]:
    """One short-lane and one long-lane worker, forked from this process (no warm-up)."""
    started = Pool(1, long_workers=1, budget=5.0, start_method="fork").start()
    try:
        yield started
    finally:
        started.close()


def test_results_errors_and_partial_results_come_back(pool: Pool) -> None:
    assert pool.submit("a", jobs.add, 2, 3).result(WAIT) == 5
    with pytest.raises(ValueError, match="boom"):
        pool.submit("a", jobs.fail, "boom").result(WAIT)
    with pytest.raises(RemoteError, match="Unpicklable: 1 and 2"):  # an error that does not pickle
        pool.submit("a", jobs.fail_oddly).result(WAIT)
    seen: list[object] = []
    ticket = pool.submit("a", jobs.emit_then_sleep, ["x", {"y": 1}], 0.0, on_partial=seen.append)
    assert ticket.result(WAIT) is None
    assert ticket.partial == ["x", {"y": 1}] == seen


def test_a_limit_error_crosses_processes_with_its_fields() -> None:
    with pytest.raises(LimitError) as raised:
        check("manli", 2_000, 60)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert (type(copy), str(copy), copy.limit, copy.value) == (LimitError, str(raised.value), raised.value.limit,
                                                               raised.value.value)


def test_a_queued_job_is_dropped_when_its_session_asks_again(pool: Pool, tmp_path: Path) -> None:
    gate = tmp_path / "release"
    blocker = pool.submit("other", jobs.wait_for, str(gate))  # holds the one short worker
    older = pool.submit("a", jobs.add, 1, 1)
    assert older.status().state == "queued"
    newer = pool.submit("a", jobs.add, 2, 2)
    with pytest.raises(Superseded):
        older.result(WAIT)
    gate.touch()
    assert newer.result(WAIT) == 4
    assert blocker.result(WAIT) is None


def test_a_running_job_is_stopped_when_its_session_asks_again_and_its_worker_replaced(pool: Pool) -> None:
    first_pid = pool.submit("a", jobs.pid).result(WAIT)
    running = pool.submit("a", jobs.sleep_then, 20.0, "late")
    # Running for longer than kill_after: the worker is killed, not waited out.
    _until(lambda: running.status().state == "running" and running.status().seconds > pool.kill_after)
    started = time.monotonic()
    newer = pool.submit("a", jobs.pid)
    with pytest.raises(Superseded):
        running.result(WAIT)
    second_pid = newer.result(WAIT)
    assert time.monotonic() - started < 10  # did not wait for the 20 s job
    assert second_pid != first_pid  # a new worker (the old one was killed)
    assert pool.stats()["superseded"] == 1


def test_the_time_budget_stops_a_job_keeps_its_partial_results_and_replaces_the_worker() -> None:
    pool = Pool(1, long_workers=1, budget=0.5, start_method="fork").start()
    try:
        before = pool.submit("a", jobs.pid).result(WAIT)
        ticket = pool.submit("a", jobs.emit_then_sleep, ["done first"], 20.0)
        with pytest.raises(BudgetExceeded, match="budget of 0.5 s .* command line") as raised:
            ticket.result(WAIT)
        assert raised.value.budget == 0.5
        assert ticket.partial == ["done first"]
        assert pool.submit("a", jobs.pid).result(WAIT) != before  # replaced, and working
        assert pool.stats()["budget"] == 1
        # A job's own budget overrides the pool's.
        assert pool.submit("a", jobs.sleep_then, 0.8, "in time", budget=5.0).result(WAIT) == "in time"
    finally:
        pool.close()


def test_a_crashing_worker_fails_its_job_clearly_and_is_replaced(pool: Pool) -> None:
    with pytest.raises(WorkerLost, match="exit code 3"):
        pool.submit("a", jobs.crash, 3, label="the crashing job").result(WAIT)
    assert pool.submit("b", jobs.add, 1, 2).result(WAIT) == 3
    assert pool.stats()["lost"] == 1 and pool.stats()["replaced"] == 1


def test_sessions_take_turns_so_a_scan_does_not_starve_a_typed_pair(pool: Pool) -> None:
    """A scan of many chunks from one session and one job from another: the other
    session's job runs after at most one chunk, not after the whole scan."""
    order: list[str] = []

    def scan() -> None:
        for k in range(6):  # each chunk waits for the previous, as the Evaluate page does
            order.append(pool.submit("scan", jobs.stamp, 0.2, f"chunk{k}").result(WAIT)[0])

    thread = threading.Thread(target=scan)
    thread.start()
    _until(lambda: len(order) >= 1)
    order.append(pool.submit("typed", jobs.stamp, 0.0, "typed").result(WAIT)[0])
    thread.join(WAIT)
    assert order.index("typed") <= 3, order  # one or two chunks at most went before it


def test_a_long_job_runs_at_low_priority_and_does_not_hold_back_short_ones(pool: Pool, tmp_path: Path) -> None:
    assert pool.submit("a", jobs.niceness, long=True).result(WAIT) >= 10
    assert pool.submit("a", jobs.niceness).result(WAIT) < 10
    gate = tmp_path / "release"
    long = pool.submit("hostile", jobs.wait_for, str(gate), "long", long=True)
    _until(lambda: long.status().state == "running")
    assert pool.submit("student", jobs.add, 1, 1).result(WAIT) == 2
    assert long.status().state == "running"  # the short job did not wait for the long one
    gate.touch()
    assert long.result(WAIT) == "long"


def test_the_lanes_do_not_lend_workers(pool: Pool, tmp_path: Path) -> None:
    """A short job waits for a short-lane worker rather than run at the long lane's low
    priority, and a long job waits for the long lane."""
    _until(lambda: pool.ready == 2)
    short_gate, long_gate = tmp_path / "short", tmp_path / "long"
    busy = pool.submit("a", jobs.wait_for, str(short_gate), "short lane busy")
    _until(lambda: busy.status().state == "running")
    short = pool.submit("b", jobs.niceness)
    # A long job submitted after it runs and returns: the scheduler has dispatched with the
    # long worker idle and the short job waiting.
    assert pool.submit("p", jobs.add, 1, 1, long=True).result(WAIT) == 2
    assert short.status().state == "queued"  # the idle long worker is not lent to it
    short_gate.touch()
    assert short.result(WAIT) < 10 and busy.result(WAIT) == "short lane busy"
    hold = pool.submit("c", jobs.wait_for, str(long_gate), "long lane busy", long=True)
    _until(lambda: hold.status().state == "running")
    queued = pool.submit("d", jobs.niceness, long=True)
    assert pool.submit("q", jobs.add, 2, 2).result(WAIT) == 4
    assert queued.status().state == "queued"  # nor the idle short worker to this one
    long_gate.touch()
    assert queued.result(WAIT) >= 10 and hold.result(WAIT) == "long lane busy"


def test_status_says_where_a_job_stands(pool: Pool, tmp_path: Path) -> None:
    _until(lambda: pool.ready == 2)
    gate = tmp_path / "release"
    running = pool.submit("a", jobs.wait_for, str(gate))
    _until(lambda: running.status().state == "running")
    queued = [pool.submit(f"s{k}", jobs.add, k, k) for k in range(3)]
    assert [q.status().ahead for q in queued] == [0, 1, 2]
    assert queued[2].status().state == "queued" and queued[2].status().workers == 2
    gate.touch()
    assert [q.result(WAIT) for q in queued] == [0, 2, 4]
    assert queued[0].status().state == "done"


def test_cancel_and_close_leave_nothing_waiting() -> None:
    pool = Pool(1, long_workers=1, budget=30.0, start_method="fork").start()
    running = pool.submit("a", jobs.sleep_then, 20.0, long=True)
    queued = pool.submit("b", jobs.sleep_then, 20.0, long=True)
    queued.cancel()
    with pytest.raises(Superseded):
        queued.result(WAIT)
    _until(lambda: running.status().state == "running")
    pids = pool.pids()
    started = time.monotonic()
    pool.close()
    with pytest.raises(PoolClosed):
        running.result(WAIT)
    assert time.monotonic() - started < 10
    with pytest.raises(PoolClosed):
        pool.submit("c", jobs.add, 1, 1)
    for pid in pids:  # every worker is gone
        _until(lambda pid=pid: not _alive(pid))


def test_arguments_that_do_not_pickle_fail_the_job_not_the_pool(pool: Pool) -> None:
    with pytest.raises(PoolError, match="could not be sent"):
        pool.submit("a", jobs.add, threading.Lock(), 1).result(WAIT)
    assert pool.submit("a", jobs.add, 1, 1).result(WAIT) == 2


def test_the_pool_is_sized_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXPLORER_WORKERS", raising=False)
    assert configured_workers() == usable_cores() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("EXPLORER_WORKERS", "0")
    assert configured_workers() == 0
    monkeypatch.setenv("EXPLORER_WORKERS", "3")
    assert configured_workers() == 3 and configured_long_workers(3) == 1
    monkeypatch.setenv("EXPLORER_LONG_WORKERS", "2")
    assert configured_long_workers(3) == 2
    monkeypatch.setenv("EXPLORER_JOB_SECONDS", "12.5")
    assert configured_budget() == 12.5
    for bad in ("two", "-1", "1.5"):
        monkeypatch.setenv("EXPLORER_WORKERS", bad)
        with pytest.raises(PoolError, match="EXPLORER_WORKERS"):
            configured_workers()


def test_the_cost_model_calls_an_rte_pair_short_and_the_slow_methods_on_a_long_pair_long() -> None:
    from explorer.pairs import Pair
    from explorer.scorers import SCORERS

    rte = Pair("r", "Ilse Marrow bought a new car in Kettleby on 3 May, her neighbours said. " * 2,
               "Ilse Marrow purchased an automobile.")
    hostile = Pair("h", " ".join(["word"] * 1999), " ".join(["other"] * 50))
    everything = list(SCORERS)
    fast = SCORERS.names(interactive=True)
    slow = SCORERS.names(interactive=False)
    assert not cost.is_long([rte], everything)
    assert cost.is_long([hostile], slow) and cost.is_long([hostile], ["pfsm"])
    assert not cost.is_long([hostile], fast)  # under a second of CPU even there (measured 0.69 s)
    assert cost.estimate([hostile], ["bleu", "nist1"]) < 0.01  # the n-gram metrics are linear
    assert cost.estimate([rte] * 200, ["pfsm"]) == pytest.approx(200 * cost.estimate([rte], ["pfsm"]))



def test_only_the_itg_lesson_near_the_teaching_limit_is_long() -> None:
    from components.teach_methods import TEACH_METHODS
    from explorer.pairs import Pair
    from explorer.teaching import TEACHING_MAX_TOKENS

    half = TEACHING_MAX_TOKENS // 2  # every word with a link: the ITG chart's most cells
    limit = Pair("t", " ".join(f"w{i} a" for i in range(half)), " ".join(f"w{i} a" for i in reversed(range(half))))
    small = Pair("s", "Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle.")
    rate = {name: row.lesson_seconds for name, row in TEACH_METHODS.items()}
    assert cost.lesson_is_long(limit, rate["itg"])  # measured 2.7 s of CPU
    assert not any(cost.lesson_is_long(small, r) for r in rate.values())
    assert not any(cost.lesson_is_long(limit, r) for m, r in rate.items() if m != "itg")

def _until(condition: object, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_worker_stopped_from_outside_is_not_replaced(pool: Pool) -> None:
    """SIGTERM to a worker means its process group is shutting down (the server is being
    stopped): replacing it would start a new fork server mid-shutdown."""
    import signal

    victim = pool.submit("a", jobs.pid).result(WAIT)
    ticket = pool.submit("a", jobs.sleep_then, 20.0)
    _until(lambda: ticket.status().state == "running")
    os.kill(victim, signal.SIGTERM)
    with pytest.raises(WorkerLost):
        ticket.result(WAIT)
    # The scheduler decided on the loss before the job's error came back, and asked for no
    # replacement (a request would count as one at once, before the new process starts).
    assert pool.stats()["replaced"] == 0
    _until(lambda: pool.ready == 1)  # the long lane's worker
    assert victim not in pool.pids() and pool.stats()["replaced"] == 0


def recycling_pool(above_mb: float) -> Pool:
    """A started one-worker pool whose memory mark is ``above_mb`` over a fresh worker's
    size (measured: a worker forks from the pool's fork server, which may be far smaller
    than this process after a long test session)."""
    probe = Pool(1, long_workers=1, budget=30.0, start_method="fork").start()
    try:
        mark_mb = probe.submit("a", jobs.resident).result(WAIT) / 2**20 + above_mb
    finally:
        probe.close()
    return Pool(1, long_workers=1, budget=30.0, start_method="fork", recycle_mb=mark_mb).start()


def test_a_worker_past_its_memory_mark_is_replaced_after_its_job() -> None:
    """What a job leaves in its worker (caches, heap) stays with that process: past the
    mark, the worker leaves once its result is sent, no job is lost, and a fresh fork
    takes its place. Below the mark the worker stays."""
    pool = recycling_pool(150)
    try:
        first = pool.submit("a", jobs.hold, 10).result(WAIT)
        assert pool.submit("a", jobs.pid).result(WAIT) == first  # 10 MB: still under the mark
        big = pool.submit("a", jobs.hold, 300).result(WAIT)  # its result comes back whole
        assert big == first
        after = pool.submit("a", jobs.pid).result(WAIT)  # not lost: given to the fresh worker
        assert after != first
        _until(lambda: pool.counts["recycled"] == 1 and first not in pool.pids())
        assert pool.counts["lost"] == 0
    finally:
        pool.close()


def test_the_memory_mark_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime.pool import DEFAULT_RECYCLE_MB, configured_recycle_mb

    monkeypatch.delenv("EXPLORER_WORKER_RSS_MB", raising=False)
    assert configured_recycle_mb() == DEFAULT_RECYCLE_MB
    monkeypatch.setenv("EXPLORER_WORKER_RSS_MB", "0")
    assert configured_recycle_mb() == 0
    monkeypatch.setenv("EXPLORER_WORKER_RSS_MB", "-5")
    with pytest.raises(PoolError, match="EXPLORER_WORKER_RSS_MB"):
        configured_recycle_mb()


#: A pool forked from a fork server (no preload: no warm-up), whose process group is stopped
#: fork server first, as Ctrl-C in a terminal may: the workers then end with an unknown code.
_GROUP_STOPPED = """
import os, signal, time
from multiprocessing import forkserver
from runtime.pool import Pool
from tests.unit import pool_jobs as jobs

def until(condition):
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)

pool = Pool(1, long_workers=1, budget=30, preload=()).start()
assert pool.submit("a", jobs.pid).result(60) and pool.submit("b", jobs.pid, long=True).result(60)
requested = []
pool._request_spawn = requested.append
until(lambda: len(pool.pids()) == 2)
workers, server = pool.pids(), forkserver._forkserver._forkserver_pid
os.kill(server, signal.SIGTERM)
until(lambda: os.waitid(os.P_PID, server, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None)
for pid in workers:
    os.kill(pid, signal.SIGTERM)
until(lambda: not pool.pids())
print("replacements asked:", len(requested))
pool.close()
"""


def test_workers_of_a_fork_server_stopped_with_its_group_are_not_replaced() -> None:
    """Replacing them would start a new fork server, and its whole warm-up, while the server
    shuts down (it printed the warm-up's lines a second time at Ctrl-C)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _GROUP_STOPPED], cwd=root, capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "replacements asked: 0"
