"""Static embeddings (explorer.lexical.embedding): read offline from the wheel's files,
the vector arithmetic on a tiny hand-made table, and the lexical ``embedding`` component."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.lexical import LexicalConfig, LexicalSimilarity, embedding_scores
from explorer.lexical.config import EMBEDDING_FLOOR, EMBEDDING_SCALE
from explorer.lexical.embedding import EmbeddingError, EmbeddingFiles, StaticEmbeddings, is_available

needs_table = pytest.mark.skipif(not is_available(), reason="the wordllama package (its shipped table) is not installed")


# -- a tiny table: words are single tokens, "ab" is two ---------------------------------

@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> EmbeddingFiles:
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("tiny_embeddings")
    vocabulary = {"[UNK]": 0, "a": 1, "b": 2, "c": 3, "d": 4}
    tokenizer = Tokenizer(models.WordPiece(vocabulary, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    table = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 2]], dtype=np.float16)
    save_file({"embedding.weight": table}, str(folder / "table.safetensors"))
    return EmbeddingFiles(folder / "table.safetensors", folder / "tokenizer.json")


def test_a_word_vector_is_its_tokens_mean_scaled_to_unit_length(tiny: EmbeddingFiles) -> None:
    vectors = StaticEmbeddings(tiny).word_vectors(["a", "d", "a b"])
    np.testing.assert_allclose(vectors, [[1, 0, 0], [0, 0, 1], [2**-0.5, 2**-0.5, 0]], atol=1e-6)


def test_similarity_is_the_cosine_matrix_and_identical_words_score_one(tiny: EmbeddingFiles) -> None:
    sims = StaticEmbeddings(tiny).similarity(["a", "c", "d"], ["b", "c", "a"])
    np.testing.assert_allclose(sims, [[0, 2**-0.5, 1], [2**-0.5, 1, 2**-0.5], [0, 0, 0]], atol=1e-6)


def test_a_word_without_tokens_has_a_zero_vector_and_no_similarity(tiny: EmbeddingFiles) -> None:
    embeddings = StaticEmbeddings(tiny)
    assert not embeddings.word_vectors([""]).any()
    assert embeddings.similarity([""], ["", "a"]).tolist() == [[0.0, 0.0]]


def test_a_text_vector_pools_every_token_of_every_word(tiny: EmbeddingFiles) -> None:
    embeddings = StaticEmbeddings(tiny)
    # tokens a, b, d: mean (1, 1, 2) / 3, unit length (1, 1, 2) / sqrt(6)
    np.testing.assert_allclose(embeddings.text_vector(["a b", "d"]), np.array([1, 1, 2]) / 6**0.5, atol=1e-6)
    assert embeddings.text_similarity(["a"], ["a", "b"]) == pytest.approx(2**-0.5, abs=1e-6)
    assert embeddings.text_similarity([], ["a"]) == 0.0


def test_the_constructor_reads_nothing_and_a_missing_file_is_named(tmp_path: Path) -> None:
    missing = EmbeddingFiles(tmp_path / "none.safetensors", tmp_path / "none.json")
    embeddings = StaticEmbeddings(missing)  # no IO yet
    with pytest.raises(EmbeddingError, match="none.safetensors"):
        embeddings.word_vectors(["a"])


def test_a_damaged_table_is_a_project_error(tiny: EmbeddingFiles, tmp_path: Path) -> None:
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(b"not a table")
    with pytest.raises(EmbeddingError, match="cannot read"):
        StaticEmbeddings(EmbeddingFiles(broken, tiny.tokenizer)).word_vectors(["a"])


# -- the component --------------------------------------------------------------------------

def test_embedding_scores_floor_scale_identity_and_function_words() -> None:
    cosine = np.array([[0.9, EMBEDDING_FLOOR - 0.01, 0.2], [0.95, 0.99, 0.7]])
    out = embedding_scores(cosine, ["buy", "the"], ["purchase", "cat", "buy"])
    assert out[0, 0] == pytest.approx(EMBEDDING_SCALE * 0.9)
    assert out[0, 1] == 0.0  # below the floor
    assert out[0, 2] == 1.0  # the same lemma
    assert out[1].tolist() == [0.0, 0.0, 0.0]  # "the" is a function word


def test_the_component_is_off_by_default_and_without_keeps_it_off() -> None:
    assert not LexicalConfig().embedding
    assert not LexicalConfig.without("ppdb").embedding
    assert LexicalConfig().enable("embedding").embedding
    assert LexicalConfig.only("embedding").enabled == ("embedding",)


# -- the shipped table, offline ----------------------------------------------------------------

@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way out refused and recorded: sockets, and the Hugging Face hub's downloads."""
    attempts: list[str] = []

    def refuse(what: str):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            attempts.append(f"{what} {args[1:2] or args[:1]}")
            raise OSError(f"network blocked in this test: {what}")
        return call

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", refuse("socket.connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket, "create_connection", refuse("socket.create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("socket.getaddrinfo"))
    try:
        import huggingface_hub
    except ImportError:
        pass
    else:
        for name in ("hf_hub_download", "snapshot_download"):
            if hasattr(huggingface_hub, name):
                monkeypatch.setattr(huggingface_hub, name, refuse(f"huggingface_hub.{name}"))
    return attempts


@needs_table
def test_the_shipped_table_loads_and_scores_with_the_network_blocked(no_network: list[str]) -> None:
    embeddings = StaticEmbeddings()  # a fresh instance: this test does the loading
    sims = embeddings.similarity(["car", "buy", "cat"], ["automobile", "purchase", "banana"])
    assert embeddings.load_info is not None and embeddings.load_info.dimensions == 256
    # Related words score well above unrelated ones (car/automobile ~0.67, cat/banana ~0).
    assert sims[0, 0] > 0.5 and sims[1, 1] > 0.5 and sims[2, 2] < 0.3
    assert embeddings.text_similarity(["a", "man", "plays", "guitar"], ["a", "man", "plays", "a", "guitar"]) > 0.9
    assert no_network == []
    assert "wordllama" not in sys.modules  # found on disk, never imported


@needs_table
def test_every_embedding_method_runs_with_the_network_blocked(no_network: list[str]) -> None:
    from explorer.aligners import get_aligner
    from explorer.preprocess import analyze_pair, make_pair
    from explorer.scorers import get_scorer

    pair = analyze_pair(make_pair("The firm purchased a large automobile.", "A company bought a big car."))
    assert get_scorer("embed").score(pair).value > 0.3
    assert get_aligner("embed").align(pair).alignment.links
    similarity = LexicalSimilarity(LexicalConfig.only("embedding"))
    assert similarity.word("automobile", None, "car", None) > 0.5
    # The Pair page's heatmap and the Teach lesson read the same table.
    from components.figures.similarity import similarity_heatmap
    from explorer.aligners.similarity_view import similarity_view
    from explorer.teaching.embed import trace_embed

    view = similarity_view(get_aligner("embed"), pair)
    labels = [[view.label(i, j) for j in range(len(pair.hypothesis))] for i in range(len(pair.text))]
    assert similarity_heatmap(view.values, labels, pair.text.tokens, pair.hypothesis.tokens).data
    assert trace_embed(pair).value == get_aligner("embed").align(pair).value
    assert no_network == []


@needs_table
def test_the_vectorised_matrix_agrees_with_word_by_word_and_names_its_source() -> None:
    from explorer.preprocess import analyze

    similarity = LexicalSimilarity(LexicalConfig.only("embedding"))
    text, hyp = analyze("The automobile was bought"), analyze("a car was purchased")
    matrix = similarity.matrix(text, hyp)
    by_word = np.array([[similarity.word(a, ap, b, bp) for b, bp in zip(hyp.lemmas, hyp.pos)]
                        for a, ap in zip(text.lemmas, text.pos)])
    same = np.equal.outer(np.array(text.lower, dtype=object), np.array(hyp.lower, dtype=object)).astype(bool)
    by_word[same] = 1.0
    np.testing.assert_allclose(matrix, by_word, atol=1e-6)
    i, j = text.tokens.index("automobile"), hyp.tokens.index("car")
    assert EMBEDDING_SCALE * EMBEDDING_FLOOR <= matrix[i, j] < EMBEDDING_SCALE
    sources = similarity.source_matrix(text, hyp)
    assert sources[i][j] == "embedding"
    assert sources[text.tokens.index("was")][hyp.tokens.index("was")] == "identity"
    assert sources[0][0] == ""  # "The" / "a": function words get no embedding evidence
    assert similarity.breakdown("automobile", "NN", "car", "NN")["embedding"] == pytest.approx(matrix[i, j], abs=1e-6)


@needs_table
def test_the_caches_are_bounded_in_bytes_not_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long tokens (each thousands of subword ids) used to fill the caches by word count:
    a few hundred of them held megabytes each. Measured with tracemalloc, not the class's
    own count: what stays allocated after many distinct long words is within the budgets."""
    import random
    import tracemalloc

    from explorer.lexical import embedding

    budget = 2**20  # 60 long words hold about 7 MB in unbounded caches, well past both checks below
    monkeypatch.setattr(embedding, "MAX_CACHED_ID_BYTES", budget, raising=False)
    monkeypatch.setattr(embedding, "MAX_CACHED_VECTOR_BYTES", budget, raising=False)
    table = StaticEmbeddings()
    table.similarity(["warm"], ["up"])  # the table and tokenizer load outside the measurement
    rng = random.Random(3)
    letters = "qxzjkvwy"
    long_words = ["".join(rng.choice(letters) for _ in range(4000)) for _ in range(60)]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for k in range(0, len(long_words), 2):
        table.similarity(long_words[k:k + 1] + ["cat"], long_words[k + 1:k + 2] + ["dog"])
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert table.cached_bytes() <= 2 * budget
    assert held < 2 * budget + 1024 * 1024, f"{held / 2**20:.1f} MB held after {len(long_words)} long words"
    # Short words still come back from the cache (the same vectors).
    first = table.word_vectors(["cat", "dog"])
    assert np.array_equal(first, table.word_vectors(["cat", "dog"]))
