"""What the command line prints is safe for the terminal and says what to do: file names
with control characters are shown escaped, and a store on a read-only file system is
called read-only before any work."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.api import shown
from explorer.cli import main
from tests.deadline import DEADLINE
from tests.unit.test_batch import ROWS, write_csv

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_CSV = ROOT / "sample_data" / "pairs.csv"

#: A name that would clear the screen, ring the bell, set the window title, return the
#: cursor, break the line and reverse the text after it, were it echoed raw.
EVIL = "evil\x1b[2J\x07\x1b]0;owned\x07\r\nline\u202e\x9b"
#: Characters that must never reach the terminal from a name: C0 but the line ends the
#: CLI writes itself, DEL, C1, line/paragraph separators, bidirectional controls.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_shown_escapes_control_characters_and_keeps_the_rest() -> None:
    assert shown(EVIL) == "evil\\x1b[2J\\x07\\x1b]0;owned\\x07\\r\\nline\\u202e\\x9b"
    assert shown("données/é tab\there.csv") == "données/é tab\\there.csv"
    assert shown(Path("a\nb")) == "a\\nb"
    assert shown("\udcff") == "\\udcff"  # an undecodable byte of a file name
    assert shown("plain/path.csv") == "plain/path.csv"


def test_json_written_with_unicode_kept_has_the_unsafe_characters_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from explorer.cli.output import print_json

    payload = {"tokens": ["a\x9bb", "c\u202ed", "e\udcff", "é"], "n": [1, 2]}
    print_json(payload, ensure_ascii=False)
    out = capsys.readouterr().out
    assert not RAW.search(out.replace("\n", "")) and "é" in out
    assert json.loads(out) == payload


def copy_as(tmp_path: Path, name: str, source: Path = SAMPLE_CSV) -> Path:
    path = tmp_path / name
    shutil.copyfile(source, path)
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def assert_safe(output: str, name: str) -> None:
    assert not RAW.search(output), repr(output)
    assert shown(name) in output, output


def test_echoed_file_names_are_escaped_in_every_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = copy_as(tmp_path, EVIL + ".csv")
    for argv in (["evaluate", str(data), "--scorer", "mbleu"],
                 ["corpus-stats", str(data)],
                 ["classify", str(data), "--folds", "2", "--features", "wer"],
                 ["combined", str(data), "--features", "scorer:mbleu", "--save-model", str(tmp_path / (EVIL + ".json"))]):
        code, output = run(argv, capsys)
        assert code == 0, output
        assert_safe(output, data.name)
    bad = tmp_path / (EVIL + ".xml")
    bad.write_text("<nothing/>", encoding="utf-8")
    for argv in (["evaluate", str(bad)],  # a loader's error names the file
                 ["evaluate", str(tmp_path / (EVIL + "-missing.csv"))],
                 ["align-eval", str(bad), "--aligner", "bow"],
                 ["train", "manli", str(bad), "--out", str(tmp_path / EVIL / "model.json")],  # argparse
                 ["train", "manli", str(bad), "--out", str(tmp_path / "model.json")]):
        code, output = run(argv, capsys)
        assert code == 2, output
        assert_safe(output, EVIL)
        assert output.count("\n") == 1, output  # one error line


def test_the_batch_command_escapes_its_folder_and_file_names(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    data = copy_as(tmp_path, EVIL + ".csv")
    busy = tmp_path / ("busy" + EVIL)
    busy.mkdir()
    (busy / "mine.txt").write_text("mine", encoding="utf-8")
    code, output = run(["batch", str(data), "--scorer", "mbleu", "--out", str(busy)], capsys)
    assert code == 2
    assert_safe(output, busy.name)
    assert_safe(output, data.name)


# ------------------------------------------------------------------ read-only store

def read_only_below(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``os.statvfs`` reports the file system under ``folder`` read-only (as for a
    read-only mount, which a test cannot make without privileges)."""
    real = os.statvfs

    class ReadOnly:
        def __init__(self, result: os.statvfs_result) -> None:
            self._result = result

        def __getattr__(self, name: str) -> object:
            return getattr(self._result, name)

        @property
        def f_flag(self) -> int:
            return self._result.f_flag | os.ST_RDONLY

    def statvfs(path: str | os.PathLike[str]) -> object:
        result = real(path)
        return ReadOnly(result) if Path(path).resolve().is_relative_to(folder.resolve()) else result

    monkeypatch.setattr(os, "statvfs", statvfs)


def test_a_store_on_a_read_only_file_system_is_refused_before_any_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    read_only_below(monkeypatch, mounted)
    store = mounted / "explorer" / "store.sqlite3"
    out = tmp_path / "out"
    code, output = run(["batch", str(SAMPLE_CSV), "--scorer", "mbleu", "--out", str(out), "--store", str(store)],
                       capsys)
    assert code == 2
    line = output.strip().splitlines()[-1]
    assert line.startswith("error: ") and "read-only file system" in line and str(store) in line
    assert "--store" in line and "ENTAILMENT_EXPLORER_STORE" in line and "--no-register" in line
    assert "unable to open database file" not in output
    assert not out.exists()  # refused before any work
    # the same store, named by the environment variable instead
    monkeypatch.setenv("ENTAILMENT_EXPLORER_STORE", str(store))
    code, output = run(["batch", str(SAMPLE_CSV), "--scorer", "mbleu", "--out", str(out)], capsys)
    assert code == 2 and "read-only file system" in output and str(store) in output


def _private_mounts() -> bool:
    """Whether this process may mount a tmpfs in a private mount namespace (root)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"],
                           capture_output=True, timeout=DEADLINE)
    return probe.returncode == 0


needs_mounts = pytest.mark.skipif(not _private_mounts(), reason="mounting a tmpfs in a private mount namespace "
                                  "needs root (unshare -m); the simulated tests cover the same paths")


@pytest.mark.slow  # a child process in a mount namespace of its own
@needs_mounts
def test_a_store_on_a_real_read_only_mount(tmp_path: Path) -> None:
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    store = mounted / "store.sqlite3"
    command = (f"mount -t tmpfs -o ro,size=64k tmpfs {mounted} && exec {sys.executable} -m explorer batch "
               f"{SAMPLE_CSV} --scorer mbleu --out {tmp_path / 'out'} --store {store}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", command], capture_output=True, text=True, timeout=DEADLINE,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert "read-only file system" in done.stderr and str(store) in done.stderr
    assert "Traceback" not in done.stderr


@needs_mounts
@pytest.mark.slow  # a real local cluster of worker processes
def test_a_real_full_disk(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    data = write_csv(tmp_path / "pairs.csv", ROWS * 20)  # 260 pairs, ids p1-p260
    command = (f"mount -t tmpfs -o size=48k tmpfs {disk} && exec {sys.executable} -m explorer batch {data} "
               f"--scorer mbleu,bleu,wer --out {disk / 'out'} --chunk-size 40 --workers 1 --no-register")
    done = subprocess.run(["unshare", "-m", "sh", "-c", command], capture_output=True, text=True, timeout=DEADLINE,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Compute Failed" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "No space left on device" in last, done.stderr
