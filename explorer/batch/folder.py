"""A batch folder kept safe: one run writing at a time, and no chunk file trusted unchecked.

**One writer.** A run holds an OS file lock (``flock``) on ``OUT/.batch.lock`` from before
it reads the manifest until it ends. A second run into the same folder is refused at
once, naming the process that holds the lock. The lock belongs to the open file, so it
ends with the process however the process ends: a killed run leaves nothing stale.
(Without ``fcntl``, on Windows, runs are not locked.)

**Checked chunks.** A chunk file's SHA-256 is written beside it (``chunk-000001.sha256``)
before the chunk is renamed into place, so every finished chunk has the checksum of the
bytes that were written. A resumed run checks every chunk it keeps against its checksum
and scores again any that differ (a bad disk, a stray write, a copy cut short: the
Parquet footer may be intact while the columns are not, and readers fail later with
errors that name no chunk). Chunks written before checksums existed are read whole
once, their rows and positions checked, and given a checksum.
"""

from __future__ import annotations

import errno
import hashlib
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from explorer.batch.schema import CHUNK_DIR, BatchError, chunk_name

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

LOCK = ".batch.lock"
CHECKSUM_SUFFIX = ".sha256"


def checksum_path(chunk: Path) -> Path:
    """Where a chunk's checksum is kept (``chunk-000001.parquet`` -> ``chunk-000001.sha256``)."""
    return chunk.with_suffix(CHECKSUM_SUFFIX)


def digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _write_checksum(chunk: Path, value: str, owner: str) -> None:
    checksum = checksum_path(chunk)
    tmp = checksum.with_name(f".{checksum.name}.tmp-{owner}")
    try:
        tmp.write_text(value + "\n", encoding="ascii")
        os.replace(tmp, checksum)
    finally:
        tmp.unlink(missing_ok=True)


def seal(written: Path, final: Path, owner: str) -> None:
    """Put a completely written chunk file in place: its checksum first (a temporary
    file, then a rename), then the chunk itself (a rename). A run killed between the
    two leaves a checksum without its chunk, which is never read. ``owner``: the
    ``host-pid`` part of temporary names (see :func:`explorer.batch.worker.temporary_name`)."""
    _write_checksum(final, digest(written), owner)
    os.replace(written, final)


def _read_checksum(chunk: Path) -> str | None:
    try:
        return checksum_path(chunk).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None


def damage(chunk: Path, *, index: int, rows: int, exact_rows: bool, chunk_size: int) -> str | None:
    """Why a finished chunk file cannot be kept, or None when it can.

    ``rows``: the rows the chunk must have (at most that many when not ``exact_rows``:
    a chunk of a file read in ranges loses the records its loader skips).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        expected = _read_checksum(chunk)
        if expected is not None:
            if digest(chunk) != expected:
                return "its bytes differ from the checksum written with it"
            found = pq.read_metadata(chunk).num_rows
        else:  # written before checksums: read it whole, check what it holds
            positions = pq.read_table(chunk).column("position").to_pylist()
            found = len(positions)
            start = index * chunk_size
            if positions != list(range(start, start + found)):
                return f"it does not hold the positions {start}-{start + found - 1} of its chunk"
    except (OSError, pa.ArrowException, KeyError) as err:
        return f"it cannot be read ({err})"
    if found != rows and (exact_rows or found > rows):
        return f"it has {found} rows, not {rows}"
    if expected is None:
        try:  # checked once; a checksum from now on
            _write_checksum(chunk, digest(chunk), f"{socket.gethostname()}-{os.getpid()}")
        except OSError:  # a read-only folder: it is checked by reading next time too
            pass
    return None


def damaged_chunks(directory: str | Path) -> list[tuple[str, str]]:
    """``(chunk, why)`` for every finished chunk file whose bytes differ from its checksum
    or that cannot be read (what to look for when a query over the chunks fails)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from explorer.batch.schema import finished_chunks

    found = []
    for index, chunk in sorted(finished_chunks(directory).items()):
        try:
            expected = _read_checksum(chunk)
            if expected is not None and digest(chunk) != expected:
                found.append((f"{CHUNK_DIR}/{chunk.name}", "its bytes differ from the checksum written with it"))
            elif expected is None:
                pq.read_table(chunk)
        except (OSError, pa.ArrowException) as err:
            found.append((f"{CHUNK_DIR}/{chunk_name(index)}", f"it cannot be read ({err})"))
    return found


def storage_error(directory: str | Path, err: BaseException) -> BatchError:
    """A failed read of the chunks as the batch's own error, naming the damaged chunk
    when there is one."""
    bad = damaged_chunks(directory)
    if bad:
        name, why = bad[0]
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return BatchError(f"{Path(directory) / name} is damaged{more}: {why}. Run the same `batch` command "
                          "again to score it anew (the other chunks are kept)")
    return BatchError(f"{directory}: the chunk files cannot be read ({type(err).__name__}: {err})")


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        text = ""
    return text or "another process"


#: What opening the lock file for writing says in a folder nobody may write (a read-only
#: disk, a folder without write permission, an immutable one).
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


@contextmanager
def writing(directory: str | Path) -> Iterator[bool]:
    """Hold the folder's lock while the body runs (creating the folder); the body gets
    True, or False for an existing folder that cannot be written at all (a read-only
    disk: nobody can write it, so there is nothing to lock, and a complete result is
    still read).

    Raises:
        BatchError: when another process holds it.
    """
    folder = Path(directory)
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    if fcntl is None:
        yield True
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        if err.errno not in _READ_ONLY or created:
            raise
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchError(
                f"{folder} is being written by another batch run ({_holder(path)}; lock {path}): wait for it "
                "to finish, or stop that run and start this command again to resume; to score elsewhere, "
                "give another --out folder") from None
        started = datetime.now(UTC).isoformat(timespec="seconds")
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {started}\n".encode())
        try:
            yield True
        except BaseException:
            if created and [p.name for p in folder.iterdir()] == [LOCK]:  # refused before any work: leave nothing
                path.unlink(missing_ok=True)
                folder.rmdir()
            raise
    finally:
        os.close(fd)  # releases the lock
