"""Caddy for the class server: found (or installed from Debian's packages), the password
hashed by ``caddy hash-password``, and the environment that fills in ``serve/Caddyfile``.

The clear password is only ever in this process's memory and on ``caddy hash-password``'s
standard input (never on a command line, which other users of the machine can read, and
never in a file); Caddy gets the bcrypt hash through its environment. Caddy's own state
(its autosaved configuration, which holds the hash) goes to the class server's private
temporary folder, removed when it stops.
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
#: Basic-authentication user names Caddy's configuration can carry unquoted.
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
    """Refuses a password Caddy would read differently from what the lecturer typed.

    Raises:
        CaddyError: the password is empty or has a line break (``caddy hash-password``
            reads one line).
    """
    if not password:
        raise CaddyError("the password is empty")
    if "\n" in password or "\r" in password:
        raise CaddyError("the password has a line break; choose one on a single line")


def hash_password(caddy: str, password: str) -> str:
    """The password's bcrypt hash from ``caddy hash-password``, given the password on its
    standard input (one line).

    Raises:
        CaddyError: an unusable password, or Caddy did not produce a hash.
    """
    check_password(password)
    done = subprocess.run([caddy, "hash-password"], input=password + "\n", capture_output=True, text=True, timeout=60)
    hashed = done.stdout.strip()
    if done.returncode != 0 or not hashed.startswith("$2"):
        raise CaddyError(f"caddy hash-password failed: {(done.stderr or done.stdout).strip()[:200]}")
    return hashed


def caddy_environment(*, port: int, user: str, password_hash: str, upstreams: list[int], max_upload_mib: int,
                      state_dir: Path) -> dict[str, str]:
    """Caddy's environment: the values ``serve/Caddyfile`` reads (``{$EXPLORER_...}``) and
    its state folders (``XDG_*``) inside ``state_dir``.

    Raises:
        CaddyError: a user name the configuration cannot carry.
    """
    if not USER_NAME.fullmatch(user):
        raise CaddyError(f"the user name {user!r} may only use letters, digits and . _ @ - (at most 64)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXPLORER_") and k != "ENTAILMENT_EXPLORER_PASSWORD"}
    env.update({
        "EXPLORER_PORT": str(port),
        "EXPLORER_USER": user,
        "EXPLORER_PASSWORD_HASH": password_hash,
        "EXPLORER_UPSTREAMS": " ".join(f"127.0.0.1:{p}" for p in upstreams),
        "EXPLORER_BODY_MAX": f"{max_upload_mib + MULTIPART_ALLOWANCE_MIB}MiB",
        "XDG_CONFIG_HOME": str(state_dir / "config"),
        "XDG_DATA_HOME": str(state_dir / "data"),
        "HOME": str(state_dir),
    })
    return env


def caddy_command(caddy: str) -> list[str]:
    return [caddy, "run", "--adapter", "caddyfile", "--config", str(CADDYFILE)]
