"""How much of MANLI's alignment error involves numbers.

For each gold corpus (the MSR RTE2 dev alignments, A/B/C merged by majority as in
``bench.manli_transfer``; the Edinburgh++ training set), aligns every problem with a
shipped MANLI model and counts the gold SURE links that touch a *number token* on either
side (a token holding a digit, a number word, a scale word such as ``million``,
``percent`` or ``%``), how many of those the model misses, and how many predicted links
on number tokens are not in the gold. It also prints an oracle: the F1 the model would
get if every number link were right (missed number links added, wrong ones removed),
which bounds what any number evidence can add.

Missed links are put in classes: ``same`` (the two tokens are the same string),
``value`` (both parse to the same value, other surface), ``format`` (a multi-token /
hyphenated / percent form: one side a scale word, ``%``, ``percent`` or a hyphenated
number), ``number-word`` (a number token linked to a non-number token) and ``other``.

With ``--cost N`` it instead times MANLI's feature extraction on the first N MSR
problems with the number-format stage on and off (switched off by replacing it with a
no-op), alternating on/off passes in one process after a warm-up pass, and prints each
pass's median per problem and the ratio, then the share of one warm pass's extraction
time spent in the stage (timed around it: the figure least moved by the machine's load).

With ``--hostile N`` it times feature extraction (warm, second call) of a synthetic pair
of N x N random numbers 1-50 (every block has numbers on both sides) and the time spent
in the two number stages (``_number_features``, ``_number_format_features``).

Usage: NLTK_DATA=../shared/nltk_data python -m bench.manli_number_probe [--model msr]
       [--corpora msr,edi] [--examples 15] [--cost N --passes 4] [--hostile 60,80]
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time

from bench.manli_transfer import SHARED
from explorer.aligners.evaluation import harmonic_mean, load_gold
from explorer.aligners.manli import ManliAligner
from explorer.lexical.numbers import number_value
from explorer.preprocess import analyze_pair

_SCALE = {"hundred", "thousand", "million", "billion", "trillion", "percent", "%", "per", "cent", "dozen"}
_HYPHEN_NUMBER = re.compile(r"^\$?\d[\d,.]*-")


def is_number_token(token: str) -> bool:
    low = token.lower()
    return any(ch.isdigit() for ch in token) or number_value(token) is not None or low in _SCALE


def classify(a: str, b: str) -> str:
    na, nb = is_number_token(a), is_number_token(b)
    if a.lower() == b.lower():
        return "same"
    if not (na and nb):
        return "number-word"
    va, vb = number_value(a), number_value(b)
    if va is not None and va == vb:
        return "value"
    if a.lower() in _SCALE or b.lower() in _SCALE or _HYPHEN_NUMBER.match(a) or _HYPHEN_NUMBER.match(b):
        return "format"
    return "other"


def probe(name: str, model: str, examples: int) -> None:
    paths = [str(SHARED / "msr_align" / f"RTE2_dev_{x}.align.txt") for x in "ABC"] if name == "msr" else [
        str(SHARED / "edinburgh" / "gold.train.sure.json")]
    pairs = [p for p in load_gold(paths).pairs if p.gold_alignment is not None]
    aligner = ManliAligner().with_model(model)
    started = time.perf_counter()
    gold_links = gold_num = pred_num = 0
    problems_with = 0
    missed_kinds: collections.Counter[str] = collections.Counter()
    wrong_kinds: collections.Counter[str] = collections.Counter()
    shown: dict[str, list[str]] = collections.defaultdict(list)
    precisions: list[float] = []
    recalls: list[float] = []
    o_precisions: list[float] = []
    o_recalls: list[float] = []
    for pair in pairs:
        gold = pair.gold_alignment
        assert gold is not None
        analysed = analyze_pair(pair)
        t, h = analysed.text.tokens, analysed.hypothesis.tokens
        predicted = aligner.align(analysed).alignment.links
        sure = gold.sure
        touches = {(i, j): is_number_token(t[i]) or is_number_token(h[j]) for (i, j) in sure | predicted}
        gold_links += len(sure)
        g_num = {link for link in sure if touches[link]}
        p_num = {link for link in predicted if touches[link]}
        gold_num += len(g_num)
        problems_with += bool(g_num)
        pred_num += len(p_num)
        for label, links, kinds in (("missed", g_num - predicted, missed_kinds), ("wrong", p_num - sure, wrong_kinds)):
            for i, j in sorted(links):
                kind = classify(t[i], h[j])
                kinds[kind] += 1
                if len(shown[f"{label} {kind}"]) < examples:
                    shown[f"{label} {kind}"].append(f"{t[i]} / {h[j]}")
        oracle = (predicted - (p_num - sure)) | g_num
        for links, ps, rs in ((predicted, precisions, recalls), (oracle, o_precisions, o_recalls)):
            ps.append(len(links & sure) / len(links) if links else 1.0)
            rs.append(len(links & sure) / len(sure) if sure else 1.0)
    n = len(pairs)
    p, r = sum(precisions) / n, sum(recalls) / n
    op, orr = sum(o_precisions) / n, sum(o_recalls) / n
    print(f"== {name}: {n} problems, model {model!r}, {time.perf_counter() - started:.0f} s")
    print(f"gold SURE links {gold_links}; touching a number token {gold_num} ({100 * gold_num / gold_links:.1f}%) "
          f"in {problems_with} problems; missed {sum(missed_kinds.values())}")
    print(f"  missed by class: {dict(missed_kinds.most_common())}")
    print(f"predicted links touching a number token {pred_num}; not in the gold {sum(wrong_kinds.values())}")
    print(f"  wrong by class: {dict(wrong_kinds.most_common())}")
    print(f"model P {100 * p:.1f} R {100 * r:.1f} F1 {100 * harmonic_mean(p, r):.1f}; "
          f"number oracle P {100 * op:.1f} R {100 * orr:.1f} F1 {100 * harmonic_mean(op, orr):.1f}")
    for key, items in sorted(shown.items()):
        print(f"  {key}: " + "; ".join(items))


def cost(n: int, passes: int) -> None:
    import statistics

    import explorer.aligners.manli.features as mf

    paths = [str(SHARED / "msr_align" / f"RTE2_dev_{x}.align.txt") for x in "ABC"]
    analysed = [analyze_pair(p) for p in load_gold(paths).pairs[:n]]
    for a in analysed:
        a.text.lemmas, a.hypothesis.lemmas, a.text.stop, a.hypothesis.stop  # noqa: B018 -- warm
    aligner = ManliAligner()
    stage = mf._number_format_features

    def run() -> float:
        times = []
        for a in analysed:
            started = time.perf_counter()
            aligner.features(a)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    run()  # warm the lexical caches
    medians: dict[str, list[float]] = {"on": [], "off": []}
    try:
        for _ in range(passes):
            for label in ("off", "on"):
                mf._number_format_features = stage if label == "on" else (lambda *args: None)
                medians[label].append(run())
    finally:
        mf._number_format_features = stage
    spent = [0.0]

    def timed(*args: object) -> None:
        started = time.perf_counter()
        stage(*args)  # type: ignore[arg-type]
        spent[0] += time.perf_counter() - started

    mf._number_format_features = timed
    try:
        started = time.perf_counter()
        for a in analysed:
            aligner.features(a)
        total = time.perf_counter() - started
    finally:
        mf._number_format_features = stage
    print(f"the number-format stage: {1000 * spent[0]:.0f} ms of {1000 * total:.0f} ms of warm extraction "
          f"({100 * spent[0] / total:.1f}%)")
    for label, values in medians.items():
        print(f"{label}: " + ", ".join(f"{1000 * v:.2f}" for v in values) + " ms median per problem")
    ratios = [on / off for on, off in zip(medians["on"], medians["off"])]
    print("on / off per pass: " + ", ".join(f"{r:.3f}" for r in ratios))


def hostile(sizes: list[int]) -> None:
    import random

    import explorer.aligners.manli.features as mf
    from explorer.pairs import Pair

    rng = random.Random(0)
    aligner = ManliAligner()
    stages = {name: getattr(mf, name) for name in ("_number_features", "_number_format_features")}
    for n in sizes:
        t = tuple(str(rng.randint(1, 50)) for _ in range(n))
        h = tuple(str(rng.randint(1, 50)) for _ in range(n))
        analysed = analyze_pair(Pair("hostile", " ".join(t), " ".join(h), text_tokens=t, hypothesis_tokens=h))
        aligner.features(analysed)
        spent = dict.fromkeys(stages, 0.0)

        def timed(name: str, spent: dict[str, float] = spent):  # type: ignore[no-untyped-def]
            def run(*args: object) -> None:
                started = time.perf_counter()
                stages[name](*args)
                spent[name] += time.perf_counter() - started
            return run

        try:
            for name in stages:
                setattr(mf, name, timed(name))
            started = time.perf_counter()
            feats = aligner.features(analysed)
            total = time.perf_counter() - started
        finally:
            for name, stage in stages.items():
                setattr(mf, name, stage)
        print(f"{n} x {n} numbers, {len(feats)} candidates: features {total:.2f} s; "
              + ", ".join(f"{name} {value:.2f} s" for name, value in spent.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="msr")
    parser.add_argument("--corpora", default="msr,edi")
    parser.add_argument("--examples", type=int, default=15, help="example token pairs printed per class")
    parser.add_argument("--cost", type=int, help="time feature extraction on this many MSR problems instead")
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--hostile", help="comma-separated sizes of synthetic all-number pairs to time")
    args = parser.parse_args()
    if args.hostile:
        hostile([int(x) for x in args.hostile.split(",")])
        return
    if args.cost:
        cost(args.cost, args.passes)
        return
    for name in args.corpora.split(","):
        probe(name, args.model, args.examples)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
