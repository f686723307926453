"""Alignment quality of a registered aligner on the MSR RTE2 dev gold alignments.

A stop-gap until the project's ``align-eval`` command (MANLI issue) lands on main: the
same measure (MacCartney et al. 2008, §5): per-problem precision and recall of aligned
token pairs against the SURE gold links, macro-averaged over problems (problems with no
predicted link are left out of the precision average, those with no SURE link out of the
recall average); F1 is the harmonic mean of macro P and R. Exact match is the share of
problems whose predicted links equal the SURE links.

Usage: NLTK_DATA=../shared/nltk_data python bench/itg_align_eval.py [GOLD] [--aligner itg]
(GOLD defaults to ../shared/data/msr_align/RTE2_dev_M.align.txt, the majority merge.)
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.aligners import ALIGNERS, get_aligner  # noqa: E402
from explorer.pairs import Pair  # noqa: E402
from explorer.preprocess import analyze_pair  # noqa: E402

_TOKEN = re.compile(r"(\S+) \(\{([^}]*)\}\)")


def read_gold(path: Path) -> list[tuple[str, tuple[str, ...], tuple[str, ...], set[tuple[int, int]]]]:
    """(id, text tokens, hypothesis tokens, SURE links) per problem of a GIZA-style file."""
    lines = [line.strip().lstrip("\ufeff") for line in path.read_text(encoding="utf-8-sig").splitlines()]
    problems = []
    for k in range(0, len(lines) - 2, 3):
        header, text, hyp = lines[k], lines[k + 1], lines[k + 2]
        if not header.startswith("# sentence pair"):
            raise ValueError(f"{path}: line {k + 1} should start a sentence pair: {header[:40]!r}")
        pair_id = header.split()[-1]
        tokens = _TOKEN.findall(hyp)[1:]  # the first is NULL
        sure = set()
        for h, (_, positions) in enumerate(tokens):
            for item in positions.replace("/", " ").split():
                if item.isdigit():
                    sure.add((int(item) - 1, h))
        problems.append((pair_id, tuple(text.split()), tuple(t.lstrip("\ufeff") for t, _ in tokens), sure))
    return problems


def main() -> None:
    default = ROOT.parent / "shared" / "data" / "msr_align" / "RTE2_dev_M.align.txt"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="?", default=str(default))
    parser.add_argument("--aligner", default="itg", help=f"one of: {', '.join(ALIGNERS)}")
    parser.add_argument("--limit", type=int, default=0, help="only the first N problems")
    args = parser.parse_args()

    problems = read_gold(Path(args.gold))
    if args.limit:
        problems = problems[: args.limit]
    aligner = get_aligner(args.aligner)
    precisions, recalls, seconds = [], [], []
    exact = 0
    for pair_id, text, hyp, sure in problems:
        pair = analyze_pair(Pair(id=pair_id, text=" ".join(text), hypothesis=" ".join(hyp),
                                 text_tokens=text, hypothesis_tokens=hyp))
        start = time.perf_counter()
        predicted = set(aligner.align(pair).alignment.sure)
        seconds.append(time.perf_counter() - start)
        hits = len(predicted & sure)
        if predicted:
            precisions.append(hits / len(predicted))
        if sure:
            recalls.append(hits / len(sure))
        exact += predicted == sure
    p, r = statistics.mean(precisions), statistics.mean(recalls)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    print(f"{Path(args.gold).name}: {len(problems)} problems, aligner {args.aligner}")
    print(f"precision {p:.4f}  recall {r:.4f}  f1 {f1:.4f}  exact {exact / len(problems):.4f}  "
          f"median {statistics.median(seconds) * 1000:.1f} ms/problem")


if __name__ == "__main__":
    main()
