"""A batch folder under accidents: a chunk damaged after it was written, two runs into one
folder, a full disk, a read-only store. Each is met with one clear line naming what is
wrong and what to do, and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from explorer.batch.query import BatchResult
from explorer.batch.runner import run_batch
from explorer.batch.schema import CHUNK_DIR, BatchError, chunk_name, finished_chunks, read_manifest
from tests.deadline import DEADLINE
from tests.unit.test_batch import ROWS, write_csv

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_csv(tmp_path_factory.mktemp("data") / "small.csv", ROWS)


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    """An in-process Dask cluster (one worker thread): quick to start, real scheduling."""
    from distributed import Client, LocalCluster

    from explorer.batch import runner

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs=runner.QUIET_SCHEDULER) as local, Client(local) as dask_client:
        yield dask_client


def read_all(out: Path) -> pd.DataFrame:
    return pd.concat([pq.read_table(p).to_pandas() for _, p in sorted(finished_chunks(out).items())],
                     ignore_index=True)


def damage(path: Path) -> None:
    """Scramble a chunk's column data, leaving the Parquet footer (and so its row count
    and schema) intact: what a bad disk or a stray write leaves behind."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    for k in range(100, len(data) - footer - 100, 7):
        data[k] = (data[k] * 31 + 17) % 256
    path.write_bytes(bytes(data))
    assert pq.read_metadata(path).num_rows == 4  # the footer still says all is well


# ---------------------------------------------------------------- damaged chunks

@pytest.mark.slow  # an in-process Dask cluster
def test_resume_redoes_a_chunk_damaged_with_its_footer_intact_and_names_it(small: Path, tmp_path: Path,
                                                                          client: object) -> None:
    clean, out = tmp_path / "clean", tmp_path / "out"
    run_batch(small, ["mbleu", "wer"], clean, chunk_size=4, client=client)
    first = run_batch(small, ["mbleu", "wer"], out, chunk_size=4, client=client, max_chunks=3)
    assert first.chunks_run == 3
    damage(finished_chunks(out)[1])
    second = run_batch(small, ["mbleu", "wer"], out, chunk_size=4, client=client)
    assert second.chunks_run == 2 and second.chunks_skipped == 2  # chunk 1 again, and chunk 3
    assert [name for name, _ in second.redone] == [f"{CHUNK_DIR}/{chunk_name(1)}"]
    assert "checksum" in second.redone[0][1]
    assert read_manifest(out).complete
    pd.testing.assert_frame_equal(read_all(out), read_all(clean))


@pytest.mark.slow  # an in-process Dask cluster
def test_a_damaged_chunk_is_named_when_the_result_is_read_and_redone_by_the_command(
        small: Path, tmp_path: Path, client: object, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    out = tmp_path / "out"
    run_batch(small, ["mbleu"], out, chunk_size=4, client=client)
    damage(finished_chunks(out)[2])
    result = BatchResult.open(out)
    with pytest.raises(BatchError, match=rf"{chunk_name(2)} is damaged: .*checksum.*Run the same `batch` command again"):
        result.page(sort="mbleu")
    address = client.scheduler.address  # type: ignore[attr-defined]
    assert main(["batch", str(small), "--scorer", "mbleu", "--out", str(out), "--chunk-size", "4",
                 "--scheduler", address, "--no-register"]) == 0
    err = capsys.readouterr().err
    assert f"note: {CHUNK_DIR}/{chunk_name(2)} was damaged" in err and "scored again" in err
    assert len(BatchResult.open(out).page(sort="mbleu").rows) == len(ROWS)


@pytest.mark.slow  # an in-process Dask cluster
def test_chunks_written_before_checksums_are_checked_by_reading_them(small: Path, tmp_path: Path,
                                                                    client: object) -> None:
    out = tmp_path / "out"
    run_batch(small, ["mbleu"], out, chunk_size=4, client=client, max_chunks=2)
    for sidecar in (out / CHUNK_DIR).glob("*.sha256"):  # as an older explorer left them
        sidecar.unlink()
    # chunk 0 shifted by one position: whole and readable, but not the rows it should hold
    table = pq.read_table(finished_chunks(out)[0])
    pq.write_table(table.set_column(0, "position", [[p + 1 for p in table["position"].to_pylist()]]),
                   finished_chunks(out)[0])
    summary = run_batch(small, ["mbleu"], out, chunk_size=4, client=client)
    assert [name for name, _ in summary.redone] == [f"{CHUNK_DIR}/{chunk_name(0)}"]
    assert summary.chunks_run == 3
    assert sorted(p.name for p in (out / CHUNK_DIR).glob("*.sha256")) == [f"chunk-{i:06d}.sha256" for i in range(4)]


# ----------------------------------------------------------------------- lock

_HOLD = textwrap.dedent("""
    import sys, time
    from explorer.batch.folder import writing
    with writing(sys.argv[1]):
        print("holding", flush=True)
        time.sleep(120)
""")


@pytest.mark.slow  # an in-process Dask cluster
def test_a_second_run_into_the_same_folder_is_refused_until_the_first_ends(
        small: Path, tmp_path: Path, client: object, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    out = tmp_path / "new-out"
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        address = client.scheduler.address  # type: ignore[attr-defined]
        argv = ["batch", str(small), "--scorer", "mbleu", "--out", str(out), "--chunk-size", "4",
                "--scheduler", address, "--no-register"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        line = err.strip().splitlines()[-1]
        assert line.startswith("error: ") and "Traceback" not in err
        assert f"pid {holder.pid}" in line and str(out / ".batch.lock") in line
        assert "wait for it to finish" in line
        assert not finished_chunks(out) and not (out / "batch.json").exists()  # no work done
    finally:
        holder.kill()
        holder.wait()
    # the lock died with its process: nothing stale to clear by hand
    assert main(argv) == 0
    assert read_manifest(out).complete


def test_the_lock_is_not_left_in_a_folder_that_is_refused(small: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["batch", str(small), "--out", str(busy)]) == 2
    assert "not a batch folder" in capsys.readouterr().err
    assert os.listdir(busy) == ["notes.txt"]


# ------------------------------------------------------------------ full disk

#: Loaded by every Python process the command starts (the client and each Dask worker
#: process) through PYTHONPATH: writing a chunk file fails as on a full disk, after
#: part of it was written.
_FULL_DISK = textwrap.dedent("""
    import errno, os
    import pyarrow.parquet as pq
    _write = pq.write_table
    def write_table(table, where, *args, **kwargs):
        if ".chunk-" in str(where):
            with open(where, "wb") as partial:
                partial.write(b"PAR1")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return _write(table, where, *args, **kwargs)
    pq.write_table = write_table
""")


@pytest.mark.slow  # a real local cluster of worker processes (seconds to start)
def test_a_full_disk_is_one_error_line_without_a_worker_traceback(small: Path, tmp_path: Path) -> None:
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(_FULL_DISK, encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(inject), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "explorer", "batch", str(small), "--scorer", "mbleu",
                           "--out", str(out), "--chunk-size", "4", "--workers", "1", "--no-register"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=DEADLINE)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and "Compute Failed" not in done.stderr, done.stderr
    assert not [line for line in lines if "distributed." in line], done.stderr
    assert lines[-1].startswith("error: chunk ") and "No space left on device" in lines[-1]
    assert str(out / CHUNK_DIR) in lines[-1] and "free some space" in lines[-1]
    assert not list((out / CHUNK_DIR).glob(".chunk-*"))  # the partial file is removed


def test_a_new_folder_refused_before_any_work_is_not_left_behind(small: Path, tmp_path: Path) -> None:
    from explorer.datasets import load

    out = tmp_path / "new"
    with pytest.raises(BatchError, match="no scorer chosen"):
        run_batch(load(small), [], out, chunk_size=4)
    assert not out.exists()


# ------------------------------------------------------------- read-only result

def _freeze(folder: Path, frozen: bool) -> None:
    """Make a folder and everything in it unwritable: chattr +i as root (root ignores file
    modes; what a read-only disk does), file modes otherwise."""
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "-R", "+i" if frozen else "-i", str(folder)], capture_output=True)
        assert done.returncode == 0, f"chattr failed: {done.stderr!r}"
        return
    for path in [folder, *folder.rglob("*")]:
        path.chmod((0o555 if path.is_dir() else 0o444) if frozen else (0o755 if path.is_dir() else 0o644))


@pytest.mark.slow  # an in-process Dask cluster
def test_a_complete_result_on_a_read_only_disk_is_reported_and_an_unfinished_one_says_what_to_do(
        small: Path, tmp_path: Path, client: object, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    done, part = tmp_path / "done", tmp_path / "part"
    run_batch(small, ["mbleu"], done, chunk_size=4, client=client)
    run_batch(small, ["mbleu"], part, chunk_size=4, client=client, max_chunks=2)
    capsys.readouterr()
    _freeze(done, True)
    _freeze(part, True)
    try:
        argv = ["batch", str(small), "--scorer", "mbleu", "--chunk-size", "4", "--no-register"]
        assert main([*argv, "--out", str(done), "--format", "json"]) == 0  # no lock, no write, no cluster
        out, err = capsys.readouterr()
        assert '"complete": true' in out and '"chunks_run": 0' in out and "Traceback" not in err
        assert main([*argv, "--out", str(part)]) == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert line.startswith(f"error: {part} cannot be written") and "2 of its 4 chunks are still to score" in line
        assert "copy the folder to a writable disk" in line
        assert len(BatchResult.open(done).page(sort="mbleu").rows) == len(ROWS)  # the pages read it too
    finally:
        _freeze(done, False)
        _freeze(part, False)


def test_a_truncated_manifest_names_the_file_and_how_to_recover(small: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.batch.runner import prepare
    from explorer.cli import main
    from explorer.datasets import load

    out = tmp_path / "out"
    prepare(load(small), ["mbleu"], out, chunk_size=4)
    manifest = out / "batch.json"
    manifest.write_bytes(manifest.read_bytes()[:40])  # a copy or a disk cut short
    with pytest.raises(BatchError, match=rf"{manifest}: the manifest is damaged .*delete the folder {out} and run"):
        BatchResult.open(out)
    assert main(["batch", str(small), "--scorer", "mbleu", "--out", str(out), "--chunk-size", "4",
                 "--no-register"]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"error: {manifest}: the manifest is damaged") and "another --out folder" in line


# ------------------------------------------------------------- input edited mid-run

@pytest.mark.slow  # an in-process Dask cluster
def test_an_input_edited_while_the_batch_runs_stops_it_and_a_rerun_says_how_to_go_on(
        small: Path, tmp_path: Path, client: object) -> None:
    clean = tmp_path / "clean"
    run_batch(small, ["mbleu"], clean, chunk_size=4, client=client)
    data = tmp_path / "edited.csv"
    original = small.read_bytes()
    data.write_bytes(original)
    out = tmp_path / "out"

    def edit(done: object) -> None:  # after the first chunk: the file is rewritten, fewer rows
        if data.read_bytes() == original:
            data.write_bytes(original.replace(b"oak saplings", b"pines", 1)[: len(original) // 2])

    with pytest.raises(BatchError, match=rf"{data} changed while the batch ran: it had {len(original):,} bytes .*"
                                         r"Put the file back as it was and run the same command again"):
        run_batch(data, ["mbleu"], out, chunk_size=4, client=client, chunk_done=edit)
    assert not read_manifest(out).complete
    kept = finished_chunks(out)
    assert 1 <= len(kept) < 4
    for index, path in kept.items():  # every chunk kept was read before the change
        assert pq.read_table(path).equals(pq.read_table(finished_chunks(clean)[index]))
    with pytest.raises(BatchError, match=r"other data .*if edited\.csv was edited since that batch began, put it back"):
        run_batch(data, ["mbleu"], out, chunk_size=4, client=client)
    data.write_bytes(original)
    assert run_batch(data, ["mbleu"], out, chunk_size=4, client=client).chunks_skipped == len(kept)
    assert read_manifest(out).complete
    pd.testing.assert_frame_equal(read_all(out), read_all(clean))
