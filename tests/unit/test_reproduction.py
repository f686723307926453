"""Szymanski's modified BLEU on RTE1 dev, cutoff chosen on the set itself.

Paper: mbleu 57.8% at cutoff 0.221; BLEU 53.8% (equal peaks at 0.002 and 0.132).
"""

import pytest

from explorer.datasets import load
from explorer.decision.evaluation import evaluate


@pytest.fixture(scope="module")
def rte1_results(shared_file):
    data = load(shared_file("nltk_data", "corpora", "rte", "rte1_dev.xml"))
    return {r.scorer: r.report for r in evaluate(data, ["bleu", "mbleu"])}


def test_mbleu_reproduces_szymanski(rte1_results):
    report = rte1_results["mbleu"]
    assert report.n == 567
    assert 0.570 <= report.accuracy <= 0.590
    assert 0.20 <= report.cutoff <= 0.24


def test_bleu_baseline(rte1_results):
    assert rte1_results["bleu"].accuracy >= 0.530
    assert rte1_results["mbleu"].accuracy > rte1_results["bleu"].accuracy
