"""The methods: one row per method family, under one name used everywhere.

A row (:class:`Method`) names all the library and the app know of a method: its scorers
(one per variant, each a :class:`~explorer.api.ScorerInfo` with its factory, needs, model
file, cost model and CPU estimate), its aligners, the figures it adds to the Pair page's
full-analysis download, its Pair-page panel and its Teach lesson. The row's name is the
method's one name: the panel's key, the lesson's key (the ``lesson`` command's
``--method``, the Teach page) and what ``?method=`` accepts besides a scorer's own name.

Every table by method derives from this one: :data:`explorer.scorers.SCORERS`,
:data:`explorer.aligners.ALIGNERS`, ``components.panels.PANELS`` and
``components.teach_methods.TEACH_METHODS``. The library imports no UI, so the panel, the
report figures and the lesson's figures are named by ``"module:attr"`` strings the app
imports when it draws them. Adding a method is its own module(s) and one row here
(docs/ARCHITECTURE.md, "How to add a method").

>>> METHODS.resolve("editdist").name, [s.name for s in METHODS["edit"].scorers]
('edit', ['pfsm', 'ppda'])
>>> METHODS.resolve("itg_lex").name  # a variant's name finds its family
'itg'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from explorer.api import AlignerInfo, Registry, Scorer, ScorerInfo, UnknownNameError, caps, lazy


class UnknownMethodError(UnknownNameError):
    """A method name no row has (nor an alias, a scorer or an aligner of one)."""


@dataclass(frozen=True)
class LessonOption:
    """A lesson's one choice: the widget ``label``, the trace's keyword ``argument``, the
    ``choices`` (value -> display name) and the ``default`` value."""

    label: str
    argument: str
    choices: dict[str, str]
    default: str


@dataclass(frozen=True)
class Lesson:
    """The method's Teach lesson. ``trace`` (``explorer.teaching.*``) and ``figure``
    (``components.figures.teaching``) are ``"module:attr"``: ``trace(pair, **{option.argument:
    value})`` returns a trace whose steps each have an ``explain`` sentence;
    ``figure(trace, index, large=...)`` draws a step. ``label`` is the page's name for it
    (in the page's URL: keep it once published)."""

    label: str
    trace: str
    figure: str
    option: LessonOption | None = None
    #: The chapter of a step, by the step's ``phase``: a name, formatted with the step as
    #: ``step`` (``"{step.n}-grams"``); consecutive steps with one name are one chapter.
    chapters: dict[str, str] = field(default_factory=dict)
    #: One plain sentence on what the method asks of a pair: the lesson opens with it.
    asks: str = ""
    #: Estimated CPU seconds per squared text x hypothesis token pair, by which the server's
    #: workers tell a long lesson (``runtime.pool.cost.lesson_is_long``): the ITG trace reads
    #: every cell of its chart, about (p x h)² / 4 of them (2.7 s for the 30 x 30 pair at the
    #: teaching limit); the other lessons stay under 0.3 s there.
    seconds: float = 0.0


@dataclass(frozen=True)
class ReportPart:
    """Figures the method adds to the Pair page's full-analysis download: ``draw``
    (``"module:attr"``, pure Plotly: the file is built on a worker) returns them for a pair;
    ``title`` names them in the note that replaces them when they fail; ``methods`` are the
    scorers it runs (the job's cost estimate, ``runtime.pool.cost.is_long``)."""

    title: str
    draw: str
    methods: tuple[str, ...]


@dataclass(frozen=True)
class Method:
    """A method family: its one ``name``, a ``label``, its scorers and aligners, its Pair-page
    panel (``panel``: ``"module:function"``, drawn as ``function(pair, key=name)`` in a tab
    labelled ``tab``, which is in the page's URL: keep it once published), its ``report``
    figures and its ``lesson``. An aligner that states no model file or cost model takes
    those of its family's scorer of the same name."""

    name: str
    label: str
    scorers: tuple[ScorerInfo, ...] = ()
    aligners: tuple[AlignerInfo, ...] = ()
    panel: str | None = None
    tab: str = ""
    report: tuple[ReportPart, ...] = ()
    lesson: Lesson | None = None
    #: Former names of the method (a panel's or a lesson's), still accepted.
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.panel is not None and not self.tab:
            raise ValueError(f"{self.name}: a panel needs its tab's label (tab=)")


class Methods(Registry[Method]):
    """The rows by name, which also find a row by an alias or a variant's name."""

    def __init__(self, rows: Iterable[Method]) -> None:
        rows = list(rows)
        super().__init__("method", rows, error=UnknownMethodError)
        self.aliases = {alias: row.name for row in rows for alias in row.aliases}
        self.variants = {info.name: row.name for row in rows for info in (*row.scorers, *row.aligners)}
        for kind, names in (("method", [row.name for row in rows]),
                            ("scorer", [info.name for row in rows for info in row.scorers]),
                            ("aligner", [info.name for row in rows for info in row.aligners]),
                            ("name", [*self, *self.aliases])):
            twice = sorted({name for name in names if names.count(name) > 1})
            if twice:  # a second row of one name would silently replace the first
                raise ValueError(f"{kind} {twice[0]!r} is named twice in the method table")
        for alias, row_name in self.aliases.items():
            if self.variants.get(alias, row_name) != row_name:
                raise ValueError(f"alias {alias!r} of {row_name!r} is a variant of {self.variants[alias]!r}")

    def resolve(self, name: str) -> Method:
        """The row named ``name``: its own name, a former one, or a scorer's or aligner's.

        Raises:
            UnknownMethodError: naming the methods.
        """
        return self.info(self.aliases.get(name) or (name if name in self else self.variants.get(name, name)))


# What each family needs (declared, so the UI and CLI can filter instead of failing).
_TAGGED = caps("tagger", "wordnet", interactive=False)
_SLOW = caps(interactive=False)
_LEXICAL_EMBEDDINGS = caps("tagger", "wordnet", "ppdb", "embeddings", interactive=False)
_TRAINED = caps("tagger", "wordnet", "ppdb", "model", interactive=False)
_BAG = caps("brown", "wordnet", "embeddings")

#: Breakdown columns of a batch (scalars only; n-gram positions, alignments and trees stay
#: on the Pair page).
_BLEU_FIELDS = ("p1", "p2", "p3", "p4", "brevity_penalty", "hypothesis_length", "text_length")
_BOTH_WAYS = ("hypothesis_candidate", "text_candidate")
_ITG_FIELDS = ("cost", "null_cost", "inversions")
# CPU seconds (per pair, per text x hypothesis token pair) for the worker pool's long
# lane, fitted on an RTE2 pair of 35 x 32 words and a 1,999 x 50-token pair
# (``bench/bench_pool.py --only costs``); the n-gram metrics keep the default.
_ITG_SECONDS = (0.02, 9e-7)

_REPORT = "components.report"
_FIGURES = "components.figures.teaching"
_SCORE = "The score"
_EMBED_LINKS = "Linking words"


def _bleu(variant: str) -> Callable[[], Scorer]:
    return lazy("explorer.metrics.bleu:BleuScorer", variant=variant)


def _itg(variant: str) -> Callable[[], Scorer]:
    return lazy("explorer.aligners.itg:ItgScorer", variant)


def _edit_distance(kind: str) -> Callable[[], Scorer]:
    return lazy("explorer.edit_distance.scoring:EditDistanceScorer", kind)


#: The methods, in the order the pages list them (the Pair page's tabs, the Teach page's
#: methods, the scorers of ``--scorer all``).
METHODS = Methods([
    Method("bleu", "BLEU / modified BLEU", scorers=(
        ScorerInfo("bleu", "BLEU", "Papineni BLEU-4: geometric mean, brevity penalty", _bleu("bleu"),
                   cost="bleu", breakdown=_BLEU_FIELDS),
        ScorerInfo("mbleu", "Modified BLEU", "Szymanski: linear mean, no brevity penalty", _bleu("mbleu"),
                   cost="bleu", breakdown=_BLEU_FIELDS),
        ScorerInfo("bleu_pa", "BLEU (Pérez & Alfonseca)", "linear mean with brevity penalty", _bleu("bleu_pa"),
                   cost="bleu", breakdown=_BLEU_FIELDS),
        *(ScorerInfo(f"bleu{n}", f"BLEU-{n} (no BP)", f"Finch et al.: geometric mean of orders 1-{n}, no brevity penalty, both directions", lazy("explorer.metrics.bleu:BleuNScorer", n=n),
                     cost="bleu", breakdown=_BOTH_WAYS) for n in range(1, 5))),
        # The MT metrics panel shows every n-gram and error-rate metric (this family's, WER's, PER's, NIST's).
        panel="components.panels.mtmetrics:render_mtmetrics_panel", tab="MT metrics", aliases=("mtmetrics",),
        report=(ReportPart("N-gram match grid", f"{_REPORT}:ngram_figures", ("mbleu",)),),
        lesson=Lesson("BLEU / modified BLEU", "explorer.teaching.bleu:trace_bleu", f"{_FIGURES}:bleu_figure",
                      LessonOption("Variant", "variant", {"mbleu": "modified BLEU", "bleu": "BLEU", "bleu_pa": "BLEU P&A"},
                                   "mbleu"),
                      chapters={"match": "{step.n}-grams", "clip": "{step.n}-grams", "brevity": "Length",
                                "combine": _SCORE},
                      asks="BLEU asks how many of the hypothesis's runs of one to four words also occur in the text.")),
    Method("wer", "Word error rate (WER)", scorers=(
        ScorerInfo("wer", "1 - WER", "Finch et al.: 1 - word error rate, both directions averaged", lazy("explorer.metrics.wer:WerScorer"),
                   cost="wer", seconds=(2e-4, 6.4e-7), breakdown=("rate", "distance", "text_length", "hypothesis_length")),),
        report=(ReportPart("WER", f"{_REPORT}:wer_figures", ("wer",)),),
        lesson=Lesson("Word error rate (WER)", "explorer.teaching.wer:trace_wer", f"{_FIGURES}:wer_figure",
                      chapters={"fill": "Filling the table", "backtrace": "Reading the edits back", "rate": _SCORE},
                      asks="Word error rate asks how few word changes (swap one word, add one, remove one) turn one "
                           "sentence into the other.")),
    Method("per", "Position-independent error rate (PER)", scorers=(
        ScorerInfo("per", "1 - PER", "Finch et al.: 1 - position-independent error rate, both directions", lazy("explorer.metrics.per:PerScorer"),
                   cost="per", breakdown=("rate", "unmatched", "text_length", "hypothesis_length")),
        ScorerInfo("pos_per", "POS-decomposed PER", "Finch et al.: share of matched words, split by POS tag", lazy("explorer.metrics.per:PosPerScorer"), capabilities=_TAGGED,
                   cost="pos_per", seconds=(0.01, 1e-6)))),
    Method("nist", "NIST", scorers=tuple(
        ScorerInfo(f"nist{n}", f"NIST-{n}", f"Finch et al.: NIST up to order {n}, Brown information weights, both directions", lazy("explorer.metrics.nist:NistScorer", max_n=n), capabilities=caps("brown"),
                   cost="nist", breakdown=_BOTH_WAYS) for n in range(1, 6))),
    Method("bow", "Bag of words", scorers=(
        ScorerInfo("bow", "Bag-of-words alignment", "idf-weighted log similarity (Levenshtein or static embeddings) of each hypothesis word's best text match, per hypothesis word", lazy("explorer.aligners.bow:BowScorer"), capabilities=_BAG,
                   cost="bow", seconds=(0.01, 5.3e-6)),),
        aligners=(AlignerInfo("bow", "Bag of words", "each hypothesis word to its most similar text word (Levenshtein on lemmas, or static embeddings)", lazy("explorer.aligners.bow:BowAligner"), _BAG),),
        panel="components.panels.bow:render_bow_panel", tab="Bag of words",
        report=(ReportPart("Bag of words", f"{_REPORT}:bow_figures", ("bow",)),)),
    Method("itg", "Bracketing ITG", scorers=(
        ScorerInfo("itg", "Bracketing ITG", "Wu 2005: best biparse, unit costs, exact matches", _itg("itg"), capabilities=_SLOW,
                   cost="itg", seconds=_ITG_SECONDS, loads="numba chart kernel", breakdown=_ITG_FIELDS),
        ScorerInfo("itg_stop", "Bracketing ITG (stoplist)", "ITG with stopwords and punctuation left out of the lexical rules", _itg("itg_stop"), capabilities=_SLOW,
                   cost="itg", seconds=_ITG_SECONDS, breakdown=_ITG_FIELDS),
        ScorerInfo("itg_entail", "Bracketing ITG (cheap text nulls)", "ITG where unaligned text words cost 0.1", _itg("itg_entail"), capabilities=_SLOW,
                   cost="itg", seconds=_ITG_SECONDS, breakdown=_ITG_FIELDS),
        ScorerInfo("itg_lex", "Bracketing ITG (lexical similarity)", "ITG whose links use the shared WordNet/PPDB similarity and static embeddings", _itg("itg_lex"), capabilities=_LEXICAL_EMBEDDINGS,
                   cost="itg", seconds=(0.067, 2e-5), loads="lexical similarity", breakdown=_ITG_FIELDS)),
        aligners=(AlignerInfo("itg", "Bracketing ITG", "links of the best Bracketing ITG biparse (exact matches)", lazy("explorer.aligners.itg:ItgAligner", "itg"), _SLOW),
                  AlignerInfo("itg_lex", "Bracketing ITG (lexical similarity)", "ITG links using the shared WordNet/PPDB similarity and static embeddings", lazy("explorer.aligners.itg:ItgAligner", "itg_lex"), _LEXICAL_EMBEDDINGS)),
        panel="components.panels.itg:render_itg_panel", tab="ITG parse",
        report=(ReportPart("Bracketing ITG", f"{_REPORT}:itg_figures", ("itg",)),),
        lesson=Lesson("Bracketing ITG", "explorer.teaching.itg:trace_itg", f"{_FIGURES}:itg_figure",
                      LessonOption("Variant", "variant", {"itg": "exact matches", "itg_entail": "cheap text nulls",
                                                          "itg_stop": "stoplist", "itg_lex": "lexical similarity"}, "itg"),
                      seconds=3.3e-6,
                      chapters={"links": "Possible links", "span": "Filling the chart", "tree": "The best tree"},
                      asks="Bracketing ITG asks for the cheapest single tree of phrases, each kept in order or swapped, "
                           "that builds both sentences at once.")),
    Method("manli", "MANLI", scorers=(
        ScorerInfo("manli", "MANLI entailment score", "MANLI alignment (MacCartney et al. 2008): share of hypothesis content words aligned + 0.1 x hypothesis-side score per hypothesis token", lazy("explorer.aligners.manli:ManliScorer"), capabilities=_TRAINED, model="manli_rte2dev.json",
                   cost="manli", seconds=(2e-4, 1.25e-4), loads="model and numba search kernels", breakdown=("total", "n_tokens")),),
        aligners=(AlignerInfo("manli", "MANLI", "phrase-based NLI aligner (MacCartney et al. 2008), simulated annealing, trained weights", lazy("explorer.aligners.manli:ManliAligner"), _TRAINED),),
        panel="components.panels.manli:render_manli_panel", tab="MANLI",
        report=(ReportPart("MANLI", f"{_REPORT}:manli_figures", ("manli",)),),
        lesson=Lesson("MANLI", "explorer.teaching.manli:trace_manli", f"{_FIGURES}:manli_figure",
                      chapters={"start": "The candidate edits", "anneal": "The annealing walk", "greedy": "The last climb",
                                "final": _SCORE},
                      asks="MANLI asks which pairing of the hypothesis's phrases with the text's its trained weights "
                           "like best, and how much of the hypothesis that pairing covers.")),
    # The combined classifier runs the scorers its shipped model's features need
    # (explorer.combined.scorers_run): its cost model and CPU estimate are theirs.
    Method("combined", "Combined classifier", scorers=(
        ScorerInfo("combined", "Combined classifier", "logistic regression over bag-of-words, NIST-3, BLEU-1, hypothesis names MANLI leaves unaligned and the static-embedding cosine (features chosen by cross-set transfer), trained on RTE1-3 dev: probability of entailment", lazy("explorer.combined:CombinedScorer"), capabilities=_TRAINED, model="combined_rte.json", cutoff=0.5,
                   runs=("manli", "bow", "nist3", "bleu1", "embed"), loads="model"),),
        panel="components.panels.combined:render_combined_panel", tab="Combined classifier",
        report=(ReportPart("Combined classifier", f"{_REPORT}:combined_figures", ("combined",)),)),
    Method("edit", "pFSM / pPDA edit distance", scorers=(
        ScorerInfo("pfsm", "Probabilistic edit distance (pFSM)", "Wang & Cer 2012: log-sum over edit sequences, regressed on STS 2012 + SICK scores; the hypothesis is read in the text's order", _edit_distance("pfsm"), capabilities=_TRAINED, model="pfsm_sts_sick.json",
                   cost="pfsm", seconds=(0.066, 2.2e-5), loads="model and numba lattice kernels"),
        ScorerInfo("ppda", "Probabilistic edit distance with jumps (pPDA)", "Wang & Cer 2012: pFSM plus forward/backward jumps of up to 5 tokens, regressed on STS 2012 + SICK; the hypothesis is read in the text's order", _edit_distance("ppda"), capabilities=_TRAINED, model="ppda_sts_sick.json",
                   cost="ppda", seconds=(0.05, 2.7e-5), loads="model")),
        aligners=(AlignerInfo("pfsm", "pFSM edit sequence", "Viterbi edit sequence of the probabilistic edit-distance FSM (Wang & Cer 2012)", _edit_distance("pfsm"), _TRAINED),
                  AlignerInfo("ppda", "pPDA edit sequence", "Viterbi edit sequence of the pPDA, with jumps (Wang & Cer 2012)", _edit_distance("ppda"), _TRAINED)),
        panel="components.panels.edit_distance:render_edit_distance_panel", tab="Edit distance (pFSM / pPDA)",
        aliases=("editdist",),
        report=(ReportPart("pFSM", f"{_REPORT}:pfsm_figures", ("pfsm",)),
                ReportPart("pPDA", f"{_REPORT}:ppda_figures", ("ppda",))),
        lesson=Lesson("pFSM / pPDA edit distance", "explorer.teaching.edit:trace_edit", f"{_FIGURES}:edit_figure",
                      LessonOption("Model", "kind", {"ppda": "pPDA (with jumps)", "pfsm": "pFSM"}, "ppda"),
                      chapters={"start": "The best edit sequence", "op": "The best edit sequence",
                                "return": "The best edit sequence", "stop": "The best edit sequence", "score": _SCORE},
                      asks="The edit-distance models ask how likely a machine that reads the text word by word is to "
                           "write out the hypothesis.")),
    Method("embed", "Static embeddings", scorers=(
        ScorerInfo("embed", "Static embeddings (cosine)", "cosine of the two sentences' mean static token vectors (WordLlama's shipped table): how alike they are, not whether one follows", lazy("explorer.aligners.embed:EmbedScorer"), capabilities=caps("embeddings"),
                   cost="embed"),),
        aligners=(AlignerInfo("embed", "Static embeddings (SimAlign-style)", "mutual argmax over the cosines of static word vectors (WordLlama's shipped table), links of cosine >= 0.6 (SimAlign's argmax; settings chosen on the MSR gold)", lazy("explorer.aligners.embed:EmbedAligner"), caps("embeddings")),),
        panel="components.panels.similarity:render_similarity_panel", tab="Embeddings & similarity",
        aliases=("similarity",),
        report=(ReportPart("Static embeddings", f"{_REPORT}:embed_figures", ("embed",)),),
        lesson=Lesson("Static embeddings", "explorer.teaching.embed:trace_embed", f"{_FIGURES}:embed_figure",
                      LessonOption("Result", "result", {"links": "word links (aligner)", "score": "sentence score (scorer)"},
                                   "links"),
                      chapters={"tokens": "Word pieces", "vectors": "Vectors", "matrix": "Similarities",
                                "best_for_hypothesis": _EMBED_LINKS, "best_for_text": _EMBED_LINKS, "links": _EMBED_LINKS,
                                "round": _EMBED_LINKS, "sentence": "Sentence vectors", "score": _SCORE},
                      asks="Static embeddings ask how close the words, or the two sentences, lie in a space of word "
                           "vectors learnt from a large body of text.")),
])


def scorer_rows() -> list[ScorerInfo]:
    """Every method's scorers, in the table's order."""
    return [info for row in METHODS.values() for info in row.scorers]


def aligner_rows() -> list[AlignerInfo]:
    """Every method's aligners, in the table's order; one that states no model file or cost
    model takes its family's same-named scorer's."""
    out = []
    for row in METHODS.values():
        scorers = {info.name: info for info in row.scorers}
        for info in row.aligners:
            twin = scorers.get(info.name)
            if twin is not None:
                info = replace(info, model=info.model or twin.model, cost=info.cost or twin.cost)
            out.append(info)
    return out


#: Where the shipped model files are (a row's ``model`` is relative to it).
MODELS_DIR = Path(__file__).resolve().parent / "models"


def model_path(scorer: str) -> Path:
    """The shipped model file of a trained scorer (its row's ``model``): what the method's
    module loads by default.

    >>> model_path("pfsm").name
    'pfsm_sts_sick.json'
    """
    model = next((info.model for info in scorer_rows() if info.name == scorer), None)
    if model is None:
        raise UnknownMethodError(f"no trained scorer {scorer!r}")
    return MODELS_DIR / model


def default_scorer(name: str) -> str:
    """The scorer ``name`` stands for: a scorer's own name, else its method's first scorer
    (``edit`` and its former name ``editdist``: ``pfsm``).

    Raises:
        UnknownMethodError: when no scorer or method has the name.
    """
    row = METHODS.resolve(name)
    names = [info.name for info in row.scorers]
    if not names:
        raise UnknownMethodError(f"method {row.name!r} has no scorer")
    return name if name in names else names[0]


__all__ = ["METHODS", "Lesson", "LessonOption", "Method", "Methods", "ReportPart", "UnknownMethodError",
           "MODELS_DIR", "aligner_rows", "default_scorer", "model_path", "scorer_rows"]
