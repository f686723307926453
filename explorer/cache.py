"""An explicit on-disk cache for slow, deterministic derived data (WordNet information
content from Brown, idf tables) in the user's cache directory, never inside the repository.

The directory is ``$EXPLORER_CACHE_DIR`` when set, else
``$XDG_CACHE_HOME/entailment-explorer``, else ``~/.cache/entailment-explorer``. Files are
JSON, written atomically (a temporary file renamed into place), so two processes
computing the same entry at once cannot leave a half-written file behind. A corrupt or
unreadable entry is treated as missing and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    import numpy as np

__all__ = ["APP_DIR", "cache_dir", "cached_json", "cutoff_dir", "load_json", "private_dir", "save_json", "write_private"]

T = TypeVar("T")

APP_DIR = "entailment-explorer"


def cache_dir() -> Path:
    """The cache directory (not created here)."""
    explicit = os.environ.get("EXPLORER_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / APP_DIR


def private_dir(folder: Path) -> Path:
    """``folder``, created (with any missing parents) readable by this user only (0700).
    Folders that exist are left as they are. What people send (uploads, the annotation
    store) is kept in such folders, in files only their owner can read (:func:`write_private`)."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # made by another process meanwhile
            pass
    return folder


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as a file only its owner can read and write (0600):
    a temporary file, then a rename, so a reader never sees half of it."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # a leftover temporary file keeps its old mode through O_TRUNC
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def cutoff_dir() -> Path:
    """Where chosen cutoffs, per-pair scores and cutoff jobs are kept (:mod:`explorer.decision`):
    ``$EXPLORER_CUTOFF_CACHE``, else ``cutoffs/`` in the cache directory."""
    explicit = os.environ.get("EXPLORER_CUTOFF_CACHE")
    return Path(explicit).expanduser() if explicit else cache_dir() / "cutoffs"


def load_json(name: str) -> object:
    """The cached JSON value called ``name``, or None when absent or unreadable."""
    path = cache_dir() / name
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def save_json(name: str, value: object) -> Path | None:
    """Store ``value`` as JSON under ``name``; returns the path, or None when the cache
    directory is not writable (the caller keeps its in-memory value either way)."""
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(value, handle, separators=(",", ":"))
        target = directory / name
        os.replace(tmp, target)
        return target
    except OSError:
        return None


def cached_json(name: str, compute: Callable[[], T]) -> T:
    """Load ``name`` from the cache, or compute, store and return it. A stored value is
    taken to have the type ``compute`` returns (it wrote it), so ``compute`` must return
    what JSON reads back as itself: dicts with string keys, lists, numbers, strings."""
    value = load_json(name)
    if value is None:
        computed = compute()
        save_json(name, computed)
        return computed
    return cast(T, value)


def content_hash(rows: Iterable[Sequence[str]], salt: str) -> str:
    """A short hash of rows of strings (a dataset's pairs, each a few fields), salted with
    what the cached values depend on besides (a format version, the limits)."""
    digest = hashlib.sha256(salt.encode())
    for row in rows:
        for part in row:
            digest.update(b"\x1f")
            digest.update(part.encode())
        digest.update(b"\x1e")
    return digest.hexdigest()[:24]


def save_array(target: Path, values: np.ndarray) -> bool:
    """Write one ``.npy`` array atomically (a temporary file renamed into place); False when
    the folder is not writable (the caller keeps its in-memory values)."""
    import numpy as np

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, values, allow_pickle=False)
        os.replace(tmp, target)
    except OSError:
        return False
    return True


def prune_datasets(folder: Path, suffix: str, limit: int, keep: str | None = None) -> None:
    """Keep the files of at most ``limit`` datasets in ``folder``: files are named
    ``FINGERPRINT-...SUFFIX``; those of the least recently written fingerprints go first,
    ``keep`` (the one being written) always stays."""
    newest: dict[str, float] = {}
    files: dict[str, list[Path]] = {}
    try:
        entries = list(folder.glob(f"*{suffix}"))
    except OSError:
        return
    for entry in entries:
        fp = entry.name.split("-", 1)[0]
        try:
            stamp = entry.stat().st_mtime
        except OSError:
            continue
        newest[fp] = max(newest.get(fp, 0.0), stamp)
        files.setdefault(fp, []).append(entry)
    ranked = sorted(newest, key=lambda f: (f == keep, newest[f]), reverse=True)
    for fp in ranked[limit:]:
        for entry in files[fp]:
            try:
                entry.unlink()
            except OSError:
                pass
