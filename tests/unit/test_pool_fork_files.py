"""A worker forked from the warm fork server drops the WordNet file handles it inherited
(:func:`runtime.pool.worker.own_files`), and does so without loading WordNet: where WordNet
is missing, a fork must not try to load it (that printed NLTK's thirty-line LookupError
with a traceback in the server's terminal at every fork)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import nltk
import pytest
from nltk.corpus.reader import WordNetCorpusReader
from nltk.corpus.util import LazyCorpusLoader

from runtime.pool.worker import own_files


def test_a_fork_where_wordnet_is_missing_loads_nothing_and_says_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A reader not loaded yet, whose data no NLTK path holds: touching any of its reader
    # attributes would look it up and raise LookupError.
    never_loaded = LazyCorpusLoader("wordnet-nowhere-on-this-machine", WordNetCorpusReader, None)
    monkeypatch.setattr(nltk.corpus, "wordnet", never_loaded)
    own_files()
    assert isinstance(nltk.corpus.wordnet, LazyCorpusLoader)  # still not loaded
    assert capsys.readouterr().err == ""


def test_a_fork_forgets_the_open_files_of_a_loaded_wordnet(monkeypatch: pytest.MonkeyPatch) -> None:
    data, counts = io.StringIO("noun data"), io.StringIO("counts")
    loaded = SimpleNamespace(_data_file_map={"noun": data}, _key_count_file=counts, _key_synset_file=None)
    monkeypatch.setattr(nltk.corpus, "wordnet", loaded)
    own_files()
    assert loaded._data_file_map == {}  # reopened on first use, by this process alone
    assert loaded._key_count_file is None and loaded._key_synset_file is None
