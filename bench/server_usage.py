"""CPU and memory of a server's whole process tree, sampled on a thread (psutil).

CPU: the tree's CPU seconds (user + system of every live process, plus the times of the
children each has waited for, so a worker or cutoff job that ended is still counted once)
per wall second, i.e. how many cores the server used. Memory: the sum over the tree of
resident (RSS) and proportional (PSS: shared pages split between the processes sharing
them, so forked workers are not counted twice) memory, sampled every few seconds.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import psutil


def tree(root: int) -> list[psutil.Process]:
    """``root`` and every process below it that is still there."""
    try:
        top = psutil.Process(root)
        return [top, *top.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            t = process.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def memory_mb(processes: list[psutil.Process]) -> tuple[float, float]:
    """(RSS, PSS) summed over the processes, in MB."""
    rss = pss = 0
    for process in processes:
        try:
            info = process.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
    return rss / 2**20, pss / 2**20


@dataclass
class Sample:
    at: float
    cpu: float
    rss: float | None = None
    pss: float | None = None


@dataclass
class UsageSampler:
    """Samples the tree under ``root`` every ``every`` seconds (memory every
    ``memory_every``) until :meth:`stop`; :meth:`cores` and :meth:`peak` read the samples."""

    root: int
    every: float = 1.0
    memory_every: float = 5.0
    samples: list[Sample] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> UsageSampler:
        self._thread = threading.Thread(target=self._run, daemon=True, name="server usage")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        last_memory = 0.0
        while not self._stop.is_set():
            processes = tree(self.root)
            now = time.monotonic()
            sample = Sample(now, cpu_seconds(processes))
            if now - last_memory >= self.memory_every:
                sample.rss, sample.pss = memory_mb(processes)
                last_memory = now
            self.samples.append(sample)
            self._stop.wait(self.every)

    def latest_rss(self) -> float:
        return next((s.rss for s in reversed(self.samples) if s.rss is not None), 0.0)

    def cores(self, start: float, end: float) -> float:
        """CPU seconds per wall second between two ``time.monotonic()`` times."""
        inside = [s for s in self.samples if start <= s.at <= end]
        if len(inside) < 2:
            return float("nan")
        return (inside[-1].cpu - inside[0].cpu) / (inside[-1].at - inside[0].at)

    def busiest(self, start: float, end: float, window: float = 10.0) -> float:
        """The most cores used in any ``window`` seconds between the two times."""
        inside = [s for s in self.samples if start <= s.at <= end]
        best = float("nan")
        j = 0
        for i, sample in enumerate(inside):
            while inside[j].at < sample.at - window:
                j += 1
            if sample.at - inside[j].at >= window * 0.8 and i > j:
                rate = (sample.cpu - inside[j].cpu) / (sample.at - inside[j].at)
                best = rate if best != best else max(best, rate)
        return best

    def peak(self, start: float, end: float) -> tuple[float, float]:
        """The largest (RSS, PSS) sums sampled between the two times, in MB."""
        inside = [s for s in self.samples if start <= s.at <= end and s.rss is not None]
        return (max((s.rss or 0.0 for s in inside), default=float("nan")),
                max((s.pss or 0.0 for s in inside), default=float("nan")))
