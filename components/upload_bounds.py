"""Streamlit's uploaded files, bounded per session, across the server, and in time.

Streamlit keeps every file PUT to ``/_stcore/upload_file/<session>/<file id>`` in memory
(its ``MemoryUploadedFileManager``) under the uploading session until the session ends,
whether or not a widget ever asks for it. Any signed-in student could PUT file after file
under made-up ids (+120 MB per 0.3 s request), and a closed tab's session ends only when
Streamlit's session storage next looks at it (its expiry is lazy): 362 MB were still held
60 s after such a session closed.

:func:`install` (once per process, from ``app.py``) bounds the runtime's manager:

- a session keeps at most :data:`SESSION_FILES` files and :data:`SESSION_BYTES` bytes (two
  files at the upload limit): a new file pushes out the session's oldest ones, so made-up
  files cost their sender only its own earlier uploads (a widget whose file was pushed out
  reads it as gone);
- the server keeps at most :data:`SERVER_BYTES` of uploads in all; past it a new file is
  refused (HTTP 413), whoever sends it;
- a session no longer connected loses its files after :data:`GRACE_S` (a reconnect within
  it keeps them): checked at each upload and every :data:`SWEEP_EVERY_S` on a thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from runtime.streamlit_config import max_upload_mb

_MB = 1024 * 1024
SESSION_FILES = 8
SESSION_BYTES = 2 * max_upload_mb() * _MB
SERVER_BYTES = 1024 * _MB
GRACE_S = 60.0
SWEEP_EVERY_S = 15.0


class UploadRefused(RuntimeError):
    """The server holds :data:`SERVER_BYTES` of uploads already."""


class UploadBounds:
    """The bounds on one upload manager (a ``MemoryUploadedFileManager``: its
    ``file_storage`` of session -> file id -> record, oldest first, and its ``_lock``).

    Args:
        manager: the manager to bound; its ``add_file`` is replaced on this instance.
        active: whether a session id is connected now.
        clock: seconds (``time.monotonic``).
        refuse: the exception to raise for a refused file (Streamlit's web framework
            turns an ``HTTPException(413)`` into that status).
    """

    def __init__(self, manager: Any, active: Callable[[str], bool], *, clock: Callable[[], float] = time.monotonic,
                 refuse: Callable[[str], Exception] = UploadRefused) -> None:
        self.manager = manager
        self.active = active
        self.clock = clock
        self.refuse = refuse
        self._inactive_since: dict[str, float] = {}
        self._add = manager.add_file
        manager.add_file = self.add_file

    def _sizes(self, session_id: str) -> list[tuple[str, int]]:
        with self.manager._lock:
            return [(fid, len(rec.data)) for fid, rec in self.manager.file_storage.get(session_id, {}).items()]

    def held_bytes(self) -> int:
        with self.manager._lock:
            return sum(len(rec.data) for files in self.manager.file_storage.values() for rec in files.values())

    def add_file(self, session_id: str, file: Any) -> None:
        self.sweep()
        if self.held_bytes() + len(file.data) > SERVER_BYTES:
            raise self.refuse(f"this server holds {SERVER_BYTES // _MB} MB of uploads already; try again later")
        self._add(session_id, file)
        files = self._sizes(session_id)  # oldest first
        total = sum(size for _, size in files)
        while (len(files) > SESSION_FILES or total > SESSION_BYTES) and files[0][0] != file.file_id:
            file_id, size = files.pop(0)
            self.manager.remove_file(session_id, file_id)
            total -= size

    def sweep(self) -> None:
        """Drop the files of sessions disconnected for :data:`GRACE_S` or more."""
        now = self.clock()
        with self.manager._lock:
            sessions = list(self.manager.file_storage)
        for session_id in sessions:
            if self.active(session_id):
                self._inactive_since.pop(session_id, None)
                continue
            since = self._inactive_since.setdefault(session_id, now)
            if now - since >= GRACE_S:
                self.manager.remove_session_files(session_id)
                self._inactive_since.pop(session_id, None)
        for session_id in set(self._inactive_since) - set(sessions):
            del self._inactive_since[session_id]


_INSTALLED: UploadBounds | None = None
_INSTALL_LOCK = threading.Lock()


def _http_refusal(message: str) -> Exception:
    try:
        from starlette.exceptions import HTTPException
    except ImportError:  # another web server: refused all the same, as a server error
        return UploadRefused(message)
    return HTTPException(status_code=413, detail=message)


def install() -> UploadBounds | None:
    """Bound this server's upload manager (once per process; None without a runtime or
    with a manager of another kind), and start the sweeping thread."""
    global _INSTALLED
    from streamlit import runtime

    with _INSTALL_LOCK:
        if _INSTALLED is not None or not runtime.exists():
            return _INSTALLED
        rt = runtime.get_instance()
        manager = rt.uploaded_file_mgr
        if not (hasattr(manager, "file_storage") and hasattr(manager, "_lock")):
            return None
        _INSTALLED = bounds = UploadBounds(manager, rt.is_active_session, refuse=_http_refusal)

    def sweeping() -> None:
        while True:
            time.sleep(SWEEP_EVERY_S)
            bounds.sweep()

    threading.Thread(target=sweeping, name="upload sweep", daemon=True).start()
    return bounds
