"""The class server (``python -m serve``, what ``make serve-class`` runs) on a free port,
for the class-server test and the class benchmark."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from tests.e2e.browser import ROOT, START_TIMEOUT, ServerError, free_port

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
                 timeout: float = START_TIMEOUT) -> Iterator[ServedClass]:
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
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
