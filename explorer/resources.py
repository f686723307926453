"""Finding, reporting and downloading the NLTK resources the explorer uses.

On a user's machine the resources come from ``nltk.download``; set ``NLTK_DATA`` to
use a local copy. Every method still runs when a resource is missing, in the degraded
way listed in :data:`RESOURCES`, and the CLI and UI say so.

``make run`` calls ``python -m explorer.resources ensure`` first: it fetches whatever is
missing with NLTK's downloader, printing progress, and when the data server cannot be
reached it says so in one line and the app goes on degraded (:func:`ensure`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "NLTK_UNUSED_BRIDGES", "RESOURCES", "DownloadProgress", "EnsureReport", "Resource", "default_downloader",
    "degraded_note", "describe", "download", "ensure", "import_nltk", "is_available", "main", "missing",
    "prepare_wordnet", "source_stamp",
]


@dataclass(frozen=True)
class Resource:
    """An NLTK resource: its download id, where ``nltk.data.find`` looks, and what
    degrades without it."""

    nltk_id: str
    locations: tuple[str, ...]
    used_for: str
    without_it: str


RESOURCES: tuple[Resource, ...] = (
    Resource(
        "averaged_perceptron_tagger_eng",
        ("taggers/averaged_perceptron_tagger_eng/",),
        "POS tags (lemmatisation, POS-decomposed PER, MANLI features)",
        "every token is tagged NN; lemmas and POS features lose precision",
    ),
    Resource(
        "wordnet",
        ("corpora/wordnet", "corpora/wordnet.zip"),
        "lemmas and lexical similarity (synonyms, hypernyms)",
        "lemmas fall back to lower-cased tokens; no WordNet similarity",
    ),
    Resource(
        "stopwords",
        ("corpora/stopwords", "corpora/stopwords.zip"),
        "stopword flags (ITG stoplist variant, MANLI features)",
        "a small built-in list of English function words is used instead",
    ),
    Resource(
        "brown",
        ("corpora/brown", "corpora/brown.zip"),
        "word information content and idf (NIST, Jiang-Conrath, bag-of-words aligner)",
        "information weights fall back to uniform values; the Lin (IC) lexical similarity is off",
    ),
    Resource(
        "rte",
        ("corpora/rte", "corpora/rte.zip"),
        "the PASCAL RTE1-3 datasets offered on the Dataset page",
        "only the built-in sample and uploaded files can be browsed",
    ),
    Resource(
        "mwa_ppdb",
        ("misc/mwa_ppdb", "misc/mwa_ppdb.zip"),
        "PPDB lexical paraphrases for lexical similarity",
        "no paraphrase-table similarity",
    ),
)


#: Optional bridges NLTK's package import loads and the explorer never uses: its
#: scikit-learn classifier wrapper and its scipy.stats association measures.
NLTK_UNUSED_BRIDGES = ("sklearn", "scipy.stats")


_NLTK_IMPORT = threading.Lock()


def import_nltk() -> Any:
    """``import nltk``, without the bridges of :data:`NLTK_UNUSED_BRIDGES`.

    ``import nltk`` imports every NLTK subpackage, and two of them import scikit-learn and
    scipy.stats when installed (each inside ``try: ... except ImportError``): 1.4 of the
    1.6 s of CPU the import costs, and about 160 MB of memory in every process that imports
    it (the server and the warm worker pool's fork server). While NLTK is imported here,
    those two names are marked missing, so NLTK skips its bridges; afterwards they import
    normally for whoever needs them (the MT-metric classifier, the correlations). Call it
    before anything else imports NLTK; later calls return the module. Thread-safe: a second
    thread waits for the first thread's import to finish (never sees half a module).
    """
    with _NLTK_IMPORT:
        if "nltk" not in sys.modules:
            hidden = [name for name in NLTK_UNUSED_BRIDGES if name not in sys.modules]
            for name in hidden:
                sys.modules[name] = None  # type: ignore[assignment]  # "not installed", for this import only
            try:
                import nltk
            finally:
                for name in hidden:
                    if sys.modules.get(name, 0) is None:
                        del sys.modules[name]
    import nltk  # (waits for an import another thread started without this function)

    return nltk


@cache
def is_available(nltk_id: str) -> bool:
    """Whether NLTK can find the resource with this download id."""
    nltk = import_nltk()

    resource = next((r for r in RESOURCES if r.nltk_id == nltk_id), None)
    if resource is None:
        raise KeyError(f"unknown resource {nltk_id!r}")
    for location in resource.locations:
        try:
            nltk.data.find(location)
            return True
        except LookupError:
            continue
    return False


def source_stamp(paths: Sequence[str]) -> str | None:
    """A short hash of the files' names, sizes and modification times (None when one cannot
    be read): the key of a disk cache derived from them, so a changed file is read again."""
    import hashlib
    import os

    parts = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            return None
        parts.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


def _pointer_path(pointer: Any) -> str | None:
    """The file behind an NLTK path pointer (the zip file for a zipped corpus)."""
    path = getattr(pointer, "path", None)
    if isinstance(path, str):
        return path
    archive = getattr(getattr(pointer, "zipfile", None), "filename", None)
    return archive if isinstance(archive, str) else None


@cache
def prepare_wordnet() -> None:
    """Make NLTK's WordNet load fast (call before its first use).

    Two things, before the first load (once WordNet is loaded, or if NLTK changes its
    loader, nothing is changed):

    * No map of WordNet 3.0 onto itself. NLTK 3.10's reader builds, at every load, a map
      from WordNet 3.0's synsets to the loaded WordNet's (reading ``index.sense`` twice):
      it compares the loaded version ("3.0") with the corpus name ("wordnet"), so it maps
      even when the loaded WordNet is 3.0 itself. That is over half of the load, and the map
      is only read for the Open Multilingual WordNet, which the explorer never uses.
    * The lemma index (every lemma's synset offsets per word class, parsed from the four
      ``index.*`` files: most of the rest) is kept in the user's cache directory
      (:mod:`explorer.cache`) under a key of those files' sizes and times, and read from
      there on later loads.

    The lazy loader's reader class is swapped for a subclass doing both; lemmas, synsets
    and relations are the reader's own.
    """
    import nltk.corpus
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from explorer import cache as disk

    class WordNet30Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> Any:
            if version == "wordnet" and self.get_version() == "3.0":
                return None  # WordNet 3.0 onto itself: no map (OMW reads it; nothing else)
            return super().map_wn(version)

        def _load_lemma_pos_offset_map(self) -> None:
            files = [_pointer_path(self.abspath(f"index.{suffix}")) for suffix in self._FILEMAP.values()]
            stamp = source_stamp([f for f in files if f]) if all(files) else None
            name = f"wordnet-index-{nltk.__version__}-{stamp}.json" if stamp else None
            stored = disk.load_json(name) if name else None
            if isinstance(stored, dict):
                self._lemma_pos_offset_map.update(stored)
                return
            super()._load_lemma_pos_offset_map()
            if name:
                disk.save_json(name, self._lemma_pos_offset_map)

    attribute = "_LazyCorpusLoader__reader_cls"  # the loader's reader class (NLTK 3.x)
    if getattr(nltk.corpus.wordnet, attribute, None) is WordNetCorpusReader:
        setattr(nltk.corpus.wordnet, attribute, WordNet30Reader)


def missing() -> list[Resource]:
    """The resources NLTK cannot find, in :data:`RESOURCES` order."""
    return [r for r in RESOURCES if not is_available(r.nltk_id)]


def describe() -> list[dict[str, str]]:
    """One row per resource: id, status, what it is used for, what degrades without it."""
    return [
        {
            "resource": r.nltk_id,
            "status": "found" if is_available(r.nltk_id) else "missing",
            "used for": r.used_for,
            "without it": r.without_it,
        }
        for r in RESOURCES
    ]


def degraded_note(found_missing: Sequence[Resource] | None = None) -> str | None:
    """One short line for the app's sidebar when resources are missing (None when all are
    found); the details live in a table beside it (:func:`describe`)."""
    gone = list(missing() if found_missing is None else found_missing)
    if not gone:
        return None
    names = ", ".join(r.nltk_id for r in gone)
    return f"Running degraded: {len(gone)} NLTK resource{'s' if len(gone) != 1 else ''} missing ({names}); `make resources` fetches them."


def download(ids: list[str] | None = None, *, quiet: bool = False) -> dict[str, bool]:
    """Download resources with ``nltk.download`` (all missing ones by default).

    Returns:
        For each id, whether it is available afterwards.
    """
    import nltk

    wanted = ids if ids is not None else [r.nltk_id for r in missing()]
    results = {}
    for nltk_id in wanted:
        nltk.download(nltk_id, quiet=quiet, raise_on_error=False)
        is_available.cache_clear()
        results[nltk_id] = is_available(nltk_id)
    return results


#: progress(resource id, percent of that resource done, what is happening)
DownloadProgress = Callable[[str, float, str], None]


@dataclass(frozen=True)
class EnsureReport:
    """What :func:`ensure` did.

    Attributes:
        wanted: the ids that were missing when it started.
        fetched: the ids downloaded and now found.
        failed: the ids still missing after a download was tried, with NLTK's reason.
        offline: the data server's index could not be fetched (no download was tried).
        reason: why the index could not be fetched, when offline.
    """

    wanted: tuple[str, ...] = ()
    fetched: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()
    offline: bool = False
    reason: str = ""

    @property
    def still_missing(self) -> tuple[str, ...]:
        return tuple(i for i in self.wanted if i not in self.fetched)

    def format(self) -> str:
        """One line for the terminal."""
        if not self.wanted:
            return f"NLTK resources: all {len(RESOURCES)} found."
        parts = []
        if self.fetched:
            parts.append(f"fetched {', '.join(self.fetched)}")
        missing_now = self.still_missing
        if missing_now:
            why = "the NLTK data server cannot be reached" if self.offline else "the download failed"
            parts.append(
                f"{len(missing_now)} still missing ({', '.join(missing_now)}): {why}, so the app "
                "runs degraded (its sidebar says what that changes); `make resources` retries"
            )
        else:
            parts.append("all found")
        return "NLTK resources: " + "; ".join(parts) + "."


def default_downloader() -> Any:
    """NLTK's downloader on its default server (the one ``nltk.download`` uses)."""
    from nltk.downloader import Downloader

    return Downloader()


def ensure(
    ids: Sequence[str] | None = None, *, downloader: Any = None, download_dir: str | None = None,
    progress: DownloadProgress | None = None,
) -> EnsureReport:
    """Download the missing resources (all of :data:`RESOURCES` by default) with NLTK's
    downloader, reporting progress per resource; never raises for network trouble.

    Args:
        ids: resource ids to make available (those already found are skipped).
        downloader: an ``nltk.downloader.Downloader`` (e.g. one built with
            ``server_index_url=``); NLTK's default server when None.
        download_dir: where to install; NLTK's default download directory when None.
        progress: called as ``progress(id, percent, status)``.
    """
    from nltk.downloader import ErrorMessage, ProgressMessage, StartPackageMessage

    is_available.cache_clear()
    wanted = tuple(i for i in (ids if ids is not None else [r.nltk_id for r in RESOURCES]) if not is_available(i))
    if not wanted:
        return EnsureReport()
    downloader = downloader if downloader is not None else default_downloader()
    try:
        downloader.packages()  # fetches the index: the cheap way to learn we are offline
    except Exception as err:  # URLError, timeouts, a refused or malformed index: all "offline"
        return EnsureReport(wanted=wanted, offline=True, reason=f"{type(err).__name__}: {err}")
    target = download_dir or downloader.default_download_dir()
    fetched, failed = [], []
    for nltk_id in wanted:
        error = ""
        if progress is not None:
            progress(nltk_id, 0.0, "starting")
        try:
            for message in downloader.incr_download(nltk_id, target):
                if isinstance(message, ErrorMessage):
                    error = str(message.message)
                elif progress is None:
                    continue
                elif isinstance(message, StartPackageMessage):
                    progress(nltk_id, 0.0, "downloading")
                elif isinstance(message, ProgressMessage):
                    progress(nltk_id, min(99.0, float(message.progress)), "downloading")
        except Exception as err:  # a dropped connection mid-way: report it, go on
            error = f"{type(err).__name__}: {err}"
        is_available.cache_clear()
        if is_available(nltk_id):
            fetched.append(nltk_id)
            if progress is not None:
                progress(nltk_id, 100.0, "installed")
        else:
            failed.append((nltk_id, error or "not found after download"))
    return EnsureReport(wanted=wanted, fetched=tuple(fetched), failed=tuple(failed))


def _terminal_progress(nltk_id: str, percent: float, status: str) -> None:
    end = "\n" if status == "installed" else ""
    print(f"\r  {nltk_id}: {status} {percent:3.0f}%", end=end, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m explorer.resources ensure``: fetch what is missing (with progress once the
    data server answers), print one summary line; exits 0 even when offline (the app then
    runs degraded), and offline that line is all it prints."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["ensure"]:
        print("usage: python -m explorer.resources ensure", file=sys.stderr)
        return 2
    wanted = [r.nltk_id for r in missing()]
    started: list[str] = []

    def progress(nltk_id: str, percent: float, status: str) -> None:
        # Said once the data server has answered: offline, the summary below is the one line.
        if not started:
            started.append(nltk_id)
            print(f"NLTK resources: fetching {len(wanted)} missing ({', '.join(wanted)})...", file=sys.stderr)
        _terminal_progress(nltk_id, percent, status)

    report = ensure(wanted, progress=progress)
    print(report.format(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
