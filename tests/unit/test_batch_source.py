"""A line-format file read in ranges (explorer.batch.source): every chunk, parsed by its
worker, gives exactly the pairs the whole-file loader gives, in order, with the same
ids, and an error names the file's own line number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.batch.source import FileSource, open_source, read_range, scan
from explorer.batch.worker import ChunkTask, task_pairs
from explorer.datasets import LOADERS, Dataset, DatasetError, load
from explorer.pairs import Pair

#: Written for this test.
SENTENCES = [
    ("A tall ship sailed into the harbour at dusk.", "A ship sailed into a harbour."),
    ("The choir sang three songs at the wedding.", "The choir sang at a wedding."),
    ("A boy kicked the red ball over the fence.", "The ball went over the fence."),
    ("Farmers sold apples and pears at the market.", "Apples were sold."),
    ("The old clock in the hall stopped at noon.", "The clock kept running."),
    ("Two cyclists climbed the steep hill slowly.", "Cyclists climbed a hill."),
    ("The baker burned the first tray of bread.", "Some bread was burned."),
]


def chunk_pairs(source: FileSource, shipped: bool = False) -> list:
    pairs = []
    for index, r in enumerate(source.ranges):
        where = {"raw": read_range(source, index)} if shipped else {"path": str(source.path)}
        task = ChunkTask(index, 0, ("bleu",), source.name, fmt=source.format, span=(r.start, r.end),
                         header=source.header, header_lines=source.header_lines, first_line=r.first_line,
                         first_record=r.first_record, **where)
        got, _ = task_pairs(task)
        assert len(got) <= r.records
        pairs += got
    return pairs


def same(a, b) -> None:  # type: ignore[no-untyped-def]
    assert [(p.id, p.text, p.hypothesis, p.label, p.task, p.score) for p in a] == \
        [(p.id, p.text, p.hypothesis, p.label, p.task, p.score) for p in b]


def jsonl(path: Path, *, ids: bool, blank_every: int = 0, crlf: bool = False, bom: bool = False) -> Path:
    end = "\r\n" if crlf else "\n"
    lines = []
    for i, (t, h) in enumerate(SENTENCES):
        record = {"text": t, "hypothesis": h, "label": "entailment" if i % 2 else "non-entailment", "task": f"t{i % 3}"}
        if ids:
            record["id"] = f"x{i}"
        lines.append(json.dumps(record))
        if blank_every and i % blank_every == 0:
            lines.append("   ")
    path.write_bytes(((("\ufeff" if bom else "") + end.join(lines) + end)).encode())
    return path


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("variant", ["plain", "numbered", "blank lines", "crlf+bom"])
def test_json_lines_chunks_give_the_loaders_pairs(tmp_path: Path, chunk_size: int, variant: str) -> None:
    path = jsonl(tmp_path / "d.jsonl", ids=variant != "numbered", blank_every=2 if variant == "blank lines" else 0,
                 crlf=variant == "crlf+bom", bom=variant == "crlf+bom")
    source = scan(path, chunk_size)
    assert source is not None and source.records == len(SENTENCES)
    assert len(source.ranges) == -(-len(SENTENCES) // chunk_size)
    same(chunk_pairs(source), load(path).pairs)
    same(chunk_pairs(source, shipped=True), load(path).pairs)


@pytest.mark.parametrize("chunk_size", [1, 2, 3])
def test_csv_records_that_run_over_lines_are_never_cut(tmp_path: Path, chunk_size: int) -> None:
    rows = ["id,text,hypothesis,label"]
    for i, (t, h) in enumerate(SENTENCES):
        text = t.replace(" ", '\n "quoted" ', 1) if i % 2 else t  # a line break and quotes inside the field
        rows.append(f'c{i},"{text.replace(chr(34), chr(34) * 2)}","{h}",{"entailment" if i % 3 else "non-entailment"}')
    path = tmp_path / "multi.csv"
    path.write_text("\n".join(rows) + "\n")
    source = scan(path, chunk_size)
    assert source is not None and source.records == len(SENTENCES)
    assert len(source.ranges) == -(-len(SENTENCES) // chunk_size)
    whole = load(path)
    assert whole.pairs[1].text == 'The "quoted" choir sang three songs at the wedding.'
    same(chunk_pairs(source), whole.pairs)


def test_tsv_formats_with_a_header_and_sts_numbering(tmp_path: Path) -> None:
    snli = tmp_path / "snli.txt"
    header = "gold_label\tsentence1_binary_parse\tsentence1\tsentence2\tpairID\n"
    rows = [f"{lab}\t( x )\t{t}\t{h}\tid{i}\n" for i, ((t, h), lab) in
            enumerate(zip(SENTENCES, ["entailment", "-", "neutral", "contradiction"] * 2, strict=False))]
    snli.write_text(header + "".join(rows[:3]) + "\n" + "".join(rows[3:]), encoding="utf-8")
    sts = tmp_path / "sts.tsv"
    sts.write_text("".join(f"{i % 5}.0\t{t}\t{h}\n" for i, (t, h) in enumerate(SENTENCES)), encoding="utf-8")
    for path, fmt in ((snli, "snli"), (sts, "sts")):
        for chunk_size in (1, 2, 4):
            source = scan(path, chunk_size)
            assert source is not None and source.format == fmt
            same(chunk_pairs(source), load(path).pairs)
    assert [p.id for p in load(sts).pairs] == [str(i) for i in range(1, len(SENTENCES) + 1)]


def test_an_error_in_a_later_chunk_names_the_files_line(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "d.jsonl", ids=True)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = '{"text": "only a text"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 6"):
        load(path)
    source = scan(path, 2)  # the first chunk is fine, so the scan accepts the file
    assert source is not None
    with pytest.raises(DatasetError, match="d.jsonl: line 6: needs string fields"):
        chunk_pairs(source)


def test_the_first_chunk_is_checked_before_any_work(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "a b", "hypothesis": "a", "label": "maybe"}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match="line 1"):
        scan(path, 10)


def test_other_formats_and_lone_carriage_returns_are_loaded_whole(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"text": t, "hypothesis": h} for t, h in SENTENCES]), encoding="utf-8")
    assert isinstance(open_source(listed, 2), Dataset)
    old_mac = tmp_path / "mac.jsonl"
    old_mac.write_bytes(b"\r".join(json.dumps({"text": t, "hypothesis": h}).encode() for t, h in SENTENCES) + b"\r")
    assert scan(old_mac, 2) is None
    assert len(open_source(old_mac, 2)) == len(SENTENCES)  # type: ignore[arg-type]


def test_the_fingerprint_follows_the_content(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "d.jsonl", ids=True)
    first = scan(path, 3)
    path.write_text(path.read_text(encoding="utf-8").replace("harbour", "port"), encoding="utf-8")
    second = scan(path, 3)
    assert first is not None and second is not None and first.fingerprint != second.fingerprint


# -- a loader's line facts: how a batch reads each format --------------------------------


def _seeds() -> list[tuple[str, str, bytes, str]]:
    from tests.unit.loader_fuzz import SEEDS

    return [(seed, name, data, fmt) for seed, (name, data, fmt) in sorted(SEEDS.items())]


@pytest.mark.parametrize(("seed", "name", "data", "fmt"), _seeds(), ids=[s[0] for s in _seeds()])
def test_a_rows_line_facts_are_how_a_batch_reads_the_format(tmp_path, seed, name, data, fmt) -> None:  # type: ignore[no-untyped-def]
    """A ranged format really is cut by lines: read in ranges of one record each, a file
    gives the whole-file loader's pairs (ids numbered by record), its header is the
    first line exactly when the row's ``header`` says so, and its records are counted
    on its bytes; a format not ranged (or a JSON list) is loaded whole."""
    from explorer.batch.source import _ranges, iter_pairs
    from explorer.datasets.counting import count_records

    info = LOADERS[fmt]
    path = tmp_path / name
    path.write_bytes(data)
    whole = load(path)
    assert whole.format == fmt
    source = scan(path, 1)
    if not info.ranged or seed == "json_list":
        assert source is None
        return
    assert source is not None and source.format == fmt and len(source.ranges) == source.records == len(whole)
    assert bool(source.header) == (info.header == "always" or (info.header == "tsv" and seed.endswith("tsv")))
    assert count_records(data, name) == len(whole)
    ranged = [p for pairs, _ in _ranges(source) for p in pairs]
    assert [(p.id, p.text, p.hypothesis, p.label, p.score) for p in ranged] == \
        [(p.id, p.text, p.hypothesis, p.label, p.score) for p in whole.pairs]
    assert sum(len(pairs) for pairs, _ in iter_pairs(path)) == len(whole)


@pytest.mark.parametrize("fmt", sorted(LOADERS))
def test_a_numbered_format_numbers_pairs_without_an_id_from_the_record_given(fmt: str) -> None:
    """``numbered`` is true exactly for the parsers that take ``first_record=``: a range
    starting at record 5 numbers its first pair without an id 5."""
    info = LOADERS[fmt]
    records = {"jsonl": '{"text": "A b c.", "hypothesis": "A b."}\n',
               "csv": "text,hypothesis\nA b c.,A b.\n", "sts": "3.0\tA b c.\tA b.\n"}
    if not info.numbered:
        with pytest.raises(TypeError):
            info.parse("", "x", first_record=5)  # type: ignore[call-arg]
        return
    pairs: list[Pair] = info.parse(records[fmt], "x", first_record=5)  # type: ignore[call-arg]
    assert [p.id for p in pairs] == ["5"]
