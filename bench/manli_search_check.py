"""MANLI: are the remaining errors search errors, candidate-set errors or model errors?

For a shipped (or given) model and a gold corpus, per problem (test decoding: without
the gold blocks that training adds to the candidates):

* **search error**: the gold alignment scores higher under the model than the alignment
  the decoder found, and every gold block is among the decoder's candidates (the decoder
  could have found it);
* **candidate-set error**: the gold scores higher but some gold block is not a candidate
  (a block past the phrase bound, or a large block with no similar token pair);
* otherwise the model prefers its own alignment to the gold one (a **model error** when
  they differ).

Also: the share of gold links that lie in blocks outside the candidate set, and how many
multi-token gold blocks the decoder outputs whole, partly or not at all.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.manli_search_check
       [--corpus msr|edi] [--model msr|msr_edi|FILE] [--sample N]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from bench.manli_transfer import load
from explorer.aligners.manli import ManliModel, decode, lexical_similarity, model_file, shipped_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("msr", "edi"), default="edi")
    parser.add_argument("--model", default="msr")
    parser.add_argument("--sample", type=int, help="evenly spaced problems (default all)")
    args = parser.parse_args()
    try:
        model = shipped_model(args.model)
    except Exception:  # noqa: BLE001 -- a path instead of a shipped name
        model = ManliModel.load(model_file(args.model))
    problems, _ = load(args.corpus, args.sample, lexical_similarity(model.lexical))
    w = model.weights
    outcome: Counter[str] = Counter()
    blocks: Counter[str] = Counter()
    gold_links = outside_links = 0
    for p in problems:
        f = p.features
        chosen, score = decode(f, w, with_added=False)
        picked = set(chosen.tolist())
        gold_score = float(p.gold_vector @ w)
        sizes = (f.p_end[p.gold] - f.p_start[p.gold]) * (f.h_end[p.gold] - f.h_start[p.gold])
        gold_links += int(sizes.sum())
        outside_links += int(sizes[f.added[p.gold]].sum())
        if picked == set(p.gold.tolist()):
            outcome["exact"] += 1
        elif score + 1e-9 >= gold_score:
            outcome["model prefers its own alignment"] += 1
        elif f.added[p.gold].any():
            outcome["candidate-set error"] += 1
        else:
            outcome["search error"] += 1
        cov_p = np.zeros(f.p_len, bool)
        cov_h = np.zeros(f.h_len, bool)
        for c in picked:
            cov_p[f.p_start[c]:f.p_end[c]] = True
            cov_h[f.h_start[c]:f.h_end[c]] = True
        for c, size in zip(p.gold.tolist(), sizes.tolist()):
            if size > 1:  # more than one link: a multi-token block
                if c in picked:
                    blocks["whole"] += 1
                elif cov_p[f.p_start[c]:f.p_end[c]].any() or cov_h[f.h_start[c]:f.h_end[c]].any():
                    blocks["partly (some tokens aligned otherwise)"] += 1
                else:
                    blocks["not at all"] += 1
    print(json.dumps({
        "corpus": args.corpus, "model": args.model, "problems": len(problems),
        "outcome": dict(outcome), "gold_links": gold_links,
        "gold_links_outside_candidates": outside_links,
        "multi_token_gold_blocks": dict(blocks),
    }, indent=1))


if __name__ == "__main__":
    main()
