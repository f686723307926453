"""The class server's set-up, without starting anything: options, sizing, the environments
handed to Streamlit and Caddy, and the refusals (no password; no Caddy)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from serve import caddy, class_server
from serve.class_server import Options, ServeError, parse_options
from tests.deadline import DEADLINE

PASSWORD = {"ENTAILMENT_EXPLORER_PASSWORD": "choose-one"}


@pytest.mark.parametrize(("cores", "processes", "workers"), [
    (1, 1, 2), (2, 2, 2), (4, 2, 2), (8, 4, 2), (16, 8, 2), (64, 8, 7),
], ids=lambda v: str(v))
def test_default_sizing_follows_the_cores(cores: int, processes: int, workers: int) -> None:
    assert class_server.default_processes(cores) == processes
    assert class_server.default_workers(cores, processes) == workers


def test_options_come_from_the_environment() -> None:
    env = {**PASSWORD, "PORT": "9000", "PROCESSES": "3", "EXPLORER_WORKERS": "4", "CLASS_USER": "nlp101"}
    assert parse_options([], env) == Options(9000, 3, 4, 2, "nlp101", "choose-one")  # long pairs: half, the pool's
    assert parse_options([], {**env, "EXPLORER_LONG_WORKERS": "3"}).long_workers == 3


def test_no_pool_is_a_choice() -> None:
    options = parse_options([], {**PASSWORD, "EXPLORER_WORKERS": "0"})
    assert (options.workers, options.long_workers) == (0, 0)


def test_defaults_without_options() -> None:
    options = parse_options([], dict(PASSWORD))
    cores = class_server.available_cores()
    assert (options.port, options.user) == (8501, "class")
    assert options.processes == class_server.default_processes(cores)
    assert options.workers == class_server.default_workers(cores, options.processes)


@pytest.mark.parametrize(("env", "says"), [
    ({}, "no password"),
    ({"ENTAILMENT_EXPLORER_PASSWORD": ""}, "no password"),
    ({"ENTAILMENT_EXPLORER_PASSWORD": "two\nlines"}, "line break"),
    ({**PASSWORD, "PORT": "0"}, "PORT must be between 1 and 65535"),
    ({**PASSWORD, "PORT": "http"}, "PORT must be a whole number"),
    ({**PASSWORD, "PROCESSES": "0"}, "PROCESSES must be between 1 and 64"),
    ({**PASSWORD, "EXPLORER_WORKERS": "-1"}, "EXPLORER_WORKERS must be between 0 and 64"),
    ({**PASSWORD, "EXPLORER_LONG_WORKERS": "0"}, "EXPLORER_LONG_WORKERS must be between 1 and 64"),
], ids=["unset", "empty", "two-lines", "port-0", "port-text", "processes-0", "workers-negative", "long-workers-0"])
def test_refusals_name_what_to_change(env: dict[str, str], says: str) -> None:
    with pytest.raises(ServeError, match=says):
        parse_options([], env)


def test_without_a_password_it_refuses_in_one_line(repo_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ENTAILMENT_EXPLORER_PASSWORD"}
    done = subprocess.run([sys.executable, "-m", "serve"], cwd=repo_root, env=env, capture_output=True, text=True,
                          timeout=DEADLINE)
    assert done.returncode == 2
    lines = done.stdout.strip().splitlines()
    assert lines == ["serve-class: error: no password: a class server is only started with one, e.g. "
                     "ENTAILMENT_EXPLORER_PASSWORD='choose-one' make serve-class"]
    assert "Traceback" not in done.stderr


def test_streamlit_gets_no_password_and_its_pool_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENTAILMENT_EXPLORER_PASSWORD", "choose-one")
    env = class_server.streamlit_environment(3, 1)
    assert "ENTAILMENT_EXPLORER_PASSWORD" not in env  # one prompt: the proxy's
    assert (env["EXPLORER_WORKERS"], env["EXPLORER_LONG_WORKERS"]) == ("3", "1")
    assert env["EXPLORER_TABS"] == "open"  # a class shares the process: only the open tab is drawn
    command = class_server.streamlit_command(12345, 64)
    assert command[command.index("--server.address") + 1] == "127.0.0.1"
    assert command[command.index("--server.maxUploadSize") + 1] == "64"


def test_streamlit_caddy_and_the_apps_reader_take_one_upload_size(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """The upload size is set once, in .streamlit/config.toml: the app's reader, every
    class-server Streamlit process and Caddy's body limit follow it."""
    from components import uploads
    from runtime import streamlit_config

    assert uploads.MAX_UPLOAD_MB == streamlit_config.max_upload_mb()
    assert uploads.LIMITS.bytes == uploads.MAX_UPLOAD_MB * 1024 * 1024
    config = tmp_path / "config.toml"
    config.write_text("[server]\naddress = '127.0.0.1'\nmaxUploadSize = 64\n", encoding="utf-8")
    monkeypatch.setattr(streamlit_config, "CONFIG", config)
    options = class_server.Options(port=8501, processes=2, workers=2, long_workers=1, user="class",
                                   password="choose-one")
    apps, proxy = class_server.children(options, "caddy", [4001, 4002], 4000, "secret", tmp_path)
    for app in apps:
        assert app.argv[app.argv.index("--server.maxUploadSize") + 1] == "64"
        assert (app.env["EXPLORER_WORKERS"], app.env["EXPLORER_LONG_WORKERS"]) == ("2", "1")
    assert proxy.env["EXPLORER_BODY_MAX"] == "65MiB"  # and Streamlit's multipart allowance
    caddyfile = " ".join(caddy.CADDYFILE.read_text(encoding="utf-8").split())
    assert "request_body { max_size {$EXPLORER_BODY_MAX} }" in caddyfile  # Caddy's one body limit is that value
    for broken in ("[server]\n", "[server]\nmaxUploadSize = true\n", "[server]\nmaxUploadSize = 0\n"):
        config.write_text(broken, encoding="utf-8")
        with pytest.raises(class_server.ServeError, match="maxUploadSize must be a positive whole number"):
            class_server.children(options, "caddy", [4001], 4000, "secret", tmp_path)


def test_neither_caddy_nor_the_gate_gets_the_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ENTAILMENT_EXPLORER_PASSWORD", "choose-one")
    env = caddy.caddy_environment(port=8501, gate_port=4000, gate_secret="s3cret", upstreams=[4001, 4002],
                                  max_upload_mib=200, state_dir=tmp_path)
    assert not any("choose-one" in value for value in env.values())
    assert (env["EXPLORER_GATE_PORT"], env["EXPLORER_GATE_SECRET"]) == ("4000", "s3cret")
    assert env["EXPLORER_UPSTREAMS"] == "127.0.0.1:4001 127.0.0.1:4002"
    assert env["EXPLORER_BODY_MAX"] == "201MiB"  # Streamlit's limit plus its multipart allowance
    assert env["XDG_CONFIG_HOME"].startswith(str(tmp_path))  # Caddy's autosave stays in the temporary folder
    options = parse_options([], dict(PASSWORD))
    gate, secret = class_server.gate_child(options, 4000)
    assert not any("choose-one" in value for value in gate.env.values())
    assert gate.env["EXPLORER_GATE_SECRET"] == secret and gate.env["EXPLORER_GATE_PORT"] == "4000"
    from serve.gate import Verifier

    assert Verifier.decode(gate.env["EXPLORER_GATE_VERIFIER"]).matches(b"class:choose-one")
    with pytest.raises(ServeError, match="user name"):
        parse_options([], {**PASSWORD, "CLASS_USER": "two words"})


def test_every_caddyfile_value_is_set() -> None:
    import re

    wanted = set(re.findall(r"\{\$(\w+)\}", caddy.CADDYFILE.read_text(encoding="utf-8")))
    env = caddy.caddy_environment(port=1, gate_port=3, gate_secret="s", upstreams=[2], max_upload_mib=1,
                                  state_dir=Path("/tmp"))
    assert wanted and wanted <= set(env)


def test_missing_caddy_names_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(caddy.CaddyError, match="apt-get install caddy"):
        caddy.find_caddy(install=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="the class server installs Caddy only when run as root")
def test_missing_caddy_is_installed_with_apt_when_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A stand-in apt-get that "installs" a caddy beside itself and records its arguments.
    apt = tmp_path / "apt-get"
    apt.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/apt.log"\n'
                   'if [ "$1" = install ]; then printf "#!/bin/sh\\n" > "$(dirname "$0")/caddy"; '
                   'chmod +x "$(dirname "$0")/caddy"; fi\n')
    apt.chmod(0o755)
    tools = tmp_path / "tools"  # what the stand-in runs, without the machine's own caddy
    tools.mkdir()
    for tool in ("dirname", "chmod"):
        (tools / tool).symlink_to(shutil.which(tool) or f"/usr/bin/{tool}")
    monkeypatch.setenv("PATH", f"{tmp_path}:{tools}")
    said: list[str] = []
    found = caddy.find_caddy(say=said.append)
    assert found == str(tmp_path / "caddy")
    assert (tmp_path / "apt.log").read_text().splitlines() == ["update -qq", "install -y -qq caddy"]
    assert said and "installing Debian's package" in said[0]


def test_a_page_run_does_not_end_in_a_full_collection() -> None:
    """Streamlit's default gc.collect(2) after every run held each process's interpreter lock
    for about a third of its time under a class; the config turns it off, for `make run`
    and every Streamlit process of `make serve-class` (both run from the repository)."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["postScriptGC"] is False


def test_the_warm_up_asks_again_while_streamlit_answers_503(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine: the app's first run outlasts Streamlit's own check (HTTP 503)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    asked: list[str] = []

    class Streamlit(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the handler's name
            asked.append(self.path)
            busy = self.path.endswith("script-health-check") and asked.count(self.path) <= 2
            self.send_response(503 if busy else 200)
            self.end_headers()
            self.wfile.write(b"timeout" if busy else b"ok")

        def log_message(self, *args: object) -> None:
            pass

    class App:
        name, pid = "app 1", 0

        def alive(self) -> bool:
            return True

    said: list[str] = []
    monkeypatch.setattr(class_server, "say", said.append)
    with ThreadingHTTPServer(("127.0.0.1", 0), Streamlit) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            class_server.warm(App(), server.server_address[1], 0, threading.Event())  # type: ignore[arg-type]
        finally:
            server.shutdown()
    assert asked.count("/_stcore/script-health-check") == 3
    assert len(said) == 1 and "every method loaded" in said[0], said
