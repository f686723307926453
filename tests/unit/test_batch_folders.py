"""Batch result folders a URL can name: a key, never a path; only folders opened here."""

from __future__ import annotations

from pathlib import Path

import pytest

from components import batch_folders


@pytest.fixture(autouse=True)
def own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_UPLOADS_DIR", str(tmp_path / "kept"))


def test_an_opened_folder_is_named_by_a_key_and_found_again(tmp_path: Path) -> None:
    folder = tmp_path / "result"
    folder.mkdir()
    ref = batch_folders.remember(str(folder))
    assert ref == batch_folders.ref_of(str(folder)) and str(folder) not in ref
    assert batch_folders.folder_of(ref) == str(folder.resolve())
    assert batch_folders.ref_of(str(folder / ".." / "result")) == ref  # the same folder, the same key


@pytest.mark.parametrize("ref", ["batch:../../etc", "batch:/tmp", "batch:", "batch:0123456789abcdef",
                                 "batch:0123456789ABCDEF", "upload:0123456789abcdef", "batch:0123456789abcdef0"])
def test_anything_else_names_nothing(tmp_path: Path, ref: str) -> None:
    batch_folders.remember(str(tmp_path))
    assert batch_folders.folder_of(ref) is None


def test_only_the_newest_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_folders, "KEPT", 3)
    refs = [batch_folders.remember(str(tmp_path / f"r{i}")) for i in range(5)]
    assert [batch_folders.folder_of(r) is not None for r in refs] == [False, False, True, True, True]


def test_a_damaged_list_names_nothing(tmp_path: Path) -> None:
    ref = batch_folders.remember(str(tmp_path))
    (tmp_path / "kept" / batch_folders.FILE).write_text('["not", "a", "map"]', encoding="utf-8")
    assert batch_folders.folder_of(ref) is None


def test_a_folder_outside_the_roots_is_refused_naming_only_the_roots(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root, elsewhere = tmp_path / "results", tmp_path / "private" / "run"
    (root / "mine").mkdir(parents=True)
    elsewhere.mkdir(parents=True)
    (root / "link").symlink_to(elsewhere)
    monkeypatch.setenv(batch_folders.ROOTS_VARIABLE, str(root))
    assert batch_folders.allowed(str(root / "mine")) == (root / "mine").resolve()
    assert batch_folders.allowed("mine") == (root / "mine").resolve()  # relative: from the first root
    assert batch_folders.allowed("~") == (root / "~").resolve()  # a name like any other: no one's home
    for asked in (str(elsewhere), str(root / ".." / "private"), "../private", str(root / "link"), str(Path.home()),
                  "/proc/self"):
        with pytest.raises(batch_folders.FolderRefused) as refused:
            batch_folders.allowed(asked)
        message = str(refused.value)
        assert f"only batch results under {root.resolve()} open here" in message
        assert "private" not in message and "/proc" not in message and str(Path.home()) not in message.replace(
            str(root.resolve()), "")
    ref = batch_folders.remember(str(root / "mine"))
    monkeypatch.setenv(batch_folders.ROOTS_VARIABLE, str(elsewhere))  # the roots changed since it was opened
    assert batch_folders.folder_of(ref) is None
