"""Could a phrase table learnt from gold blocks help MANLI?

Before building phrasal paraphrase evidence from the gold alignments (a table of the
phrase pairs the annotators aligned, learnt only from the training side of each
protocol), this counts how much of the *test* side such a table
would cover at all, and how often it would fire where the gold has no block.

A *table entry* is a gold aligned block (``Alignment.to_phrase_edits(partial=True)``,
SURE links) whose lemma sequences differ (identical phrases are the identity features'
business), keyed by the lower-cased lemma sequences of its two sides. For each protocol
the table is built from the training side's gold only, then on the test side:

* covered: the test side's non-identical gold blocks (and their links) whose key is in
  the table, all and multi-token blocks separately;
* fires elsewhere: candidate blocks (at most 6 tokens a side, as MANLI's) whose key is in
  the table but which are not gold blocks of that problem.

A looser *word table* holds the content-word pairs (lemmas differ, no stopwords) inside the
training side's multi-token non-identical blocks; on the test side it counts the
multi-token gold blocks with at least one such pair inside, and the token pairs it marks
that are gold links and that are not.

Protocols: ``msr2edi`` and ``edi2msr`` (one corpus to the other), and ``edi-folds`` /
``msr-folds``: the 2 folds of ``bench.manli_transfer`` (first half / second half of the
corpus, each tested with the table of the other half). Edinburgh++ holds several
paraphrases of some source sentences, so its within-corpus folds can share phrase pairs
that a new corpus would not.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.manli_phrase_table_probe
"""

from __future__ import annotations

import collections
import time

from bench.manli_transfer import SHARED
from explorer.aligners.evaluation import load_gold
from explorer.preprocess import analyze_pair

MAX_PHRASE = 6
Key = tuple[tuple[str, ...], tuple[str, ...]]


def corpus(name: str) -> list[dict[str, object]]:
    """Per problem: lemma sequences and the gold blocks (spans)."""
    paths = [str(SHARED / "msr_align" / f"RTE2_dev_{x}.align.txt") for x in "ABC"] if name == "msr" else [
        str(SHARED / "edinburgh" / "gold.train.sure.json")]
    out = []
    for pair in load_gold(paths).pairs:
        if pair.gold_alignment is None:
            continue
        analysed = analyze_pair(pair)
        edits, _ = pair.gold_alignment.to_phrase_edits(partial=True)
        blocks = [(e.p_span, e.h_span) for e in edits if e.p_span is not None and e.h_span is not None]
        out.append({"p": tuple(x.lower() for x in analysed.text.lemmas),
                    "h": tuple(x.lower() for x in analysed.hypothesis.lemmas), "blocks": blocks})
    return out


def key(problem: dict[str, object], p_span: tuple[int, int], h_span: tuple[int, int]) -> Key:
    p, h = problem["p"], problem["h"]
    return p[p_span[0]:p_span[1]], h[h_span[0]:h_span[1]]  # type: ignore[index]


def table(problems: list[dict[str, object]]) -> collections.Counter[Key]:
    counts: collections.Counter[Key] = collections.Counter()
    for problem in problems:
        for p_span, h_span in problem["blocks"]:  # type: ignore[attr-defined]
            k = key(problem, p_span, h_span)
            if k[0] != k[1]:
                counts[k] += 1
    return counts


def word_table(problems: list[dict[str, object]]) -> set[tuple[str, str]]:
    """Content-word pairs (lemmas differ, neither a stopword nor punctuation) inside the
    multi-token non-identical gold blocks: a word-association table (``said`` / ``point``)."""
    from explorer.preprocess import stopwords

    stop = stopwords()
    out: set[tuple[str, str]] = set()
    for problem in problems:
        for p_span, h_span in problem["blocks"]:  # type: ignore[attr-defined]
            k = key(problem, p_span, h_span)
            if k[0] == k[1] or len(k[0]) * len(k[1]) < 2:
                continue
            out.update((a, b) for a in k[0] for b in k[1]
                       if a != b and a not in stop and b not in stop and a[:1].isalnum() and b[:1].isalnum())
    return out


def measure(label: str, train: list[dict[str, object]], test: list[dict[str, object]]) -> None:
    entries = table(train)
    by_p: dict[tuple[str, ...], set[tuple[str, ...]]] = collections.defaultdict(set)
    for p_phrase, h_phrase in entries:
        by_p[p_phrase].add(h_phrase)
    blocks = covered = multi = multi_covered = links = links_covered = fires = 0
    for problem in test:
        gold = set()
        for p_span, h_span in problem["blocks"]:  # type: ignore[attr-defined]
            gold.add((p_span, h_span))
            k = key(problem, p_span, h_span)
            if k[0] == k[1]:
                continue
            size = (p_span[1] - p_span[0]) * (h_span[1] - h_span[0])
            hit = k in entries
            blocks += 1
            covered += hit
            links += size
            links_covered += size * hit
            if size > 1:
                multi += 1
                multi_covered += hit
        p, h = problem["p"], problem["h"]
        for i in range(len(p)):  # type: ignore[arg-type]
            for m in range(1, MAX_PHRASE + 1):
                if i + m > len(p):  # type: ignore[arg-type]
                    break
                targets = by_p.get(p[i:i + m])  # type: ignore[index]
                if not targets:
                    continue
                for j in range(len(h)):  # type: ignore[arg-type]
                    for n in range(1, MAX_PHRASE + 1):
                        if j + n > len(h):  # type: ignore[arg-type]
                            break
                        if h[j:j + n] in targets and ((i, i + m), (j, j + n)) not in gold:  # type: ignore[index]
                            fires += 1
    words = word_table(train)
    w_reached = w_fires = w_gold = 0
    for problem in test:
        p, h = problem["p"], problem["h"]
        linked = {(i, j) for p_span, h_span in problem["blocks"]  # type: ignore[attr-defined]
                  for i in range(*p_span) for j in range(*h_span)}
        for p_span, h_span in problem["blocks"]:  # type: ignore[attr-defined]
            k = key(problem, p_span, h_span)
            if k[0] != k[1] and (p_span[1] - p_span[0]) * (h_span[1] - h_span[0]) > 1:
                w_reached += any((a, b) in words for a in k[0] for b in k[1])
        for i, a in enumerate(p):  # type: ignore[arg-type]
            for j, b in enumerate(h):  # type: ignore[arg-type]
                if (a, b) in words:
                    if (i, j) in linked:
                        w_gold += 1
                    else:
                        w_fires += 1
    print(f"{label:<22} word pairs from training blocks {len(words)} | multi-token gold blocks with one inside "
          f"{w_reached} of {multi}; fires on {w_gold} gold links and {w_fires} other token pairs")
    print(f"{label:<22} table {len(entries):>6} entries | test: non-identical gold blocks {blocks}, covered "
          f"{covered} ({100 * covered / max(blocks, 1):.1f}%); multi-token {multi}, covered {multi_covered} "
          f"({100 * multi_covered / max(multi, 1):.1f}%); their links {links}, covered {links_covered}; "
          f"fires on {fires} non-gold candidate blocks")


def main() -> None:
    started = time.perf_counter()
    msr, edi = corpus("msr"), corpus("edi")
    half_m, half_e = len(msr) // 2, len(edi) // 2
    measure("msr2edi", msr, edi)
    measure("edi2msr", edi, msr)
    measure("edi-folds (1 -> 2)", edi[:half_e], edi[half_e:])
    measure("edi-folds (2 -> 1)", edi[half_e:], edi[:half_e])
    measure("msr-folds (1 -> 2)", msr[:half_m], msr[half_m:])
    measure("msr-folds (2 -> 1)", msr[half_m:], msr[:half_m])
    measure("both-folds -> msr 2", msr[:half_m] + edi[:half_e], msr[half_m:])
    measure("both-folds -> edi 2", msr[:half_m] + edi[:half_e], edi[half_e:])
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
