"""Batch result folders opened on this server, each under a key a URL can carry.

A link names a batch result as ``?dataset=batch:KEY``, never by its path: KEY is a hash of
the folder's resolved path, and only folders opened through the app on this server are
listed (in ``batch-folders.json`` beside the kept uploads, :func:`components.data.uploads_dir`),
so a link cannot make the server open a folder nobody opened here. The newest
:data:`KEPT` are listed; where the folder cannot be written, a batch result's URL just
does not name it.

Only folders under the batch result roots open at all (:func:`roots`:
``$EXPLORER_BATCH_ROOTS``, paths separated by ``os.pathsep``, else the server's working
folder): the Dataset page's *Result folder* box takes a path, and without a root it would
open, and show the paths of, anything the server can read. A relative path is taken from
the first root; a refusal names the roots, never the place asked for.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from components.data import uploads_dir

#: The ``?dataset=`` prefix of a batch result.
PREFIX = "batch:"
#: Folders listed at most (the newest).
KEPT = 50
FILE = "batch-folders.json"
_KEY = re.compile(r"[0-9a-f]{16}")


#: The batch result roots, separated by ``os.pathsep``.
ROOTS_VARIABLE = "EXPLORER_BATCH_ROOTS"


class FolderRefused(ValueError):
    """A result folder outside every batch result root."""


def roots() -> list[Path]:
    """The folders batch results may be opened from (resolved)."""
    given = [p for p in os.environ.get(ROOTS_VARIABLE, "").split(os.pathsep) if p.strip()]
    return [Path(p).expanduser().resolve() for p in given] or [Path.cwd().resolve()]


def allowed(directory: str) -> Path:
    """``directory`` resolved, when it lies under a batch result root (a relative path is
    taken from the first).

    Raises:
        FolderRefused: naming the roots (not where ``directory`` leads).
    """
    bases = roots()
    path = Path(directory)
    if not path.is_absolute():
        path = bases[0] / path  # "~" too: a student's home is not the server's
    resolved = path.resolve()
    if any(resolved.is_relative_to(base) for base in bases):
        return resolved
    named = " or ".join(str(base) for base in bases)
    raise FolderRefused(f"only batch results under {named} open here; give a folder inside it "
                        f"(the server's {ROOTS_VARIABLE} sets these roots)")


def key_of(directory: str) -> str:
    """The key of a folder: a hash of its resolved path (the same folder, the same key)."""
    resolved = str(Path(directory).expanduser().resolve())
    return hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:16]


def ref_of(directory: str) -> str:
    """How the URL names a batch result folder (``batch:KEY``)."""
    return PREFIX + key_of(directory)


def _listed() -> dict[str, str]:
    try:
        found = json.loads((uploads_dir() / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str) and _KEY.fullmatch(k)}


def remember(directory: str) -> str:
    """List a folder the app has just opened (the newest last); returns its URL ref."""
    resolved = str(Path(directory).expanduser().resolve())
    key = key_of(resolved)
    listed = _listed()
    listed.pop(key, None)
    listed[key] = resolved
    kept = dict(list(listed.items())[-KEPT:])
    folder = uploads_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".batch-folders.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(kept, handle)
        os.replace(tmp, folder / FILE)
    except OSError:
        pass
    return PREFIX + key


def folder_of(ref: str) -> str | None:
    """The folder a ``batch:KEY`` ref names, when it was opened on this server (else None:
    an unknown key, or anything that is not a key, names nothing)."""
    if not ref.startswith(PREFIX):
        return None
    key = ref[len(PREFIX):]
    if not _KEY.fullmatch(key):
        return None
    folder = _listed().get(key)
    try:
        return None if folder is None else str(allowed(folder))
    except FolderRefused:  # listed before the roots changed
        return None
