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
