"""Microsoft Research gold alignments of RTE2 (Brockett 2007), as used by MacCartney,
Galley & Manning (2008, §5) to train and evaluate MANLI.

The files are GIZA-style, three lines per problem::

    # sentence pair N
    <text tokens separated by spaces>
    NULL ({ / / }) tok ({ 3 p4 / / }) tok ({ / / }) ...

Each hypothesis token is followed by the 1-based text positions it is aligned to; a
``p`` prefix marks a POSSIBLE link, a bare number a SURE one; ``/`` is a separator
carried over from the GIZA format. ``NULL``'s list is ignored. The released annotator
files have byte-order marks scattered through them, CRLF line ends, and annotator C's
last line lacks its final ``)``; all three are tolerated (the link list is complete
once ``}`` is read). Tokens are separated by white space; other format characters are
removed from tokens as the byte-order marks are, and a token holding a control
character is refused (the token rule of :mod:`explorer.datasets.fields`). Problem numbers
and positions are ASCII digits. Anything else malformed raises :class:`DatasetError`
naming the file, the problem number and the line.

The three annotator files (A, B, C) merge by majority (:func:`merge_annotators`): a
link is SURE when more than half the annotators mark it SURE, POSSIBLE when more than
half mark it at all (SURE or POSSIBLE) but no majority calls it SURE (so a link that
one annotator calls SURE, one POSSIBLE and one leaves out is POSSIBLE), and dropped
when only a minority marks it. On the 715 problems whose tokenisation the released
merged file ``RTE2_dev_M`` keeps, this rule reproduces its POSSIBLE links exactly and
its SURE links on 713. MacCartney et al. evaluate on the SURE links of such a merge.

The problem numbers are the MSR corpus's own, *not* RTE2 ids. RTE2 labels are
attached by matching the text and hypothesis (letters and digits only, lower case)
against the RTE2 dev XML that NLTK ships (``corpora/rte/rte2_dev.xml``), which holds
only the first 400 RTE2 dev problems: so at most half of the 800 MSR problems can get
a label, and in practice a few of those 400 do not match (spelling changes in the MSR
release). :func:`attach_rte_labels` returns how many matched.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from explorer.alignment import Alignment, AlignmentError, Link
from explorer.datasets import Dataset, DatasetError
from explorer.datasets import fields as F
from explorer.datasets.reading import check_count
from explorer.datasets.reading import lines as read_lines
from explorer.pairs import Pair

__all__ = [
    "FUZZY_JACCARD", "attach_rte_labels", "load_annotators", "merge_annotators", "merge_datasets", "nltk_rte2_dev",
    "parse_msr_align", "parse_msr_align_labelled", "sniff",
]

_HEADER = re.compile(r"^#\s*sentence pair\s+([0-9]{1,9})\s*$")
# Possessive, and anchored at a token start, so that a long line costs linear time.
_TOKEN = re.compile(r"(?<!\S)(\S++)\s++\(\{([^{}]*+)\}(\)|$)")
_LINK = re.compile(r"^(p?)([0-9]+)$")


def sniff(text: str) -> bool:
    """Whether a file starts like an MSR alignment file: a ``# sentence pair`` line, then
    (however long the lines are) a hypothesis line with ``({`` link lists."""
    head = text.lstrip("\ufeff \n\t")
    if not head.replace("\ufeff", "").startswith("# sentence pair"):
        return False
    first = head.split("\n", 3)
    return len(first) >= 3 and "({" in first[2]


def _parse_links(line: str, text_len: int, where: str) -> tuple[list[str], set[Link], set[Link]]:
    tokens: list[str] = []
    sure: set[Link] = set()
    possible: set[Link] = set()
    position = 0
    first = True
    stripped = line.rstrip()
    for match in _TOKEN.finditer(stripped):
        gap = stripped[position : match.start()]
        if gap.strip():
            raise DatasetError(f"{where}: cannot read {gap.strip()!r}; expected 'token ({{ positions }})'")
        position = match.end()
        word, body = match.group(1), match.group(2)
        is_null = first and word == "NULL"
        first = False
        h = len(tokens)
        for item in body.split():
            if item == "/":
                continue
            link = _LINK.match(item)
            if link is None:
                raise DatasetError(f"{where}: token {word!r} has link {item!r}; expected N or pN (1-based text positions)")
            p = F.position(link.group(2), where, f"token {word[:40]!r}: link")
            if not 1 <= p <= text_len:
                raise DatasetError(f"{where}: token {word!r} links to text position {p}, outside 1..{text_len}")
            if is_null:
                continue
            (possible if link.group(1) else sure).add((p - 1, h))
        if not is_null:
            tokens.append(F.token(word, where))
    rest = stripped[position:]
    if rest.strip():
        raise DatasetError(f"{where}: cannot read {rest.strip()[:40]!r}; expected 'token ({{ positions }})'")
    return tokens, sure, possible - sure


def parse_msr_align(text: str, name: str) -> list[Pair]:
    """Parse one MSR alignment file into pairs with gold alignments (no labels).

    Raises:
        DatasetError: naming the file, problem and line, for a missing header, text or
            hypothesis line, a bad link or a position outside the text.
    """
    lines = [line.replace("\ufeff", "") for line in read_lines(text, name)]
    pairs: list[Pair] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        header = _HEADER.match(lines[i].strip())
        if header is None:
            raise DatasetError(f"{name}: line {i + 1}: expected '# sentence pair N', found {lines[i].strip()[:60]!r}")
        number = header.group(1)
        where = f"{name}: sentence pair {number}"
        if i + 2 >= len(lines):
            raise DatasetError(f"{where} (line {i + 1}): the text or hypothesis line is missing")
        text_line, hyp_line = lines[i + 1], lines[i + 2]
        if _HEADER.match(text_line.strip()) or _HEADER.match(hyp_line.strip()):
            raise DatasetError(f"{where} (line {i + 1}): the text or hypothesis line is missing")
        text_tokens = tuple(F.token(token, f"{where} (line {i + 2})") for token in text_line.split())
        if not text_tokens:
            raise DatasetError(f"{where} (line {i + 2}): empty text")
        if "({" in text_line:
            raise DatasetError(f"{where} (line {i + 2}): the text line holds alignment lists; expected plain tokens")
        h_tokens, sure, possible = _parse_links(hyp_line, len(text_tokens), f"{where} (line {i + 3})")
        if not h_tokens:
            raise DatasetError(f"{where} (line {i + 3}): no hypothesis tokens; expected 'NULL ({{ }}) token ({{ positions }}) ...'")
        try:
            gold = Alignment.from_links(len(text_tokens), len(h_tokens), sure, possible)
        except AlignmentError as err:
            raise DatasetError(f"{where}: {err}") from None
        check_count(len(pairs) + 1, name)
        pairs.append(
            Pair(
                id=number,
                text=F.joined(text_tokens, where, "the text"),
                hypothesis=F.joined(tuple(h_tokens), where, "the hypothesis"),
                source=name,
                text_tokens=text_tokens,
                hypothesis_tokens=tuple(h_tokens),
                gold_alignment=gold,
            )
        )
        i += 3
    return pairs


def merge_annotators(annotations: Sequence[Sequence[Pair]], names: Sequence[str]) -> list[Pair]:
    """Merge several annotators' alignments of the same problems by majority.

    SURE: more than half the annotators mark the link SURE. POSSIBLE: more than half
    mark it (SURE or POSSIBLE) but it is not SURE. Tokens come from the first
    file (the releases differ only in a few spellings, e.g. ``..`` for ``.``).

    Raises:
        DatasetError: when the files hold different problems or token counts.
    """
    if not annotations:
        raise DatasetError("no annotator files to merge")
    first = annotations[0]
    by_id = [{p.id: p for p in pairs} for pairs in annotations]
    for pairs, name in zip(by_id, names):
        if set(pairs) != set(by_id[0]):
            missing = sorted(set(by_id[0]) ^ set(pairs), key=lambda s: int(s) if s.isdigit() else 0)[:5]
            raise DatasetError(f"{name}: holds different sentence pairs from {names[0]} (e.g. {', '.join(missing)})")
    majority = len(annotations) / 2
    merged: list[Pair] = []
    for pair in first:
        versions = [pairs[pair.id] for pairs in by_id]
        for version, name in zip(versions, names):
            if len(version.text_tokens or ()) != len(pair.text_tokens or ()) or len(version.hypothesis_tokens or ()) != len(
                pair.hypothesis_tokens or ()
            ):
                raise DatasetError(
                    f"{name}: sentence pair {pair.id} has a different number of tokens from {names[0]}; cannot merge"
                )
        sure_votes: Counter[Link] = Counter()
        any_votes: Counter[Link] = Counter()
        for version, name in zip(versions, names):
            if version.gold_alignment is None:
                raise DatasetError(f"{name}: sentence pair {pair.id} has no gold alignment")
            sure_votes.update(version.gold_alignment.sure)
            any_votes.update(version.gold_alignment.links)
        sure = {link for link, votes in sure_votes.items() if votes > majority}
        possible = {link for link, votes in any_votes.items() if votes > majority} - sure
        gold = Alignment.from_links(len(pair.text_tokens or ()), len(pair.hypothesis_tokens or ()), sure, possible)
        merged.append(replace(pair, gold_alignment=gold, source="+".join(names)))
    return merged


def _norm(s: str) -> str:
    return "".join(ch for ch in s.lower() if ch.isalnum())


def _words(s: str) -> set[str]:
    return {w for w in re.split(r"[^0-9a-z]+", s.lower()) if w}


def _jaccard(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


#: A pair that matches on one side only is accepted when the other side's word sets
#: overlap this much (the MSR release fixed some spellings and quotes in one side).
FUZZY_JACCARD = 0.7


def attach_rte_labels(pairs: Sequence[Pair], rte_pairs: Sequence[Pair]) -> tuple[list[Pair], int, int]:
    """Give MSR pairs the label and task of the RTE pair with the same text and
    hypothesis, compared on lower-cased letters and digits only. An RTE pair with no
    exact match is accepted on one side matching exactly when that side is unique in
    both sets and the other side's word sets overlap (Jaccard) at least
    :data:`FUZZY_JACCARD`.

    Returns:
        The pairs (labelled where matched), the number matched exactly and the number
        matched on one side.
    """
    exact: dict[tuple[str, str], Pair] = {(_norm(p.text), _norm(p.hypothesis)): p for p in rte_pairs}
    msr_text = Counter(_norm(p.text) for p in pairs)
    msr_hyp = Counter(_norm(p.hypothesis) for p in pairs)
    rte_text = Counter(_norm(p.text) for p in rte_pairs)
    rte_hyp = Counter(_norm(p.hypothesis) for p in rte_pairs)
    by_text = {_norm(p.text): p for p in rte_pairs}
    by_hyp = {_norm(p.hypothesis): p for p in rte_pairs}
    out: list[Pair] = []
    n_exact = n_fuzzy = 0
    used: set[str] = set()
    for pair in pairs:
        t, h = _norm(pair.text), _norm(pair.hypothesis)
        rte = exact.get((t, h))
        if rte is not None:
            n_exact += 1
        else:
            candidate = None
            if msr_hyp[h] == 1 and rte_hyp[h] == 1 and _jaccard(pair.text, by_hyp[h].text) >= FUZZY_JACCARD:
                candidate = by_hyp[h]
            elif msr_text[t] == 1 and rte_text[t] == 1 and _jaccard(pair.hypothesis, by_text[t].hypothesis) >= FUZZY_JACCARD:
                candidate = by_text[t]
            if candidate is not None and candidate.id not in used:
                rte = candidate
                n_fuzzy += 1
        if rte is not None:
            used.add(rte.id)
            pair = replace(pair, label=rte.label, task=rte.task)
        out.append(pair)
    return out, n_exact, n_fuzzy


@lru_cache(maxsize=1)
def nltk_rte2_dev() -> tuple[Pair, ...]:
    """The RTE2 dev pairs NLTK ships (ids 1-400), or () when the resource is missing."""
    from explorer import resources

    if not resources.is_available("rte"):
        return ()
    import nltk

    from explorer.datasets import load_bytes

    try:
        pointer = nltk.data.find("corpora/rte/rte2_dev.xml")
    except LookupError:
        return ()
    with pointer.open() as handle:
        return load_bytes(handle.read(), "rte2_dev.xml").pairs


def parse_msr_align_labelled(text: str, name: str) -> list[Pair]:
    """:func:`parse_msr_align`, with RTE2 labels attached where NLTK's RTE2 dev matches."""
    pairs = parse_msr_align(text, name)
    rte = nltk_rte2_dev()
    if rte:
        pairs, _, _ = attach_rte_labels(pairs, rte)
    return pairs


def load_annotators(paths: Sequence[str | Path]) -> Dataset:
    """Load several annotators' MSR files of the same problems and merge them by
    majority (:func:`merge_datasets`), with RTE2 labels attached where they match.

    Raises:
        DatasetError: for an unreadable, malformed or non-MSR file, or files that do
            not hold the same problems.
    """
    from explorer.datasets import load

    return merge_datasets([load(path, fmt="msr_align") for path in paths])


def merge_datasets(annotators: Sequence[Dataset]) -> Dataset:
    """Loaded annotator files (format ``msr_align``) as one gold set, merged by majority
    (:func:`merge_annotators`); named after them all (``A+B+C``).

    Raises:
        DatasetError: for files that do not hold the same problems.
    """
    names = [d.name for d in annotators]
    merged = merge_annotators([d.pairs for d in annotators], names)
    return Dataset(name="+".join(names), format="msr_align", pairs=tuple(merged))
