"""The class server's child processes: started in process groups of their own, their
output passed on with a prefix, stopped with everything they started.

Each child leads a new session (so a Ctrl-C in the terminal reaches only the class server,
which stops the children in order) and is told by the kernel to stop when the class server
dies (``PR_SET_PDEATHSIG``), so a killed class server leaves no Streamlit or Caddy behind.
Stopping a child signals its whole process group: the Streamlit process, its worker
processes and its background cutoff jobs.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

_PR_SET_PDEATHSIG = 1
try:  # resolved here, not in the child between fork and exec
    _prctl: Callable[..., int] | None = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux: children are still stopped on every normal exit
    _prctl = None

_PRINT_LOCK = threading.Lock()


def say(line: str) -> None:
    """One line on standard output, never interleaved with a child's line."""
    with _PRINT_LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def stop_with_parent() -> None:
    """Ask the kernel to send SIGTERM to this process when its parent dies (Linux)."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Child:
    """One supervised process: how to start it, its output, and how often it was restarted.

    Args:
        name: the prefix of its output lines (``app 1``, ``caddy``).
        argv, env, cwd: how to start it.
        quiet: lines of its output not worth passing on (e.g. Streamlit's banner naming
            its internal address, which is not where students go).
    """

    def __init__(self, name: str, argv: Sequence[str], env: dict[str, str], *, cwd: Path,
                 quiet: Callable[[str], bool] = lambda line: False) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = env
        self.cwd = cwd
        self.quiet = quiet
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts: list[float] = []
        self.given_up = False
        self._reader: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=stop_with_parent,
        )
        self._reader = threading.Thread(target=self._pass_output, args=(self.process,), daemon=True,
                                        name=f"output of {self.name}")
        self._reader.start()

    def _pass_output(self, process: subprocess.Popen[bytes]) -> None:
        if process.stdout is None:
            return
        for raw in process.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip()
            if line.strip() and not self.quiet(line):
                say(f"[{self.name}] {line}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exit_description(self) -> str:
        code = None if self.process is None else self.process.returncode
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def signal_group(self, sig: signal.Signals) -> None:
        """``sig`` to the child's process group (itself and everything it started)."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass

    def wait_stopped(self, deadline: float) -> None:
        """Wait until the child and its whole group have gone; past ``deadline``
        (``time.monotonic()``), kill what is left of the group."""
        if self.process is None:
            return
        pgid = self.process.pid
        try:
            self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        # Whatever is still in the group (the leader, or workers it left behind) is killed.
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if group_alive(pgid) or self.process.poll() is None:
            self.signal_group(signal.SIGKILL)
            self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=2)


def stop_all(children: Sequence[Child], *, grace: float = 10.0) -> None:
    """SIGTERM to every child's group at once, then wait up to ``grace`` seconds for all
    of them together before killing what is left."""
    running = [c for c in children if c.process is not None]
    for child in running:
        child.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in running:
        child.wait_stopped(deadline)
