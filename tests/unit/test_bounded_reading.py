"""Reading an untrusted file bounded: records counted on the bytes
(explorer.datasets.counting), the parse in a child process under a memory cap, a time
limit and a pair limit (runtime.isolated_reader)."""

from __future__ import annotations

import fcntl
import json
import pickle
import subprocess
from pathlib import Path

import psutil
import pytest

from explorer.cache import cache_dir
from explorer.datasets import DatasetError, load_bytes, reading
from explorer.datasets.counting import HEAD_BYTES, count_records, cut_head, head_format, records_over
from runtime.isolated_reader import ReadLimitError, ReadLimits, _result, footprint, read_bounded

MB = 1024 * 1024
LIMITS = ReadLimits(pairs=1000, bytes=8 * MB, memory=1024 * MB, seconds=60, wait=5,
                    batch_hint="use `batch` for corpora this size")


def sts(n: int) -> bytes:
    return "".join(f"{i % 6}\tA man plays the guitar number {i}.\tA man plays music.\n" for i in range(n)).encode()


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))  # the reader slots' lock files


# -- counting -------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "name", "records"), [
    (b"\xef\xbb\xbftext,hypothesis\n\n  \n\t\na,b\r\nc,d\re,f", "x.csv", 3),  # BOM, header, blanks, CRLF, CR
    (b'text,hypothesis\n"One line,\r\nthen\n\nanother",b\n"a ""quoted"" word\nand,more",c\nd,"e\n"\n', "x.csv", 3),
    (b'text,hypothesis\nShe said "yes.,b\nc,d\n', "x.csv", 2),  # a quote inside an unquoted field opens nothing
    (b"\xef\xbb\xbf1\ta\tb\n \t\n2\ta\tb\n\n", "x.tsv", 2),  # STS: no header
    (b"3\ta\tb", "x.tsv", 1),  # no final line end
    (b'{"text": "a {", "hypothesis": "b"}\n\n{"text": "c", "hypothesis": "d"}\n', "x.jsonl", 2),
    (b'[{"text": "a { {", "hypothesis": "b \\" {"},\n {"text": "c", "hypothesis": "d"}]', "x.json", 2),
    (b'<entailment-corpus><pair id="1" value="TRUE"><t>a</t><h>b</h></pair>\n<pair id="2"><t>c</t><h>d</h></pair>'
     b"</entailment-corpus>", "x.xml", 2),
    (b"Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta\tb\n", "x.tsv", 1),
    (b'{"gold_label": "neutral", "sentence1": "a", "sentence2": "b", "pairID": "1"}\n', "x.jsonl", 1),
    (b"gold_label\tsentence1\tsentence2\tpairID\nneutral\ta\tb\t1\n", "x.txt", 1),  # SNLI TSV: a header
])
def test_records_are_counted_as_the_loaders_read_them(data: bytes, name: str, records: int) -> None:
    assert count_records(data, name) == records
    assert len(load_bytes(data, name)) == records


def test_records_over_counts_only_past_the_limit() -> None:
    data = sts(1500)
    assert records_over(data, "x.tsv", 1500) is None
    assert records_over(data, "x.tsv", 1499) == 1500
    assert records_over(b"not a dataset\n", "x.txt", 0) is None  # unrecognised: the loader says why


# -- the reader -----------------------------------------------------------------------------


def test_the_child_reads_what_the_library_reads(shared_file) -> None:  # type: ignore[no-untyped-def]
    data = sts(50)
    result = read_bounded(data, "pairs.tsv", LIMITS)
    assert result.dataset == load_bytes(data, "pairs.tsv")
    assert result.footprint > 50 * 100 and result.child_peak > 0
    gold = shared_file("data", "edinburgh", "gold.train.sure.json")  # pairs with gold alignments
    read = read_bounded(gold.read_bytes(), gold.name, ReadLimits(pairs=100_000, bytes=64 * MB, memory=1024 * MB,
                                                                  seconds=120))
    expected = load_bytes(gold.read_bytes(), gold.name)
    assert read.dataset == expected
    assert [p.gold_alignment for p in read.dataset.pairs] == [p.gold_alignment for p in expected.pairs]


def test_a_file_over_the_pair_limit_is_refused_before_any_child_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_child(*args: object, **kwargs: object) -> None:
        raise AssertionError("a child process was started")

    monkeypatch.setattr(subprocess, "Popen", no_child)
    with pytest.raises(ReadLimitError, match=r"big\.tsv: 1,001 records is over the 1,000-pair limit.*`batch`") as err:
        read_bounded(sts(1001), "big.tsv", LIMITS)
    assert err.value.limit == "pairs"


def test_pairs_a_count_cannot_see_are_refused_by_the_child() -> None:
    # Edinburgh++ records are not counted before parsing: the child stops at the limit.
    records = [{"id": str(i), "source": "a b", "target": "a b", "sureAlign": "0-0", "possibleAlign": ""}
               for i in range(12)]
    with pytest.raises(ReadLimitError, match="more than 10 records are over the 10-pair limit") as err:
        read_bounded(json.dumps(records).encode(), "gold.json", ReadLimits(pairs=10, bytes=MB, memory=1024 * MB,
                                                                             seconds=60))
    assert err.value.limit == "pairs"


def test_a_file_the_loader_refuses_keeps_its_message() -> None:
    with pytest.raises(DatasetError, match=r"broken\.tsv: line 2 has 2 tab-separated fields") as err:
        read_bounded(b"1\ta\tb\n2\tc\n", "broken.tsv", LIMITS)
    assert not isinstance(err.value, ReadLimitError)


@pytest.mark.slow
def test_a_parse_past_the_memory_cap_is_refused_naming_it() -> None:
    with pytest.raises(ReadLimitError, match=r"more than the app's 80 MB memory limit") as err:
        read_bounded(sts(100_000), "big.tsv", ReadLimits(pairs=100_000, bytes=64 * MB, memory=80 * MB, seconds=120))
    assert err.value.limit == "memory"


@pytest.mark.slow
def test_a_read_past_its_processor_time_is_ended_and_refused_naming_it() -> None:
    with pytest.raises(ReadLimitError, match=r"more than the app's 1 seconds of processor time") as err:
        read_bounded(sts(400_000), "slow.tsv", ReadLimits(pairs=400_000, bytes=64 * MB, memory=1024 * MB, seconds=300,
                                                          cpu_seconds=1))
    assert err.value.limit == "cpu_seconds"


@pytest.mark.slow
def test_a_read_past_its_time_is_killed_and_refused_naming_it() -> None:
    with pytest.raises(ReadLimitError, match=r"longer than the app's 0.3-second limit") as err:
        read_bounded(sts(100_000), "slow.tsv", ReadLimits(pairs=100_000, bytes=64 * MB, memory=1024 * MB, seconds=0.3))
    assert err.value.limit == "seconds"
    assert not [c for c in psutil.Process().children(recursive=True) if "runtime.isolated_reader" in c.cmdline()]


def test_readers_beyond_the_machine_wide_number_wait_then_are_refused() -> None:
    folder = cache_dir() / "readers"
    folder.mkdir(parents=True)
    with open(folder / "slot-0.lock", "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(ReadLimitError, match=r"other uploads are being read on this server \(1 at a time\)"):
            read_bounded(sts(3), "x.tsv", ReadLimits(pairs=10, bytes=MB, memory=1024 * MB, seconds=60, wait=0.2))
    assert len(read_bounded(sts(3), "x.tsv", LIMITS).dataset) == 3  # free again


def test_admit_sees_the_size_before_the_dataset_is_rebuilt() -> None:
    seen: list[int] = []

    def refuse(size: int) -> None:
        seen.append(size)
        raise ReadLimitError("too much held", "live")

    with pytest.raises(ReadLimitError, match="too much held"):
        read_bounded(sts(20), "x.tsv", LIMITS, admit=refuse)
    assert seen and seen[0] == footprint(load_bytes(sts(20), "x.tsv"))


def test_a_reply_naming_any_other_class_is_not_rebuilt() -> None:
    hostile = pickle.dumps(("ok", 10, 0)) + pickle.dumps(subprocess.Popen)
    with pytest.raises(ReadLimitError, match="memory limit"):
        _result(hostile, 0, "x.tsv", LIMITS, 0.1, None)


def test_the_loaders_stop_at_a_lowered_pair_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_PAIRS", 5)
    with pytest.raises(reading.PairLimitError) as err:
        load_bytes(b"text,hypothesis\n" + b"a,b\n" * 6, "x.csv")
    assert err.value.count == 6


def test_the_head_is_cut_at_a_line_end_or_before_a_split_character() -> None:
    # The format is recognised from the first MiB: cut at its last line end, or, with none
    # (one long first record), before a character the MiB splits, so it still decodes.
    record = json.dumps({"text": "é" * HEAD_BYTES, "hypothesis": "h"}, ensure_ascii=False).encode() + b"\n"
    for shift in range(3):
        data = b" " * shift + record
        head = cut_head(data)
        assert len(head) <= HEAD_BYTES and data.startswith(head)
        head.decode("utf-8")  # no character cut in two
        assert head_format(data, "long.jsonl") == "jsonl", shift
    lines = b'{"text": "t", "hypothesis": "h"}\n' * (HEAD_BYTES // 20)
    assert cut_head(lines).endswith(b"\n") and len(cut_head(lines)) <= HEAD_BYTES
    assert cut_head(b"short") == b"short"


def test_a_disk_that_refuses_the_temporary_file_sends_the_upload_through_the_pipe(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", full)
    result = read_bounded(sts(30), "pairs.tsv", LIMITS)
    assert len(result.dataset) == 30 and result.dataset.pairs[0].text
