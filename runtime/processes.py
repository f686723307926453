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
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

#: Where the ``explorer`` and ``runtime`` packages live (a module child runs with it first on
#: its path, from it as its working directory).
PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: Seconds :meth:`Child.stop` waits after SIGTERM before it kills.
STOP_GRACE = 2.0


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
               stderr: int | IO[bytes] | None = None) -> Child:
        """Start ``python -m module *args`` with :data:`PACKAGE_ROOT` first on its path and as
        its working directory (``stderr`` None: the server's own, i.e. its log).

        Raises:
            OSError: the process could not be started.
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), *filter(None, [env.get("PYTHONPATH")])])
        return cls(subprocess.Popen([sys.executable, "-m", module, *args], cwd=PACKAGE_ROOT, env=env,
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


__all__ = ["PACKAGE_ROOT", "STOP_GRACE", "Child", "Stoppable", "exit_with_parent", "resident_bytes",
           "stop_at_exit", "wait_until"]
