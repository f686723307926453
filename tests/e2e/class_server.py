"""The class server (``python -m serve``, what ``make serve-class`` runs) on a free port,
for the class-server test and the class benchmark."""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import psutil
import pytest

from tests.deadline import DEADLINE
from tests.e2e.browser import ROOT, ServerError, free_port, stop_tree

USER = "class"


@dataclass(frozen=True)
class ServedClass:
    url: str
    pid: int
    port: int
    user: str
    password: str
    log: str

    @property
    def auth(self) -> tuple[str, str]:
        return self.user, self.password


def require_caddy() -> None:
    if shutil.which("caddy") is None:
        pytest.skip("caddy is not installed; install Debian's caddy package (`.ci/run` does) to test the class server")


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return None


@contextmanager
def class_server(password: str, *, processes: int = 1, workers: int = 1, env: dict[str, str] | None = None,
                 timeout: float = DEADLINE) -> Iterator[ServedClass]:
    """``python -m serve`` on a free port until the block ends; yields once Caddy answers
    (401 without the password) and the output says it is ready. Stopped with SIGTERM, as
    Ctrl-C or a service manager would; its output is in the :class:`ServerError` if it dies."""
    port = free_port()
    environment = {**os.environ, **(env or {}), "ENTAILMENT_EXPLORER_PASSWORD": password, "PORT": str(port),
                   "PROCESSES": str(processes), "EXPLORER_WORKERS": str(workers), "CLASS_USER": USER}
    with tempfile.NamedTemporaryFile(prefix="class-server-", suffix=".log") as log:
        server = subprocess.Popen([sys.executable, "-m", "serve"], cwd=ROOT, env=environment, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)

        def output() -> str:
            with open(log.name, encoding="utf-8", errors="replace") as handle:
                return handle.read()

        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while not (_status(url) == 401 and "serve-class: ready" in output()):
                if server.poll() is not None:
                    raise ServerError(f"the class server exited with {server.returncode}:\n{output()}")
                if time.monotonic() > deadline:
                    raise ServerError(f"the class server did not answer on {url} within {timeout:.0f} s:\n{output()}")
                time.sleep(0.3)
            yield ServedClass(url, server.pid, port, USER, password, log.name)
        finally:
            stop_tree(server, group=False)  # the class server stops its children itself; what it leaves is killed


def put_without_password(port: int, size: int, *, timeout: float = DEADLINE) -> tuple[bytes, int]:
    """A PUT of ``size`` bytes to the upload endpoint without credentials and without
    ``Expect: 100-continue`` (the body follows the headers at once), sent a megabyte at a
    time while watching for an answer. Returns the answer's first bytes and how many body
    bytes went out before the answer came or the server closed the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall((f"PUT /_stcore/upload_file/session/file HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      "Content-Type: multipart/form-data; boundary=x\r\n"
                      f"Content-Length: {size}\r\n\r\n").encode())
        chunk, sent = b"\0" * (1 << 20), 0
        while sent < size and not select.select([sock], [], [], 0)[0]:
            try:
                sock.sendall(chunk)
            except OSError:  # the server answered and closed: the rest is never sent
                break
            sent += len(chunk)
        try:
            return sock.recv(4096), sent
        except OSError:
            return b"", sent


def processes_below(root: int, names: Sequence[str]) -> list[psutil.Process]:
    """The processes under ``root`` whose command line holds one of ``names`` (not one that
    has exited and waits to be reaped)."""
    found: list[psutil.Process] = []
    try:
        below = psutil.Process(root).children(recursive=True)
    except psutil.Error:
        return found
    for process in below:
        try:
            if any(name in " ".join(process.cmdline()) for name in names):
                found.append(process)
        except psutil.Error:
            continue
    return found


def streamlit_processes(root: int) -> list[psutil.Process]:
    """The Streamlit processes under ``root``."""
    return processes_below(root, ("streamlit",))


def summed(processes: list[psutil.Process], measure: Callable[[psutil.Process], float]) -> float:
    """``measure`` summed over the processes (one that has gone meanwhile counts 0)."""
    total = 0.0
    for process in processes:
        try:
            total += measure(process)
        except psutil.Error:
            continue
    return total


def bytes_read(processes: list[psutil.Process]) -> int:
    """Bytes the processes have read through system calls (sockets included)."""
    return int(summed(processes, lambda process: process.io_counters().read_chars))
