"""The reading layer's encoding policy and limits, and the strict field layer: each
case from a review of the loaders is refused with DatasetError naming the place, or
(where the input is valid) loads."""

from __future__ import annotations

import json

import pytest

from explorer.datasets import DatasetError, detect_format, load, load_bytes, reading
from explorer.pairs import ENTAILMENT

from .loader_fuzz import SEEDS


def refused(data: bytes, name: str, match: str, fmt: str | None = None) -> str:
    with pytest.raises(DatasetError, match=match) as info:
        load_bytes(data, name, fmt=fmt)
    return str(info.value)


# -- line ends and encodings -----------------------------------------------------------------

def test_lone_cr_in_a_field_is_a_line_end_and_refused_by_field_count():
    refused(b"3.2\ta\rb\tc\n", "x.tsv", r"x\.tsv: line 1 has 2 tab-separated fields; expected 3", fmt="sts")
    refused(b"3.2\ta\rb\tc\n", "x.tsv", r"x\.tsv: a TSV the explorer does not recognise")
    refused(b"1.0\ta\tb\n3.2\ta\rb\tc\n", "x.tsv", r"x\.tsv: line 2 has 2 tab-separated fields; expected 3")


@pytest.mark.parametrize("seed", ["sts", "msrp", "sick", "csv", "jsonl", "msr_align", "snli_tsv", "rte1"])
@pytest.mark.parametrize("end", [b"\r", b"\r\n"])
def test_cr_and_crlf_line_ends_load_like_lf(seed, end):
    name, data, fmt = SEEDS[seed]
    expected = load_bytes(data, name)
    converted = load_bytes(data.replace(b"\n", end), name)
    assert converted.format == fmt and converted.pairs == expected.pairs


def test_u2028_inside_a_json_string_does_not_split_the_line():
    line = json.dumps({"text": "A\u2028B.", "hypothesis": "C\x85D."}, ensure_ascii=False)
    data = load_bytes(line.encode() + b"\n", "x.jsonl")
    assert data.pairs[0].text == "A B." and data.pairs[0].hypothesis == "C D."


@pytest.mark.parametrize("encoding", ["ISO-8859-1", "UTF-16", "bogus", "UTF-32", "windows-1252", "Shift_JIS"])
def test_xml_encoding_declaration_other_than_utf8_is_refused(encoding):
    xml = f'<?xml version="1.0" encoding="{encoding}"?>\n<entailment-corpus><pair id="1" value="TRUE">' \
          '<t>Caf\u00e9 open.</t><h>Open.</h></pair></entailment-corpus>'
    message = refused(xml.encode(), "x.xml", r"x\.xml: line 1: the XML declaration says encoding=")
    assert encoding in message and "UTF-8" in message


@pytest.mark.parametrize("digits", [900, 200_000])
def test_a_long_declaration_naming_another_encoding_never_gives_mojibake(digits):
    # Found by bench.fuzz_loaders: a 900-digit version hid the declaration from the check,
    # and expat then decoded the UTF-8 bytes as windows-1252 ("Caf\u00c3\u00a9").
    xml = f'<?xml version="1.{"9" * digits}" encoding="windows-1252"?>\n<entailment-corpus>' \
          '<pair id="1" value="TRUE"><t>Caf\u00e9 open.</t><h>Open.</h></pair></entailment-corpus>'
    try:
        data = load_bytes(xml.encode(), "x.xml")
    except DatasetError as err:
        assert "x.xml" in str(err)
    else:
        assert data.pairs[0].text == "Caf\u00e9 open."
    if digits < 1000:  # within the checked length the declaration itself is refused, by name
        refused(xml.encode(), "x.xml", r"x\.xml: line 1: the XML declaration says encoding=\"windows-1252\"")


@pytest.mark.parametrize("encoding", ["UTF-8", "utf8", "US-ASCII"])
def test_utf8_and_ascii_declarations_are_accepted(encoding):
    xml = f'<?xml version="1.0" encoding="{encoding}"?>\n<entailment-corpus><pair id="1" value="TRUE">' \
          '<t>Cafe open.</t><h>Open.</h></pair></entailment-corpus>'
    assert load_bytes(xml.encode(), "x.xml").pairs[0].text == "Cafe open."


def test_ascii_declaration_over_non_ascii_bytes_is_refused():
    xml = '<?xml version="1.0" encoding="US-ASCII"?><entailment-corpus><pair id="1" value="TRUE">' \
          '<t>Caf\u00e9.</t><h>Open.</h></pair></entailment-corpus>'
    refused(xml.encode(), "x.xml", "encoding=")


@pytest.mark.parametrize(
    "data, match",
    [
        (b"4.0\tcaf\xe9\tb\n", r"line 1 is not valid UTF-8"),
        (b"4.0\ta\tb\n4.0\tc\xed\xa0\x80\td\n", r"line 2 is not valid UTF-8"),
        ("4.0\ta\tb\n".encode("utf-16"), "UTF-16 or UTF-32"),
        (b"4.0\ta\tb\n1.0\tc\x00\td\n", "line 2 holds a NUL byte"),
    ],
)
def test_encoding_policy(data, match):
    refused(data, "x.tsv", match)


def test_bom_is_accepted_once_at_the_start():
    assert load_bytes(b"\xef\xbb\xbf" + SEEDS["sts"][1], "x.tsv").format == "sts"


# -- limits ----------------------------------------------------------------------------------

def test_deep_json_is_refused_before_parsing():
    deep = b"[" * 100_000 + b"]" * 100_000
    refused(deep, "x.json", r"nested more than 32 levels deep \(datasets\.reading\.MAX_JSON_DEPTH\)", fmt="jsonl")
    refused(b'{"text": "a", "hypothesis": "b", "x": ' + b"[" * 5000 + b"\n", "x.jsonl",
            r"x\.jsonl: line 1: JSON nested more than 32")


def test_brackets_inside_json_strings_do_not_count_as_nesting():
    record = {"text": "[[[[{{{{" * 20, "hypothesis": "]]]}}}" * 20, "id": "a\\\"[["}
    assert len(load_bytes(json.dumps(record).encode(), "x.jsonl")) == 1


def test_deep_xml_is_refused_as_soon_as_it_is_met():
    xml = b"<entailment-corpus>" + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</entailment-corpus>"
    refused(xml, "x.xml", r"nested more than 32 deep \(datasets\.reading\.MAX_XML_DEPTH\)")


@pytest.mark.parametrize(
    "data, name, match",
    [
        (b'{"id": ' + b"9" * 5000 + b', "text": "a", "hypothesis": "b"}\n', "x.jsonl",
         r"line 1: a number with 5,000 digits, over the 40-character limit"),
        (b'{"score": 1' + b"0" * 400 + b'.5, "text": "a", "hypothesis": "b"}\n', "x.jsonl", "over the 40-character"),
        (b'{"score": 1e999, "text": "a", "hypothesis": "b"}\n', "x.jsonl", "too large for a float"),
        (b'{"score": NaN, "text": "a", "hypothesis": "b"}\n', "x.jsonl", "NaN is not a number JSON allows"),
        (b"9" * 5000 + b"\ta\tb\n", "x.tsv", "a TSV the explorer does not recognise"),
        (b"1." + b"9" * 5000 + b"\ta\tb\n", "x.tsv", "a TSV the explorer does not recognise"),
        (b"id,text,hypothesis,score\n1,a,b," + b"9" * 5000 + b"\n", "x.csv", r"line 2: score '9999.*' is not a number"),
    ],
)
def test_huge_numbers_are_refused(data, name, match):
    refused(data, name, match)


def test_huge_score_is_refused_in_a_forced_sts_file():
    refused(b"9" * 5000 + b"\ta\tb\n", "x.tsv", r"line 1: score '9999.*' is not a number", fmt="sts")


def test_line_limit(monkeypatch):
    monkeypatch.setattr(reading, "MAX_LINE_CHARS", 100)
    refused(b"4.0\ta\tb\n4.0\t" + b"x" * 200 + b"\tb\n", "x.tsv",
            r"line 2 has 206 characters, over the 100-character line limit \(datasets\.reading\.MAX_LINE_CHARS\)")


def test_pair_limit(monkeypatch):
    monkeypatch.setattr(reading, "MAX_PAIRS", 2)
    refused(SEEDS["sts"][1], "x.tsv", r"over the 2-pair limit")
    refused(b'[{"text": "a", "hypothesis": "b"}, {"text": "a", "hypothesis": "b"}, {"text": "c", "hypothesis": "d"}]',
            "x.json", r"3 records is over the 2-pair limit")


def test_byte_limits(monkeypatch, tmp_path):
    import explorer.datasets

    monkeypatch.setattr(reading, "MAX_BYTES", 10)
    refused(SEEDS["sts"][1], "x.tsv", r"bytes is over the 10-byte limit \(explorer\.datasets\.MAX_BYTES\)")
    path = tmp_path / "big.tsv"
    path.write_bytes(SEEDS["sts"][1])
    assert len(load(path)) == 3  # files on disk have their own, larger limit
    monkeypatch.setattr(explorer.datasets, "MAX_FILE_BYTES", 20)
    with pytest.raises(DatasetError, match=r"over the 20-byte limit \(explorer\.datasets\.MAX_FILE_BYTES\)"):
        load(path)


def test_sentence_limit():
    long = "word " * 5000
    refused(json.dumps({"text": long, "hypothesis": "b"}).encode(), "x.jsonl",
            r"line 1: text has 24,999 characters, over the 20,000-character limit per sentence")


def test_duplicate_json_keys_are_refused():
    refused(b'{"text": "a", "text": "b", "hypothesis": "c"}\n', "x.jsonl", "the key 'text' occurs twice")
    refused(b'{"text": "a", "Text": "b", "hypothesis": "c"}\n', "x.jsonl", "the field 'text' is given twice")


# -- strict fields ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "field, value, match",
    [
        ("id", {"a": 1}, "id is an object; expected a string or an integer"),
        ("id", [1], "id is a list"),
        ("id", True, "id is a boolean"),
        ("id", 1.5, "id is a number; expected a string or an integer"),
        ("task", False, "task is a boolean"),
        ("task", {}, "task is an object"),
        ("label", True, "label is a boolean"),
        ("label", "maybe", "unknown label 'maybe'"),
        ("label", 2, "label is an integer"),
        ("score", False, "score is a boolean; expected a number"),
        ("score", "\u0663", "score '\u0663' is not a number"),
        ("score", "1_000", "score '1_000' is not a number"),
        ("score", "inf", "score 'inf' is not a number"),
        ("score", [], "score is a list"),
        ("text", None, "text is null; expected a sentence"),
        ("hypothesis", {"x": "y"}, "hypothesis is an object"),
    ],
)
def test_json_fields_are_strictly_typed(field, value, match):
    record = {"id": "a", "text": "A cat sleeps.", "hypothesis": "A cat rests.", field: value}
    refused(json.dumps(record).encode(), "x.jsonl", r"x\.jsonl: line 1: " + match)


def test_plain_integer_ids_and_null_fields_are_accepted():
    records = [{"id": 7, "text": "a", "hypothesis": "b", "task": 3, "label": 1, "score": 2},
               {"id": None, "text": "c", "hypothesis": "d", "task": None, "label": None, "score": None}]
    data = load_bytes("\n".join(json.dumps(r) for r in records).encode(), "x.jsonl")
    first, second = data.pairs
    assert (first.id, first.task, first.label, first.score) == ("7", "3", ENTAILMENT, 2.0)
    assert type(first.score) is float
    assert (second.id, second.task, second.label, second.score) == ("2", None, None, None)


def test_control_characters_are_cleaned_from_ids_and_tasks():
    data = load_bytes(json.dumps({"id": "a\u200bb\x07", "task": "\u202eIE", "text": "x", "hypothesis": "y"}).encode(),
                      "x.jsonl")
    assert data.pairs[0].id == "a b" and data.pairs[0].task == "IE"


@pytest.mark.parametrize("score", ["\u0663.5", "\uff13", "4,5", "four", "--1", "1e", ""])
def test_tsv_scores_are_ascii_numbers(score):
    refused(f"1.0\ta\tb\n{score}\tc\td\n".encode(), "x.tsv", r"line 2: (score|the score)", fmt="sts")


def test_sick_judgment_is_required_and_known():
    header = b"pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
    refused(header + b"1\ta\tb\t4.0\tPERHAPS\n", "SICK.txt", r"line 2: unknown label 'PERHAPS'")
    refused(header + b"1\ta\tb\t4.0\t \n", "SICK.txt", r"line 2: the entailment_judgment is missing")
    refused(header + b"1\ta\tb\tTrue\tENTAILMENT\n", "SICK.txt", r"line 2: relatedness_score 'True' is not a number")


# -- CSV quotes ------------------------------------------------------------------------------

def test_unclosed_csv_quote_that_swallows_rows_is_refused():
    data = (b'id,text,hypothesis\n1,"An open quote,A hypothesis.\n2,Second text.,Second hypothesis.\n'
            b'3,Third text",Third hypothesis.\n')
    refused(data, "x.csv", r"x\.csv: lines 2-4: a quoted field runs over 3 lines; a double quote is probably not "
                           r"closed on line 2")
    data = (b'id,text,hypothesis\n1,"An open quote,A hypothesis.\n2,Second text.,Second hypothesis.\n'
            b'3,Third text.,"Third hypothesis."\n')
    refused(data, "x.csv", r"x\.csv: line 2: .*check the double quotes from this line on")


def test_unclosed_csv_quote_at_the_end_is_refused():
    refused(b'id,text,hypothesis\n1,a,b\n2,"c,d\n', "x.csv", r"x\.csv: line 3: unexpected end of data")


def test_csv_text_after_a_closing_quote_is_refused():
    refused(b'id,text,hypothesis\n1,"a"b,c\n', "x.csv", r"line 2: '.*' expected after '\"'")


def test_csv_quotes_inside_unquoted_fields_are_kept():
    data = load_bytes(b'id,text,hypothesis\n1,She said "yes.,She agreed.\n', "x.csv")
    assert data.pairs[0].text == 'She said "yes.'


def test_csv_rows_of_empty_cells_are_skipped_and_duplicate_columns_refused():
    assert len(load_bytes(b"id,text,hypothesis\n,,\n1,a,b\n", "x.csv")) == 1
    refused(b"text,hypothesis,Text\n1,a,b\n", "x.csv", "the CSV header names column 'text' twice")


# -- MSR and Edinburgh tokens and positions --------------------------------------------------

MSR = "# sentence pair 1\nA cat sat .\nNULL ({ / / }) cat ({ 2 / / }) sat ({ 3 / / })\n"


def test_msr_format_characters_are_removed_from_tokens():
    data = load_bytes(MSR.replace("cat ({", "ca\u200bt\u2060 ({").encode(), "x.align.txt")
    assert data.pairs[0].hypothesis_tokens == ("cat", "sat")


@pytest.mark.parametrize("bad", ["\x07", "\x7f", "\x1b[31m", "\ue000"])
def test_msr_control_characters_in_tokens_are_refused(bad):
    refused(MSR.replace("sat .", f"s{bad}at .").encode(), "x.align.txt",
            r"sentence pair 1 \(line 2\): token .* holds the control character U\+")
    refused(MSR.replace("sat ({", f"s{bad}at ({{").encode(), "x.align.txt", r"sentence pair 1 \(line 3\): token")


def test_msr_token_of_format_characters_only_is_refused():
    refused(MSR.replace("sat .", "sat \u200b .").encode(), "x.align.txt", "empty once its format characters")


@pytest.mark.parametrize("digit", ["\u0663", "\uff13", "\u0967"])
def test_non_ascii_digits_are_not_positions(digit):
    refused(MSR.replace("({ 3 / / })", f"({{ {digit} / / }})").encode(), "x.align.txt", "expected N or pN")
    refused(MSR.replace("pair 1", f"pair {digit}").encode(), "x.align.txt", "line 1: expected '# sentence pair N'")
    edinburgh = json.dumps([{"id": "e", "source": "a b", "target": "c d", "sureAlign": f"0-{digit}"}])
    refused(edinburgh.encode(), "x.json", "target position")


def test_huge_positions_are_refused():
    refused(MSR.replace("({ 3 / / })", "({ " + "9" * 5000 + " / / })").encode(), "x.align.txt", "not a position")


# -- format detection beyond the first 4 KB --------------------------------------------------

def test_edinburgh_with_a_long_first_record_is_detected():
    first = {"id": "e1", "source": " ".join(["word"] * 2000), "target": "a b", "notes": "x" * 6000,
             "sureAlign": "0-0", "possibleAlign": ""}
    text = json.dumps([first, {"id": "e2", "source": "c d", "target": "e f", "sureAlign": "1-1"}])
    assert text.index("sureAlign") > 4096
    assert detect_format(text, "x.json") == "edinburgh"
    data = load_bytes(text.encode(), "x.json")
    assert data.format == "edinburgh" and data.has_gold_alignments


def test_msr_with_a_long_first_lines_is_detected():
    text_line = " ".join(f"w{i}" for i in range(1500))
    msr = f"# sentence pair 1\n{text_line}\nNULL ({{ / / }}) w1 ({{ 2 / / }})\n"
    assert msr.index("({") > 4096
    data = load_bytes(msr.encode(), "x.txt")
    assert data.format == "msr_align" and len(data.pairs[0].text_tokens) == 1500


def test_msr_long_token_costs_linear_time():
    import time

    line = "NULL ({ / / }) " + "x" * 400_000 + "\n"
    started = time.perf_counter()
    refused(f"# sentence pair 1\na b\n{line}".encode(), "x.align.txt", "cannot read", fmt="msr_align")
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("fmt, header, row", [
    ("msrp", "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String", "1\t7\t8\tA hen crossed the lane.\tA bird crossed."),
    ("sick", "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment",
     "7\tA hen crossed the lane.\tA bird crossed.\t4.1\tENTAILMENT"),
])
def test_a_tsv_without_its_header_line_loses_no_row(fmt, header, row):
    # Line 1 used to be skipped unread as the header, even when it held the first pair.
    second = row.replace("7", "9", 1).replace("8", "10", 1)
    with_header = load_bytes(f"{header}\n{row}\n{second}\n".encode(), "x.tsv", fmt=fmt)
    without = load_bytes(f"{row}\n{second}\n".encode(), "x.tsv", fmt=fmt)
    blank_first = load_bytes(f"\n{row}\n{second}\n".encode(), "x.tsv", fmt=fmt)
    assert len(with_header) == len(without) == len(blank_first) == 2
    assert with_header.pairs == without.pairs == blank_first.pairs


@pytest.mark.parametrize("data, lines", [(b"", 1), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"a\r\nb\r\n", 2),
                                         (b"a\rb\r", 2), (b"a\rb\nc\r\n", 3)])
def test_the_line_bound_counts_no_line_after_a_final_line_end(data, lines):
    from explorer.datasets.counting import line_bound, records_over

    assert line_bound(data) == lines
    exactly = b'{"text": "A dog runs.", "hypothesis": "A dog moves."}\n' * 50  # at the limit: within it
    assert line_bound(exactly) == 50 and records_over(exactly, "x.jsonl", 50) is None
    assert records_over(exactly + exactly[:30], "x.jsonl", 50) == 51  # a last line without its end
