"""One way to start, watch and stop the server's child processes.

The worker pool (:mod:`runtime.pool`), the background cutoff job (:mod:`runtime.cutoff_jobs`),
the isolated upload reader (:mod:`runtime.isolated_reader`) and the first start's cache
helpers (:mod:`runtime.disk_caches`) each run children; they say the same things about them
in the words of this module:

- :class:`Child`: one child process, whether started as ``python -m <module>``
  (:meth:`Child.module`: a fresh interpreter with this checkout first on its path) or forked
  by :mod:`multiprocessing` (:meth:`Child.of`): its :attr:`~Child.pid`,
  :attr:`~Child.alive`, :attr:`~Child.exitcode`, :meth:`~Child.wait` with a deadline,
  :meth:`~Child.communicate` with one, :meth:`~Child.kill` (at once, never blocks: safe
  under a lock) and :meth:`~Child.stop` (SIGTERM, then SIGKILL past ``timeout``, then reap);
- :class:`Limits`: what the kernel holds a module child to (its data memory, its processor
  seconds, a lower priority), set by the child on itself before its module is imported
  (:meth:`Child.module` with ``limits=``), and :meth:`Limits.reason`: which one ended it;
- :func:`resident_bytes`: a process's resident memory, the mark a pool worker retires at;
- :func:`wait_until`: a condition polled up to a deadline (never a bare sleep);
- :func:`exit_with_parent`: the child's side: it exits once the server that started it has gone;
- :func:`stop_at_exit`: what is still running when the server's interpreter exits is
  stopped by one ``atexit`` hook, registered once: first the supervisors (a pool, the
  cutoff jobs: so none replaces a worker mid-exit), then any child left over.

The class server (``serve/``) supervises Streamlit and Caddy its own way, and Dask its
workers (``explorer.batch``): neither is a child of the app server.
"""

from __future__ import annotations

import atexit
import os
import runpy
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

#: Where the ``explorer`` and ``runtime`` packages live (a module child runs with it first on
#: its path, from it as its working directory).
PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: Seconds :meth:`Child.stop` waits after SIGTERM before it kills.
STOP_GRACE = 2.0
#: The exit code of a limited child that ran out of the memory its :class:`Limits` allow.
OUT_OF_MEMORY = 86
#: Seconds of processor time past ``cpu_seconds`` before the kernel's SIGKILL (SIGXCPU first).
CPU_GRACE = 5
_MB = 2**20


class Stoppable(Protocol):
    """A supervisor of children (a pool, the cutoff jobs): stopped at exit by :func:`stop_at_exit`."""

    def stop(self, timeout: float = STOP_GRACE) -> None: ...


def resident_bytes(pid: int | None = None) -> int:
    """The resident memory of process ``pid`` (this one by default), from Linux ``/proc``;
    0 where it cannot be read (elsewhere, or the process has gone)."""
    try:
        with open(f"/proc/{pid or 'self'}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def exit_with_parent(parent: int, every: float = 1.0, code: int = 3) -> None:
    """In a child: exit with ``code`` once ``parent`` is no longer this process's parent (the
    server went away without stopping it: no work for nobody). Watched by a daemon thread."""
    def follow() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(code)

    threading.Thread(target=follow, name="exit-with-parent", daemon=True).start()


def wait_until(ready: Callable[[], bool], timeout: float, every: float = 0.05) -> bool:
    """Whether ``ready()`` came true within ``timeout`` seconds (polled every ``every``)."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


@dataclass(frozen=True)
class Limits:
    """What the kernel holds a child to; 0 leaves a bound off.

    Attributes:
        memory_mb: its data memory (``RLIMIT_DATA``: the heap and every private writable
            mapping, i.e. what ``malloc`` and NumPy allocate; shared libraries and read-only
            files mapped in are not counted). Past it an allocation fails: ``MemoryError``,
            which ends the child with :data:`OUT_OF_MEMORY` and one line on stderr.
        cpu_seconds: its processor time (``RLIMIT_CPU``): SIGXCPU at it, SIGKILL
            :data:`CPU_GRACE` seconds later, whatever the machine's load (no core file).
        nice: added to the server's niceness, so the server's own threads go first.
        threads: the native math libraries' threads (OpenBLAS, OpenMP, MKL: set before they
            load), so a background child takes one core, not every core.
    """

    memory_mb: int = 0
    cpu_seconds: int = 0
    nice: int = 0
    threads: int = 0

    def argument(self) -> str:
        """The limits as the one command-line word :func:`run_limited` reads."""
        return f"{self.memory_mb},{self.cpu_seconds},{self.nice},{self.threads}"

    @classmethod
    def parse(cls, word: str) -> Limits:
        memory_mb, cpu_seconds, nice, threads = (int(part) for part in word.split(","))
        return cls(memory_mb, cpu_seconds, nice, threads)

    def apply(self) -> None:
        """Hold this process to the limits (in the child, before anything else runs)."""
        import resource

        if self.memory_mb > 0:
            resource.setrlimit(resource.RLIMIT_DATA, (self.memory_mb * _MB, self.memory_mb * _MB))
        if self.cpu_seconds > 0:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would dump a core
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + CPU_GRACE))
        if self.nice > 0:
            try:
                os.nice(self.nice)
            except OSError:
                pass
        if self.threads > 0:
            for name in _THREAD_VARIABLES:
                os.environ[name] = str(self.threads)

    def reason(self, exitcode: int | None, stderr: bytes = b"") -> str | None:
        """Which limit ended a child that exited with ``exitcode`` after writing ``stderr``,
        in words to follow "the child" (None: none did). A native library that cannot
        allocate may end the child itself (OpenBLAS exits with 1), saying so on stderr."""
        memory = f"its memory limit of {self.memory_mb:,} MB"
        cpu = f"its limit of {self.cpu_seconds:,} s of processor time"
        if self.memory_mb and (exitcode == OUT_OF_MEMORY
                               or (exitcode and any(sign in stderr for sign in _ALLOCATION_FAILED))):
            return f"needed more than {memory}"
        if exitcode == -signal.SIGXCPU and self.cpu_seconds:
            return f"needed more than {cpu}"
        if exitcode == -signal.SIGKILL and self.cpu_seconds:
            return f"was killed (past {cpu}, or the machine out of memory)"
        if exitcode in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS) and self.memory_mb:
            return f"crashed ({signal.Signals(-exitcode).name}), most likely at {memory}"
        return None


#: What native libraries write when an allocation fails (a child past its memory limit).
_ALLOCATION_FAILED = (b"MemoryError", b"Memory allocation", b"Cannot allocate memory", b"bad_alloc")
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

#: The command a limited child starts with: it sets its :class:`Limits`, then runs its module.
_LIMITED = "from runtime.processes import run_limited; run_limited()"


def run_limited(argv: list[str] | None = None) -> None:
    """The limited child's side (``python -c _LIMITED LIMITS MODULE ARGS...``): apply
    ``LIMITS`` to itself, then run ``MODULE`` as ``__main__`` with ``ARGS``; an allocation
    past the memory limit ends it with :data:`OUT_OF_MEMORY` after one line on stderr."""
    words = list(sys.argv[1:] if argv is None else argv)
    limits, module = Limits.parse(words[0]), words[1]
    limits.apply()
    sys.argv = [module, *words[2:]]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except MemoryError:
        if not limits.memory_mb:
            raise
        os.write(2, f"error: {module} needed more than its memory limit of {limits.memory_mb:,} MB\n".encode())
        os._exit(OUT_OF_MEMORY)


class Child:
    """One child process of the server, however it was started.

    Wraps a :class:`subprocess.Popen` (a fresh interpreter) or a :mod:`multiprocessing`
    process (a fork); every child is stopped at exit if it still runs (:func:`stop_at_exit`).
    """

    def __init__(self, handle: subprocess.Popen[bytes] | BaseProcess) -> None:
        self.handle = handle
        _LEFTOVERS.add(self)
        _hook()

    @classmethod
    def module(cls, module: str, *args: str, stdin: int | IO[bytes] | None = subprocess.DEVNULL,
               stdout: int | IO[bytes] | None = subprocess.DEVNULL,
               stderr: int | IO[bytes] | None = None, limits: Limits | None = None) -> Child:
        """Start ``python -m module *args`` with :data:`PACKAGE_ROOT` first on its path and as
        its working directory (``stderr`` None: the server's own, i.e. its log); with
        ``limits``, the child holds itself to them before it imports ``module``
        (:func:`run_limited`).

        Raises:
            OSError: the process could not be started.
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), *filter(None, [env.get("PYTHONPATH")])])
        command = ["-m", module] if limits is None else ["-c", _LIMITED, limits.argument(), module]
        return cls(subprocess.Popen([sys.executable, *command, *args], cwd=PACKAGE_ROOT, env=env,
                                    stdin=stdin, stdout=stdout, stderr=stderr))

    @classmethod
    def of(cls, process: BaseProcess) -> Child:
        """A :mod:`multiprocessing` process, started here."""
        process.start()
        return cls(process)

    @property
    def pid(self) -> int | None:
        return self.handle.pid

    @property
    def popen(self) -> subprocess.Popen[bytes]:
        """The :class:`subprocess.Popen` of a module child (its pipes)."""
        assert isinstance(self.handle, subprocess.Popen), "a forked child has no Popen"
        return self.handle

    @property
    def alive(self) -> bool:
        if isinstance(self.handle, subprocess.Popen):
            return self.handle.poll() is None
        return self.handle.is_alive()

    @property
    def exitcode(self) -> int | None:
        """How it ended (negative: the signal that ended it); None while it runs."""
        if isinstance(self.handle, subprocess.Popen):
            return self.handle.poll()
        return self.handle.exitcode

    @property
    def sentinel(self) -> int:
        """A handle that becomes ready when a forked child ends (for ``connection.wait``)."""
        assert not isinstance(self.handle, subprocess.Popen), "a module child has no sentinel"
        return self.handle.sentinel

    @property
    def rss(self) -> int:
        """Its resident memory in bytes (0 once it has gone)."""
        return resident_bytes(self.pid) if self.pid is not None and self.alive else 0

    def wait(self, timeout: float | None = None) -> bool:
        """Whether it ended (and was reaped) within ``timeout`` seconds (None: no bound)."""
        if isinstance(self.handle, subprocess.Popen):
            try:
                self.handle.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
        else:
            self.handle.join(timeout)
        ended = self.exitcode is not None
        if ended:
            _LEFTOVERS.discard(self)
        return ended

    def communicate(self, data: bytes | None = None, timeout: float | None = None) -> tuple[bytes, bytes]:
        """Send ``data`` to its stdin, read its stdout and stderr to the end, reap it; past
        ``timeout`` seconds it is killed and :class:`subprocess.TimeoutExpired` raised."""
        try:
            out, err = self.popen.communicate(data, timeout=timeout)
        except BaseException:  # past the deadline, or interrupted: it must not outlive the wait
            self.stop(0)
            raise
        _LEFTOVERS.discard(self)
        return out or b"", err or b""

    def kill(self) -> None:
        """SIGKILL now (a child already gone is left alone); returns at once."""
        self._signal(kill=True)

    def stop(self, timeout: float = STOP_GRACE) -> int | None:
        """SIGTERM, up to ``timeout`` seconds to end, then SIGKILL; reaped. Its exit code.
        ``timeout`` 0: SIGKILL at once."""
        if self.exitcode is None:
            if timeout > 0:
                self._signal(kill=False)
            if timeout <= 0 or not self.wait(timeout):
                self.kill()
        self.wait(STOP_GRACE)
        return self.exitcode

    def _signal(self, *, kill: bool) -> None:
        try:
            if kill:
                self.handle.kill()
            else:
                self.handle.terminate()
        except (OSError, ValueError, AttributeError):  # gone already, or never started
            pass


# -- the one exit hook ------------------------------------------------------------------------

_LEFTOVERS: weakref.WeakSet[Child] = weakref.WeakSet()
_SUPERVISORS: list[weakref.ref[Stoppable]] = []
_HOOK_LOCK = threading.Lock()
_HOOKED_IN: int | None = None  # the process the hook was registered in (a fork inherits the flag)


def stop_at_exit(supervisor: Stoppable) -> None:
    """Stop ``supervisor`` when this interpreter exits (held weakly: one that is gone by then
    is skipped). Supervisors stop newest first, before any leftover :class:`Child`."""
    with _HOOK_LOCK:
        _SUPERVISORS[:] = [ref for ref in _SUPERVISORS if ref() is not None]
        _SUPERVISORS.append(weakref.ref(supervisor))
    _hook()


def _hook() -> None:
    global _HOOKED_IN
    with _HOOK_LOCK:
        if _HOOKED_IN != os.getpid():
            _HOOKED_IN = os.getpid()
            atexit.register(_stop_all, os.getpid())


def _stop_all(owner: int) -> None:
    if os.getpid() != owner:
        return  # a fork that runs exit hooks: its parent's children are not its own
    for ref in reversed(list(_SUPERVISORS)):
        supervisor = ref()
        if supervisor is not None:
            try:
                supervisor.stop(0.5)
            except Exception:  # noqa: BLE001 - one failing supervisor must not keep others running
                pass
    for child in list(_LEFTOVERS):
        if child.alive:
            child.stop(0.5)


__all__ = ["CPU_GRACE", "OUT_OF_MEMORY", "PACKAGE_ROOT", "STOP_GRACE", "Child", "Limits", "Stoppable",
           "exit_with_parent", "resident_bytes", "run_limited", "stop_at_exit", "wait_until"]
