"""``make serve-class``: the explorer for a class, behind one password, on every core.

    ENTAILMENT_EXPLORER_PASSWORD='choose-one' make serve-class [PORT=8501] [PROCESSES=K] [EXPLORER_WORKERS=W]
        [EXPLORER_LONG_WORKERS=L]

Starts the gate (:mod:`serve.gate`: the password check, on an internal port) and K Streamlit
processes on internal ports of 127.0.0.1 (each with ``EXPLORER_WORKERS`` and
``EXPLORER_LONG_WORKERS`` set: its pool of scoring worker processes, W for short jobs and L at
a lower priority for long pairs, :mod:`runtime.pool`) and, once they answer, Caddy on every
network interface at ``PORT``: it asks the gate about every request (``serve/Caddyfile``),
then picks one Streamlit process per browser by a sticky cookie. Nothing of Streamlit (page,
websocket, uploads, media, metrics, health, static files, components) answers without the
password: the gate answers 401 before Caddy reads a request's body. A browser's first correct
password gets it a signed session cookie, so only that request costs a password check; wrong
passwords are limited per client (the gate's module says how, and why not Caddy's own
``basicauth``).

Ctrl-C or SIGTERM stops Caddy, the gate and every Streamlit process with all they started; a
Streamlit process or the gate that exits on its own is reported and restarted (up to
:data:`MAX_RESTARTS` times in :data:`RESTART_WINDOW_S`; meanwhile Caddy, refused a
connection, sends its browsers to the others). The in-app password form is not used here: the proxy is
the gate, so students are asked once.

Defaults (measured, docs/BENCHMARKS.md "A class on one server"): one Streamlit process per
2 cores (two on a 2-core machine, at most :data:`MAX_DEFAULT_PROCESSES`), each with
``max(2, cores / processes - 1)`` scoring workers, and half as many for long pairs (at least
one), the pool's own default. The scoring runs on the workers, but each page's own run (its
controls, the figures drawn from the results) holds its Streamlit process's interpreter lock:
with 20 students on 2 cores one process gave an RTE pair's verdicts at p95 4.9 s, two
processes at 0.9 s. Each process costs its own memory (about 0.8 GB PSS with its workers),
hence the cap.
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from runtime.pool import LONG_WORKERS_ENV, default_long_workers
from runtime.streamlit_config import max_upload_mb
from serve.caddy import CaddyError, caddy_command, caddy_environment, check_password, check_user, find_caddy
from serve.gate import gate_environment
from serve.processes import Child, say, stop_all, stop_with_parent

ROOT = Path(__file__).resolve().parents[1]
PASSWORD_VAR = "ENTAILMENT_EXPLORER_PASSWORD"
WORKERS_VAR = "EXPLORER_WORKERS"
TABS_VAR = "EXPLORER_TABS"
DEFAULT_PORT = 8501
DEFAULT_USER = "class"
MAX_RESTARTS = 5
RESTART_WINDOW_S = 300.0
START_TIMEOUT_S = 180.0
#: Longest serve-class waits for a Streamlit process's methods to load after its start.
WARM_TIMEOUT_S = 600.0
#: Streamlit's start-up lines that name its internal address (not where students go).
_BANNER = ("You can now view your Streamlit app", "URL: http://127.0.0.1:", "Uvicorn server started on",
           "Stopping...")


class ServeError(RuntimeError):
    """The class server cannot start or cannot go on; the message says why and what to do."""


def _streamlit_banner(line: str) -> bool:
    return any(part in line for part in _BANNER)


def _caddy_info(line: str) -> bool:
    """Caddy's information lines (its configuration sets ERROR for the rest of its run)."""
    return line.startswith("{") and '"level":"info"' in line


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


#: The most Streamlit processes chosen by default (each costs about 0.8 GB PSS).
MAX_DEFAULT_PROCESSES = 8


def default_processes(cores: int) -> int:
    """Streamlit processes for a machine with ``cores`` cores: one per two, at least one
    (two on a 2-core machine), at most :data:`MAX_DEFAULT_PROCESSES`."""
    return max(1, min(MAX_DEFAULT_PROCESSES, cores if cores <= 2 else cores // 2))


def default_workers(cores: int, processes: int) -> int:
    """Scoring workers per Streamlit process: the cores left after one per Streamlit
    process, shared out, and at least two."""
    return max(2, cores // processes - 1)


@dataclass(frozen=True)
class Options:
    port: int
    processes: int
    workers: int
    long_workers: int
    user: str
    password: str


def _bounded(name: str, value: str | int, low: int, high: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise ServeError(f"{name} must be a whole number, not {value!r}") from None
    if not low <= number <= high:
        raise ServeError(f"{name} must be between {low} and {high}, not {number}")
    return number


def parse_options(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> Options:
    """The options from the command line, else the environment (``PORT``, ``PROCESSES``,
    ``EXPLORER_WORKERS``, ``EXPLORER_LONG_WORKERS``, ``CLASS_USER``), else the defaults; the password only from
    ``ENTAILMENT_EXPLORER_PASSWORD`` (a command line is visible to every user of the machine).

    Raises:
        ServeError: no password, or an option out of range.
    """
    env = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(prog="make serve-class", description=__doc__.splitlines()[0])
    parser.add_argument("--port", default=env.get("PORT") or DEFAULT_PORT, help="public port (PORT; default 8501)")
    parser.add_argument("--processes", default=env.get("PROCESSES") or None,
                        help="Streamlit processes (PROCESSES; default one per 2 cores, at most 8)")
    parser.add_argument("--workers", default=env.get(WORKERS_VAR) or None,
                        help="scoring workers per Streamlit process (EXPLORER_WORKERS; 0: none, score in it)")
    parser.add_argument("--long-workers", default=env.get(LONG_WORKERS_ENV) or None,
                        help="of those, for long pairs at a lower priority (EXPLORER_LONG_WORKERS; default half)")
    parser.add_argument("--user", default=env.get("CLASS_USER") or DEFAULT_USER,
                        help=f"the user name students give (CLASS_USER; default {DEFAULT_USER!r})")
    args = parser.parse_args(argv)
    password = env.get(PASSWORD_VAR, "")
    if not password:
        raise ServeError(f"no password: a class server is only started with one, e.g. "
                         f"{PASSWORD_VAR}='choose-one' make serve-class")
    try:
        check_password(password)
        check_user(args.user)
    except CaddyError as err:
        raise ServeError(str(err)) from None
    cores = available_cores()
    processes = _bounded("PROCESSES", args.processes, 1, 64) if args.processes else default_processes(cores)
    # 0: no worker pool, each Streamlit process scores in its own process.
    workers = _bounded(WORKERS_VAR, args.workers, 0, 64) if args.workers else default_workers(cores, processes)
    long_workers = (_bounded(LONG_WORKERS_ENV, args.long_workers, 1, 64) if args.long_workers
                    else default_long_workers(workers)) if workers else 0
    return Options(_bounded("PORT", args.port, 1, 65535), processes, workers, long_workers, args.user, password)


def free_local_ports(count: int) -> list[int]:
    """``count`` distinct free ports on 127.0.0.1 (held together while chosen)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


def check_port_free(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
        except OSError:
            raise ServeError(f"port {port} is already in use on this machine; choose another, "
                             f"e.g. make serve-class PORT={port + 1}") from None


def streamlit_command(port: int, upload_mb: int) -> list[str]:
    """A Streamlit process on ``port`` (127.0.0.1 only) refusing uploads past ``upload_mb``
    MiB (:func:`runtime.streamlit_config.max_upload_mb`)."""
    return [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
        "--server.maxUploadSize", str(upload_mb), "--server.enableXsrfProtection", "true",
        "--server.enableCORS", "true", "--browser.gatherUsageStats", "false",
        # /_stcore/script-health-check runs the app once in a throwaway session: warm() uses it
        # on the internal port (behind Caddy it asks for the password like every path).
        "--server.scriptHealthCheckEnabled", "true",
    ]


def streamlit_environment(workers: int, long_workers: int = 0) -> dict[str, str]:
    """The environment of a Streamlit process: no password (the proxy asks for it, so the
    in-app form stays off and students are asked once), its pool's sizes."""
    env = {k: v for k, v in os.environ.items() if k not in (PASSWORD_VAR, LONG_WORKERS_ENV)}
    env[WORKERS_VAR] = str(workers)
    # Only the open method tab is drawn: every tab drawn cost each pair 0.4 s of the process
    # the class shares (components.pages.pair.every_tab_drawn).
    env.setdefault(TABS_VAR, "open")
    if workers and long_workers:
        env[LONG_WORKERS_ENV] = str(long_workers)
    return env


def _answers(url: str, expect: int) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status) == expect
    except urllib.error.HTTPError as err:
        return err.code == expect
    except OSError:
        return False


def _wait(what: str, ready: list[tuple[Child, str, int]], stopping: threading.Event) -> None:
    """Until each child's URL answers its expected status; a child that exits meanwhile,
    or :data:`START_TIMEOUT_S`, ends the start with its reason."""
    deadline = time.monotonic() + START_TIMEOUT_S
    waiting = list(ready)
    while waiting:
        for child, url, expect in list(waiting):
            if not child.alive():
                raise ServeError(f"{child.name} stopped while starting ({child.exit_description()}); "
                                 "its output is above")
            if _answers(url, expect):
                waiting.remove((child, url, expect))
        if stopping.is_set():
            raise KeyboardInterrupt
        if waiting and time.monotonic() > deadline:
            raise ServeError(f"{what} did not answer within {START_TIMEOUT_S:.0f} s: "
                             f"{', '.join(c.name for c, _, _ in waiting)}")
        if waiting:
            stopping.wait(0.25)


def warm(app: Child, port: int, workers: int, stopping: threading.Event) -> None:
    """Load the methods of a started Streamlit process before any student arrives: one run
    of the app in a throwaway session (Streamlit's script health check) starts its worker
    pool, whose fork server loads every lexicon, model and kernel once (about 3 s of CPU),
    so the first student's strip does not wait for it. Says when the methods are loaded,
    from the pool's progress file; a failure only costs the first visitor that wait."""
    started = time.monotonic()
    deadline = started + WARM_TIMEOUT_S
    while not _answers(f"http://127.0.0.1:{port}/_stcore/health", 200):
        if stopping.wait(0.5) or time.monotonic() > deadline or not app.alive():
            return
    if not _script_ran(app, port, deadline, stopping):
        return
    if workers:
        from runtime.warmup import read_status, status_path

        path = status_path(app.pid or 0)
        while (status := read_status(path)) is None or not status.finished:
            if stopping.wait(0.5) or time.monotonic() > deadline or not app.alive():
                return
    say(f"serve-class: {app.name}: every method loaded ({time.monotonic() - started:.0f} s after its start)")


def _script_ran(app: Child, port: int, deadline: float, stopping: threading.Event) -> bool:
    """Run the app once through Streamlit's script health check, asking again while it
    answers 503 until ``deadline``: Streamlit gives the run a fixed time (60 s), and on a
    loaded machine a fresh process's first run (its imports, the pool's start) can take
    longer; the next run finds the imports done. False (said) when it never ran."""
    url = f"http://127.0.0.1:{port}/_stcore/script-health-check"
    tries = 0
    while True:
        tries += 1
        try:
            with urllib.request.urlopen(url, timeout=max(1.0, deadline - time.monotonic())) as response:
                response.read()
            return True
        except urllib.error.HTTPError as err:
            if err.code != 503 or stopping.wait(1.0) or time.monotonic() > deadline or not app.alive():
                why = f"HTTP {err.code} {err.reason}, {tries} tries"
                break
        except OSError as err:
            why = str(err)
            break
    say(f"serve-class: {app.name}: could not load the methods in advance ({why}); the first visit will")
    return False


def _warm_in_background(app: Child, port: int, workers: int, stopping: threading.Event) -> None:
    threading.Thread(target=warm, args=(app, port, workers, stopping), name=f"warm {app.name}", daemon=True).start()


def _restart(app: Child, stopping: threading.Event, *, meanwhile: str, then: Callable[[], object] = lambda: None,
             ) -> None:
    """Report an exited child and start it again (and ``then``), unless it exits too often."""
    now = time.monotonic()
    app.restarts = [t for t in app.restarts if now - t < RESTART_WINDOW_S] + [now]
    if len(app.restarts) > MAX_RESTARTS:
        app.given_up = True
        say(f"serve-class: {app.name} stopped again ({app.exit_description()}); it stopped {MAX_RESTARTS + 1} "
            f"times in {RESTART_WINDOW_S / 60:.0f} minutes, so it is not restarted")
        return
    say(f"serve-class: {app.name} stopped unexpectedly ({app.exit_description()}); restarting it ({meanwhile})")
    stopping.wait(1.0)
    if not stopping.is_set():
        app.start()
        then()


def public_addresses(port: int) -> str:
    """How students may reach this machine: its host name and its outward address."""
    names = [socket.gethostname()]
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route
            names.append(probe.getsockname()[0])
    except OSError:
        pass
    return " or ".join(f"http://{name}:{port}/" for name in dict.fromkeys(names))


def gate_child(options: Options, port: int) -> tuple[Child, str]:
    """The gate on ``port`` (127.0.0.1), not started, and the secret Caddy sends it. Its
    environment carries the password's scrypt verifier, never the password."""
    values, secret = gate_environment(port=port, user=options.user, password=options.password)
    env = {k: v for k, v in os.environ.items() if k != PASSWORD_VAR and not k.startswith("EXPLORER_")}
    return Child("gate", [sys.executable, "-m", "serve.gate"], {**env, **values}, cwd=ROOT), secret


def children(options: Options, caddy: str, ports: list[int], gate_port: int, gate_secret: str,
             state: Path) -> tuple[list[Child], Child]:
    """The Streamlit processes (one per port) and Caddy in front of them, not started. Both
    take the upload size from .streamlit/config.toml (:func:`runtime.streamlit_config.max_upload_mb`):
    Streamlit refuses past it, Caddy past it and Streamlit's multipart allowance.

    Raises:
        ServeError: the upload size cannot be read.
    """
    try:
        upload_mb = max_upload_mb()
    except (OSError, ValueError) as err:
        raise ServeError(f"cannot read the upload size: {err}") from None
    environment = streamlit_environment(options.workers, options.long_workers)
    apps = [Child(f"app {i + 1}", streamlit_command(port, upload_mb), environment, cwd=ROOT, quiet=_streamlit_banner)
            for i, port in enumerate(ports)]
    proxy = Child("caddy", caddy_command(caddy),
                  caddy_environment(port=options.port, gate_port=gate_port, gate_secret=gate_secret,
                                    upstreams=ports, max_upload_mib=upload_mb, state_dir=state),
                  cwd=state, quiet=_caddy_info)
    return apps, proxy


def serve(options: Options) -> int:
    """Start Streamlit and Caddy, supervise them until a signal, then stop them all."""
    say(f"serve-class: serving the explorer on ALL network interfaces, port {options.port}, on purpose: "
        "anyone who can reach this machine can open it, with the password")
    say(f"serve-class: students open {public_addresses(options.port)} and sign in as "
        f"user '{options.user}' with the password (plain HTTP: use it on a network you trust)")
    pool = (f"{options.workers} scoring workers + {options.long_workers} for long pairs" if options.workers
            else "no scoring workers")
    say(f"serve-class: {options.processes} Streamlit process(es) x ({pool}) ({available_cores()} cores; "
        "PROCESSES, EXPLORER_WORKERS and EXPLORER_LONG_WORKERS change this); Ctrl-C stops everything")
    check_port_free(options.port)
    try:
        caddy = find_caddy(say=lambda line: say(f"serve-class: {line}"))
    except CaddyError as err:
        raise ServeError(str(err)) from None
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stopping.set())
    with tempfile.TemporaryDirectory(prefix="explorer-class-") as state:
        gate_port, *ports = free_local_ports(options.processes + 1)
        gate, gate_secret = gate_child(options, gate_port)
        apps, proxy = children(options, caddy, ports, gate_port, gate_secret, Path(state))
        code = 0
        try:
            gate.start()
            for app in apps:
                app.start()
            # The gate answers 403 to a question without Caddy's secret: it is listening.
            _wait("Streamlit and the gate", [(a, f"http://127.0.0.1:{p}/_stcore/health", 200)
                                             for a, p in zip(apps, ports)]
                  + [(gate, f"http://127.0.0.1:{gate_port}/check", 403)], stopping)
            proxy.start()
            _wait("Caddy", [(proxy, f"http://127.0.0.1:{options.port}/", 401)], stopping)
            say(f"serve-class: ready on port {options.port} (internal Streamlit ports: "
                f"{', '.join(map(str, ports))}, on 127.0.0.1 only); loading the methods in advance")
            for app, port in zip(apps, ports):
                _warm_in_background(app, port, options.workers, stopping)
            while not stopping.wait(0.5):
                if not proxy.alive():
                    raise ServeError(f"Caddy stopped ({proxy.exit_description()}); its output is above")
                if not gate.alive():
                    _restart(gate, stopping, meanwhile="until it answers, Caddy answers 502")
                    if gate.given_up:
                        raise ServeError("the gate stopped too often; its output is above")
                for app, port in zip(apps, ports):
                    if not app.given_up and not app.alive():
                        _restart(app, stopping, meanwhile="its students' pages reconnect to a fresh session",
                                 then=functools.partial(_warm_in_background, app, port, options.workers, stopping))
                if all(app.given_up for app in apps):
                    raise ServeError("every Streamlit process stopped and was given up; see their output above")
        except KeyboardInterrupt:
            pass
        except ServeError as err:
            say(f"serve-class: error: {err}")
            code = 1
        finally:
            say("serve-class: stopping Caddy, the gate and the Streamlit processes...")
            stop_all([proxy, gate, *apps])
            say("serve-class: stopped")
    return code


def main(argv: Sequence[str] | None = None) -> int:
    stop_with_parent()  # `make serve-class` killed: this process stops its children too
    try:
        options = parse_options(argv)
    except ServeError as err:
        say(f"serve-class: error: {err}")
        return 2
    try:
        return serve(options)
    except ServeError as err:
        say(f"serve-class: error: {err}")
        return 1
    except KeyboardInterrupt:  # before the children started (installing Caddy, hashing)
        say("serve-class: stopped")
        return 130


if __name__ == "__main__":
    sys.exit(main())
