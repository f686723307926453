"""The slice language: what it parses, what it refuses (hostile inputs included), and the
two back ends agreeing on a hand-made frame."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.groups import language
from explorer.groups.language import (
    BoolOp,
    Call,
    Compare,
    Literal,
    Member,
    Name,
    Not,
    SliceError,
    compile_pandas,
    compile_sql,
    parse,
    sql_literal,
)

KINDS = {"id": "text", "task": "text", "label": "text", "gold": "bool", "negation_only_in_h": "bool",
         "overlap": "number", "h_length": "number"}
SCORERS = ("bleu", "bow", "manli")


def parsed(expression: str) -> language.Node:
    return parse(expression, KINDS, scorers=SCORERS, kinds=KINDS)


def refusal(expression: object) -> str:
    with pytest.raises(SliceError) as caught:
        parse(expression, KINDS, scorers=SCORERS, kinds=KINDS)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- what parses -------------------------------------------------------------------------

def test_parse_tree_of_a_typical_slice() -> None:
    node = parsed('negation_only_in_h and overlap < 0.6 and task == "QA"')
    assert node == BoolOp(1, "and", (
        Name(1, "negation_only_in_h"),
        Compare(24, "<", Name(24, "overlap"), Literal(34, 0.6)),
        Compare(42, "==", Name(42, "task"), Literal(50, "QA")),
    ))


def test_precedence_not_binds_tighter_than_and_than_or() -> None:
    node = parsed("gold or not gold and negation_only_in_h")
    assert isinstance(node, BoolOp) and node.op == "or"
    right = node.operands[1]
    assert isinstance(right, BoolOp) and right.op == "and"
    assert isinstance(right.operands[0], Not)


@pytest.mark.parametrize("expression, expected", [
    ("wrong(manli) and not wrong(bow)", BoolOp(1, "and", (Call(1, "wrong", "manli"), Not(18, Call(22, "wrong", "bow"))))),
    ('score(bleu) >= 0.2 or tagged("hard")',
     BoolOp(1, "or", (Compare(1, ">=", Call(1, "score", "bleu"), Literal(16, 0.2)), Call(23, "tagged", "hard")))),
    ('label not in ["neutral", \'contradiction\']',
     Member(1, Name(1, "label"), (Literal(15, "neutral"), Literal(26, "contradiction")), True)),
    ("h_length >= -3", Compare(1, ">=", Name(1, "h_length"), Literal(13, -3.0))),
    ("gold == True", Compare(1, "==", Name(1, "gold"), Literal(9, True))),
    ('task == "it\\"s"', Compare(1, "==", Name(1, "task"), Literal(9, 'it"s'))),
    ("((gold))", Name(3, "gold")),
], ids=["functions", "score-or-tag", "not-in", "negative", "true", "escaped-quote", "parentheses"])
def test_parses(expression: str, expected: language.Node) -> None:
    assert parsed(expression) == expected


# -- what is refused, with the column and the known names --------------------------------

@pytest.mark.parametrize("expression, needles", [
    ("negaton", ["unknown name 'negaton' at column 1", "did you mean 'negation_only_in_h'", "known: gold, h_length"]),
    ("gold and wrong(mamli)", ["unknown scorer 'mamli' at column 16", "manli"]),
    ("evil(bleu)", ["unknown function 'evil' at column 1", "known: entails, right, score, tagged, wrong"]),
    ("task = 'QA'", ["'=' at column 6", "=="]),
    ("gold && gold", ["'&' at column 6"]),
    ("task < 3", ["'<' compares numbers", "column 1"]),
    ("task == 3", ["compares a text with a number"]),
    ("overlap", ["must be a condition", "column 1"]),
    ("gold and overlap", ["operand of 'and'", "column 10"]),
    ("not overlap", ["'not' negates"]),
    ("(gold", ["expected ')' at column 6", "the end of the expression"]),
    ("gold gold", ["unexpected 'gold' at column 6"]),
    ("task == 'QA", ["never closed", "column 9"]),
    ("overlap < 1.2.3", ["'1.2.3' at column 11 is not a number"]),
    ("label in []", ["expected a value in the list", "column 11"]),
    ("", ["empty"]),
    ("   ", ["empty"]),
], ids=lambda value: value if isinstance(value, str) else None)
def test_refusals_name_the_column(expression: str, needles: list[str]) -> None:
    message = refusal(expression)
    for needle in needles:
        assert needle in message


@pytest.mark.parametrize("expression, needle", [
    ('__import__("os")', "unknown function '__import__' at column 1"),
    ('__import__("os").system("true")', "'.' at column 17 (attribute access"),
    ("gold.__class__", "'.' at column 5 (attribute access"),
    ("id.lower() == 'x'", "attribute access"),
    ("task[0] == 'Q'", "unexpected '[' at column 5"),
    ("lambda: gold", "':' at column 7 (lambdas"),
    ("(lambda x: x)(1)", "':' at column 10"),
    ("lambda", "unknown name 'lambda' at column 1"),
    ("x" * 10_000, "10,000 characters long; the limit is 1,000"),
    ("(" * 500 + "gold" + ")" * 500, "1,004 characters long"),
    ("(" * 40 + "gold" + ")" * 40, "nests deeper than 32 levels"),
    ("not " * 40 + "gold", "nests deeper than 32 levels"),
    ("overlap < 1e999999", "number 1e999999 at column 11 is too large"),
    ("overlap < " + "9" * 400, "longer than 32 characters"),
    ("label in [" + "1," * 200 + "1]", "more than 300 tokens"),
    ("gold\u202e", "U+202E (RIGHT-TO-LEFT OVERRIDE) at column 5"),
    ("t\u0430sk == 'QA'", "U+0430 (CYRILLIC SMALL LETTER A) at column 2"),
    ("task == 'Q\x00A'", "not allowed in a string at column 11"),
    ("gold\x00", "U+0000"),
    ("task == 'QA' ; import os", "';' at column 14"),
    ("{gold}", "'{' at column 1"),
    ("f'{gold}'", "unknown name 'f'"),
    ("gold if gold else gold", "unexpected 'if' at column 6"),
], ids=["import", "import-call", "dunder", "method", "subscript", "lambda", "lambda-call", "lambda-name", "10k-chars",
        "500-parens", "deep-parens", "deep-not", "inf", "long-number", "many-tokens", "bidi", "homoglyph",
        "nul-in-string", "nul", "statement", "braces", "f-string", "ternary"])
def test_hostile_inputs_are_refused_in_one_line(expression: str, needle: str) -> None:
    assert needle in refusal(expression)


def test_a_non_string_is_refused() -> None:
    assert "is text, not int" in refusal(42)


def test_unicode_in_a_string_is_kept() -> None:
    assert parsed("task == 'Über café'") == Compare(1, "==", Name(1, "task"), Literal(9, "Über café"))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_random_text_parses_or_is_refused(expression: str) -> None:
    try:
        parsed(expression)
    except SliceError as error:
        assert "\n" not in str(error)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["gold", "task", "overlap", "(", ")", "and", "or", "not", "in", "[", "]", ",",
                                 "==", "<", "0.5", "'QA'", "true", "wrong(bleu)", "score(bow)", "-", "1e9"]),
                max_size=25))
def test_random_token_sequences_parse_or_are_refused(parts: list[str]) -> None:
    try:
        parsed(" ".join(parts))
    except SliceError as error:
        assert "\n" not in str(error)


# -- the back ends -------------------------------------------------------------------------

def small_table() -> pd.DataFrame:
    """Six pairs written for these tests, with one refused score and one unlabelled pair."""
    return pd.DataFrame({
        "id": ["a", "b", "c", "d", "e", "f"],
        "task": ["QA", "QA", "IE", "IE", None, "QA"],
        "label": ["entailment", "contradiction", "neutral", "entailment", None, "entailment"],
        "gold": pd.array([True, False, False, True, None, True], dtype="boolean"),
        "negation_only_in_h": [True, False, True, None, False, False],
        "overlap": [0.2, 0.9, 0.5, float("nan"), 0.7, 0.55],
        "h_length": [5.0, 7.0, 3.0, 4.0, 9.0, 6.0],
        "tags": [("hard",), (), ("hard", "numbers"), (), (), ("numbers",)],
        "score:bleu": [0.1, 0.8, float("nan"), 0.6, 0.3, 0.9],
        "entails:bleu": pd.array([False, True, None, True, False, True], dtype="boolean"),
        "correct:bleu": pd.array([False, False, None, True, None, True], dtype="boolean"),
    })


CASES = [
    ('task == "QA"', ["a", "b", "f"]),
    ('task != "QA"', ["c", "d"]),
    ("negation_only_in_h", ["a", "c"]),
    ("not negation_only_in_h", ["b", "e", "f"]),
    ("overlap < 0.6", ["a", "c", "f"]),
    ("not overlap < 0.6", ["b", "e"]),
    ("overlap < 0.6 or gold", ["a", "c", "d", "f"]),
    ("wrong(bleu)", ["a", "b"]),
    ("right(bleu)", ["d", "f"]),
    ("not wrong(bleu)", ["d", "f"]),
    ("entails(bleu) and not gold", ["b"]),
    ("score(bleu) >= 0.6", ["b", "d", "f"]),
    ('tagged("hard")', ["a", "c"]),
    ('tagged("numbers") and not tagged("hard")', ["f"]),
    ('label in ["neutral", "contradiction"]', ["b", "c"]),
    ('label not in ["neutral", "contradiction"]', ["a", "d", "f"]),
    ("gold == false", ["b", "c"]),
    ("h_length > 4 and h_length <= 7", ["a", "b", "f"]),
    ("true", ["a", "b", "c", "d", "e", "f"]),
    ("false", []),
    ("0.5 < overlap", ["b", "e", "f"]),
    ("task == \"it's\"", []),
]


@pytest.mark.parametrize("expression, ids", CASES, ids=[c[0] for c in CASES])
def test_pandas_back_end(expression: str, ids: list[str]) -> None:
    table = small_table()
    mask = compile_pandas(parsed(expression), table)
    assert mask.dtype == bool
    assert table["id"][mask].tolist() == ids


def sql_columns(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The language's names over the table registered below as ``t``."""
    names = {n: f'"{n}"' for n in ("id", "task", "label", "gold", "negation_only_in_h", "overlap", "h_length",
                                   "tags")}
    names.update({"score:bleu": '"score:bleu"', "entails:bleu": '"entails:bleu"', "correct:bleu": '"correct:bleu"'})
    return names


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    table = small_table()
    table["tags"] = table["tags"].map(list)
    table["negation_only_in_h"] = table["negation_only_in_h"].astype("boolean")
    connection = duckdb.connect()
    connection.register("t", table)
    return connection


@pytest.mark.parametrize("expression, ids", CASES, ids=[c[0] for c in CASES])
def test_sql_back_end_agrees(con: duckdb.DuckDBPyConnection, expression: str, ids: list[str]) -> None:
    where = compile_sql(parsed(expression), sql_columns(con))
    found = [r[0] for r in con.execute(f"SELECT id FROM t WHERE {where} ORDER BY id").fetchall()]
    assert found == ids


@pytest.mark.parametrize("payload", [
    "x' OR 1=1 --", "'; DROP TABLE t; --", "\\' OR '1'='1", "QA\" OR \"1\"=\"1",
])
def test_sql_strings_cannot_inject(con: duckdb.DuckDBPyConnection, payload: str) -> None:
    quote = '"' if "'" in payload else "'"
    escaped = payload.replace("\\", "\\\\").replace(quote, "\\" + quote)
    node = parse(f"task == {quote}{escaped}{quote}", KINDS, scorers=SCORERS, kinds=KINDS)
    assert isinstance(node, Compare) and node.right == Literal(9, payload)
    where = compile_sql(node, sql_columns(con))
    assert con.execute(f"SELECT count(*) FROM t WHERE {where}").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM t").fetchone() == (6,)


def test_sql_literals() -> None:
    assert sql_literal("it's") == "'it''s'"
    assert sql_literal(True) == "TRUE"
    assert sql_literal(0.25) == "CAST(0.25 AS DOUBLE)"
    with pytest.raises(SliceError):
        sql_literal(float("inf"))


def test_back_ends_refuse_what_they_lack() -> None:
    node = parse("wrong(manli)", KINDS, scorers=SCORERS, kinds=KINDS)
    with pytest.raises(SliceError, match="no column 'correct:manli'"):
        compile_pandas(node, small_table())
    with pytest.raises(SliceError, match="'correct:manli' at column 1 is not available here"):
        compile_sql(node, {"id": '"id"'})


def test_a_text_column_used_as_a_condition_is_refused_by_pandas() -> None:
    node = parse("task", {"task"})  # no kinds: the back end finds out
    with pytest.raises(SliceError, match="'task' at column 1 is not true/false"):
        compile_pandas(node, small_table())
