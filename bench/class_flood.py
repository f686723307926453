"""The wrong-password flood of ``bench/bench_class.py``: clients that send wrong passwords
as fast as the server answers them, while the class works.

Each flooding client has its own loopback address (``127.0.0.<10 + i>``: another machine,
as the class server's gate counts clients) and sends ``GET /`` with a new wrong password
on a new connection as soon as the last answer came, as a password-guessing script would,
ignoring ``Retry-After``. Counted: the answers by status and how long they took; measured:
the CPU of the server's front (Caddy and the gate, not Streamlit) over the phase.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections import Counter
from dataclasses import dataclass, field

import psutil

from tests.e2e.class_server import processes_below, summed

#: The processes that answer a request before Streamlit does.
FRONT = ("caddy run", "serve.gate")


@dataclass
class Flood:
    url_port: int
    user: str
    clients: int
    #: The server's process tree (its front's CPU is read there).
    root: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)

    async def _guess(self, source: str, guess: int, timeout: float) -> None:
        credentials = base64.b64encode(f"{self.user}:wrong guess {source} {guess}".encode()).decode()
        started = time.monotonic()
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.url_port, local_addr=(source, 0)), timeout)
            writer.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {credentials}\r\n"
                         "Connection: close\r\n\r\n".encode())
            line = await asyncio.wait_for(reader.readline(), timeout)
            writer.close()
            status = line.split(b" ")[1].decode() if line.count(b" ") >= 2 else "closed"
        except (OSError, TimeoutError):
            status = "no answer"
        self.statuses[status] += 1
        self.seconds.append(time.monotonic() - started)

    async def run(self, start: float, end: float, timeout: float = 30.0) -> None:
        await asyncio.sleep(max(0.0, start - time.monotonic()))

        async def client(i: int) -> None:
            source, guess = f"127.0.0.{10 + i}", 0
            while time.monotonic() < end:
                await self._guess(source, guess, timeout)
                guess += 1

        await asyncio.gather(*(client(i) for i in range(self.clients)))

    def summary(self) -> str:
        total = sum(self.statuses.values())
        answers = ", ".join(f"{status}: {n}" for status, n in sorted(self.statuses.items()))
        ordered = sorted(self.seconds)
        median = ordered[len(ordered) // 2] if ordered else float("nan")
        return (f"wrong-password flood: {self.clients} clients sent {total} wrong passwords ({answers}); "
                f"median answer {median:.2f} s")


def front_processes(root: int) -> list[psutil.Process]:
    return processes_below(root, FRONT)


def front_cpu(processes: list[psutil.Process]) -> float:
    return summed(processes, lambda process: sum(process.cpu_times()[:2]))
