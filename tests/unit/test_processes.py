"""The one vocabulary for the server's children: a child is started, watched and stopped
(SIGTERM, then SIGKILL past its grace), a deadline kills a child that overruns it, and what
still runs when the interpreter exits is stopped by the one exit hook."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from runtime.processes import OUT_OF_MEMORY, PACKAGE_ROOT, Child, Limits, resident_bytes, wait_until
from tests.deadline import DEADLINE

#: A child that ignores SIGTERM, says it is ready, then sleeps.
STUBBORN = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(600)")


def _python(code: str) -> Child:
    """``python -c code`` as a child, its stdout piped."""
    return Child(subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=PACKAGE_ROOT))


def test_stop_terminates_a_child_that_listens() -> None:
    child = _python("import time; print('ready', flush=True); time.sleep(600)")
    assert child.popen.stdout is not None and child.popen.stdout.readline().strip() == b"ready"
    assert child.alive and child.exitcode is None and child.rss > 0
    assert child.stop(DEADLINE) == -15  # SIGTERM was enough
    assert not child.alive and child.rss == 0


def test_stop_kills_a_child_that_ignores_sigterm_past_its_grace() -> None:
    child = _python(STUBBORN)
    assert child.popen.stdout is not None and child.popen.stdout.readline().strip() == b"ready"
    started = time.monotonic()
    assert child.stop(0.3) == -9
    assert time.monotonic() - started >= 0.3  # it was given its grace first
    child.kill()  # a child already gone is left alone


def test_a_module_child_runs_from_the_checkout_and_a_deadline_kills_it() -> None:
    child = Child.module("runtime.processes", stdout=subprocess.PIPE)  # importing it prints nothing, exits 0
    out, _ = child.communicate(timeout=DEADLINE)
    assert (out, child.exitcode) == (b"", 0)
    sleeper = Child(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE))
    with pytest.raises(subprocess.TimeoutExpired):
        sleeper.communicate(b"", timeout=0.2)
    assert sleeper.exitcode == -9  # killed and reaped by the deadline, not left running


def test_wait_until_and_resident_bytes() -> None:
    assert wait_until(lambda: True, 0)
    calls: list[int] = []

    def never() -> bool:
        calls.append(1)
        return False

    assert not wait_until(never, 0.1, every=0.01)
    assert len(calls) > 1  # polled until the deadline, then given up
    assert resident_bytes() > 10 * 1024 * 1024  # this interpreter, with pytest loaded
    assert resident_bytes(2**22 + 12345) == 0  # no such process


def test_children_left_running_are_stopped_when_the_interpreter_exits() -> None:
    """A script starts a stubborn child and a pool-like supervisor, and exits without
    stopping either: the exit hook stops the supervisor, then kills the child."""
    script = (
        "import sys, subprocess\n"
        "from runtime.processes import Child, stop_at_exit\n"
        "class Supervisor:\n"
        "    def stop(self, timeout=2.0):\n"
        "        print('supervisor stopped', flush=True)\n"
        "keep = Supervisor()\n"
        "stop_at_exit(keep)\n"
        f"child = Child(subprocess.Popen([sys.executable, '-c', {STUBBORN!r}], stdout=subprocess.PIPE))\n"
        "child.popen.stdout.readline()\n"
        "print(child.pid, flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE,
                          cwd=PACKAGE_ROOT, env=env)
    assert done.returncode == 0, done.stderr
    pid_line, said = done.stdout.split("\n")[:2]
    assert said == "supervisor stopped"
    pid = int(pid_line)

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    assert wait_until(gone, DEADLINE)


def _probe(*args: str, limits: Limits | None) -> tuple[Child, dict[str, object], bytes, bytes]:
    """Run tests/unit/limited_probe.py as a module child: it, what it saw of itself, its output."""
    child = Child.module("tests.unit.limited_probe", *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         limits=limits)
    out, err = child.communicate(timeout=DEADLINE)
    return child, json.loads(out.splitlines()[0]), out, err


def test_a_limited_child_holds_itself_to_its_limits_below_the_servers_priority() -> None:
    child, seen, _, _ = _probe(limits=Limits(memory_mb=300, cpu_seconds=30, nice=5, threads=1))
    assert child.exitcode == 0
    assert seen["nice"] == min(19, os.nice(0) + 5) and seen["nice"] > os.nice(0)
    assert seen["data"] == 300 * 2**20 and seen["cpu"] == 30 and seen["threads"] == "1"
    _, unlimited, _, _ = _probe(limits=None)  # the plain `python -m` child: the server's own
    assert unlimited["nice"] == os.nice(0) and unlimited["data"] == resource.getrlimit(resource.RLIMIT_DATA)[0]


def test_a_child_past_its_memory_limit_ends_with_one_line_naming_it() -> None:
    _, _, out, _ = _probe("150", limits=None)
    assert b"held 150 MB" in out  # the allocation itself is fine ...
    limits = Limits(memory_mb=100)
    child, _, out, err = _probe("150", limits=limits)  # ... but not under 100 MB
    assert b"held" not in out and child.exitcode == OUT_OF_MEMORY
    assert err.decode().splitlines() == ["error: tests.unit.limited_probe needed more than its memory limit of 100 MB"]
    assert limits.reason(child.exitcode, err) == "needed more than its memory limit of 100 MB"


def test_a_child_past_its_processor_time_is_ended_by_the_kernel() -> None:
    limits = Limits(cpu_seconds=1)
    child, seen, _, _ = _probe("spin", limits=limits)
    assert seen["cpu"] == 1 and child.exitcode == -signal.SIGXCPU
    assert limits.reason(child.exitcode) == "needed more than its limit of 1 s of processor time"


def test_the_limit_that_ended_a_child_is_named_only_when_it_was_set() -> None:
    limits = Limits(memory_mb=40, cpu_seconds=10)
    openblas = b"OpenBLAS error: Memory allocation still failed after 10 retries, giving up.\n"
    assert limits.reason(1, openblas) == "needed more than its memory limit of 40 MB"
    assert limits.reason(-signal.SIGKILL) == "was killed (past its limit of 10 s of processor time, or the " \
                                               "machine out of memory)"
    assert limits.reason(1, b"error: no such file\n") is None and limits.reason(0) is None
    assert Limits().reason(OUT_OF_MEMORY) is None and Limits().reason(-signal.SIGXCPU) is None
    assert Limits.parse(limits.argument()) == limits
