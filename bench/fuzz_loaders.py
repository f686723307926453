"""Long fuzz run over every loader: malformed files from hand-written valid seeds of
every format (tests/unit/loader_fuzz.py), 1-3 random mutations each (truncation, byte flips,
CR/LF mixes, deep nesting, huge and non-ASCII numbers, BOMs, odd Unicode, other
encodings and XML declarations, quote imbalance, JSON type swaps, long fields...), loaded
by content detection or, for half of them, forced into the seed's own loader.

Prints counts: inputs, clean refusals, accepted, foreign exceptions, hangs (a per-file
time limit, enforced with SIGALRM) and garbage accepted (see ``garbage`` in
tests/unit/loader_fuzz.py: control/format characters, Python reprs and mojibake that are not
in the file, boolean/object/list fields accepted, non-finite or boolean scores, links
outside the tokens, rows swallowed by quotes), then a few examples of each failure.

Usage: python -m bench.fuzz_loaders [--files 20000] [--seed 1] [--timeout 2]
       [--against CHECKOUT]   (fuzz another checkout's explorer/, e.g. an older one)
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class _Hang(BaseException):
    pass


def _alarm(signum, frame):  # type: ignore[no-untyped-def]
    raise _Hang


_GARBAGE_KINDS = (
    ("length limit", "a field over its length limit"),
    ("control or format", "a control or format character"),
    ("which the file does not", "a repr or mojibake not in the file"),
    ("boolean, object or list", "a boolean/object/list field accepted"),
    ("rows swallowed", "rows swallowed (fewer pairs than record lines)"),
    ("link", "a link outside the tokens"),
    ("score", "a bad score"),
)


def _kind(outcome: str, detail: str) -> str:
    if outcome != "garbage":
        return detail.split(":")[0]
    return next((kind for key, kind in _GARBAGE_KINDS if key in detail), detail[:60])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per file before it counts as a hang")
    parser.add_argument("--against", help="a checkout whose explorer/ to fuzz instead of this one")
    args = parser.parse_args(argv)
    import importlib.util

    if args.against:  # that checkout's explorer/ before this one's
        sys.path.insert(0, str(Path(args.against).resolve()))
    spec = importlib.util.spec_from_file_location("loader_fuzz", ROOT / "tests" / "unit" / "loader_fuzz.py")
    assert spec is not None and spec.loader is not None
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    MUTATIONS, SEEDS, mutate, run_case = fuzz.MUTATIONS, fuzz.SEEDS, fuzz.mutate, fuzz.run_case

    rng = random.Random(args.seed)
    names = sorted(MUTATIONS)
    seeds = sorted(SEEDS)
    totals: Counter[str] = Counter()
    by_format: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    places: Counter[str] = Counter()
    slowest = (0.0, "")
    for seed in seeds:  # imports and one-off resources (NLTK's RTE2 for MSR labels) outside the timer
        run_case(SEEDS[seed][1], SEEDS[seed][0])
    signal.signal(signal.SIGALRM, _alarm)
    started = time.perf_counter()
    for i in range(args.files):
        seed = seeds[i % len(seeds)]
        name, data, fmt = SEEDS[seed]
        mutations = [(rng.choice(names), rng.getrandbits(32)) for _ in range(rng.randint(1, 3))]
        forced = fmt if rng.random() < 0.5 else None
        case = f"{seed} {mutations} fmt={forced}"
        mutated = mutate(data, mutations)
        t0 = time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_REAL, args.timeout)
            try:
                outcome, detail = run_case(mutated, name, forced)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Hang:
            outcome, detail = "hang", f"over {args.timeout} s"
        elapsed = time.perf_counter() - t0
        if elapsed > slowest[0]:
            slowest = (elapsed, case)
        totals[outcome] += 1
        by_format[SEEDS[seed][2]][outcome] += 1
        if outcome in ("foreign", "garbage", "hang"):
            places[f"{outcome}: {_kind(outcome, detail)}"] += 1
            if len(examples[outcome]) < 8:
                examples[outcome].append(f"{case}\n      -> {detail}")
    seconds = time.perf_counter() - started
    print(f"loader fuzz: {args.files:,} inputs from {len(seeds)} seeds, {len(names)} mutations, "
          f"seed {args.seed}, {args.timeout:g} s per file, {seconds:.0f} s in all")
    columns = ("refused", "accepted", "foreign", "hang", "garbage")
    print(f"  {'format':<10}" + "".join(f"{c:>10}" for c in columns))
    for fmt in sorted(by_format):
        print(f"  {fmt:<10}" + "".join(f"{by_format[fmt][c]:>10,}" for c in columns))
    print(f"  {'all':<10}" + "".join(f"{totals[c]:>10,}" for c in columns))
    print(f"  clean refusals {totals['refused']:,}, accepted {totals['accepted']:,}, foreign exceptions "
          f"{totals['foreign']:,}, hangs {totals['hang']:,}, garbage accepted {totals['garbage']:,}")
    print(f"  slowest file: {slowest[0]:.3f} s ({slowest[1][:160]})")
    for place, count in places.most_common(15):
        print(f"  {count:>6}  {place[:150]}")
    for outcome, cases in examples.items():
        print(f"{outcome} examples:")
        for case in cases:
            print(f"  {case[:400]}")
    return 1 if totals["foreign"] or totals["garbage"] or totals["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
