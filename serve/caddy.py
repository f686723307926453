"""Caddy for the class server: found (or installed from Debian's packages), and the
environment that fills in ``serve/Caddyfile``.

Caddy never sees the password: it asks the class server's gate (:mod:`serve.gate`) about
every request, sending it the secret that proves the question came from this Caddy. Caddy's
own state (its autosaved configuration, which holds that secret) goes to the class server's
private temporary folder, removed when it stops.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

CADDYFILE = Path(__file__).with_name("Caddyfile")
#: What a lecturer installs by hand when the class server cannot (not root, or no apt).
INSTALL_HINT = "sudo apt-get install caddy   (Debian 12+ / Ubuntu 22.04+; or see https://caddyserver.com/docs/install)"
#: Streamlit allows this much on top of ``server.maxUploadSize`` for a multipart body's framing.
MULTIPART_ALLOWANCE_MIB = 1
#: User names the class server accepts (a colon would end one inside basic credentials).
USER_NAME = re.compile(r"[A-Za-z0-9_.@-]{1,64}")


class CaddyError(RuntimeError):
    """Caddy is missing and cannot be installed, or it refused the password or configuration."""


def find_caddy(*, install: bool = True, say: Callable[[str], object] = print) -> str:
    """The ``caddy`` executable; when it is missing and this process is root on a machine
    with apt, installs Debian's package first (saying so).

    Raises:
        CaddyError: missing and not installable here; the message names what to install.
    """
    found = shutil.which("caddy")
    if found:
        return found
    if install and os.geteuid() == 0 and shutil.which("apt-get"):
        say("Caddy is not installed; installing Debian's package (apt-get install caddy)...")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "caddy"]):
            done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
                raise CaddyError(f"could not install Caddy ({' '.join(command)}: {tail[0]}); install it with: {INSTALL_HINT}")
        found = shutil.which("caddy")
        if found:
            return found
    raise CaddyError(f"the class server needs Caddy, which is not installed; install it with: {INSTALL_HINT}")


def check_password(password: str) -> None:
    """Refuses a password no student could type into a browser's password box.

    Raises:
        CaddyError: the password is empty or has a line break.
    """
    if not password:
        raise CaddyError("the password is empty")
    if "\n" in password or "\r" in password:
        raise CaddyError("the password has a line break; choose one on a single line")


def check_user(user: str) -> None:
    """Refuses a user name that basic credentials cannot carry plainly.

    Raises:
        CaddyError: a character other than letters, digits and ``. _ @ -``, or too long.
    """
    if not USER_NAME.fullmatch(user):
        raise CaddyError(f"the user name {user!r} may only use letters, digits and . _ @ - (at most 64)")


def caddy_environment(*, port: int, gate_port: int, gate_secret: str, upstreams: list[int], max_upload_mib: int,
                      state_dir: Path) -> dict[str, str]:
    """Caddy's environment: the values ``serve/Caddyfile`` reads (``{$EXPLORER_...}``) and
    its state folders (``XDG_*``) inside ``state_dir``; never the password."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXPLORER_") and k != "ENTAILMENT_EXPLORER_PASSWORD"}
    env.update({
        "EXPLORER_PORT": str(port),
        "EXPLORER_GATE_PORT": str(gate_port),
        "EXPLORER_GATE_SECRET": gate_secret,
        "EXPLORER_UPSTREAMS": " ".join(f"127.0.0.1:{p}" for p in upstreams),
        "EXPLORER_BODY_MAX": f"{max_upload_mib + MULTIPART_ALLOWANCE_MIB}MiB",
        "XDG_CONFIG_HOME": str(state_dir / "config"),
        "XDG_DATA_HOME": str(state_dir / "data"),
        "HOME": str(state_dir),
    })
    return env


def caddy_command(caddy: str) -> list[str]:
    return [caddy, "run", "--adapter", "caddyfile", "--config", str(CADDYFILE)]
