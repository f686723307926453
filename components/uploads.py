"""Uploaded files in the app: the limits, the bounded reader, and caches bounded by bytes.

An upload (the Dataset page's file, a development or test set, or a reopened
``?dataset=upload:KEY`` link) is read by :func:`runtime.isolated_reader.read_bounded`:
counted before parsing, then parsed in a child process under a memory cap and a time
limit, so the server never holds a parse's peak. What the server keeps is bounded by
measured bytes (:func:`runtime.isolated_reader.footprint` for a dataset, the length of
a file), never by a number of entries:

- parsed datasets shared by every session: :data:`DATASETS_BYTES` (least recently used
  first out);
- the files behind them, for the background cutoff job: :data:`SOURCES_BYTES`;
- every uploaded dataset still held anywhere (a session's current dataset, a development
  set, the cache): :data:`LIVE_BYTES`; an upload that would pass it is refused, after the
  cache has let go of what only it held.

The limits are chosen from docs/BENCHMARKS.md ("Uploads in the app"): a 100,000-pair dataset holds
55-65 MB, its parse peaks at 130-330 MB in the child, and the largest file such a dataset
comes in (MultiNLI JSON lines with parse trees, about 1.2 kB a record) is 120 MB.
"""

from __future__ import annotations

import threading
import weakref

from explorer.datasets import Dataset, load_bytes
from runtime import memory_budget
from runtime.isolated_reader import ReadLimitError, ReadLimits, footprint, read_bounded
from runtime.lru import SizedLRU
from runtime.streamlit_config import max_upload_mb

_MB = 1024 * 1024
#: Pairs in one dataset opened in the app; larger corpora go to ``batch``.
MAX_PAIRS = 100_000
#: Megabytes in one uploaded file: Streamlit's ``server.maxUploadSize``, read from
#: .streamlit/config.toml (the one place it is set; the class server reads it there too).
MAX_UPLOAD_MB = max_upload_mb()
#: The child reader's address-space cap (a 100,000-pair file in any format needs at most
#: about a third of it).
READ_MEMORY_MB = 1024
#: Processor seconds one file may take to read (a 100,000-pair file in any format takes
#: 1-3 s), and wall seconds (a loaded machine may stretch those several times).
READ_CPU_SECONDS = 20.0
READ_SECONDS = 90.0
#: Readers running at once on the machine (every server process shares them).
READERS = 1
#: Bytes of parsed datasets kept for every session (least recently used first out).
DATASETS_BYTES = 384 * _MB
#: Bytes of uploaded files kept for the background cutoff job.
SOURCES_BYTES = 256 * _MB
#: Bytes of uploaded datasets held anywhere in the server at once.
LIVE_BYTES = 768 * _MB

BATCH_HINT = ("score a corpus this size with the command line, `python -m explorer batch FILE --scorer fast "
              "--out DIR`, and open the result on the Dataset page")
LIMITS = ReadLimits(pairs=MAX_PAIRS, bytes=MAX_UPLOAD_MB * _MB, memory=READ_MEMORY_MB * _MB, seconds=READ_SECONDS,
                    cpu_seconds=READ_CPU_SECONDS, readers=READERS, batch_hint=BATCH_HINT)


def describe_limits() -> str:
    """The upload limits in one sentence (the uploaders' help)."""
    return (f"At most {MAX_PAIRS:,} pairs and {MAX_UPLOAD_MB} MB per file, read within {READ_CPU_SECONDS:g} s of "
            f"processor time and {READ_MEMORY_MB:,} MB of memory; for larger corpora use the command line's `batch`.")


DATASETS: SizedLRU[tuple[str, str], Dataset] = SizedLRU(DATASETS_BYTES)
SOURCES: SizedLRU[str, tuple[str, bytes]] = SizedLRU(SOURCES_BYTES)
memory_budget.register("uploaded datasets", lambda: DATASETS.total, DATASETS.clear)
memory_budget.register("uploaded files", lambda: SOURCES.total, SOURCES.clear)


def reset() -> None:
    """Forget every upload this process holds (tests: one test's upload is not the next one's)."""
    DATASETS.clear()
    SOURCES.clear()


class _Live:
    """The measured bytes of every uploaded dataset still alive (weak references: a
    dataset no session or cache holds any more leaves the sum when it is freed)."""

    def __init__(self) -> None:
        self.total = 0
        self._lock = threading.Lock()

    def admit(self, size: int, name: str) -> None:
        """Reserve ``size`` more bytes (the cache lets go of its oldest entries first to
        make room), or refuse the upload naming the limit. A reservation is kept by
        :meth:`track` or given back by :meth:`release`.

        Raises:
            ReadLimitError: the server already holds too much.
        """
        while self.total + size > LIVE_BYTES and DATASETS.pop_oldest():
            pass
        with self._lock:
            if self.total + size > LIVE_BYTES:
                raise ReadLimitError(
                    f"{name}: this server already holds {self.total / _MB:,.0f} MB of uploaded datasets for its "
                    f"visitors and this one needs {size / _MB:,.0f} MB more, over the {LIVE_BYTES // _MB:,} MB limit; "
                    "try again when others have moved on, or use a smaller file", "live")
            self.total += size

    def track(self, dataset: Dataset, size: int) -> None:
        """Give the reservation back when ``dataset`` is freed."""
        weakref.finalize(dataset, self.release, size)

    def release(self, size: int) -> None:
        with self._lock:
            self.total -= size


LIVE = _Live()


def read_dataset(data: bytes, name: str, key: str, *, isolated: bool) -> Dataset:
    """The dataset in ``data`` (cached by content key and name). ``isolated``: an upload,
    read by the bounded reader under :data:`LIMITS`; otherwise a file shipped with the
    explorer or installed on the server (samples, NLTK's RTE corpus), parsed here.

    Raises:
        ReadLimitError: past one of the limits, naming it.
        DatasetError: for a file its loader refuses.
    """
    found = DATASETS.get((key, name))
    if found is not None:
        return found
    if isolated:
        reserved: list[int] = []

        def admit(size: int) -> None:
            LIVE.admit(size, name)
            reserved.append(size)

        try:
            result = read_bounded(data, name, LIMITS, admit=admit)
        except BaseException:
            for size in reserved:  # admitted, then not rebuilt
                LIVE.release(size)
            raise
        dataset, size = result.dataset, result.footprint
        LIVE.track(dataset, size)
    else:
        dataset = load_bytes(data, name)
        size = footprint(dataset)
    DATASETS.put((key, name), dataset, size)
    return dataset


def keep_source(key: str, name: str, data: bytes) -> None:
    """Keep the file a dataset was read from (for the background cutoff job)."""
    SOURCES.put(key, (name, data), len(data))
