"""Benchmark: a dataset's phenomena table (:func:`explorer.groups.phenomena.phenomena_table`).

Prints the seconds for (a) every fast phenomenon, cold (no column on disk: tokenising,
tagging, WordNet look-ups; the process's first pair loads the tagger and WordNet too) and
then cached (read back from disk), and (b) the per-aligner phenomena of one aligner, cold
and cached. This dataset's phenomena files are removed first, so "cold" is cold however
often it runs; nothing else in the cache directory is touched.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.bench_phenomena [DATA] [--aligner bow]
(DATA defaults to NLTK's RTE2 dev, 400 pairs.)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from explorer.datasets import load
from explorer.groups.phenomena import FAST, fingerprint, folder, phenomena_table

RTE2_DEV = Path("/work/shared/nltk_data/corpora/rte/rte2_dev.xml")


def timed(names: list[str] | tuple[str, ...], pairs: list) -> float:  # type: ignore[type-arg]
    start = time.perf_counter()
    phenomena_table(pairs, names)
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="?", default=str(RTE2_DEV))
    parser.add_argument("--aligner", default="bow")
    args = parser.parse_args(argv)
    pairs = list(load(args.data).pairs)
    for stale in folder().glob(f"{fingerprint(pairs)}-*.npy"):
        stale.unlink()
    per_aligner = [f"unaligned_h_content_{args.aligner}", f"antonym_aligned_{args.aligner}"]
    print(f"{args.data}: {len(pairs)} pairs")
    print(f"fast phenomena ({len(FAST)}), cold:   {timed(FAST, pairs):6.2f} s")
    print(f"fast phenomena ({len(FAST)}), cached: {timed(FAST, pairs):6.3f} s")
    print(f"{args.aligner} phenomena (2), cold:    {timed(per_aligner, pairs):6.2f} s")
    print(f"{args.aligner} phenomena (2), cached:  {timed(per_aligner, pairs):6.3f} s")


if __name__ == "__main__":
    main()
