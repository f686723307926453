"""Lexical similarity of words and short phrases, in [0, 1], from switchable components.

MacCartney, Galley & Manning (2008, §4.2) score a substitution edit with a lexical
similarity that is a max over several resources. This module builds that max from:

* ``levenshtein`` — ``1 - lev(a, b) / max(|a|, |b|)`` on lemmas (also the similarity of
  the bag-of-words baseline, §5);
* ``wordnet_synonyms`` — the two lemmas share a WordNet synset;
* ``hypernyms`` — one lemma's synset is a WordNet hypernym of the other's, scored by
  the number of steps (1 to :data:`MAX_HYPERNYM_DISTANCE`);
* ``derivation`` — WordNet derivational relatedness or pertainymy (invade / invasion);
* ``ic_measure`` — Lin's information-content similarity (Lin 1998) over the most
  frequent senses, with information content counted on the Brown corpus the way
  ``nltk``'s ``wn.ic(brown)`` does it, computed once and cached on disk
  (:mod:`explorer.cache`) because it takes ~25 s;
* ``ppdb`` — the pair is in the PPDB 1.0 XXXL lexical synonym list (NLTK ``mwa_ppdb``);
* ``names`` — name variants: ``Lennon`` / ``John Lennon``, ``Nike Inc.`` / ``Nike``,
  ``U.S.`` / ``US``, acronyms (``UN`` / ``United Nations``);
* ``embedding`` (off unless asked for: :data:`OPT_IN`) — the cosine of the two lemmas'
  static embeddings (:mod:`~explorer.lexical.embedding`, the table the ``wordllama`` wheel
  ships), scaled by :data:`EMBEDDING_SCALE` where it reaches :data:`EMBEDDING_FLOOR`;
  related words of another meaning (distributional similarity, as in MANLI's original
  resources) that WordNet and PPDB do not list;
* ``numbers`` — numerals normalised to values (``five`` / ``5``, ``1,000`` / ``1000``,
  ``2.5 million`` / ``2,500,000``), months (``Oct.`` / ``October``) and dates. Number
  formats (``71-year-old``, ``5%``, ``1m``, ``40-50``; :func:`token_number`,
  :func:`span_number`) are read only by MANLI's own number features, not by the similarity.

``antonyms`` is a separate boolean feature (WordNet antonymy), never part of the
similarity: antonyms are distributionally similar but contradict.

Identical lemmas always score 1, whatever is switched off. Stopwords and light verbs
(be, have, do, 's) get only identity, Levenshtein and number evidence: their WordNet
senses and PPDB paraphrases match almost anything. Every component can be
turned off (:meth:`LexicalConfig.without`) or on (:meth:`LexicalConfig.enable`), so an
ablation is one flag; :meth:`LexicalSimilarity.source` says which component gave a pair
its similarity. Components
whose NLTK resource is missing are off, and :func:`unavailable_components` says why.
The constructor does no IO: resources are read on first use and kept.

Modules: :mod:`~explorer.lexical.config` (components, scores, :class:`LexicalConfig`),
:mod:`~explorer.lexical.strings` (Levenshtein), :mod:`~explorer.lexical.numbers`
(numbers and dates), :mod:`~explorer.lexical.mismatch` (negations, numbers and antonyms
on one side of a pair only), :mod:`~explorer.lexical.names` (name variants),
:mod:`~explorer.lexical.embedding` (static embeddings),
:mod:`~explorer.lexical.wordnet` (WordNet profiles and information content),
:mod:`~explorer.lexical.ppdb` (PPDB) and :mod:`~explorer.lexical.similarity` (the
combined similarity). Every public function and class, and the component names
(``COMPONENTS``, ``OPT_IN``, ``NEEDS``), is importable from ``explorer.lexical``; the
component scores (``SYNONYM``, ``IC_SCALE``, ...) are read from their one home,
:mod:`~explorer.lexical.config`.
"""

from __future__ import annotations

from explorer.lexical.config import COMPONENTS, NEEDS, OPT_IN, LexicalConfig, unavailable_components
from explorer.lexical.embedding import EmbeddingError, StaticEmbeddings, shared_embeddings
from explorer.lexical.mismatch import NEGATIONS, antonym_anywhere, antonym_links, negation_count, unmatched_numbers
from explorer.lexical.names import name_similarity
from explorer.lexical.numbers import month_of, number_value, phrase_date, phrase_number, span_number, token_number
from explorer.lexical.ppdb import load_ppdb
from explorer.lexical.similarity import LexicalSimilarity, default_similarity, embedding_scores, similarity_for
from explorer.lexical.strings import levenshtein, levenshtein_similarity
from explorer.lexical.wordnet import brown_information_content, compute_information_content, wordnet_class
