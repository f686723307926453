"""Large files stream: a line-format file is read in ranges of records, never held whole
as bytes, text and lines; ``corpus-stats`` holds one range of pairs at a time; a line
past the line limit is refused after reading the limit's worth of it, not the line.

Memory is measured with tracemalloc (every Python allocation, deterministic), on files
small enough for a unit test; bench/bench_loaders.py measures the process's peak on
files near the limit."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from explorer.cli import main
from explorer.datasets import DatasetError, load
from explorer.datasets.reading import MAX_LINE_CHARS
from explorer.mtclassify import corpus_statistics

MB = 1024 * 1024
#: Written for these tests.
SENTENCES = [
    ("The harbour crane lifted three containers before the storm arrived.", "The crane lifted containers.", "entailment"),
    ("A violinist practised scales in the empty concert hall all morning.", "The hall was full of people.", "contradiction"),
    ("Two cyclists repaired a puncture beside the canal path.", "The cyclists fixed a tyre.", "entailment"),
    ("The village bakery started selling rye bread on Sundays.", "The bakery sells bread.", "neutral"),
]


def write_jsonl(path: Path, n: int, *, tasks: tuple[str, ...] = ("north", "south", "east")) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            text, hypothesis, label = SENTENCES[i % len(SENTENCES)]
            record = {"id": f"r{i}", "text": f"{text} Item {i}.", "hypothesis": hypothesis, "label": label,
                      "task": tasks[i % len(tasks)]}
            out.write(json.dumps(record) + "\n")
    return path


def traced_peak(work: Callable[[], Any]) -> tuple[Any, int]:
    """What ``work`` returns (or raises: the exception), and the peak bytes it allocated."""
    tracemalloc.start()
    try:
        try:
            result: Any = work()
        except Exception as err:
            result = err
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def over_long_file(path: Path, size: int) -> Path:
    """A valid first record, then one line of ``size`` bytes (a JSON string that never ends)."""
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"text": "A short text.", "hypothesis": "Short."}) + "\n")
        out.write('{"text": "' + "x" * size + '", "hypothesis": "y"}\n')
    return path


def test_an_over_long_line_is_refused_after_reading_the_limit_not_the_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.batch.source import scan

    path = over_long_file(tmp_path / "long.jsonl", 96 * MB)
    assert main(["corpus-stats", str(write_jsonl(tmp_path / "warm.jsonl", 3))]) == 0  # imports done
    for read in (lambda: scan(path, 100), lambda: main(["corpus-stats", str(path)])):
        result, peak = traced_peak(read)
        # a block of the file, and at most the limit's worth of the line (4 bytes a character)
        assert peak < 8 * MB, f"{peak / MB:.0f} MB allocated to refuse a 96 MB line"
        if isinstance(result, Exception):
            assert isinstance(result, DatasetError) and "line 2" in str(result), result
        else:
            assert result == 2
            err = capsys.readouterr().err
            assert "line 2" in err and f"{MAX_LINE_CHARS:,}-character line limit" in err
            assert "Traceback" not in err


def test_multi_byte_characters_count_as_characters_in_the_line_limit(tmp_path: Path) -> None:
    from explorer.batch.source import scan

    path = tmp_path / "wide.jsonl"
    wide = "é" * (MAX_LINE_CHARS - 30_000)  # 2 bytes each: over the limit in bytes, not in characters
    line = json.dumps({"text": wide[:19_000], "hypothesis": "y", "note": wide}, ensure_ascii=False)
    assert len(line) < MAX_LINE_CHARS < len(line.encode())
    path.write_text(json.dumps({"text": "A text.", "hypothesis": "Hypothesis."}) + "\n" + line + "\n"
                    + line.replace("é", "éé", 15_000) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 3 is longer than the 1,000,000-character line limit"):
        scan(path, 1)
    path.write_text(path.read_text(encoding="utf-8").rsplit("\n", 2)[0] + "\n", encoding="utf-8")
    source = scan(path, 1)
    assert source is not None and source.records == 2


@pytest.mark.slow  # tokenises 1,600 pairs, some twice
def test_corpus_stats_holds_one_range_of_pairs_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import preprocess
    from explorer.batch import source

    # without the analysis cache (4,096 sentences, whatever the file), what is held shows
    monkeypatch.setattr(preprocess, "analyze", preprocess.analyze.__wrapped__)
    monkeypatch.setattr(source, "STREAM_RECORDS", 100)
    small, large = write_jsonl(tmp_path / "small.jsonl", 400), write_jsonl(tmp_path / "large.jsonl", 1200)
    expected = {r.group: r for r in corpus_statistics(load(large).pairs)}
    assert main(["corpus-stats", str(small)]) == 0  # imports done
    capsys.readouterr()
    peaks = []
    for path in (small, large):
        code, peak = traced_peak(lambda: main(["corpus-stats", str(path), "--json"]))  # noqa: B023
        assert code == 0
        peaks.append(peak)
        out = capsys.readouterr().out
    rows = {r["group"]: r for r in json.loads(out)["rows"]}
    assert set(rows) == set(expected) == {"all", "north", "south", "east"}
    for group, want in expected.items():
        got = rows[group]
        assert got["n"] == want.n
        for key in ("positive_share", "mean_text_length", "mean_hypothesis_length", "mean_ldr", "mean_edit_distance"):
            assert got[key] == pytest.approx(getattr(want, key), rel=1e-12), (group, key)
    # three times the pairs, about the same memory: holding every pair analysed grows it
    # by about 3 KB a pair (2.4 MB for these 800 more)
    assert peaks[1] < peaks[0] + 0.8 * MB, [f"{p / MB:.2f} MB" for p in peaks]


def test_the_command_lines_dataset_is_the_loaders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  repo_root: Path) -> None:
    from explorer.batch import source
    from explorer.batch.source import read_dataset

    monkeypatch.setattr(source, "STREAM_RECORDS", 7)
    path = write_jsonl(tmp_path / "pairs.jsonl", 50)
    assert read_dataset(path).pairs == load(path).pairs  # eight ranges
    for sample in ("pairs.csv", "typical.xml"):  # one range; a format read whole
        assert read_dataset(repo_root / "sample_data" / sample) == load(repo_root / "sample_data" / sample)
    twice = tmp_path / "twice.jsonl"
    twice.write_text(path.read_text(encoding="utf-8").replace('"r44"', '"r3"'), encoding="utf-8")
    with pytest.raises(DatasetError, match="pair id 'r3' occurs more than once"):
        read_dataset(twice)


def test_a_file_read_whole_is_refused_past_its_own_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         repo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.batch import source

    xml = repo_root / "sample_data" / "typical.xml"
    monkeypatch.setattr(source, "MAX_WHOLE_BYTES", xml.stat().st_size - 1)
    assert main(["evaluate", str(xml)]) == 2
    err = capsys.readouterr().err
    assert "limit for files read whole" in err and "convert the file to JSON lines" in err
    path = write_jsonl(tmp_path / "pairs.jsonl", 400)  # larger, but read in ranges
    assert path.stat().st_size > xml.stat().st_size
    assert main(["corpus-stats", str(path)]) == 0
