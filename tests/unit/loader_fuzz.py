"""Malformed-file generation and the checks on what a loader returns, shared by the
property-based tests (tests/unit/test_loader_fuzz.py) and the long fuzz run
(bench/fuzz_loaders.py).

A case is a valid seed file of one format (hand-written, invented sentences) and a list of
mutations, each ``(name, n)`` with ``n`` an integer that picks positions and variants, so a
case is reproducible from its description. :func:`run_case` loads the mutated bytes and
classifies the outcome: ``refused`` (a DatasetError), ``accepted`` (a dataset whose fields
pass :func:`garbage`), ``garbage`` (a dataset with a problem :func:`garbage` names) or
``foreign`` (any other exception).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import unicodedata
from collections.abc import Callable

from explorer.datasets import LOADERS, Dataset, DatasetError, load_bytes

try:
    from explorer.datasets.reading import MAX_ID_CHARS, MAX_SENTENCE_CHARS
except ImportError:  # an older checkout (bench/fuzz_loaders.py --against)
    MAX_ID_CHARS, MAX_SENTENCE_CHARS = 200, 20_000
from explorer.pairs import LABELS

# -- seeds: one or two valid files per format ------------------------------------------------

_RTE1 = """<?xml version="1.0" encoding="UTF-8"?>
<entailment-corpus challenge="1">
<pair id="11" value="TRUE" task="IE">
  <t>The ferry to the island leaves twice a day in summer.</t>
  <h>A ferry goes to the island.</h>
</pair>
<pair id="12" value="FALSE" task="QA">
  <t>Nora repaired the old clock &amp; sold it at the fair.</t>
  <h>Nora kept the clock.</h>
</pair>
</entailment-corpus>
"""

_RTE3 = """<entailment-corpus>
<pair id="1" entailment="YES" task="IR"><t>A cyclist crossed the bridge at dawn.</t><h>Someone crossed the bridge.</h></pair>
<pair id="2" entailment="UNKNOWN" task="SUM"><t>The bakery opened a second shop.</t><h>The bakery is profitable.</h></pair>
<pair id="3" entailment="CONTRADICTION" task="QA"><t>The lake froze in January.</t><h>The lake never freezes.</h></pair>
</entailment-corpus>
"""

_MSRP = (
    "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
    "1\t101\t102\tThe council approved the \"green\" plan on Tuesday.\tOn Tuesday the council passed the plan.\n"
    "0\t103\t104\tShares of the mill fell 3 percent.\tThe mill hired forty workers.\n"
)

_STS = (
    "4.2\tA boy is kicking a red ball.\tA child kicks a ball.\n"
    "0.5\tThe oven is hot.\tTrains run late on Sundays.\n"
    "3\tTwo dogs play in snow.\tDogs are playing outside.\n"
)

_SICK = (
    "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
    "21\tA woman is slicing an onion.\tSomeone is cutting an onion.\t4.6\tENTAILMENT\n"
    "22\tA man is playing a flute.\tNobody is playing a flute.\t3.1\tCONTRADICTION\n"
    "23\tA cat sleeps on a sofa.\tA bird sings on a wire.\t1.2\tNEUTRAL\n"
)

_CSV = (
    "id,text,hypothesis,label,task,score\n"
    'c1,"The museum, closed since May, reopened.",The museum reopened.,entailment,IE,\n'
    'c2,"She said ""no"" twice.",She agreed.,contradiction,QA,\n'
    "c3,The road was icy.,The road was dry.,neutral,,2.5\n"
)

_JSONL = "\n".join(json.dumps(r) for r in [
    {"id": "j1", "text": "A pilot landed the plane in fog.", "hypothesis": "The plane landed.", "label": "entailment", "task": "IE"},
    {"id": 2, "premise": "The library lends tools.", "hypothesis": "The library lends books.", "label": "neutral", "score": 1.5},
    {"id": "j3", "text": "Nobody came to the meeting.", "hypothesis": "Ten people came.", "label": "contradiction"},
]) + "\n"

_JSON_LIST = json.dumps([
    {"id": "k1", "text": "The kettle whistled loudly.", "hypothesis": "The kettle made a sound.", "label": "yes"},
    {"id": "k2", "text": "Snow covered the field.", "hypothesis": "The field was green.", "label": "no"},
], indent=1)

_MSR = (
    "# sentence pair 7\n"
    "The old mill on the river was sold to a baker .\n"
    "NULL ({ / / }) The ({ 1 / / }) mill ({ 3 / / }) was ({ p8 / / }) sold ({ 9 / / }) . ({ 12 / / })\n"
    "# sentence pair 8\n"
    "Heavy rain closed two schools in the valley .\n"
    "NULL ({ 3 / / }) Rain ({ 2 / / }) closed ({ 3 / / }) schools ({ 5 / / })\n"
)

_EDINBURGH = json.dumps([
    {"id": "e1", "source": "the cat sat on the warm mat", "target": "a cat was sitting on a mat",
     "sureAlign": "1-1 2-3 3-4 6-6", "possibleAlign": "0-0 4-5"},
    {"id": "e2", "source": "rain fell all night", "target": "it rained through the night",
     "sureAlign": "0-1 3-4", "possibleAlign": ""},
])

def _nli(labels: list[str], gold: str, sentence1: str, sentence2: str, *, before: dict[str, str],
         after: dict[str, str], parse1: tuple[str, str] = ("( ... )", "(ROOT ...)")) -> dict[str, object]:
    """An SNLI or MultiNLI record, keys in the corpora's order: ``before`` the gold label (the
    caption or the genre), ``after`` it (the pair's ids); the parses are placeholders."""
    return {"annotator_labels": labels, **before, "gold_label": gold, **after,
            "sentence1": sentence1, "sentence1_binary_parse": parse1[0], "sentence1_parse": parse1[1],
            "sentence2": sentence2, "sentence2_binary_parse": "( ... )", "sentence2_parse": "(ROOT ...)"}


def _nli_tsv(ids: str, rows: list[tuple[str, ...]]) -> str:
    """The corpora's tab-separated form: ``rows`` of (gold label, sentence 1, sentence 2, the
    ``ids`` columns..., five annotator labels), the parses placeholders."""
    head = ("gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
            f"sentence1\tsentence2\t{ids}\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\n")
    return head + "".join("\t".join([gold, "( ... )", "( ... )", "(ROOT ...)", "(ROOT ...)", *rest]) + "\n"
                          for gold, *rest in rows)


def _jsonl(records: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


_DUCKS = "A girl in a yellow coat feeds ducks at a pond."
_SNLI_RECORDS = [
    _nli(["neutral"], "neutral", _DUCKS, "The girl is on a school trip.", before={"captionID": "c1#0"},
         after={"pairID": "c1#0r1n"}, parse1=("( ( A girl ) ... )", "(ROOT (S ...))")),
    _nli(["entailment", "neutral"], "-", _DUCKS, "A child is outdoors.", before={"captionID": "c1#0"},
         after={"pairID": "c1#0r1e"}),
    _nli(["contradiction"], "contradiction", "Two men carry a canoe up a hill.", "The men are asleep.",
         before={"captionID": "c2#1"}, after={"pairID": "c2#1r1c"}),
]
_SNLI_JSONL = _jsonl(_SNLI_RECORDS)
_SNLI_TSV = _nli_tsv("captionID\tpairID", [
    ("neutral", "A girl in a yellow coat feeds ducks.", "The girl is on a trip.", "c1#0", "c1#0r1n", "neutral",
     "", "", "", ""),
    ("-", "A girl in a yellow coat feeds ducks.", "A child is outside.", "c1#0", "c1#0r1e", "entailment",
     "neutral", "neutral", "entailment", "contradiction"),
    ("entailment", 'Two men carry a "canoe.', "Men carry a boat.", "c2#1", "c2#1r1e", "entailment", "", "", "", ""),
])
_MNLI_RECORDS = [
    _nli(["entailment"], "entailment", "The lamp in the hall flickered all evening.", "A lamp flickered.",
         before={"genre": "fiction"}, after={"pairID": "501e", "promptID": "501"}),
    _nli(["neutral", "contradiction"], "-", "yeah we drove up there in the fall", "They drove in the spring.",
         before={"genre": "telephone"}, after={"pairID": "502n", "promptID": "502"}),
]
_MNLI_JSONL = _jsonl(_MNLI_RECORDS)
_MNLI_TSV = _nli_tsv("promptID\tpairID\tgenre", [
    ("contradiction", 'the report\'s "findings were late', "The report was early.", "601", "601c", "government",
     "contradiction", "contradiction", "neutral", "contradiction", "contradiction"),
    ("neutral", "She painted the gate blue.", "The gate was ugly before.", "602", "602n", "fiction", "neutral",
     "", "", "", ""),
])

#: name -> (file name, bytes, format key)
SEEDS: dict[str, tuple[str, bytes, str]] = {
    "rte1": ("rte1.xml", _RTE1.encode(), "rte_xml"),
    "rte3": ("rte3.xml", _RTE3.encode(), "rte_xml"),
    "msrp": ("msrp.tsv", _MSRP.encode(), "msrp"),
    "sts": ("sts.tsv", _STS.encode(), "sts"),
    "sick": ("SICK.txt", _SICK.encode(), "sick"),
    "csv": ("pairs.csv", _CSV.encode(), "csv"),
    "jsonl": ("pairs.jsonl", _JSONL.encode(), "jsonl"),
    "json_list": ("pairs.json", _JSON_LIST.encode(), "jsonl"),
    "msr_align": ("RTE2_dev_X.align.txt", _MSR.encode(), "msr_align"),
    "edinburgh": ("gold.json", _EDINBURGH.encode(), "edinburgh"),
    "snli_jsonl": ("snli_1.0_dev.jsonl", _SNLI_JSONL.encode(), "snli"),
    "snli_tsv": ("snli_1.0_dev.txt", _SNLI_TSV.encode(), "snli"),
    "mnli_jsonl": ("multinli_1.0_dev_matched.jsonl", _MNLI_JSONL.encode(), "multinli"),
    "mnli_tsv": ("multinli_1.0_dev_matched.txt", _MNLI_TSV.encode(), "multinli"),
}

# -- mutations -------------------------------------------------------------------------------

_INSERTS = [
    b'"', b"'", b"\r", b"\r\n", b"\n", b"\n\n", b"\t", b",", b"{", b"[", b"]", b"}", b"<", b">", b"&", b"&#0;",
    b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\x8b", b"\xe2\x80\xae",
    b"\xc2\xa0", b"\x1b", b"\x7f", b"\x0c", b"\x0b", b"\x1c", b"\xd9\xa3", b"\xef\xbc\x93", b"\xed\xa0\x80",
    b"\xc3", b"\xe9", b"\\ud800", b"\\u0000", b"NaN", b"Infinity", b"1e999", b"true", b"null", b"{}", b"[]",
    b"9" * 5000, b"-", b"({", b"})", b" p", b"p0", b"# sentence pair 9\n", b"\xf0\x9f\x98\x80", b"\xcc\x81",
    b"\xc3\x83\xc2\xa9", b"None", b"\"\"", b"\\", b"\\\"", b"\xe0\xa5\xa7", b"\xef\xbf\xbf", b"\xf4\x90\x80\x80",
]
_VALUES = [b"{}", b"[]", b"null", b"true", b"false", b"1.5", b"12345678901234567890123", b'{"a": 1}',
           b'""', b"0", b"-0", b"1e400", b"[1, [2]]", b'"\\u0007"', b'"  "', b'"\\ud83d"', b"9" * 5000]
_NUMBER_SWAPS = [b"9" * 5000, b"\xd9\xa3", b"\xef\xbc\x93", b"1e999", b"-1", b"nan", b"inf", b"1_0", b"0x1f",
                 b"", b" ", b"1.2.3", b"+", b"99999999999", b"\xe0\xa5\xa8", b"true"]
_DECLARATIONS = [b"ISO-8859-1", b"UTF-16", b"bogus", b"utf-8", b"US-ASCII", b"UTF-32", b"windows-1252",
                 b"Shift_JIS", b"utf8", b"", b"UTF-16LE"]
_ENCODINGS = ["latin-1", "utf-16", "utf-16-le", "cp1252", "utf-32", "utf-8-sig", "ascii"]


def _pos(data: bytes, n: int) -> int:
    return n % (len(data) + 1)


def truncate(data: bytes, n: int) -> bytes:
    return data[: _pos(data, n)]


def flip_byte(data: bytes, n: int) -> bytes:
    if not data:
        return data
    i = n % len(data)
    return data[:i] + bytes([data[i] ^ (1 + (n >> 12) % 255)]) + data[i + 1:]


def delete_span(data: bytes, n: int) -> bytes:
    i = _pos(data, n)
    return data[:i] + data[i + 1 + (n >> 12) % 40:]


def duplicate_span(data: bytes, n: int) -> bytes:
    i = _pos(data, n)
    j = _pos(data, n >> 10)
    span = data[min(i, j): max(i, j)][:400]
    k = _pos(data, n >> 20)
    return data[:k] + span + data[k:]


def insert(data: bytes, n: int) -> bytes:
    i = _pos(data, n)
    return data[:i] + _INSERTS[(n >> 16) % len(_INSERTS)] + data[i:]


def line_ends(data: bytes, n: int) -> bytes:
    mode = n % 4
    if mode == 0:
        return data.replace(b"\n", b"\r")
    if mode == 1:
        return data.replace(b"\n", b"\r\n")
    if mode == 2:
        parts = data.split(b"\n")
        return b"".join(p + (b"\r", b"\n", b"\r\n")[(n >> (2 + i % 20)) % 3] for i, p in enumerate(parts))
    i = _pos(data, n >> 2)
    return data[:i] + b"\r" + data[i:]


def deep_nest(data: bytes, n: int) -> bytes:
    depth = (40, 1000, 100_000, 33)[n % 4]
    i = _pos(data, n >> 2)
    if data.lstrip()[:1] == b"<":
        return data[:i] + b"<a>" * depth + b"</a>" * depth + data[i:]
    if (n >> 3) % 2:
        return data[:i] + b"[" * depth + data[i:]
    return data[:i] + b"[" * depth + b"]" * depth + data[i:]


def numbers(data: bytes, n: int) -> bytes:
    runs = list(re.finditer(rb"[0-9]+", data))
    if not runs:
        return data
    run = runs[n % len(runs)]
    return data[: run.start()] + _NUMBER_SWAPS[(n >> 8) % len(_NUMBER_SWAPS)] + data[run.end():]


def json_values(data: bytes, n: int) -> bytes:
    values = list(re.finditer(rb':\s*("(?:[^"\\]|\\.)*"|-?[0-9.eE+-]+|true|false|null)', data))
    if not values:
        return data
    value = values[n % len(values)]
    return data[: value.start(1)] + _VALUES[(n >> 8) % len(_VALUES)] + data[value.end(1):]


def encoding(data: bytes, n: int) -> bytes:
    target = _ENCODINGS[n % len(_ENCODINGS)]
    return data.decode("utf-8", "replace").encode(target, "replace")


def declaration(data: bytes, n: int) -> bytes:
    body = re.sub(rb"^\s*<\?xml[^>]*\?>", b"", data)
    name = _DECLARATIONS[n % len(_DECLARATIONS)]
    decl = b'<?xml version="1.0"?>' if not name else b'<?xml version="1.0" encoding="' + name + b'"?>'
    if (n >> 8) % 3 == 0:
        body = body.replace(b"The", "Th\u00e9".encode())
    return decl + b"\n" + body


def quote(data: bytes, n: int) -> bytes:
    starts = [m.end() for m in re.finditer(rb"[,\t\n]", data)] or [0]
    i = starts[n % len(starts)]
    return data[:i] + b'"' + data[i:]


def lines_shuffle(data: bytes, n: int) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i, j = n % len(lines), (n >> 8) % len(lines)
    if (n >> 16) % 2:
        lines.insert(i, lines[j])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def bom(data: bytes, n: int) -> bytes:
    mark = (b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")[n % 5]
    if (n >> 4) % 2:
        return mark + data
    i = _pos(data, n >> 5)
    return data[:i] + mark + data[i:]


def long_field(data: bytes, n: int) -> bytes:
    """Make one sentence-like run long: past 4 KB (sniffing), or past the per-sentence limit."""
    words = list(re.finditer(rb"[A-Za-z]{3,}", data))
    if not words:
        return data
    word = words[n % len(words)]
    times = min((600, 3000, 30_000)[(n >> 8) % 3], 1_000_000 // (len(word.group(0)) + 1))
    sep = b" " if (n >> 10) % 2 else b""
    return data[: word.end()] + (sep + word.group(0)) * times + data[word.end():]


def odd_unicode(data: bytes, n: int) -> bytes:
    chars = ["\u200b", "\u200d", "\u202e", "\u2028", "\u0085", "\u00a0", "\ufeff", "\u0007", "\ue000",
             "\U0001f600", "e\u0301", "\u0663", "\uff13", "\u0378", "\ufffd", "\u00c3\u00a9"]
    text = data.decode("utf-8", "replace")
    i = n % (len(text) + 1)
    return (text[:i] + chars[(n >> 12) % len(chars)] + text[i:]).encode("utf-8", "surrogatepass")


MUTATIONS: dict[str, Callable[[bytes, int], bytes]] = {
    f.__name__: f for f in (
        truncate, flip_byte, delete_span, duplicate_span, insert, line_ends, deep_nest, numbers, json_values,
        encoding, declaration, quote, lines_shuffle, bom, long_field, odd_unicode,
    )
}


def mutate(data: bytes, mutations: list[tuple[str, int]]) -> bytes:
    for name, n in mutations:
        data = MUTATIONS[name](data, n)
    return data


# -- checking what was accepted --------------------------------------------------------------

_REPR_MARKERS = ("{'", "['", "None", "True", "False")
_MOJIBAKE = ("\u00c3", "\u00e2\u20ac", "\u00c2", "\ufffd")
#: MSRP and SICK skip their first line only when it is the header (its first column's name).
_HEADER_FIRST_COLUMN = {"msrp": "quality", "sick": "pair_id"}
# The fields each JSON format reads: one of them given as a boolean, object or list must
# not be accepted (fields a format does not read may hold anything).
_READ_FIELDS = {
    "jsonl": "id|pairID|task|genre|label|gold_label|score|text|premise|sentence1|t|hypothesis|sentence2|h",
    "edinburgh": "id|source|target|sureAlign|possibleAlign",
    "snli": "pairID|gold_label|sentence1|sentence2",
    "multinli": "pairID|gold_label|genre|sentence1|sentence2",
}
_BAD_JSON_FIELD = {
    fmt: re.compile(rf'"({names})"\s*:\s*(true|false|\{{|\[)', re.IGNORECASE) for fmt, names in _READ_FIELDS.items()
}


def _bad_chars(value: str) -> bool:
    return any(unicodedata.category(ch)[0] == "C" for ch in value)


def garbage(dataset: Dataset, data: bytes) -> list[str]:
    """What is wrong with an accepted dataset, given the bytes it came from ([] if nothing)."""
    problems: list[str] = []
    source = data.decode("utf-8", "replace")
    for pair in dataset.pairs:
        where = f"pair {pair.id!r}"
        strings = {"id": pair.id, "text": pair.text, "hypothesis": pair.hypothesis}
        if pair.task is not None:
            strings["task"] = pair.task
        for field, value in strings.items():
            if not isinstance(value, str) or not value or value != value.strip():
                problems.append(f"{where}: {field} is {value!r}")
                continue
            if _bad_chars(value):
                problems.append(f"{where}: {field} holds a control or format character")
            for marker in _REPR_MARKERS + _MOJIBAKE:
                if marker in value and marker not in source:
                    problems.append(f"{where}: {field} holds {marker!r}, which the file does not")
        if len(pair.id) > MAX_ID_CHARS or len(pair.text) > MAX_SENTENCE_CHARS or len(pair.hypothesis) > MAX_SENTENCE_CHARS:
            problems.append(f"{where}: a field is over its length limit")
        if pair.label is not None and pair.label not in LABELS:
            problems.append(f"{where}: label {pair.label!r}")
        if pair.score is not None and (type(pair.score) is not float or not math.isfinite(pair.score)):
            problems.append(f"{where}: score {pair.score!r}")
        for side in (pair.text_tokens, pair.hypothesis_tokens):
            if side is None:
                continue
            if not isinstance(side, tuple) or not side:
                problems.append(f"{where}: tokens {side!r}")
                continue
            for token in side:
                if not isinstance(token, str) or not token or _bad_chars(token) or any(c.isspace() for c in token):
                    problems.append(f"{where}: token {token!r}")
        if pair.gold_alignment is not None:
            n_p, n_h = len(pair.text_tokens or ()), len(pair.hypothesis_tokens or ())
            for p, h in pair.gold_alignment.links:
                if not (0 <= p < n_p and 0 <= h < n_h):
                    problems.append(f"{where}: link {(p, h)} outside {n_p}x{n_h}")
    if dataset.format in _BAD_JSON_FIELD and _BAD_JSON_FIELD[dataset.format].search(source):
        problems.append("a field given as a boolean, object or list was accepted")
    loader = LOADERS[dataset.format]  # a line format's facts are on its row
    if loader.ranged and not (dataset.format == "jsonl" and source.lstrip("\ufeff \n\t\r").startswith("[")):
        normalised = source.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        if dataset.format == "csv":  # a quoted field may hold line ends: the csv module's records
            records = [",".join(row) for row in csv.reader(io.StringIO(normalised)) if "".join(row).strip()]
        else:
            records = [line for line in normalised.split("\n") if line.strip()]
        header = loader.has_header(normalised.lstrip()[:1].encode())
        if dataset.format in _HEADER_FIRST_COLUMN:
            first = records[0].lstrip("\ufeff").split("\t", 1)[0].strip().lower() if records else ""
            header = first == _HEADER_FIRST_COLUMN[dataset.format]
        expected = len(records) - (1 if header else 0)
        skipped = sum(int(re.match(r"[0-9,]+", note).group(0).replace(",", ""))  # type: ignore[union-attr]
                      for note in getattr(dataset, "notes", ()) if "skipped" in note)
        if len(dataset) + skipped != expected:
            problems.append(f"{len(dataset)} pairs (+{skipped} skipped) from {expected} record lines: rows swallowed?")
    return problems


def run_case(data: bytes, name: str, fmt: str | None = None) -> tuple[str, str]:
    """``(outcome, detail)``: outcome is refused, accepted, garbage or foreign."""
    try:
        dataset = load_bytes(data, name, fmt=fmt)
    except DatasetError as err:
        message = str(err)
        if not message.strip():
            return "foreign", "a DatasetError with an empty message"
        return "refused", message
    except Exception as err:  # noqa: BLE001 - this is what the fuzzer looks for
        return "foreign", f"{type(err).__name__}: {err}"[:300]
    problems = garbage(dataset, data)
    if problems:
        return "garbage", "; ".join(problems[:3])[:300]
    return "accepted", f"{len(dataset)} pairs ({dataset.format})"
