"""Gold-alignment loaders: MSR GIZA-style files (one, or three merged by majority) and
Edinburgh++ JSON, on small hand-written fixtures, plus a check on the shared data."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.datasets import DatasetError, detect_format, load
from explorer.datasets.edinburgh import parse_edinburgh
from explorer.datasets.msr_align import attach_rte_labels, load_annotators, merge_annotators, parse_msr_align
from explorer.pairs import Pair

# Three tiny annotations of the same two problems (made up for these tests). Annotator
# files carry byte-order marks and CRLF ends like the released ones.
ANNOTATOR_A = (
    "\ufeff# sentence pair 1\r\n"
    "Kim bought three red bikes yesterday .\r\n"
    "NULL ({ / / }) Kim ({ 1 / / }) purchased ({ 2 / / }) bikes ({ 5 p4 / / }) . ({ 7 / / })\r\n"
    "# sentence pair 2\r\n"
    "The old mill closed in 1990 .\r\n"
    "NULL ({ / / }) The ({ / / }) mill ({ 3 / / }) shut ({ 4 p5 / / })\r\n"
)
ANNOTATOR_B = (
    "# sentence pair 1\n"
    "Kim bought three red bikes yesterday .\n"
    "NULL ({ / / }) Kim ({ 1 / / }) purchased ({ 2 / / }) bikes ({ 5 / / }) . ({ / / })\n"
    "# sentence pair 2\n"
    "The old mill closed in 1990 .\n"
    "NULL ({ / / }) The ({ 1 / / }) mill ({ 3 / / }) shut ({ 4 / / })\n"
)
ANNOTATOR_C = (
    "# sentence pair 1\n"
    "Kim bought three red bikes yesterday .\n"
    "NULL ({ / / }) Kim ({ 1 / / }) purchased ({ p2 / / }) bikes ({ 4 5 / / }) . ({ p7 / / })\n"
    "# sentence pair 2\n"
    "The old mill closed in 1990 .\n"
    # The released annotator C file ends with a missing ')' like this one.
    "NULL ({ / / }) The ({ p1 / / }) mill ({ 3 / / }) shut ({ 4 / / }"
)


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_parse_one_file_links_are_zero_based_and_split_sure_possible() -> None:
    pairs = parse_msr_align(ANNOTATOR_A, "a.align.txt")
    assert [p.id for p in pairs] == ["1", "2"]
    first = pairs[0]
    assert first.text_tokens == ("Kim", "bought", "three", "red", "bikes", "yesterday", ".")
    assert first.hypothesis_tokens == ("Kim", "purchased", "bikes", ".")
    assert first.gold_alignment is not None
    assert first.gold_alignment.sure == {(0, 0), (1, 1), (4, 2), (6, 3)}
    assert first.gold_alignment.possible == {(3, 2)}
    assert first.label is None


def test_loader_is_chosen_by_content(tmp_path: Path) -> None:
    assert detect_format(ANNOTATOR_A, "x.txt") == "msr_align"
    dataset = load(write(tmp_path, "a.align.txt", ANNOTATOR_A))
    assert dataset.format == "msr_align" and dataset.has_gold_alignments


def test_majority_merge(tmp_path: Path) -> None:
    paths = [write(tmp_path, f"{n}.align.txt", c) for n, c in (("A", ANNOTATOR_A), ("B", ANNOTATOR_B), ("C", ANNOTATOR_C))]
    merged = load_annotators(paths)
    one, two = (p.gold_alignment for p in merged.pairs)
    assert one is not None and two is not None
    # purchased-bought: SURE, SURE, POSSIBLE -> SURE. red-bikes: POSSIBLE, -, SURE ->
    # marked by two, SURE by one -> POSSIBLE. "."-".": SURE, -, POSSIBLE -> POSSIBLE.
    assert one.sure == {(0, 0), (1, 1), (4, 2)}
    assert one.possible == {(3, 2), (6, 3)}
    # The-The: -, SURE, POSSIBLE -> POSSIBLE; shut-in: one POSSIBLE only -> dropped.
    assert two.sure == {(2, 1), (3, 2)}
    assert two.possible == {(0, 0)}


def test_merge_refuses_different_problems() -> None:
    a = parse_msr_align(ANNOTATOR_A, "A")
    b = parse_msr_align(ANNOTATOR_B, "B")[:1]
    with pytest.raises(DatasetError, match="B: holds different sentence pairs"):
        merge_annotators([a, b], ["A", "B"])


def test_merge_refuses_different_token_counts() -> None:
    b = ANNOTATOR_B.replace("The old mill closed in 1990 .", "The old mill closed in 1990")
    with pytest.raises(DatasetError, match="B: sentence pair 2 has a different number of tokens"):
        merge_annotators([parse_msr_align(ANNOTATOR_A, "A"), parse_msr_align(b, "B")], ["A", "B"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("sentence pair 1\nA b .\nNULL ({ / / }) b ({ 2 / / })\n", r"line 1: expected '# sentence pair N'"),
        ("# sentence pair 4\nA b .\n", r"sentence pair 4 \(line 1\): the text or hypothesis line is missing"),
        ("# sentence pair 5\nA b .\nNULL ({ / / }) b ({ 9 / / })\n", r"sentence pair 5 \(line 3\): token 'b' links to text position 9, outside 1..3"),
        ("# sentence pair 6\nA b .\nNULL ({ / / }) b ({ x2 / / })\n", r"sentence pair 6 \(line 3\): token 'b' has link 'x2'"),
        ("# sentence pair 7\nA b .\nNULL ({ / / }) b 2 / / })\n", r"sentence pair 7 \(line 3\): cannot read"),
        ("# sentence pair 8\nA b .\nNULL ({ / / })\n", r"sentence pair 8 \(line 3\): no hypothesis tokens"),
        ("# sentence pair 9\n\nNULL ({ / / }) b ({ 1 / / })\n", r"sentence pair 9 \(line 2\): empty text"),
    ],
    ids=["no-header", "truncated", "out-of-range", "bad-link", "no-brace", "no-tokens", "empty-text"],
)
def test_malformed_msr_records_name_file_and_record(content: str, message: str) -> None:
    with pytest.raises(DatasetError, match=r"^bad\.align\.txt: " + message):
        parse_msr_align(content, "bad.align.txt")


def test_rte_labels_attach_by_text_not_by_number() -> None:
    msr = parse_msr_align(ANNOTATOR_A, "A")
    rte = [
        Pair(id="77", text="The old mill closed in 1990.", hypothesis="The mill shut", label="entailment", task="IE"),
        Pair(id="1", text="Something else entirely.", hypothesis="Kim purchased bikes.", label="non-entailment"),
    ]
    labelled, exact, fuzzy = attach_rte_labels(msr, rte)
    assert (exact, fuzzy) == (1, 0)
    assert [p.label for p in labelled] == [None, "entailment"]
    assert labelled[1].task == "IE" and labelled[1].id == "2"


def test_rte_labels_attach_on_one_side_when_the_other_nearly_agrees() -> None:
    msr = parse_msr_align(ANNOTATOR_A, "A")
    rte = [Pair(id="9", text="Kim bought three red bikes yesterday afternoon.", hypothesis="Kim purchased bikes.", label="entailment")]
    labelled, exact, fuzzy = attach_rte_labels(msr, rte)
    assert (exact, fuzzy) == (0, 1) and labelled[0].label == "entailment"


# -- Edinburgh++ ---------------------------------------------------------------------------

EDINBURGH = [
    {"id": "toy:1", "source": "the cat sat on the mat .", "target": "a cat was sitting on a mat .",
     "sureAlign": "1-1 2-3 3-4 5-6 6-7", "possibleAlign": "2-2 0-0"},
    {"id": "toy:2", "source": "rain fell", "target": "it rained", "sureAlign": "0-1 1-1", "possibleAlign": ""},
]


def test_edinburgh_records(tmp_path: Path) -> None:
    dataset = load(write(tmp_path, "gold.json", json.dumps(EDINBURGH)))
    assert dataset.format == "edinburgh"
    first = dataset.pairs[0]
    assert first.id == "toy:1" and first.hypothesis_tokens is not None and len(first.hypothesis_tokens) == 8
    assert first.gold_alignment is not None
    assert first.gold_alignment.sure == {(1, 1), (2, 3), (3, 4), (5, 6), (6, 7)}
    assert first.gold_alignment.possible == {(2, 2), (0, 0)}
    assert first.gold_alignment.to_sure_align() == "1-1 2-3 3-4 5-6 6-7"


def test_plain_json_pairs_still_go_to_the_jsonl_loader() -> None:
    assert detect_format('[{"text": "a", "hypothesis": "b"}]', "x.json") == "jsonl"


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ('{"source": "a"}', r"expected a JSON list"),
        ('[{"source": "a b", "target": "c", "sureAlign": "0-1"}]', r"record #1: 'sureAlign' link 0-1 is outside"),
        ('[{"id": "q", "source": "a b", "target": "c", "sureAlign": "0:0"}]', r"record #1 \(id='q'\): 'sureAlign' has '0:0'"),
        ('[{"source": "", "target": "c", "sureAlign": ""}]', r"record #1: 'source' is missing or empty"),
        ('[{"source": "a", "target": "c"}]', r"record #1: no 'sureAlign' field"),
        ('[{"source": "a", "target": "c", "sureAlign": "0-0"}, 5]', r"record #2: expected an object"),
        ('[{"source": "a", "target": "c", "sureAlign": ', r"invalid JSON at line 1"),
    ],
    ids=["not-a-list", "out-of-range", "bad-link", "empty-source", "no-sure", "not-object", "truncated"],
)
def test_malformed_edinburgh_records(records: str, message: str) -> None:
    with pytest.raises(DatasetError, match=r"^bad\.json: " + message):
        parse_edinburgh(records, "bad.json")


# -- the shared corpora ------------------------------------------------------------------------

@pytest.mark.slow  # the 800 RTE2 dev problems; test_majority_merge checks the merge in test-fast
def test_shared_msr_files_merge_like_the_released_merge(shared_file: Callable[..., Path]) -> None:
    paths = [shared_file("data", "msr_align", f"RTE2_dev_{x}.align.txt") for x in "ABC"]
    released = {p.id: p for p in load(shared_file("data", "msr_align", "RTE2_dev_M.align.txt")).pairs}
    merged = load_annotators(paths)
    assert len(merged) == 800
    same_shape = agree = 0
    for pair in merged.pairs:
        other = released[pair.id]
        if len(pair.text_tokens or ()) == len(other.text_tokens or ()) and len(pair.hypothesis_tokens or ()) == len(other.hypothesis_tokens or ()):
            same_shape += 1
            assert pair.gold_alignment is not None and other.gold_alignment is not None
            agree += pair.gold_alignment.sure == other.gold_alignment.sure
    assert same_shape > 700 and agree >= same_shape - 5
    labelled = sum(p.label is not None for p in merged.pairs)
    assert 380 <= labelled <= 400  # NLTK's RTE2 dev holds only 400 of the 800 problems
