"""The Pair page's verdict strip (components/verdicts.py): decisions, colours, hover
reasons, escaping."""

from __future__ import annotations

from dataclasses import dataclass

from components.sections.verdicts import PENDING, RIGHT, UNKNOWN, WRONG, cutoff_sources, strip_html, verdicts
from explorer.decision.cutoffs import CutoffChoice


@dataclass
class Result:
    value: float


CUTS = {
    "mbleu": CutoffChoice("mbleu", 0.2, "default", "best on rte1_dev.xml + rte2_dev.xml + rte3_dev.xml (1767 pairs, 62.6%)",
                          0.626, 1767),
    "bleu": CutoffChoice("bleu", 0.5, "dataset", "best on <b>evil</b>.xml (4 pairs, 75.0%)", 0.75, 4),
}


def test_decisions_follow_score_above_cutoff_and_compare_with_gold() -> None:
    rows = verdicts({"mbleu": Result(0.3), "bleu": Result(0.5)}, CUTS, gold=True)
    mbleu, bleu = rows
    assert mbleu.entails and mbleu.correct is True
    assert not bleu.entails and bleu.correct is False  # equal to the cutoff: not entailed
    assert "0.3000 > cutoff 0.2000: entails" in mbleu.reason and "shipped default" in mbleu.reason
    assert "≤ cutoff 0.5000: does not entail" in bleu.reason and "Disagrees" in bleu.reason
    assert verdicts({"mbleu": Result(0.3)}, CUTS, gold=None)[0].correct is None


def test_strip_colours_gold_first_and_pending_methods() -> None:
    rows = verdicts({"mbleu": Result(0.3), "bleu": Result(0.1)}, CUTS, gold=False)
    html = strip_html(rows, "non-entailment", pending=["manli"])
    assert html.index("gold: non-entailment") < html.index("Modified BLEU") < html.index("MANLI")
    assert f"background:{WRONG}" in html and f"background:{RIGHT}" in html  # mbleu wrong, bleu right
    assert f"border:1px solid {PENDING}" in html and "not run yet" in html
    assert "1 of 2 methods agree with the gold label" in html
    typed = strip_html(verdicts({"mbleu": Result(0.3)}, CUTS, gold=None), None)
    assert "no gold label" in typed and f"background:{UNKNOWN}" in typed
    assert "1 of 1 methods say entails" in typed


def test_names_from_files_are_escaped_in_the_hover_text() -> None:
    html = strip_html(verdicts({"bleu": Result(0.9)}, CUTS, gold=True), "entailment")
    assert "<b>evil</b>" not in html and "&lt;b&gt;evil&lt;/b&gt;" in html


def test_cutoff_sources_are_counted_for_the_caption() -> None:
    assert cutoff_sources(CUTS) == "1 shipped defaults (RTE1-3 dev), 1 from this dataset"


def test_a_one_sided_cutoff_is_shown_as_uninformative_and_not_counted() -> None:
    cuts = {**CUTS, "wer": CutoffChoice("wer", -7.6, "default", "best on rte dev (calls every pair 'entails')", 0.5, 10,
                                        one_sided=True)}
    rows = verdicts({"mbleu": Result(0.3), "wer": Result(-1.0)}, cuts, gold=False)
    assert rows[1].one_sided and "Not counted" in rows[1].reason
    html = strip_html(rows, "non-entailment")
    assert "(uninformative)" in html and f"background:{WRONG}" in html  # mbleu is still judged
    assert "0 of 1 methods agree" in html and "1 uninformative" in html


def test_a_stored_score_says_where_it_came_from() -> None:
    from components.sections.verdicts import StoredScore

    rows = verdicts({"mbleu": Result(0.3), "bleu": StoredScore(0.7)}, CUTS, gold=True)
    assert [r.stored for r in rows] == [False, True]
    assert "stored by this dataset's background cutoff job" in rows[1].reason
    assert "not recomputed" in rows[1].reason and "stored" not in rows[0].reason
    html = strip_html(rows, "entailment")
    assert "1 from scores stored by this dataset&#x27;s background cutoff job (BLEU)" in html
