"""Helpers for the MANLI feature tests (not a test module): a pair from given tokens, and
one feature of one candidate block."""

from __future__ import annotations

from explorer.aligners.manli.evidence import SurfaceSimilarity
from explorer.aligners.manli.features import extract
from explorer.aligners.manli.names import INDEX
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair


def token_pair(text: tuple[str, ...], hyp: tuple[str, ...]) -> Pair:
    """A pair whose tokens are exactly ``text`` and ``hyp`` (no tokenizer in between)."""
    return Pair("t", " ".join(text), " ".join(hyp), text_tokens=text, hypothesis_tokens=hyp)


def block_feature(text: tuple[str, ...], hyp: tuple[str, ...], p: tuple[int, int], h: tuple[int, int],
                  name: str) -> float:
    """Feature ``name`` of the block linking text span ``p`` to hypothesis span ``h`` (added
    to the candidates if the candidate set leaves it out)."""
    feats = extract(analyze_pair(token_pair(text, hyp)), SurfaceSimilarity(), extra=((p, h),))
    c = feats.find(p, h)
    assert c >= 0
    return float(feats.aligned[c, INDEX[name]])
