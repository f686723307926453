"""Benchmark: time and peak memory of every registered scorer and aligner on long pairs.

For each method of the scorer registry and of the aligner registry, a worker process
loads the method and warms it up on a short pair (models, lexical resources, numba's
compiled kernels), then forks one fresh child per case, so each case's peak RSS
(``ru_maxrss`` of that child) is its own. A child may use at most ``--cap-gb`` of
address space above what it inherited and ``--timeout`` seconds; past either it counts
as a failure (``MemoryError`` / ``killed``), never as an out-of-memory kill of the
machine. The cases:

* ``h300``: ``"h h h ..."``, 300 tokens on each side (every word pair matches);
* ``buffalo300``: ``"buffalo ..."`` x 300 on each side (one real word, repeated);
* ``random300``: 300 random letter strings on each side (seeded; few matches);
* ``natural300``: 300 tokens of made-up English-like sentences on each side;
* ``long1000x20``: a 1,000-token text against a 20-token hypothesis (natural-like);
* ``h10k``: ``"h h h ..."``, 10,000 tokens on each side: must be refused up front;
* ``h90``: 90 x 90 repeated words, near the largest such pair within MANLI's default
  candidate limit (not in the default run; ``--cases h90``).

Each line prints the method, the case, the outcome (``scored``, ``refused`` with the
project's limit error, or the foreign error), the method's time (pair analysis --
tokens, tags, lemmas -- is done before the clock starts) and the child's peak RSS.

Usage: NLTK_DATA=../shared/nltk_data taskset -c 0 .venv/bin/python -m bench.bench_limits
       [--methods manli,scorer:bleu,...] [--cases h300,h10k] [--timeout 60] [--cap-gb 4]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# A small made-up vocabulary for English-like filler text (no corpus sentences).
_SUBJECTS = ("the committee", "a farmer", "our neighbours", "the new mayor", "several pupils",
             "the river authority", "a local bakery", "the orchestra", "two engineers", "the museum")
_VERBS = ("approved", "painted", "moved", "inspected", "sold", "repaired", "announced",
          "borrowed", "described", "visited")
_OBJECTS = ("a wooden bridge", "the old library", "three blue boats", "a quiet garden",
            "the harbour wall", "new bicycles", "a long report", "the village school",
            "fresh bread", "the northern road")
_TAILS = ("on Tuesday", "after the storm", "in March 2021", "near the station", "for 40 pounds",
          "without any help", "before noon", "with great care", "despite the rain", "last year")


def natural_tokens(n: int, seed: int) -> str:
    """About ``n`` tokens of made-up sentences (exactly ``n`` after tokenising is not
    guaranteed; the bench prints the real sizes)."""
    rng = random.Random(seed)
    words: list[str] = []
    while len(words) < n:
        sentence = f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)} ."
        words.extend(sentence.split())
    return " ".join(words[:n])


def random_tokens(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
                    for _ in range(n))


_NUMBER_FORMS = ("{n}", "{n},000", "{n}.5", "{n}%", "{n}-year-old", "{n} million", "${n}", "1/{n}", "{n}th")


def number_tokens(n: int, seed: int) -> str:
    """About ``n`` tokens that are nearly all numbers in assorted formats (values 1-99), the
    case that made MANLI's number features slow (docs/BENCHMARKS.md)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_NUMBER_FORMS).format(n=rng.randint(1, 99)) for _ in range(n))


def digit_tokens(n: int, seed: int) -> str:
    """``n`` plain numbers 1-99: one token each, so MANLI takes an 80 x 80 pair."""
    rng = random.Random(seed)
    return " ".join(str(rng.randint(1, 99)) for _ in range(n))


def unicode_tokens(n: int, seed: int) -> str:
    """``n`` tokens of letters with combining marks, other scripts and emoji: the Unicode a
    user can paste, for every per-token step (lower-casing, tagging, WordNet, PPDB)."""
    rng = random.Random(seed)
    pieces = ("e\u0301", "\u00df", "\u0130", "\u03a3", "\u0416", "\u05d0", "\u0627", "\u4e2d",
              "\U0001f600", "\ufb01", "a", "n\u0303")
    return " ".join("".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(n))


CASES: dict[str, tuple[str, str]] = {
    "h300": ("h " * 300, "h " * 300),
    "buffalo300": ("buffalo " * 300, "buffalo " * 300),
    "random300": (random_tokens(300, 1), random_tokens(300, 2)),
    "natural300": (natural_tokens(300, 1), natural_tokens(300, 2)),
    "long1000x20": (natural_tokens(1000, 3), natural_tokens(20, 4)),
    "h10k": ("h " * 10_000, "h " * 10_000),
    "numbers300": (number_tokens(300, 5), number_tokens(300, 6)),
    "unicode300": (unicode_tokens(300, 7), unicode_tokens(300, 8)),
    # Under the similarity limits, so every method scores them.
    "numbers80": (number_tokens(80, 5), number_tokens(80, 6)),
    "digits80": (digit_tokens(80, 5), digit_tokens(80, 6)),
    "unicode80": (unicode_tokens(80, 7), unicode_tokens(80, 8)),
    # Near the largest repeated-word pair MANLI accepts by default (275,625 candidate edits).
    "h90": ("h " * 90, "h " * 90),
}


def all_methods() -> list[str]:
    from explorer.aligners import ALIGNERS
    from explorer.scorers import SCORERS

    return [f"scorer:{name}" for name in SCORERS] + [f"aligner:{name}" for name in ALIGNERS]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _status_bytes(field: str) -> int:
    """A ``/proc/self/status`` size field (``VmSize``, ``VmRSS``) in bytes (0 if absent)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _call(method: str):  # type: ignore[no-untyped-def]
    kind, name = method.split(":", 1)
    if kind == "scorer":
        from explorer.scorers import get_scorer

        return get_scorer(name).score
    from explorer.aligners import get_aligner

    return get_aligner(name).align


def _run_case(method: str, case: str, cap_gb: float) -> dict[str, object]:
    """In the forked child: analyse the case's pair, then time the method on it."""
    from explorer.limits import LimitError
    from explorer.preprocess import analyze_pair, make_pair

    text, hyp = CASES[case]
    start_mb = _status_bytes("VmRSS") / 2**20
    cap = _status_bytes("VmSize") + int(cap_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    pair = analyze_pair(make_pair(text, hyp))
    run = _call(method)
    start = time.perf_counter()
    try:
        run(pair)
        outcome = "scored"
    except LimitError as err:
        outcome = f"refused: {err}"
    except MemoryError:
        outcome = "MemoryError"
    except Exception as err:  # noqa: BLE001 - reported, it is what the bench looks for
        outcome = f"{type(err).__name__}: {err}"
    seconds = time.perf_counter() - start
    return {"outcome": outcome, "seconds": seconds, "peak_mb": _peak_mb(),
            "start_mb": start_mb,
            "size": f"{len(pair.text)}x{len(pair.hypothesis)}"}


def worker(method: str, cases: list[str], timeout: float, cap_gb: float) -> None:
    """One method: warm up, then fork a child per case; print one JSON line per case."""
    from explorer.preprocess import analyze_pair, make_pair

    run = _call(method)
    warm = analyze_pair(make_pair("A tiny warm-up sentence about cats.", "Cats are tiny."))
    for analysis in (warm.text, warm.hypothesis):
        analysis.lemmas, analysis.stop, analysis.is_punct  # noqa: B018
    run(warm)
    for case in cases:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read)
            try:
                row = _run_case(method, case, cap_gb)
            except BaseException as err:  # noqa: BLE001
                row = {"outcome": f"{type(err).__name__}: {err}", "seconds": float("nan"), "peak_mb": _peak_mb(),
                       "start_mb": float("nan"), "size": "?"}
            os.write(write, json.dumps(row).encode())
            os._exit(0)
        os.close(write)
        deadline = time.monotonic() + timeout
        while True:
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.05)
        with os.fdopen(read, "rb") as pipe:
            payload = pipe.read()
        row = json.loads(payload) if payload else {
            "outcome": f"killed after {timeout:.0f} s", "seconds": timeout, "peak_mb": float("nan"),
            "start_mb": float("nan"), "size": "?"}
        row.update(method=method, case=case)
        print(json.dumps(row), flush=True)


def _short(outcome: str) -> str:
    outcome = outcome.replace("\n", " ")
    return outcome if len(outcome) <= 110 else outcome[:107] + "..."


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", help="comma-separated scorer:NAME / aligner:NAME (default: all)")
    parser.add_argument("--cases", default=",".join(c for c in CASES if c != "h90"),
                        help=f"comma-separated, from {', '.join(CASES)}")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case before the child is killed")
    parser.add_argument("--cap-gb", type=float, default=4.0, help="address space a child may add, in GB")
    parser.add_argument("--json", action="store_true", help="print the raw JSON rows too")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"unknown cases {', '.join(unknown)}")
    if args.worker:
        worker(args.worker, cases, args.timeout, args.cap_gb)
        return
    methods = args.methods.split(",") if args.methods else all_methods()
    print(f"{'method':<22} {'case':<12} {'size':>11} {'seconds':>8} {'peak MB':>8} {'start MB':>8}  outcome")
    for method in methods:
        proc = subprocess.run(
            [sys.executable, "-m", "bench.bench_limits", "--worker", method, "--cases", ",".join(cases),
             "--timeout", str(args.timeout), "--cap-gb", str(args.cap_gb)],
            capture_output=True, text=True, cwd=ROOT, check=False,
        )
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        if proc.returncode and not rows:
            print(f"{method:<22} worker failed: {proc.stderr.strip().splitlines()[-1:]}")
        for row in rows:
            print(f"{row['method']:<22} {row['case']:<12} {row['size']:>11} {row['seconds']:>8.3f} "
                  f"{row['peak_mb']:>8.0f} {row['start_mb']:>8.0f}  {_short(str(row['outcome']))}", flush=True)
            if args.json:
                print(json.dumps(row))


if __name__ == "__main__":
    main()
