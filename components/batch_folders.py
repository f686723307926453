"""Batch result folders opened on this server, each under a key a URL can carry.

A link names a batch result as ``?dataset=batch:KEY``, never by its path: KEY is a hash of
the folder's resolved path, and only folders opened through the app on this server are
listed (in ``batch-folders.json`` beside the kept uploads, :func:`components.data.uploads_dir`),
so a link cannot make the server open a folder nobody opened here. The newest
:data:`KEPT` are listed; where the folder cannot be written, a batch result's URL just
does not name it.
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
    return _listed().get(key)
