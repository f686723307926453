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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any


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


@cache
def is_available(nltk_id: str) -> bool:
    """Whether NLTK can find the resource with this download id."""
    import nltk

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


@cache
def prepare_wordnet() -> None:
    """Let NLTK's WordNet load without mapping WordNet 3.0 onto itself (call before its first use).

    NLTK 3.10's WordNet reader builds, at every load, a map from WordNet 3.0's synsets to
    the loaded WordNet's (reading ``index.sense`` twice): it compares the loaded version
    ("3.0") with the corpus name ("wordnet"), so it maps even when the loaded WordNet is
    3.0 itself. That is over half of the load (about 5 of 9 s on a busy 2-core machine),
    and the map is only read for the Open Multilingual WordNet, which the explorer never
    uses. Before the first load, the lazy loader's reader class is swapped for a subclass
    that returns no map for WordNet 3.0 (the index, lemmas and synsets are the reader's
    own); once WordNet is loaded, or if NLTK changes its loader, nothing is changed.
    """
    import nltk.corpus
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30Reader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> Any:
            if version == "wordnet" and self.get_version() == "3.0":
                return None  # WordNet 3.0 onto itself: no map (OMW reads it; nothing else)
            return super().map_wn(version)

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

    def summary(self) -> str:
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
    """``python -m explorer.resources ensure``: fetch what is missing, print one summary
    line; exits 0 even when offline (the app then runs degraded)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["ensure"]:
        print("usage: python -m explorer.resources ensure", file=sys.stderr)
        return 2
    wanted = [r.nltk_id for r in missing()]
    if wanted:
        print(f"NLTK resources: fetching {len(wanted)} missing ({', '.join(wanted)})...", file=sys.stderr)
    report = ensure(wanted, progress=_terminal_progress)
    print(report.summary(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
