"""Dataset loading: one registry of loaders, chosen by file content and extension.

Every loader returns a complete :class:`Dataset` or raises :class:`DatasetError`
naming the file, the line or record, and what was expected; nothing partial is
returned as if it were complete. All of them read through one layer
(:mod:`explorer.datasets.reading`: one encoding policy, explicit limits) and one field
layer (:mod:`explorer.datasets.fields`: strictly typed ids, tasks, labels and scores).
Formats are recognised from the whole decoded text, not from a fixed-size head.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.api import LoaderInfo, Registry, caps, lazy
from explorer.errors import ExplorerError
from explorer.pairs import Pair

__all__ = [
    "LOADERS", "MAX_BYTES", "MAX_FILE_BYTES", "Dataset", "DatasetError", "Reader", "UnknownFormatError", "decode",
    "detect_file_format", "detect_format", "load", "load_bytes", "load_many",
]

#: Uploads (bytes handed to :func:`load_bytes`) larger than this are refused before parsing.
MAX_BYTES = 200 * 1024 * 1024
#: Files read from disk by :func:`load` larger than this are refused before they are read:
#: room for SNLI train as JSON lines (about 470 MB), which loads in about 1.4 GB per 375 MB
#: (docs/BENCHMARKS.md).
MAX_FILE_BYTES = 1024 * 1024 * 1024


class DatasetError(ExplorerError, ValueError):
    """A file that cannot be loaded; the message says where and what was expected."""


class UnknownFormatError(DatasetError):
    """A format name no loader has."""


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset.

    Attributes:
        name: a short display name (the file name).
        format: the loader that read it (a key of :data:`LOADERS`).
        pairs: every pair, in file order.
        notes: what the loader wants the reader to know about the file (e.g. how many
            pairs were kept unlabelled); shown with the dataset's summary.
    """

    name: str
    format: str
    pairs: tuple[Pair, ...]
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def kind(self) -> str:
        """``graded`` when pairs carry only scores, ``three_way`` when any pair is
        neutral/contradiction, ``binary`` otherwise (``unlabelled`` if none has a label)."""
        labels = {p.label for p in self.pairs if p.label is not None}
        if not labels:
            return "graded" if any(p.score is not None for p in self.pairs) else "unlabelled"
        if labels & {"neutral", "contradiction"}:
            return "three_way"
        return "binary"

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(sorted({p.task for p in self.pairs if p.task}))

    @property
    def has_gold_alignments(self) -> bool:
        return any(p.gold_alignment is not None for p in self.pairs)


_LABELS = caps("labels")
_GRADED = caps("graded")
_GOLD = caps("labels", "gold_alignments")


# Each sniff sees the whole decoded text and reads only as far as it needs (the first
# line, or a substring search), so a long first record or line does not hide a format.

def _first_line(text: str) -> str:
    text = text.lstrip("\ufeff")
    end = text.find("\n")
    return text if end < 0 else text[:end]


def _sniff_rte(text: str) -> bool:
    return text.lstrip("\ufeff \n\t")[:1] == "<" and "<entailment-corpus" in text


def _sniff_msrp(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("Quality\t")


def _sniff_sick(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("pair_ID\t")


def _sniff_sts(text: str) -> bool:
    from explorer.datasets.fields import is_number

    first = _first_line(text).split("\t")
    return len(first) == 3 and is_number(first[0])


def _sniff_nli(corpus: str) -> Callable[[str], bool]:
    def sniff(text: str) -> bool:
        from explorer.datasets.nli import sniff

        return sniff(text) == corpus

    return sniff


def _sniff_jsonl(text: str) -> bool:
    # Edinburgh++ alignment files and SNLI / MultiNLI are JSON too; their own loaders read them.
    from explorer.datasets.edinburgh import sniff as edinburgh
    from explorer.datasets.nli import sniff as nli

    return text.lstrip("\ufeff \n\t")[:1] in ("{", "[") and not edinburgh(text) and nli(text) is None


_sniff_msr_align = lazy("explorer.datasets.msr_align:sniff")
_sniff_edinburgh = lazy("explorer.datasets.edinburgh:sniff")


def _sniff_csv(text: str) -> bool:
    first = _first_line(text).lower()
    return "hypothesis" in first and "," in first


#: Every format, with its line facts (``ranged``, ``header``, ``numbered``: how a batch cuts
#: a file into ranges and how its records are counted before parsing).
LOADERS: Registry[LoaderInfo] = Registry("format", [
    LoaderInfo("rte_xml", "PASCAL RTE XML (RTE1-3)", (".xml",), _sniff_rte, lazy("explorer.datasets.rte:parse_rte_xml"), _LABELS),
    LoaderInfo("msrp", "Microsoft Research Paraphrase TSV", (".tsv", ".txt"), _sniff_msrp, lazy("explorer.datasets.tabular:parse_msrp"), _LABELS,
               ranged=True, header="always"),
    LoaderInfo("sick", "SICK (SemEval-2014 task 1) TXT", (".txt", ".tsv"), _sniff_sick, lazy("explorer.datasets.tabular:parse_sick"), caps("labels", "graded"),
               ranged=True, header="always"),
    LoaderInfo("sts", "STS TSV: score, sentence 1, sentence 2", (".tsv", ".txt"), _sniff_sts, lazy("explorer.datasets.tabular:parse_sts"), _GRADED,
               ranged=True, numbered=True),
    LoaderInfo("jsonl", "JSON lines or a JSON list of {text, hypothesis, label, task, id}", (".jsonl", ".json"), _sniff_jsonl, lazy("explorer.datasets.tabular:parse_jsonl"), _LABELS,
               ranged=True, numbered=True),
    LoaderInfo("csv", "CSV with header text (or premise), hypothesis, label, task, id", (".csv",), _sniff_csv, lazy("explorer.datasets.tabular:parse_csv"), _LABELS,
               ranged=True, header="always", numbered=True),
    LoaderInfo("msr_align", "MSR RTE2 gold alignments (GIZA-style .align.txt)", (".txt",), _sniff_msr_align, lazy("explorer.datasets.msr_align:parse_msr_align_labelled"), _GOLD),
    LoaderInfo("edinburgh", "Edinburgh++ paraphrase alignments (JSON with sureAlign)", (".json",), _sniff_edinburgh, lazy("explorer.datasets.edinburgh:parse_edinburgh"), caps("gold_alignments")),
    LoaderInfo("snli", "SNLI, JSON lines or TSV (sentence1, sentence2, gold_label, pairID)", (".jsonl", ".txt", ".tsv"), _sniff_nli("snli"), lazy("explorer.datasets.nli:parse_snli"), _LABELS,
               ranged=True, header="tsv"),
    LoaderInfo("multinli", "MultiNLI, JSON lines or TSV (SNLI's fields plus genre as the task)", (".jsonl", ".txt", ".tsv"), _sniff_nli("multinli"), lazy("explorer.datasets.nli:parse_multinli"), _LABELS,
               ranged=True, header="tsv"),
], error=UnknownFormatError)


def detect_format(text: str, name: str) -> str:
    """The key of the loader for a file's decoded text: content first, then extension.

    Raises:
        DatasetError: when no loader recognises the file.
    """
    suffix = Path(name).suffix.lower()
    by_content = [key for key, info in LOADERS.items() if info.sniff(text)]
    for key in by_content:
        if suffix in LOADERS[key].extensions:
            return key
    if by_content:
        return by_content[0]
    raise DatasetError(_unrecognised(text, name, suffix))


def _unrecognised(head: str, name: str, suffix: str) -> str:
    """Why no loader took the file, as specifically as its name and first line allow."""
    first = head.lstrip("\ufeff").partition("\n")[0].strip()
    shown = first if len(first) <= 80 else first[:77] + "..."
    if suffix == ".csv" or (suffix not in (".xml", ".json", ".jsonl") and first.count(",") >= 1 and "\t" not in first):
        return (f"{name}: a CSV needs a header line naming the columns 'text' (or 'premise') and "
                f"'hypothesis' (optional: label, task, id, score, note); its first line is {shown!r}")
    if suffix == ".xml" or first.startswith("<"):
        return f"{name}: XML, but not PASCAL RTE: expected an <entailment-corpus> of <pair> elements"
    if suffix in (".json", ".jsonl"):
        return f"{name}: expected JSON lines or a JSON list of objects with 'text' and 'hypothesis'"
    if "\t" in first:
        return (f"{name}: a TSV the explorer does not recognise: MSRP starts with a 'Quality' header, "
                f"SICK with 'pair_ID', STS lines are score<TAB>sentence<TAB>sentence; its first line is {shown!r}")
    return f"{name}: not a dataset format the explorer knows ({', '.join(LOADERS)}); see the dataset formats in docs/CLI.md"


def decode(data: bytes, name: str, *, max_bytes: int | None = None) -> str:
    """Decode file bytes under the one encoding policy of :mod:`explorer.datasets.reading`
    (UTF-8, optional BOM, line ends normalised).

    Raises:
        DatasetError: for binary or non-UTF-8 content, a conflicting XML encoding
            declaration, or a file over :data:`MAX_BYTES`.
    """
    from explorer.datasets.reading import decode as decode_text

    return decode_text(data, name, max_bytes=max_bytes)


def load_bytes(data: bytes, name: str, *, fmt: str | None = None, max_bytes: int | None = None) -> Dataset:
    """Load a dataset from bytes (an upload); ``name`` is used for detection and errors.
    ``max_bytes`` defaults to :data:`MAX_BYTES`."""
    from explorer.datasets.reading import check_count

    text = decode(data, name, max_bytes=max_bytes)
    if not text.strip():
        raise DatasetError(f"{name}: the file is empty; expected pairs in one of the formats in docs/CLI.md")
    key = fmt or detect_format(text, name)
    info = LOADERS.info(key)
    try:
        pairs = info.parse(text, name)
    except RecursionError:  # a guard only: every parser bounds its nesting first
        raise DatasetError(f"{name}: nested too deeply to read") from None
    if not pairs:
        raise DatasetError(f"{name}: no pairs found in this {info.description} file")
    check_count(len(pairs), name)
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        raise DatasetError(f"{name}: pair id {dup!r} occurs more than once; ids must be unique")
    notes = tuple(getattr(pairs, "notes", ()))
    return Dataset(name=Path(name).name, format=key, pairs=tuple(pairs), notes=notes)


def _read(path: Path) -> bytes:
    from explorer.datasets.reading import check_size

    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    try:
        check_size(path.stat().st_size, str(path), MAX_FILE_BYTES)
        return path.read_bytes()
    except OSError as err:
        raise DatasetError(f"{path}: cannot read ({err.strerror})") from None


def detect_file_format(path: str | Path) -> str:
    """The format key of a file, read and decoded as :func:`load` would.

    Raises:
        DatasetError: for a missing, unreadable or unrecognised file.
    """
    path = Path(path)
    return detect_format(decode(_read(path), str(path), max_bytes=MAX_FILE_BYTES), str(path))


def load(path: str | Path, *, fmt: str | None = None) -> Dataset:
    """Load a dataset file.

    Raises:
        DatasetError: for a missing, unreadable or malformed file.
    """
    path = Path(path)
    return load_bytes(_read(path), str(path), fmt=fmt, max_bytes=MAX_FILE_BYTES)


#: Reads one dataset file (:func:`load`, or the command line's range-by-range reader).
Reader = Callable[[Path], Dataset]


def load_many(paths: Sequence[str | Path], *, read: Reader | None = None,
              log: Callable[[str], None] | None = None) -> Dataset:
    """Several dataset files as one :class:`Dataset`: the one policy for every input of
    several files (``train``, ``align-eval``, ``combined`` and ``classify``'s TRAIN).

    * Each file is read by ``read`` (:func:`load` by default); the first file that
      cannot be read stops it all with its :class:`DatasetError`. One file comes back as
      read.
    * Two or more MSR annotator files (format ``msr_align``) are one gold set: merged by
      majority (:func:`explorer.datasets.msr_align.merge_annotators`), first.
    * The other files' pairs follow in the order given, as each file has them: ids stay
      the file's own (two files may share one; ``Pair.source`` names the file).

    The name joins the files' names with ``+``; the format is theirs when they share
    one (else their formats joined with ``+``); notes are kept, each naming its file.
    ``log`` gets one line per file (or merged set).

    >>> data = load_many(["sample_data/typical.xml", "sample_data/pairs.csv"])
    >>> data.name, data.format, len(data)
    ('typical.xml+pairs.csv', 'rte_xml+csv', 74)

    Raises:
        DatasetError: for no file, a file that cannot be read, or annotator files that
            do not hold the same problems.
    """
    if not paths:
        raise DatasetError("give at least one dataset file")
    read = read or load
    say = log or (lambda message: None)
    loaded = [read(Path(path)) for path in paths]
    if len(loaded) == 1:
        say(f"{loaded[0].name}: {len(loaded[0])} pairs ({loaded[0].format})")
        return loaded[0]
    annotators = [d for d in loaded if d.format == "msr_align"]
    parts = list(loaded)
    if len(annotators) >= 2:
        from explorer.datasets.msr_align import merge_datasets

        merged = merge_datasets(annotators)
        say(f"{merged.name}: {len(merged)} pairs, {len(annotators)} annotators merged by majority")
        parts = [d for d in loaded if d.format != "msr_align"]
    for d in parts:
        say(f"{d.name}: {len(d)} pairs ({d.format})")
    if len(annotators) >= 2:
        parts.insert(0, merged)
    formats = list(dict.fromkeys(d.format for d in parts))
    return Dataset(name="+".join(d.name for d in parts), format="+".join(formats),
                   pairs=tuple(p for d in parts for p in d.pairs),
                   notes=tuple(f"{d.name}: {note}" for d in parts for note in d.notes))
