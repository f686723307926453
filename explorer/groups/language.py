"""The slice language: a small filter over a group frame's columns, parsed by hand.

A slice names a group of pairs, e.g.::

    negation_only_in_h and overlap < 0.6 and task == "QA"
    wrong(manli) and not wrong(bow)
    score(bleu) >= 0.2 or tagged("hard")
    label in ["contradiction", "neutral"]

Grammar (lowest precedence first)::

    expr       := and_expr ("or" and_expr)*
    and_expr   := not_expr ("and" not_expr)*
    not_expr   := "not" not_expr | comparison
    comparison := operand [("==" | "!=" | "<" | "<=" | ">" | ">=") operand
                           | ["not"] "in" "[" literal ("," literal)* "]"]
    operand    := NAME | FUNCTION "(" argument ")" | literal | "(" expr ")"
    literal    := NUMBER | "-" NUMBER | STRING | true | false

The tokenizer (:mod:`explorer.groups.tokens`) and the recursive-descent parser below
accept nothing else: a name must be
one of the names given (the frame's columns), a function one of :data:`FUNCTIONS`, its
scorer argument a known scorer. Nothing is ever evaluated as Python (no ``eval``,
``compile`` or ``exec``): the result is a tree of frozen nodes that a back end turns into
a pandas mask (:func:`compile_pandas`) or a DuckDB ``WHERE`` clause (:func:`compile_sql`).

Bounds, checked before any work: :data:`MAX_LENGTH` characters, :data:`MAX_TOKENS`
tokens, :data:`MAX_DEPTH` levels of nesting, finite numbers of at most
:data:`MAX_NUMBER_CHARS` characters, strings of at most :data:`MAX_STRING` characters.
Every refusal is a :class:`SliceError` with one line naming the column (1-based) and, for
an unknown name, the known ones.

Missing values (a scorer that refused a pair, an unlabelled pair, a detector with no
answer) follow SQL's three-valued logic in both back ends: a comparison with a missing
value is unknown, ``not unknown`` is unknown, and a pair is in the slice only when the
whole condition is true.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from explorer.groups.tokens import (
    COMPARISONS,
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_LIST,
    MAX_TOKENS,
    SliceError,
    Token,
    tokenize,
)

if TYPE_CHECKING:
    import pandas as pd


class Framed(Protocol):
    """What :func:`compile_pandas` reads (a :class:`~explorer.groups.frame.GroupFrame`)."""

    @property
    def table(self) -> pd.DataFrame: ...

#: The fields every frame has (besides the phenomena): name -> kind.
FIELDS: dict[str, str] = {"id": "text", "task": "text", "label": "text", "gold": "bool"}

#: Registered functions: name -> (what the argument names, what the call gives).
#: ``wrong(s)`` / ``right(s)``: scorer ``s``'s verdict disagrees / agrees with the gold label
#: (unknown for an unlabelled or refused pair); ``entails(s)``: ``s`` says "entails";
#: ``score(s)``: ``s``'s score; ``tagged("t")``: the pair carries tag ``t``.
FUNCTIONS: dict[str, tuple[str, str]] = {
    "wrong": ("scorer", "bool"), "right": ("scorer", "bool"), "entails": ("scorer", "bool"),
    "score": ("scorer", "number"), "tagged": ("tag", "bool"),
}


# -- the tree ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Node:
    """A parsed piece; ``column``: where it starts (1-based)."""

    column: int


@dataclass(frozen=True)
class Literal(Node):
    value: bool | float | str


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Call(Node):
    function: str
    argument: str


@dataclass(frozen=True)
class Compare(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Member(Node):
    operand: Node
    values: tuple[Literal, ...]
    negated: bool


@dataclass(frozen=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # "and" or "or"
    operands: tuple[Node, ...]


# -- the parser -------------------------------------------------------------------------

class _Parser:
    def __init__(self, tokens: list[Token], names: Collection[str], functions: Collection[str],
                 scorers: Collection[str] | None, kinds: Mapping[str, str]) -> None:
        self.tokens = tokens
        self.at = 0
        self.depth = 0
        self.names = names
        self.functions = functions
        self.scorers = scorers
        self.kinds = kinds

    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def is_(self, kind: str, text: str | None = None) -> bool:
        return self.token.kind == kind and (text is None or self.token.text == text)

    def expect(self, kind: str, text: str, what: str) -> Token:
        if not self.is_(kind, text):
            raise SliceError(f"expected {what} at column {self.token.column}, found {_shown(self.token)}")
        return self.take()

    def deeper(self, column: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SliceError(f"the expression nests deeper than {MAX_DEPTH} levels (at column {column})")

    def parse(self) -> Node:
        node = self.expr()
        if not self.is_("end"):
            raise SliceError(f"unexpected {_shown(self.token)} at column {self.token.column}; "
                             "join conditions with 'and' / 'or'")
        self.check_kind(node, "bool", "the whole expression")
        return node

    def boolean(self, op: str, parse_next: str) -> Node:
        first = getattr(self, parse_next)()
        operands = [first]
        while self.is_("keyword", op):
            self.take()
            operands.append(getattr(self, parse_next)())
        if len(operands) == 1:
            return first  # type: ignore[no-any-return]
        for operand in operands:
            self.check_kind(operand, "bool", f"an operand of '{op}'")
        return BoolOp(first.column, op, tuple(operands))

    def expr(self) -> Node:
        return self.boolean("or", "and_expr")

    def and_expr(self) -> Node:
        return self.boolean("and", "not_expr")

    def not_expr(self) -> Node:
        if self.is_("keyword", "not"):
            column = self.take().column
            self.deeper(column)
            operand = self.not_expr()
            self.depth -= 1
            self.check_kind(operand, "bool", "what 'not' negates")
            return Not(column, operand)
        return self.comparison()

    def comparison(self) -> Node:
        left = self.operand()
        if self.is_("op") and self.token.text in COMPARISONS:
            op = self.take().text
            right = self.operand()
            self.check_comparable(op, left, right)
            return Compare(left.column, op, left, right)
        negated = False
        if self.is_("keyword", "not") and self.tokens[self.at + 1].text == "in":
            self.take()
            negated = True
        if self.is_("keyword", "in"):
            self.take()
            values = self.list_()
            for value in values:
                self.check_comparable("in", left, value)
            return Member(left.column, left, values, negated)
        return left

    def list_(self) -> tuple[Literal, ...]:
        start = self.expect("op", "[", "'[' to open the list after 'in'")
        values: list[Literal] = []
        while True:
            values.append(self.literal("a value in the list"))
            if len(values) > MAX_LIST:
                raise SliceError(f"the list at column {start.column} has more than {MAX_LIST} values")
            if not self.is_("op", ","):
                break
            self.take()
        self.expect("op", "]", "',' or ']' to close the list")
        return tuple(values)

    def literal(self, what: str) -> Literal:
        token = self.token
        if token.kind == "number":
            self.take()
            return Literal(token.column, float(token.value))  # type: ignore[arg-type]
        if token.kind == "string":
            self.take()
            return Literal(token.column, str(token.value))
        if token.kind == "keyword" and token.text in ("true", "false"):
            self.take()
            return Literal(token.column, token.text == "true")
        if self.is_("op", "-") and self.tokens[self.at + 1].kind == "number":
            self.take()
            number = self.take()
            return Literal(token.column, -float(number.value))  # type: ignore[arg-type]
        raise SliceError(f"expected {what} (a number, a string, true or false) at column {token.column}, "
                         f"found {_shown(token)}")

    def operand(self) -> Node:
        token = self.token
        if self.is_("op", "("):
            self.take()
            self.deeper(token.column)
            inner = self.expr()
            self.depth -= 1
            self.expect("op", ")", "')'")
            return inner
        if token.kind == "name":
            self.take()
            if self.is_("op", "("):
                return self.call(token)
            if token.text not in self.names:
                raise SliceError(_unknown("name", token.text, token.column, self.names, extra=self.functions))
            return Name(token.column, token.text)
        return self.literal("a name, a function call or a value")

    def call(self, name: Token) -> Call:
        if name.text not in self.functions:
            raise SliceError(_unknown("function", name.text, name.column, self.functions))
        self.take()  # "("
        argument = self.token
        takes = FUNCTIONS.get(name.text, ("scorer", "bool"))[0]
        if argument.kind not in ("name", "string"):
            raise SliceError(f"{name.text}() at column {name.column} takes a {takes} name, "
                             f"found {_shown(argument)} at column {argument.column}")
        self.take()
        value = str(argument.value) if argument.kind == "string" else argument.text
        if takes == "scorer" and self.scorers is not None and value not in self.scorers:
            raise SliceError(_unknown("scorer", value, argument.column, self.scorers))
        if takes == "tag" and not value.strip():
            raise SliceError(f"tagged() at column {name.column} needs a tag name")
        self.expect("op", ")", f"')' to close {name.text}(")
        return Call(name.column, name.text, value)

    # -- kinds: bool, number, text; "any" where the caller did not say
    def kind(self, node: Node) -> str:
        if isinstance(node, Literal):
            return "bool" if isinstance(node.value, bool) else "number" if isinstance(node.value, float) else "text"
        if isinstance(node, Name):
            return self.kinds.get(node.name, "any")
        if isinstance(node, Call):
            return FUNCTIONS.get(node.function, ("", "any"))[1]
        return "bool"

    def check_kind(self, node: Node, wanted: str, role: str) -> None:
        found = self.kind(node)
        if found not in ("any", wanted):
            hint = " (compare it, e.g. overlap < 0.5)" if found == "number" else ""
            raise SliceError(f"{role} must be a condition (true/false), but the {found} at column "
                             f"{node.column} is not{hint}")

    def check_comparable(self, op: str, left: Node, right: Node) -> None:
        a, b = self.kind(left), self.kind(right)
        if op in ("<", "<=", ">", ">="):
            for node, found in ((left, a), (right, b)):
                if found not in ("any", "number"):
                    raise SliceError(f"'{op}' compares numbers; the {found} at column {node.column} is not one")
        elif "any" not in (a, b) and a != b:
            raise SliceError(f"'{op}' at column {right.column} compares a {a} with a {b}")


def _shown(token: Token) -> str:
    return "the end of the expression" if token.kind == "end" else repr(token.text)


def _unknown(what: str, name: str, column: int, known: Collection[str], *, extra: Collection[str] = ()) -> str:
    hint = f" (did you mean {close!r}?)" if (close := _closest(name, known)) else ""
    listed = ", ".join(sorted(known)) or "none"
    functions = f"; functions: {', '.join(f'{f}()' for f in sorted(extra))}" if extra else ""
    return f"unknown {what} {name!r} at column {column}{hint}; known: {listed}{functions}"


def _closest(name: str, known: Collection[str]) -> str | None:
    """The known name most like ``name``, whole or by its start (``negaton`` ->
    ``negation_only_in_h``), if any is alike enough."""
    def likeness(candidate: str) -> float:
        whole = difflib.SequenceMatcher(None, name, candidate).ratio()
        start = difflib.SequenceMatcher(None, name, candidate[:len(name) + 1]).ratio()
        return max(whole, start)

    best = max(sorted(known), key=likeness, default=None)
    return best if best is not None and likeness(best) >= 0.75 else None


def parse(expression: str, names: Collection[str], functions: Collection[str] = FUNCTIONS, *,
          scorers: Collection[str] | None = None, kinds: Mapping[str, str] | None = None) -> Node:
    """Parse a slice expression into a tree of :class:`Node`.

    Args:
        expression: the slice, e.g. ``negation_only_in_h and task == "QA"``.
        names: the names it may use (a frame's fields and phenomena).
        functions: the functions it may call (a subset of :data:`FUNCTIONS`).
        scorers: the scorers a function may name; None: every registered scorer.
        kinds: name -> ``bool`` / ``number`` / ``text``, to refuse comparing a number with
            a text, or using a number as a condition, before anything runs.

    Raises:
        SliceError: one line naming the column (and the known names for an unknown one).
    """
    if scorers is None:
        from explorer.scorers import SCORERS

        scorers = tuple(SCORERS)
    unknown = [f for f in functions if f not in FUNCTIONS]
    if unknown:
        raise SliceError(f"no function {unknown[0]!r} is registered; known: {', '.join(FUNCTIONS)}")
    tokens = tokenize(expression)
    if len(tokens) == 1:
        raise SliceError("the expression is empty; write a condition, e.g. task == \"QA\"")
    return _Parser(tokens, names, functions, scorers, kinds or {}).parse()


def _nodes(node: Node) -> list[Node]:
    """Every node of a tree, the root first."""
    children: tuple[Node, ...] = ()
    if isinstance(node, Compare):
        children = (node.left, node.right)
    elif isinstance(node, Member | Not):
        children = (node.operand,)
    elif isinstance(node, BoolOp):
        children = tuple(node.operands)
    return [node, *(n for child in children for n in _nodes(child))]


def names_in(node: Node) -> set[str]:
    """The names a tree uses (a back end checks they are all at hand)."""
    return {n.name for n in _nodes(node) if isinstance(n, Name)}


def calls_in(node: Node) -> set[tuple[str, str]]:
    """The ``(function, argument)`` calls a tree makes."""
    return {(n.function, n.argument) for n in _nodes(node) if isinstance(n, Call)}


# -- back ends --------------------------------------------------------------------------

#: The frame column a function reads (``tagged`` reads the ``tags`` column).
CALL_COLUMNS = {"wrong": "correct:{}", "right": "correct:{}", "entails": "entails:{}", "score": "score:{}",
                "tagged": "tags"}


def call_column(node: Call) -> str:
    """The column (of a :class:`~explorer.groups.frame.GroupFrame`, or a key of
    :func:`compile_sql`'s ``columns``) a call reads."""
    return CALL_COLUMNS[node.function].format(node.argument)


def compile_pandas(node: Node, frame: Framed | pd.DataFrame) -> pd.Series:
    """The pairs of ``frame`` the slice holds: a boolean Series on the frame's index.

    Raises:
        SliceError: for a name or scorer the frame has no column for, or a column that
            cannot be a condition (a text used as true/false).
    """
    table: pd.DataFrame = getattr(frame, "table", frame)
    missing = sorted(n for n in names_in(node) if n not in table.columns)
    missing += sorted(call_column(c) for c in _calls(node) if call_column(c) not in table.columns)
    if missing:
        raise SliceError(f"the frame has no column {missing[0]!r}; columns: {', '.join(map(str, table.columns))}")
    return _condition(node, table).fillna(False).astype(bool)


def _calls(node: Node) -> list[Call]:
    return [Call(0, f, a) for f, a in sorted(calls_in(node))]


def _pandas_value(node: Node, table: pd.DataFrame) -> pd.Series | float | str | bool:
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Name):
        return table[node.name]
    if isinstance(node, Call) and node.function == "score":
        return table[call_column(node)].astype(float)
    return _condition(node, table)


def _condition(node: Node, table: pd.DataFrame) -> pd.Series:
    """A nullable boolean Series (pandas' Kleene logic for and/or/not)."""
    import pandas as pd

    if isinstance(node, BoolOp):
        parts = [_condition(n, table) for n in node.operands]
        out = parts[0]
        for part in parts[1:]:
            out = (out & part) if node.op == "and" else (out | part)
        return out
    if isinstance(node, Not):
        return ~_condition(node.operand, table)
    if isinstance(node, Compare):
        return _compare(node.op, _pandas_value(node.left, table), _pandas_value(node.right, table), table)
    if isinstance(node, Member):
        value = _pandas_value(node.operand, table)
        series = value if isinstance(value, pd.Series) else pd.Series([value] * len(table), index=table.index)
        wanted = [v.value for v in node.values]
        found = _known(series.isin(wanted), series)
        return ~found if node.negated else found
    if isinstance(node, Call):
        column = table[call_column(node)]
        if node.function == "tagged":
            return column.map(lambda tags: node.argument in tags if tags is not None else False).astype("boolean")
        found = _as_condition(column, call_column(node), node.column)
        return ~found if node.function == "wrong" else found
    if isinstance(node, Name):
        return _as_condition(table[node.name], node.name, node.column)
    if isinstance(node, Literal) and isinstance(node.value, bool):
        return pd.Series([node.value] * len(table), index=table.index, dtype="boolean")
    raise SliceError(f"the value at column {node.column} is not a condition; compare it")


def _as_condition(column: pd.Series, name: str, where: int) -> pd.Series:
    """A column of true/false (None/NaN for unknown) as a nullable boolean Series."""
    try:
        return column.astype("boolean")
    except (TypeError, ValueError):
        raise SliceError(f"{name!r} at column {where} is not true/false; compare it, "
                         f"e.g. {name} == \"...\" or {name} < 0.5") from None


def _known(result: pd.Series, *operands: object) -> pd.Series:
    """``result`` as nullable booleans, unknown wherever an operand is missing."""
    import pandas as pd

    out = result.astype("boolean")
    for operand in operands:
        if isinstance(operand, pd.Series):
            out[operand.isna().to_numpy()] = pd.NA
    return out


def _compare(op: str, left: object, right: object, table: pd.DataFrame) -> pd.Series:
    import operator

    import pandas as pd

    if not isinstance(left, pd.Series) and not isinstance(right, pd.Series):
        left = pd.Series([left] * len(table), index=table.index, dtype=object)
    if op in ("<", "<=", ">", ">="):
        left, right = (pd.to_numeric(x, errors="coerce") if isinstance(x, pd.Series) else x for x in (left, right))
    elif any(isinstance(x, pd.Series) and x.dtype == "boolean" for x in (left, right)):
        left, right = (x.astype(object) if isinstance(x, pd.Series) else x for x in (left, right))
    function: Callable[[Any, Any], Any] = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
                ">": operator.gt, ">=": operator.ge}[op]
    try:
        result = function(left, right)
    except TypeError:
        raise SliceError(f"'{op}' cannot compare these values") from None
    if not isinstance(result, pd.Series):  # two scalars
        result = pd.Series([bool(result)] * len(table), index=table.index)
    return _known(result.fillna(False), left, right)


def sql_literal(value: bool | float | str) -> str:
    """A literal as SQL text, safely: booleans and finite numbers as themselves, a string
    in single quotes with every quote doubled (and no NUL, which the tokenizer already
    refuses)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float | int):
        number = float(value)
        if not math.isfinite(number):
            raise SliceError(f"number {value} is not finite")
        return f"CAST({number!r} AS DOUBLE)"
    text = str(value)
    if "\x00" in text:
        raise SliceError("a string cannot hold a NUL character")
    return "'" + text.replace("'", "''") + "'"


_SQL_OPS = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def compile_sql(node: Node, columns: Mapping[str, str]) -> str:
    """A DuckDB ``WHERE`` condition for the slice.

    Args:
        node: a parsed slice.
        columns: language name (and for the functions ``score:S``, ``entails:S``,
            ``correct:S``, ``tags``) -> the SQL expression that computes it, built by the
            caller from identifiers it checked (:mod:`explorer.groups.batch`). Every literal
            of the slice goes through :func:`sql_literal`; nothing a user typed reaches
            SQL unquoted.

    Raises:
        SliceError: for a name or call ``columns`` has no expression for.
    """
    def column(key: str, where: int) -> str:
        if key not in columns:
            raise SliceError(f"{key!r} at column {where} is not available here; available: "
                             f"{', '.join(sorted(columns))}")
        return f"({columns[key]})"

    def value(n: Node) -> str:
        if isinstance(n, Literal):
            return sql_literal(n.value)
        if isinstance(n, Name):
            return column(n.name, n.column)
        if isinstance(n, Call) and n.function == "score":
            return column(call_column(n), n.column)
        return condition(n)

    def condition(n: Node) -> str:
        if isinstance(n, BoolOp):
            return "(" + f" {n.op.upper()} ".join(condition(o) for o in n.operands) + ")"
        if isinstance(n, Not):
            return f"(NOT {condition(n.operand)})"
        if isinstance(n, Compare):
            return f"({value(n.left)} {_SQL_OPS[n.op]} {value(n.right)})"
        if isinstance(n, Member):
            listed = ", ".join(sql_literal(v.value) for v in n.values)
            return f"({value(n.operand)} {'NOT IN' if n.negated else 'IN'} ({listed}))"
        if isinstance(n, Call):
            if n.function == "tagged":
                return f"list_contains({column('tags', n.column)}, {sql_literal(n.argument)})"
            found = column(call_column(n), n.column)
            return f"(NOT {found})" if n.function == "wrong" else found
        if isinstance(n, Name):
            return f"CAST({column(n.name, n.column)} AS BOOLEAN)"
        if isinstance(n, Literal) and isinstance(n.value, bool):
            return sql_literal(n.value)
        raise SliceError(f"the value at column {n.column} is not a condition; compare it")

    return condition(node)

__all__ = ["COMPARISONS", "FIELDS", "FUNCTIONS", "MAX_DEPTH", "MAX_LENGTH", "MAX_TOKENS", "BoolOp", "Call",
           "Compare", "Literal", "Member", "Name", "Node", "Not", "SliceError", "Token", "calls_in",
           "call_column", "compile_pandas", "compile_sql", "names_in", "parse", "sql_literal", "tokenize"]
