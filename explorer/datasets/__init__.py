"""Dataset loading: one registry of loaders, chosen by file content and extension.

Every loader returns a complete :class:`Dataset` or raises :class:`DatasetError`
naming the file, the line or record, and what was expected; nothing partial is
returned as if it were complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.api import LoaderInfo, Registry, caps, lazy
from explorer.errors import ExplorerError
from explorer.pairs import Pair

#: Uploads and files larger than this are refused before parsing.
MAX_BYTES = 200 * 1024 * 1024


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
    """

    name: str
    format: str
    pairs: tuple[Pair, ...]

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


def _sniff_rte(head: str) -> bool:
    return "<entailment-corpus" in head


def _sniff_msrp(head: str) -> bool:
    return head.lstrip("\ufeff").startswith("Quality\t")


def _sniff_sick(head: str) -> bool:
    return head.lstrip("\ufeff").startswith("pair_ID\t")


def _sniff_sts(head: str) -> bool:
    first = head.lstrip("\ufeff").split("\n", 1)[0].split("\t")
    try:
        float(first[0])
    except ValueError:
        return False
    return len(first) == 3


def _sniff_jsonl(head: str) -> bool:
    # Edinburgh++ alignment files are JSON lists too; their own loader reads them.
    return head.lstrip("\ufeff \n\r\t")[:1] in ("{", "[") and '"sureAlign"' not in head


_sniff_msr_align = lazy("explorer.datasets.msr_align:sniff")
_sniff_edinburgh = lazy("explorer.datasets.edinburgh:sniff")


def _sniff_csv(head: str) -> bool:
    first = head.lstrip("\ufeff").split("\n", 1)[0].lower()
    return "hypothesis" in first and "," in first


LOADERS: Registry[LoaderInfo] = Registry("format", [
    LoaderInfo("rte_xml", "PASCAL RTE XML (RTE1-3)", (".xml",), _sniff_rte, lazy("explorer.datasets.rte:parse_rte_xml"), _LABELS),
    LoaderInfo("msrp", "Microsoft Research Paraphrase TSV", (".tsv", ".txt"), _sniff_msrp, lazy("explorer.datasets.tabular:parse_msrp"), _LABELS),
    LoaderInfo("sick", "SICK (SemEval-2014 task 1) TXT", (".txt", ".tsv"), _sniff_sick, lazy("explorer.datasets.tabular:parse_sick"), caps("labels", "graded")),
    LoaderInfo("sts", "STS TSV: score, sentence 1, sentence 2", (".tsv", ".txt"), _sniff_sts, lazy("explorer.datasets.tabular:parse_sts"), _GRADED),
    LoaderInfo("jsonl", "JSON lines or a JSON list of {text, hypothesis, label, task, id}", (".jsonl", ".json"), _sniff_jsonl, lazy("explorer.datasets.tabular:parse_jsonl"), _LABELS),
    LoaderInfo("csv", "CSV with header text (or premise), hypothesis, label, task, id", (".csv",), _sniff_csv, lazy("explorer.datasets.tabular:parse_csv"), _LABELS),
    LoaderInfo("msr_align", "MSR RTE2 gold alignments (GIZA-style .align.txt)", (".txt",), _sniff_msr_align, lazy("explorer.datasets.msr_align:parse_msr_align_labelled"), _GOLD),
    LoaderInfo("edinburgh", "Edinburgh++ paraphrase alignments (JSON with sureAlign)", (".json",), _sniff_edinburgh, lazy("explorer.datasets.edinburgh:parse_edinburgh"), caps("gold_alignments")),
], error=UnknownFormatError)


def detect_format(text: str, name: str) -> str:
    """The key of the loader for a file: content first, then extension.

    Raises:
        DatasetError: when no loader recognises the file.
    """
    head = text[:4096]
    suffix = Path(name).suffix.lower()
    by_content = [key for key, info in LOADERS.items() if info.sniff(head)]
    for key in by_content:
        if suffix in LOADERS[key].extensions:
            return key
    if by_content:
        return by_content[0]
    formats = "; ".join(f"{info.description} ({', '.join(info.extensions)})" for info in LOADERS.values())
    raise DatasetError(f"{name}: not a dataset format the explorer knows. Supported: {formats}")


def decode(data: bytes, name: str) -> str:
    """Decode file bytes as UTF-8 (with or without BOM).

    Raises:
        DatasetError: for binary or non-UTF-8 content, or a file over :data:`MAX_BYTES`.
    """
    if len(data) > MAX_BYTES:
        raise DatasetError(f"{name}: {len(data):,} bytes is over the {MAX_BYTES:,}-byte limit")
    if b"\x00" in data[:8192]:
        raise DatasetError(f"{name}: looks like a binary file; expected UTF-8 text (XML, TSV, CSV or JSON)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise DatasetError(f"{name}: line {line} is not valid UTF-8; save the file as UTF-8") from None


def load_bytes(data: bytes, name: str, *, fmt: str | None = None) -> Dataset:
    """Load a dataset from bytes (an upload); ``name`` is used for detection and errors."""
    text = decode(data, name)
    key = fmt or detect_format(text, name)
    info = LOADERS.info(key)
    pairs = info.parse(text, name)
    if not pairs:
        raise DatasetError(f"{name}: no pairs found in this {info.description} file")
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        raise DatasetError(f"{name}: pair id {dup!r} occurs more than once; ids must be unique")
    return Dataset(name=Path(name).name, format=key, pairs=tuple(pairs))


def load(path: str | Path, *, fmt: str | None = None) -> Dataset:
    """Load a dataset file.

    Raises:
        DatasetError: for a missing, unreadable or malformed file.
    """
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise DatasetError(f"{path}: cannot read ({err.strerror})") from None
    dataset = load_bytes(data, str(path), fmt=fmt)
    return dataset
