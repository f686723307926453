"""Teaching-mode traces: each one ends on the method's own score for the pair, and its
steps are consistent with each other (counts add up, tables and charts only grow, the
path's weights sum to its score)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from components.teach_methods import TEACH_METHODS, UnknownTeachingMethod, trace_of
from explorer import resources
from explorer.aligners.manli import ManliAligner, ManliScorer, anneal_logged
from explorer.alignment import EditKind
from explorer.metrics.bleu import VARIANTS, bleu_tokens, modified_precision
from explorer.metrics.wer import backtrace, edit_script, edit_table, levenshtein, wer_tokens
from explorer.preprocess import AnalyzedPair, analyze_pair, make_pair
from explorer.scorers import get_scorer
from explorer.teaching import TEACHING_MAX_TOKENS, TeachingSizeError, check_size
from explorer.teaching.bleu import trace_bleu
from explorer.teaching.edit import trace_edit
from explorer.teaching.itg import trace_itg
from explorer.teaching.manli import trace_manli
from explorer.teaching.wer import trace_wer

# Invented pairs: a paraphrase with reordering, repeated words (clipping), a swap
# (an inversion for the ITG), and a one-word hypothesis.
PAIRS = (
    ("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle."),
    ("the dog and the dog and the cat slept", "the the the dog slept"),
    ("Tomas met Anka", "Anka met Tomas"),
    ("Rain fell over the quiet harbour town all night.", "Rain"),
)


def analysed(text: str, hypothesis: str) -> AnalyzedPair:
    return analyze_pair(make_pair(text, hypothesis))


@pytest.fixture(scope="module", params=range(len(PAIRS)), ids=["paraphrase", "repeats", "swap", "one-word"])
def pair(request: pytest.FixtureRequest) -> AnalyzedPair:
    return analysed(*PAIRS[request.param])


def test_every_method_has_a_tracer_whose_steps_explain_themselves(pair: AnalyzedPair) -> None:
    for method in TEACH_METHODS:
        trace = trace_of(method, None, pair)
        assert trace.steps, method
        assert all(isinstance(s.explain, str) and s.explain.strip() for s in trace.steps), method
        assert all("\n" not in s.explain for s in trace.steps), method
        assert trace.steps[-1].value == trace.value, method


def test_pairs_over_the_teaching_size_are_refused_with_the_limit_named() -> None:
    long_text = " ".join(f"w{i}" for i in range(TEACHING_MAX_TOKENS + 1))
    pair = analysed(long_text, "w1 w2")
    with pytest.raises(TeachingSizeError, match=f"at most {TEACHING_MAX_TOKENS} tokens"):
        check_size(pair)
    for method in TEACH_METHODS:
        with pytest.raises(TeachingSizeError, match="text has 31 tokens"):
            trace_of(method, None, pair)
    check_size(analysed(" ".join(f"w{i}" for i in range(TEACHING_MAX_TOKENS)), "w1"))  # at the limit: fine
    with pytest.raises(UnknownTeachingMethod, match="unknown teaching method 'nope'; choose from: bleu"):
        trace_of("nope", None, pair)
    with pytest.raises(UnknownTeachingMethod, match="unknown model 'hmm' for pFSM / pPDA edit distance"):
        trace_of("edit", "hmm", pair)


def test_tokens_over_the_teaching_length_are_refused_and_lessons_bounded_in_bytes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from components import teach_methods
    from components.lesson_export import packed
    from explorer.pairs import Pair
    from explorer.teaching import TEACHING_MAX_TOKEN_CHARS

    marks = "a" + "\u0301" * 600  # one letter and its combining marks: one token (NFC joins the first)
    pair = analysed(f"w1 {marks} w3", "w1 w3")
    for method in TEACH_METHODS:
        with pytest.raises(TeachingSizeError, match=f"text's token 2 has 600 characters; teaching mode shows tokens "
                                                    f"of at most {TEACHING_MAX_TOKEN_CHARS} characters"):
            trace_of(method, None, pair)
    check_size(analysed("w1 " + "a" * TEACHING_MAX_TOKEN_CHARS, "w1"))  # at the limit: fine
    small = Pair("t", "A red kite flew over the hill.", "A kite flew.")
    steps = teach_methods.lesson_of("wer", None, small, large=False)
    size = len(json.dumps(packed(steps)))
    monkeypatch.setattr(teach_methods, "MAX_LESSON_BYTES", size - 1)
    teach_methods._trace.cache_clear()
    with pytest.raises(teach_methods.LessonTooLarge, match=r"would send the browser .* MB, over the .* MB a lesson "
                                                            r"may send \(teach_methods.MAX_LESSON_BYTES\)"):
        teach_methods.lesson_of("wer", None, small, large=False)


# -- BLEU ----------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_bleu_trace_ends_on_the_scorer_value(pair: AnalyzedPair, variant: str) -> None:
    trace = trace_bleu(pair, variant=variant)  # type: ignore[arg-type]
    assert trace.value == pytest.approx(get_scorer(variant).score(pair).value, abs=1e-12)


def test_bleu_counts_add_up_to_each_order_precision(pair: AnalyzedPair) -> None:
    trace = trace_bleu(pair)
    h, t = pair.hypothesis.lower, pair.text.lower
    clips = [s for s in trace.steps if s.phase == "clip"]
    assert [s.n for s in clips] == [1, 2, 3, 4]
    for step in clips:
        stats = modified_precision(h, t, step.n)
        assert sum(c.clipped for c in step.counts) == stats.matched
        assert sum(c.in_hypothesis for c in step.counts) == stats.total
        assert all(c.clipped == min(c.in_hypothesis, c.in_text) for c in step.counts)
        assert step.value == stats.precision
        assert step.orders[-1] == stats
    assert trace.steps[-1].orders == bleu_tokens(h, t, max_n=4).orders


def test_bleu_clipping_is_shown_for_repeated_words() -> None:
    trace = trace_bleu(analysed(*PAIRS[1]))
    unigrams = next(s for s in trace.steps if s.phase == "clip" and s.n == 1)
    the = next(c for c in unigrams.counts if c.gram == ("the",))
    assert (the.in_hypothesis, the.in_text, the.clipped) == (3, 3, 3)
    dog = next(c for c in unigrams.counts if c.gram == ("dog",))
    assert dog.h_starts == (3,)
    clipped = trace_bleu(analysed("the cat", "the the the cat"))
    step = next(s for s in clipped.steps if s.phase == "clip" and s.n == 1)
    assert "Clipping removed 2" in step.explain
    assert step.value == pytest.approx(2 / 4)


# -- WER -----------------------------------------------------------------------------------

def test_wer_trace_fills_the_table_then_reads_the_scripts_edits(pair: AnalyzedPair) -> None:
    trace = trace_wer(pair)
    p, h = pair.text.lower, pair.hypothesis.lower
    assert trace.value == pytest.approx(get_scorer("wer").score(pair).value, abs=1e-12)
    assert trace.value == wer_tokens(p, h).value
    fills = [s for s in trace.steps if s.phase == "fill"]
    assert [s.rows for s in fills] == list(range(1, len(p) + 2))
    assert trace.cost[-1][-1] == levenshtein(p, h)
    # the trace reads its own table back; the Pair page's script (rapidfuzz's) is as long
    assert trace.edits == backtrace(edit_table(p, h)[1])
    assert sum(e.kind is not EditKind.EQ for e in edit_script(p, h)) == trace.cost[-1][-1]
    walk = [s for s in trace.steps if s.phase == "backtrace"]
    assert len(walk) == len(trace.edits)
    path = walk[-1].path
    assert path[0] == (len(p), len(h)) and path[-1] == (0, 0)
    for (i0, j0), (i1, j1) in zip(path, path[1:]):
        assert (i0 - i1, j0 - j1) in ((1, 1), (1, 0), (0, 1))
        assert trace.cost[i1][j1] <= trace.cost[i0][j0]
    assert [s.value for s in walk] == sorted(s.value for s in walk)  # edits counted up
    assert walk[-1].value == trace.cost[-1][-1]


# -- ITG -----------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["itg", "itg_entail", "itg_stop"])
def test_itg_trace_ends_on_the_parser_value(pair: AnalyzedPair, variant: str) -> None:
    trace = trace_itg(pair, variant=variant)
    assert trace.value == pytest.approx(get_scorer(variant).score(pair).value, abs=1e-12)
    null = trace.parse.null_cost
    t, h = len(trace.text_kept), len(trace.hypothesis_kept)
    if t and h and null:
        assert 1 - (null - float(trace.chart[0, t, 0, h])) / null == pytest.approx(trace.value, abs=1e-4)


def test_itg_chart_cells_never_lose_gain_as_spans_grow(pair: AnalyzedPair) -> None:
    trace = trace_itg(pair)
    spans = [s for s in trace.steps if s.phase == "span"]
    t = len(trace.text_kept)
    assert len(spans) == t * (t + 1) // 2
    lengths = [s.j - s.i for s in spans]
    assert lengths == sorted(lengths)  # filled by text span length, as the kernel does
    c = trace.chart
    for step in spans:
        for cell in step.cells:
            assert cell.gain == float(c[step.i, step.j, cell.u, cell.v])
            if cell.v - cell.u > 1:
                assert cell.gain >= c[step.i, step.j, cell.u + 1, cell.v] - 1e-6
            if step.j - step.i > 1:
                assert cell.gain >= c[step.i + 1, step.j, cell.u, cell.v] - 1e-6
            assert (cell.rule == "empty") == (cell.gain <= 1e-4)


def test_itg_swap_is_an_inverted_cell_and_an_inverted_tree() -> None:
    trace = trace_itg(analysed("Tomas met Anka", "Anka met Tomas"))
    full = trace.steps[-2]
    top = next(cell for cell in full.cells if (cell.u, cell.v) == (0, 3))
    assert top.rule == "inverted"
    assert trace.parse.inversions >= 1
    straight = trace_itg(analysed("Tomas met Anka", "Tomas met Anka"))
    assert next(c for c in straight.steps[-2].cells if (c.u, c.v) == (0, 3)).rule == "straight"
    assert straight.value == 1.0


# -- MANLI ---------------------------------------------------------------------------------

def test_manli_trace_is_the_decoders_own_walk(pair: AnalyzedPair) -> None:
    aligner = ManliAligner()
    trace = trace_manli(pair, aligner=aligner)
    assert trace.value == pytest.approx(ManliScorer(aligner).score(pair).value, abs=1e-12)
    final = aligner.align(pair)
    assert trace.steps[-1].links == frozenset(final.alignment.sure)
    anneal = [s for s in trace.steps if s.phase == "anneal"]
    # Every walk round is a step, or named in a step's sentence as one that changed nothing.
    folded = set()
    for step in trace.steps:
        if found := re.match(r"(?:\(.*\) )?Rounds? (\d+)(?:-(\d+))?[: ]", step.explain):
            folded |= set(range(int(found[1]), int(found[2] or found[1]) + 1))
    assert folded.isdisjoint(s.round for s in anneal)
    assert len(anneal) + len(folded) == aligner.decoder.iterations or trace.n_candidates == 0
    for step in anneal:  # the schedule: t0 x rate^(round - 1)
        assert step.temperature == pytest.approx(aligner.decoder.t0 * aligner.decoder.rate ** (step.round - 1))
    greedy = [s.total for s in trace.steps if s.phase == "greedy"]
    assert greedy == sorted(greedy)  # the climb only goes up
    assert trace.steps[-1].total >= max(s.total for s in trace.steps[:-1]) - 1e-9


def test_manli_recording_does_not_change_the_decoder() -> None:
    aligner = ManliAligner()
    pair = analysed(*PAIRS[0])
    feats = aligner.features(pair)
    _, gain = feats.gains(aligner.model.weights)
    args = (gain, feats.spans())
    plain, none = anneal_logged(*args, config=aligner.decoder)
    logged, log = anneal_logged(*args, config=aligner.decoder, record=True)
    assert none is None and log is not None
    assert np.array_equal(plain, logged)
    assert log.chosen.shape == (log.temperature.size, log.useful.size)


# -- pFSM / pPDA ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["pfsm", "ppda"])
def test_edit_trace_walks_the_viterbi_path_to_the_score(pair: AnalyzedPair, kind: str) -> None:
    trace = trace_edit(pair, kind=kind)
    result = get_scorer(kind).score(pair)
    assert trace.value == pytest.approx(result.value, abs=1e-12)
    ops = [s for s in trace.steps if s.phase == "op"]
    moves = [s for s in trace.steps if s.phase in ("op", "return")]
    assert len(ops) == len(result.steps)
    assert ops[-1].value == pytest.approx(sum(s.log_weight for s in result.steps))
    stop = next(s for s in trace.steps if s.phase == "stop")
    assert stop.value == pytest.approx(result.best_log_score)
    assert moves[0].start == (0, 0) and moves[-1].end == (len(trace.text), len(trace.hypothesis))
    for a, b in zip(moves, moves[1:]):
        assert a.end == b.start  # one connected path
        assert b.end[1] >= b.start[1]  # the hypothesis is read left to right
    returns = [s for s in moves if s.phase == "return"]
    assert all(r.value == prev.value for prev, r in zip(moves, moves[1:]) if r.phase == "return")  # no weight
    if kind == "pfsm":
        assert not returns
        assert not any(s.step is not None and s.step.op.startswith("JUMP") for s in ops)


def test_edit_trace_reads_a_moved_phrase_in_the_texts_order() -> None:
    moved = analyze_pair(make_pair("The mayor opened the bridge on Friday.", "On Friday, the mayor opened the bridge."))
    trace = trace_edit(moved, kind="pfsm")
    result = get_scorer("pfsm").score(moved)
    assert result.reordered  # the shipped models read the hypothesis in the text's order
    assert trace.hypothesis == result.reading(moved.hypothesis.tokens) != moved.hypothesis.tokens
    assert "in the text's order" in trace.steps[0].explain
    assert trace.value == pytest.approx(result.value, abs=1e-12)


def test_manli_steps_say_when_an_edit_is_replaced_or_a_worse_move_accepted() -> None:
    trace = trace_manli(analysed(*PAIRS[0]))
    walk = [(a, b) for a, b in zip(trace.steps, trace.steps[1:]) if b.phase == "anneal"]
    assert walk
    for before, after in walk:
        if " adds " in after.explain and before.links - after.links:
            assert "replacing" in after.explain, after.explain  # a link lost to an added edit
        if "replacing" in after.explain:
            assert before.links != after.links, after.explain
        worse = after.total < before.total - 1e-9
        assert ("accepted by chance" in after.explain) == worse, after.explain
    said = " ".join(s.explain for s in trace.steps)
    assert "replacing" in said and "accepted by chance" in said  # this pair shows both
    assert not re.search(r"(up|down) 0\.00(?!\d)", said)  # a small change prints a third decimal instead


# -- display names -------------------------------------------------------------------------

#: Internal names no step sentence may print (class codes, operation codes, registry keys).
INTERNAL = ("S_WORD", "S_LEMMA", "S_PUNC", "S_PARA", "S_SYN", "S_OTHER", "S_BLOCK", "JUMP_F", "JUMP_B",
            "ppda", "pfsm", "mbleu", "bleu_pa", "itg_", "EditKind")


@pytest.mark.parametrize("method", list(TEACH_METHODS))
def test_steps_speak_in_display_names(pair: AnalyzedPair, method: str) -> None:
    row = TEACH_METHODS[method]
    for option in (row.option.choices if row.option else [None]):
        for step in trace_of(method, option, pair).steps:
            assert not [name for name in INTERNAL if name in step.explain], (method, option, step.explain)


@pytest.mark.skipif(not (resources.is_available("wordnet") and resources.is_available("averaged_perceptron_tagger_eng")),
                    reason="needs WordNet and the POS tagger (lemmas): ../shared or nltk.download")
def test_a_lemma_match_is_explained_as_a_match_linked_as_equal() -> None:
    pair = analysed("The old bridge was closed on Monday.", "The bridge is closed.")
    for kind in ("pfsm", "ppda"):
        trace = trace_edit(pair, kind=kind)
        step = next(s for s in trace.steps if s.step is not None and s.step.cls == "S_LEMMA")
        assert "“was” with “is”" in step.explain and "“be”" in step.explain
        assert "counts a lemma match as a match" in step.explain and "(EQ)" in step.explain
        # What the sentence promises: the scorer's alignment links the two words as EQ.
        linked = [e for e in trace.result.alignment.edits if e.p_span == (3, 4)]
        assert linked and linked[0].kind.name == "EQ" and linked[0].h_span == (2, 3)
