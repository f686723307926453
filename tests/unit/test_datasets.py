import json

import pytest

from explorer.datasets import DatasetError, detect_format, load, load_bytes
from explorer.pairs import CONTRADICTION, ENTAILMENT, NEUTRAL, NON_ENTAILMENT

RTE1 = b"""<?xml version="1.0" encoding="UTF-8"?>
<entailment-corpus challenge="1">
<pair id="3" value="TRUE" task="PP">
  <t>The museum reopened its north wing on Monday.</t>
  <h>The north wing reopened.</h>
</pair>
<pair id="4" value="FALSE" task="CD">
  <t>Rain delayed the regatta &amp; the parade.</t>
  <h>The regatta took place in sunshine.</h>
</pair>
</entailment-corpus>"""

RTE3 = b"""<entailment-corpus><pair id="1" entailment="YES" task="IE"><t>A b.</t><h>A.</h></pair>
<pair id="2" entailment="UNKNOWN" task="QA"><t>C d.</t><h>E.</h></pair>
<pair id="3" entailment="CONTRADICTION" task="QA"><t>F g.</t><h>H.</h></pair></entailment-corpus>"""


def test_rte1_xml():
    data = load_bytes(RTE1, "mine.xml")
    assert data.format == "rte_xml" and len(data) == 2 and data.kind == "binary"
    first, second = data.pairs
    assert (first.id, first.label, first.task) == ("3", ENTAILMENT, "PP")
    assert second.label == NON_ENTAILMENT and "&" in second.text
    assert data.tasks == ("CD", "PP")


def test_rte3_three_way_labels():
    data = load_bytes(RTE3, "three.xml")
    assert [p.label for p in data.pairs] == [ENTAILMENT, NEUTRAL, CONTRADICTION]
    assert data.kind == "three_way"


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(b"<entailment-corpus><pair id='1' value='TRUE'><t>x</t></pair></entailment-corpus>",
                     "expected both <t> and <h>", id="missing-h"),
        pytest.param(b"<entailment-corpus><pair value='TRUE'><t>x</t><h>y</h></pair></entailment-corpus>",
                     "missing id", id="missing-id"),
        pytest.param(b"<entailment-corpus><pair id='1' value='MAYBE'><t>x</t><h>y</h></pair></entailment-corpus>",
                     "unknown label 'MAYBE'", id="unknown-label"),
        pytest.param(b"<entailment-corpus><pair id='1' value='TRUE'><t>x</t><h>y</h></pair>",
                     "malformed XML at line 1", id="truncated"),
        pytest.param(b"<entailment-corpus><pair id='1' value='TRUE'><t>x</t><h>y</h></pair>"
                     b"<pair id='1' value='TRUE'><t>x</t><h>y</h></pair></entailment-corpus>",
                     "occurs more than once", id="duplicate-id"),
    ],
)
def test_malformed_xml_names_the_problem(content, message):
    with pytest.raises(DatasetError, match=message):
        load_bytes(content, "bad.xml")


def test_entity_expansion_is_refused():
    bomb = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
<entailment-corpus><pair id="1" value="TRUE"><t>&lol2;</t><h>x</h></pair></entailment-corpus>"""
    with pytest.raises(DatasetError, match="unsafe XML"):
        load_bytes(bomb, "bomb.xml")


def test_external_entity_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    xxe = f"""<?xml version="1.0"?>
<!DOCTYPE c [<!ENTITY x SYSTEM "file://{secret}">]>
<entailment-corpus><pair id="1" value="TRUE"><t>&x;</t><h>x</h></pair></entailment-corpus>""".encode()
    with pytest.raises(DatasetError, match="unsafe XML"):
        load_bytes(xxe, "xxe.xml")


def test_msrp_sts_sick():
    msrp = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t10\t11\tShe said \"yes.\tShe agreed.\n"
    data = load_bytes(msrp.encode(), "m.tsv")
    assert data.format == "msrp" and data.pairs[0].label == ENTAILMENT and data.pairs[0].id == "10-11"
    assert '"yes.' in data.pairs[0].text
    sts = load_bytes(b"4.5\tA man plays.\tA man is playing.\n0.0\tX.\tY.\n", "s.tsv")
    assert sts.format == "sts" and sts.kind == "graded" and sts.pairs[0].score == 4.5
    sick = load_bytes(b"pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
                      b"7\tA dog runs.\tAn animal runs.\t4.2\tENTAILMENT\n", "SICK.txt")
    assert sick.format == "sick" and sick.pairs[0].label == ENTAILMENT and sick.pairs[0].score == 4.2


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(b"4.5\ta\tb\n1.0\tonly two\n", "line 2 has 2 tab-separated fields; expected 3", id="sts-columns"),
        pytest.param(b"7.5\ta\tb\n", "outside 0-5", id="sts-range"),
        pytest.param(b"Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n2\t1\t2\ta\tb\n", "expected 0 or 1", id="msrp-quality"),
    ],
)
def test_malformed_tsv(content, message):
    with pytest.raises(DatasetError, match=message):
        load_bytes(content, "bad.tsv")


def test_generic_csv_and_jsonl():
    csv_bytes = b'id,text,hypothesis,label,task\na1,"A, quoted text.",A text.,entailment,IE\na2,B.,C.,contradiction,\n'
    data = load_bytes(csv_bytes, "x.csv")
    assert data.format == "csv" and [p.id for p in data.pairs] == ["a1", "a2"]
    assert data.pairs[0].text == "A, quoted text." and data.pairs[1].task is None
    lines = "\n".join(json.dumps(r) for r in [
        {"premise": "P one.", "hypothesis": "H one.", "label": "neutral"},
        {"text": "P two.", "hypothesis": "H two.", "label": "YES", "id": 9},
    ])
    jl = load_bytes(lines.encode(), "x.jsonl")
    assert [p.label for p in jl.pairs] == [NEUTRAL, ENTAILMENT] and jl.pairs[1].id == "9"
    as_list = load_bytes(b'[{"text": "a", "hypothesis": "b"}]', "x.json")
    assert as_list.kind == "unlabelled"


@pytest.mark.parametrize(
    "content, name, message",
    [
        pytest.param(b"id,text,hypothesis,label\n1,a,b,perhaps\n", "x.csv", "unknown label 'perhaps'", id="csv-label"),
        pytest.param(b"id,text,hypothesis\n1,a,b,extra\n", "x.csv", "more fields than the header", id="csv-extra"),
        pytest.param(b'{"text": "a", "hypothesis": "b"}\n{"text": \n', "x.jsonl", "line 2: invalid JSON", id="jsonl-broken"),
        pytest.param(b'[{"text": 3, "hypothesis": "b"}]', "x.json", "record 1: text is an integer; expected a sentence", id="json-types"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00", "x.png", "binary file", id="binary"),
        pytest.param(b"caf\xe9 au lait", "x.csv", "not valid UTF-8", id="latin1"),
        pytest.param(b"just some words", "notes.md", "not a dataset format", id="unknown-format"),
        pytest.param(b"id,text,hypothesis\n", "x.csv", "no pairs found", id="header-only"),
        pytest.param(b"", "x.csv", "x.csv: the file is empty", id="empty"),
        pytest.param(b"  \n\n", "x.tsv", "x.tsv: the file is empty", id="blank"),
        pytest.param(b"id,premise,claim\n1,A b.,A.\n", "x.csv", "needs a header line naming the columns 'text'", id="csv-no-hypothesis"),
        pytest.param(b"id,premise,claim\n1,A b.,A.\n", "x.txt", "its first line is 'id,premise,claim'", id="csv-by-content"),
        pytest.param(b"<corpus><item/></corpus>", "x.xml", "not PASCAL RTE", id="other-xml"),
        pytest.param(b"a\tb\n", "x.tsv", "a TSV the explorer does not recognise", id="other-tsv"),
    ],
)
def test_bad_uploads(content, name, message):
    with pytest.raises(DatasetError, match=message):
        load_bytes(content, name)


def test_load_missing_file(tmp_path):
    with pytest.raises(DatasetError, match="no such file"):
        load(tmp_path / "nothing.xml")


def test_detect_format_prefers_content():
    assert detect_format("<entailment-corpus>", "weird.txt") == "rte_xml"


def test_shared_rte1_dev(shared_file):
    data = load(shared_file("nltk_data", "corpora", "rte", "rte1_dev.xml"))
    assert len(data) == 567
    assert data.tasks == ("CD", "IE", "IR", "MT", "PP", "QA", "RC")
