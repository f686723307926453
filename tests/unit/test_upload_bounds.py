"""Streamlit's uploaded files, bounded (components/upload_bounds.py), on Streamlit's own
in-memory upload manager: files PUT under made-up ids cost their sender only its own
earlier files, the server's total has a ceiling, and a disconnected session's files are
dropped after the grace period (kept within it, and kept while connected)."""

from __future__ import annotations

import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from components import upload_bounds
from components.upload_bounds import UploadBounds, UploadRefused

MB = 1024 * 1024


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def record(file_id: str, megabytes: int) -> UploadedFileRec:
    return UploadedFileRec(file_id=file_id, name=f"{file_id}.csv", type="text/csv", data=b"p" * (megabytes * MB))


Bounded = tuple[MemoryUploadedFileManager, UploadBounds, set[str], Clock]


@pytest.fixture
def bounded(monkeypatch: pytest.MonkeyPatch) -> Bounded:
    monkeypatch.setattr(upload_bounds, "SESSION_BYTES", 40 * MB)
    monkeypatch.setattr(upload_bounds, "SESSION_FILES", 3)
    monkeypatch.setattr(upload_bounds, "SERVER_BYTES", 100 * MB)
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    connected: set[str] = {"alice", "mallory", "bob"}
    clock = Clock()
    return manager, UploadBounds(manager, connected.__contains__, clock=clock), connected, clock


def test_made_up_files_cost_their_sender_only_its_own_earlier_files(bounded: Bounded) -> None:
    manager, bounds, _, _ = bounded
    manager.add_file("alice", record("alice-data", 10))
    for n in range(50):  # 50 x 10 MB under made-up ids, never handed to a widget
        manager.add_file("mallory", record(f"made-up-{n}", 10))
    held = manager.file_storage["mallory"]
    assert len(held) <= 3 and sum(len(r.data) for r in held.values()) <= 40 * MB
    assert "made-up-49" in held  # the newest stays
    assert [r.file_id for r in manager.get_files("alice", ["alice-data"])] == ["alice-data"]
    assert bounds.held_bytes() <= 50 * MB


def test_the_servers_total_has_a_ceiling(bounded: Bounded) -> None:
    manager, bounds, connected, _ = bounded
    for n in range(5):
        connected.add(f"s{n}")
        manager.add_file(f"s{n}", record(f"f{n}", 19))
    with pytest.raises(UploadRefused, match="100 MB of uploads"):
        manager.add_file("bob", record("one-too-many", 19))
    assert bounds.held_bytes() <= 100 * MB
    assert manager.get_files("bob", ["one-too-many"]) == []


def test_a_disconnected_sessions_files_go_after_the_grace_period(bounded: Bounded) -> None:
    manager, bounds, connected, clock = bounded
    manager.add_file("alice", record("a", 5))
    manager.add_file("bob", record("b", 5))
    connected.discard("alice")  # her tab closed
    bounds.sweep()
    clock.now += upload_bounds.GRACE_S / 2
    bounds.sweep()
    assert manager.get_files("alice", ["a"])  # a reconnect within the grace period finds it
    clock.now += upload_bounds.GRACE_S
    bounds.sweep()
    assert manager.get_files("alice", ["a"]) == []
    assert manager.get_files("bob", ["b"])  # connected: kept however long
    assert bounds.held_bytes() == 5 * MB


def test_install_without_a_runtime_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit import runtime

    # An earlier test in this process may have run the app (a runtime, bounds installed).
    monkeypatch.setattr(upload_bounds, "_INSTALLED", None)
    monkeypatch.setattr(runtime, "exists", lambda: False)
    assert upload_bounds.install() is None
