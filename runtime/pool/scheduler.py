"""The pool's scheduler: worker processes in two lanes, fair by session, every job bounded.

:class:`Pool` keeps ``workers`` processes for short jobs and ``long_workers`` for long ones
(a job's caller says which, from the methods' cost models: :mod:`runtime.pool.cost`). The
long lane's processes run at a lower priority (``nice``), so when both lanes have work the
operating system gives the cores to the short jobs first; a short job may also borrow an
idle long-lane worker, never the other way round.

Fairness: each session (a browser session of the app) has at most one job queued or
running. Its next :meth:`Pool.submit` supersedes the previous job: a queued one is dropped,
a running one is cancelled (its worker killed and replaced when the job is long or has run
longer than ``kill_after`` seconds; otherwise it finishes and its result is thrown away).
Queues are first in, first out, and a session's next job joins the back, so sessions take
turns: a dataset scan submitted chunk by chunk cannot starve a typed pair.

Bounds: every job has a time budget (wall-clock seconds from the moment a worker takes
it); past it the worker is killed and replaced and the job fails with
:class:`BudgetExceeded`, keeping whatever partial results it had sent
(:func:`runtime.pool.worker.emit`). A worker that dies (a crash, the kernel's OOM killer)
fails its job with :class:`WorkerLost` and is replaced. Replacements are forks of the warm
fork server, a few milliseconds each. Nothing waits without a bound: every failure resolves
the job's future.

Why this and not an executor library: ``concurrent.futures`` and loky cannot stop one
running task (a crash breaks or restarts the whole pool, failing every queued task), and
Dask's local cluster cannot either (cancelling a running task only forgets it; restarting a
worker re-imports and re-warms it, seconds, with a scheduler and a nanny per worker in
memory). Processes from the standard library's fork server, one pipe each, give per-job
kill, replacement in milliseconds and copy-on-write sharing of the warm lexicons; the
policy above is what no library offers.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_any
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast

from explorer.errors import ExplorerError
from runtime.pool.worker import RECYCLED, serve
from runtime.processes import Child, stop_at_exit

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

SHORT, LONG = "short", "long"
QUEUED, RUNNING, DONE = "queued", "running", "done"
#: The niceness added to the long lane's processes.
LONG_NICENESS = 10
#: A running job superseded after this many seconds is killed (sooner, it finishes unseen).
KILL_AFTER = 0.5
#: Exit codes of a worker stopped from outside (SIGTERM, SIGINT, SIGHUP: the server's process
#: group is shutting down): not replaced, which would start a new fork server mid-shutdown.
#: A crash (an exception, SIGSEGV) or the kernel's OOM killer (SIGKILL) is replaced.
STOPPED = frozenset({-15, -2, -1})
#: A forked worker's exit code when its fork server has gone and cannot say how it ended.
UNKNOWN_EXIT = 255


def fork_server_stopped(within: float = 1.0) -> bool:
    """Whether the fork server of this process was stopped from outside (by one of the
    signals of :data:`STOPPED`: the process group is shutting down, e.g. Ctrl-C in the
    terminal), waiting up to ``within`` seconds for it to end (its workers learn that it
    is going a moment before it has gone). Read without reaping it (``WNOWAIT``):
    multiprocessing reaps it itself before it starts another. False while it runs, when
    none was started, or when it ended any other way (e.g. the kernel's OOM killer), after
    which workers are replaced."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if not isinstance(pid, int) or not hasattr(os, "waitid"):
        return False
    deadline = time.monotonic() + within
    while True:
        try:
            ended = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return False
        if ended is not None:
            return -ended.si_status in STOPPED and ended.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def default_long_workers(workers: int) -> int:
    """The long lane's processes beside ``workers`` short-lane ones: half as many, at least 1."""
    return max(1, workers // 2)


class PoolError(ExplorerError, RuntimeError):
    """A job the pool could not finish (the subclasses say why)."""


class Superseded(PoolError):
    """A newer request of the same session replaced this job."""


class BudgetExceeded(PoolError):
    """A job ran past its time budget; its worker was stopped and replaced.

    Attributes:
        budget: the budget in seconds.
    """

    def __init__(self, message: str, budget: float) -> None:
        super().__init__(message)
        self.budget = budget


class WorkerLost(PoolError):
    """The worker process running the job stopped (a crash, or killed by the system)."""


class PoolClosed(PoolError):
    """The pool was shut down."""


@dataclass(frozen=True)
class JobStatus:
    """Where a job stands, for a status line.

    Attributes:
        state: ``queued``, ``running`` or ``done``.
        ahead: jobs before it in its queue (0 unless queued).
        seconds: time since it was submitted (queued) or started (running).
        budget: its time budget in seconds.
        long: whether it is in the long lane.
        workers: worker processes ready now (0 while the pool is still starting).
    """

    state: str
    ahead: int
    seconds: float
    budget: float
    long: bool
    workers: int


class _Job:
    def __init__(self, job_id: int, session: str, fn: Callable[..., object], args: tuple[object, ...],
                 kwargs: dict[str, object], long: bool, budget: float, label: str,
                 on_partial: Callable[[object], None] | None) -> None:
        self.id, self.session, self.fn, self.args, self.kwargs = job_id, session, fn, args, kwargs
        self.long, self.budget, self.label, self.on_partial = long, budget, label, on_partial
        self.future: Future[object] = Future()
        self.partial: list[object] = []
        self.state = QUEUED
        self.submitted = time.monotonic()
        self.started = 0.0
        self.worker: _Worker | None = None


class _Worker:
    def __init__(self, child: Child, conn: Connection, lane: str) -> None:
        self.child, self.conn, self.lane = child, conn, lane
        self.job: _Job | None = None
        self.killed = False  # stopped on purpose (budget, supersede, close), or leaving past its memory mark

    def kill(self) -> None:
        self.killed = True
        self.child.kill()


class Ticket(Generic[T_co]):
    """A submitted job: wait for it, read its partial results, ask where it stands.
    ``T_co`` is what the job's function returns."""

    def __init__(self, pool: Pool, job: _Job) -> None:
        self._pool, self._job = pool, job

    @property
    def label(self) -> str:
        return self._job.label

    def done(self) -> bool:
        return self._job.future.done()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the job finished (or failed) within ``timeout`` seconds."""
        try:
            self._job.future.exception(timeout)
        except FutureTimeout:
            return False
        return True

    def result(self, timeout: float | None = None) -> T_co:
        """The job's result; raises its error (the job's own, or a :class:`PoolError`)."""
        return cast(T_co, self._job.future.result(timeout))  # what the job's function returned

    @property
    def partial(self) -> list[object]:
        """What the job has emitted so far (kept after a failure, e.g. a budget stop)."""
        with self._pool._lock:
            return list(self._job.partial)

    def status(self) -> JobStatus:
        return self._pool._status(self._job)

    def cancel(self) -> None:
        """Drop the job if queued, stop it if running (no effect once done)."""
        self._pool._cancel(self._job, Superseded("the request was cancelled"))


class Pool:
    """Worker processes, two lanes, one job in flight per session, a budget per job.

    Args:
        workers: processes for short jobs (at least 1).
        long_workers: processes for long jobs (default: half of ``workers``, at least 1).
        budget: default seconds a job may run once started.
        preload: modules the fork server imports once before forking any worker (the warm
            "zygote": :mod:`runtime.pool.zygote` warms every method); only the first pool
            of a process sets them, since the fork server is the process's own.
        start_method: ``forkserver`` (the server), or ``fork`` (tests: no warm-up).
        kill_after: a superseded running job older than this is killed, not waited out.
        recycle_mb: a worker past this many MB resident after a job exits and is replaced
            by a fresh fork (0: never); what one job grew stays with its worker otherwise.
    """

    def __init__(self, workers: int, *, long_workers: int | None = None, budget: float = 30.0,
                 preload: Sequence[str] = ("runtime.pool.zygote",), start_method: Literal["forkserver", "fork", "spawn"] = "forkserver",
                 kill_after: float = KILL_AFTER, recycle_mb: float = 0) -> None:
        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, not {workers}")
        if not budget > 0:
            raise ValueError(f"the budget must be positive, not {budget}")
        # Untyped: typeshed types a context chosen at run time as BaseContext, which declares no Process.
        self._ctx: Any = multiprocessing.get_context(start_method)
        if start_method == "forkserver" and preload:
            self._ctx.set_forkserver_preload(list(preload))
        self.sizes = {SHORT: workers, LONG: default_long_workers(workers) if long_workers is None else max(1, long_workers)}
        self.budget = budget
        self.kill_after = kill_after
        self.recycle_bytes = int(recycle_mb * 2**20)
        self._lock = threading.RLock()
        self._queues: dict[str, deque[_Job]] = {SHORT: deque(), LONG: deque()}
        self._workers: list[_Worker] = []
        self._sessions: dict[str, _Job] = {}
        self._ids = itertools.count(1)
        self._spawns: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._recent_spawns: deque[float] = deque(maxlen=64)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._closed = False
        self._threads: list[threading.Thread] = []
        self.spawn_error = ""
        # "replaced": workers that died or were killed and were asked for again (not those
        # stopped from outside); "spawned": workers started, the first ones included;
        # "recycled": workers that left past their memory mark.
        self.counts = {"completed": 0, "failed": 0, "superseded": 0, "budget": 0, "lost": 0, "replaced": 0,
                       "spawned": 0, "recycled": 0}

    # -- life cycle -----------------------------------------------------------------------

    def start(self) -> Pool:
        """Start the scheduler and ask for every worker (they start in the background: the
        first one waits for the fork server's warm-up). Returns at once. A pool still open
        when the interpreter exits is closed then (:func:`runtime.processes.stop_at_exit`)."""
        with self._lock:
            if self._threads:
                return self
            stop_at_exit(self)
            for lane, size in self.sizes.items():
                for _ in range(size):
                    self._request_spawn(lane)
            self._threads = [threading.Thread(target=self._loop, name="explorer-pool", daemon=True),
                             threading.Thread(target=self._spawner, name="explorer-pool-spawner", daemon=True)]
        for thread in self._threads:
            thread.start()
        return self

    def close(self) -> None:
        """Stop every worker; queued and running jobs fail with :class:`PoolClosed`."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for lane_queue in self._queues.values():
                while lane_queue:
                    self._resolve(lane_queue.popleft(), PoolClosed("the server's worker pool was shut down"))
            for worker in self._workers:
                if worker.job is not None:
                    self._resolve(worker.job, PoolClosed("the server's worker pool was shut down"))
                worker.kill()
            self._spawns.put(None)
            self._wake()
        for thread in self._threads:
            thread.join(timeout=5)
        for worker in self._workers:
            worker.child.wait(2)
            worker.conn.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def stop(self, timeout: float = 2.0) -> None:
        """:meth:`close` (the name every supervisor of children answers to:
        :class:`runtime.processes.Stoppable`); its workers are killed at once."""
        self.close()

    @property
    def ready(self) -> int:
        """Worker processes up now."""
        with self._lock:
            return len(self._workers)

    def pids(self) -> list[int]:
        """Process ids of the live workers (for memory measurements)."""
        with self._lock:
            return [w.child.pid for w in self._workers if w.child.pid is not None]

    def stats(self) -> dict[str, object]:
        with self._lock:
            return {
                "workers": {lane: sum(1 for w in self._workers if w.lane == lane) for lane in self.sizes},
                "busy": sum(1 for w in self._workers if w.job is not None),
                "queued": {lane: len(q) for lane, q in self._queues.items()},
                **self.counts,
            }

    # -- jobs -----------------------------------------------------------------------------

    def submit(self, session: str | None, fn: Callable[..., T], *args: object, long: bool = False,
               budget: float | None = None, label: str = "", on_partial: Callable[[object], None] | None = None,
               **kwargs: object) -> Ticket[T]:
        """Queue ``fn(*args, **kwargs)`` (``fn`` importable by name: a module-level
        function) for ``session``, superseding that session's previous job. ``None`` as
        the session: a job of its own, superseding nothing. ``on_partial`` is called (on
        the scheduler's thread) with each item the job emits."""
        with self._lock:
            if self._closed:
                raise PoolClosed("the server's worker pool was shut down")
            job = _Job(next(self._ids), session if session is not None else f"job-{id(fn)}-{time.monotonic_ns()}",
                       fn, args, kwargs, long, self.budget if budget is None else budget, label, on_partial)
            previous = self._sessions.get(job.session)
            if previous is not None and previous.state != DONE:
                self._cancel(previous, Superseded("a newer request from the same session replaced this one"))
            self._sessions[job.session] = job
            self._queues[LONG if long else SHORT].append(job)
            self._wake()
            return Ticket(self, job)

    def _cancel(self, job: _Job, error: PoolError) -> None:
        with self._lock:
            if job.state == QUEUED:
                for lane_queue in self._queues.values():
                    if job in lane_queue:
                        lane_queue.remove(job)
            elif job.state == RUNNING and job.worker is not None:
                if job.long or time.monotonic() - job.started > self.kill_after:
                    job.worker.kill()
            if job.state != DONE:
                self.counts["superseded"] += 1
                self._resolve(job, error)
                self._wake()

    def _status(self, job: _Job) -> JobStatus:
        with self._lock:
            now = time.monotonic()
            ahead = 0
            if job.state == QUEUED:
                lane_queue = self._queues[LONG if job.long else SHORT]
                ahead = next((k for k, queued in enumerate(lane_queue) if queued is job), 0)
            since = job.started if job.state == RUNNING else job.submitted
            return JobStatus(job.state, ahead, now - since, job.budget, job.long, len(self._workers))

    def _resolve(self, job: _Job, error: BaseException | None = None, result: object = None) -> None:
        """Finish a job (under the lock): its future gets the result or the error."""
        if job.state == DONE:
            return
        job.state = DONE
        if self._sessions.get(job.session) is job:
            del self._sessions[job.session]
        if error is None:
            self.counts["completed"] += 1
            job.future.set_result(result)
        else:
            self.counts["failed"] += 1
            job.future.set_exception(error)

    # -- the scheduler's thread -----------------------------------------------------------

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass  # a full pipe already wakes the loop

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                self._dispatch()
                timeout = self._next_deadline()
                conns = {w.conn: w for w in self._workers}
                sentinels = {w.child.sentinel: w for w in self._workers}
            ready = wait_any([self._wake_r, *conns, *sentinels], timeout)
            if self._wake_r in ready:
                try:
                    os.read(self._wake_r, 4096)
                except OSError:
                    pass
            for conn, worker in conns.items():
                if conn in ready:
                    self._receive(worker)
            for sentinel, worker in sentinels.items():
                if sentinel in ready:
                    self._gone(worker)
            self._enforce_budgets()

    def _next_deadline(self) -> float | None:
        # Every job a worker holds, superseded ones included (they still use a core).
        held = [w.job for w in self._workers if w.job is not None and not w.killed]
        if not held:
            return None
        return max(0.0, min(j.started + j.budget for j in held) - time.monotonic()) + 0.01

    def _dispatch(self) -> None:
        idle = [w for w in self._workers if w.job is None and not w.killed]
        for worker in idle:
            lane_queue = self._queues[worker.lane]
            if not lane_queue:
                continue
            job = lane_queue.popleft()
            try:
                worker.conn.send((job.id, job.fn, job.args, job.kwargs))
            except (BrokenPipeError, EOFError, ConnectionError):
                lane_queue.appendleft(job)  # the worker is gone; its sentinel says so next
                worker.killed = True
                continue
            except Exception as err:  # arguments that do not pickle: the caller's mistake
                self._resolve(job, PoolError(f"{job.label or 'the job'} could not be sent to a worker: "
                                             f"{type(err).__name__}: {err}"))
                continue
            job.state, job.started, job.worker = RUNNING, time.monotonic(), worker
            worker.job = job

    def _receive(self, worker: _Worker) -> None:
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                self._handle(worker, message)
        except (EOFError, OSError):
            pass  # the process is gone; its sentinel fires
        except Exception as err:  # a result that does not unpickle here
            with self._lock:
                if worker.job is not None:
                    job, worker.job = worker.job, None
                    self._resolve(job, PoolError(f"the result of {job.label or 'the job'} could not be read: "
                                                 f"{type(err).__name__}: {err}"))

    def _handle(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind, job_id = message[0], message[1]
        with self._lock:
            job = worker.job
            if job is None or job.id != job_id:
                return
            if kind == "partial":
                if job.state == DONE:
                    return  # superseded: nobody is waiting for it
                job.partial.append(message[2])
                callback = job.on_partial
            else:
                worker.job = None
                worker.killed = worker.killed or bool(message[4:5] and message[4])  # retiring: no new job
                ok, payload = message[2], message[3]
                self._resolve(job, None if ok else payload, payload if ok else None)
                self._wake()
                return
        if callback is not None:
            try:
                callback(message[2])
            except Exception:  # noqa: BLE001 - a caller's callback never stops the scheduler
                pass

    def _gone(self, worker: _Worker) -> None:
        worker.child.wait(1)
        code = worker.child.exitcode
        # Every worker of a fork server stopped with its process group ends with an unknown
        # code: replacing them would start a new fork server, and its warm-up, mid-shutdown.
        stopped = code in STOPPED or (code == UNKNOWN_EXIT and fork_server_stopped())
        with self._lock:
            if worker not in self._workers:
                return
            self.counts["recycled"] += code == RECYCLED
            self._workers.remove(worker)
            job, worker.job = worker.job, None
            if job is not None and job.state != DONE:
                self.counts["lost"] += 1
                self._resolve(job, WorkerLost(
                    f"the worker process running {job.label or 'this job'} stopped (exit code {code}); "
                    "it has been replaced: try again, or shorten the input"))
            if not self._closed and (worker.killed or not stopped):
                self.counts["replaced"] += 1
                self._request_spawn(worker.lane)
        worker.conn.close()

    def _enforce_budgets(self) -> None:
        now = time.monotonic()
        with self._lock:
            for worker in self._workers:
                job = worker.job
                if job is None or worker.killed or now - job.started <= job.budget:
                    continue
                worker.kill()
                if job.state == DONE:
                    continue  # superseded, finishing unseen: stopped all the same
                self.counts["budget"] += 1
                self._resolve(job, BudgetExceeded(
                    f"{job.label or 'the job'} ran past this server's budget of {job.budget:g} s per request and "
                    "was stopped, so that one long request cannot slow everyone else's. Shorten the input, or "
                    "run it from the command line, which has no such budget (for one pair: `python -m explorer "
                    "score --text ... --hypothesis ...`)", job.budget))

    # -- starting workers -----------------------------------------------------------------

    def _request_spawn(self, lane: str) -> None:
        self._spawns.put(lane)

    def _spawner(self) -> None:
        while True:
            lane = self._spawns.get()
            if lane is None:
                return
            self._pace()
            worker = None
            try:
                parent, child = self._ctx.Pipe()
                process = Child.of(self._ctx.Process(
                    target=serve, args=(child, LONG_NICENESS if lane == LONG else 0, self.recycle_bytes),
                    name=f"explorer-worker-{lane}", daemon=True))
                child.close()
                worker = _Worker(process, parent, lane)
                self.spawn_error = ""
            except Exception as err:  # noqa: BLE001 - reported by the status, retried
                self.spawn_error = f"{type(err).__name__}: {err}"
                time.sleep(1.0)
            with self._lock:
                if worker is None:
                    if not self._closed:
                        self._request_spawn(lane)
                    continue
                if self._closed:
                    worker.kill()
                    continue
                self._workers.append(worker)
                self.counts["spawned"] += 1
                self._wake()

    def _pace(self) -> None:
        """At most a few replacements per second: a worker that dies at once, again and
        again, must not turn the server into a fork loop."""
        now = time.monotonic()
        self._recent_spawns.append(now)
        window = [t for t in self._recent_spawns if now - t < 2.0]
        limit = 4 * (self.sizes[SHORT] + self.sizes[LONG])
        if len(window) > limit:
            time.sleep(0.5)
