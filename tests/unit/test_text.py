"""User text is made inert before it is shown inside Markdown."""

from __future__ import annotations

import re

from components.text import plain


def test_image_and_link_markup_is_escaped() -> None:
    shown = plain("look ![x](http://example.invalid/a.png) and [here](http://example.invalid)")
    # No unescaped "![" or "](" remains, so no image or link can be formed.
    assert not re.search(r"(?<!\\)!\\?\[", shown.replace("\\!\\[", ""))
    assert "](" not in shown
    assert "\\!\\[x\\]\\(http" in shown


def test_streamlit_directives_and_html_are_escaped() -> None:
    for hostile in (":red[alarm]", ":material/home:", "$x^2$", "<img src=x onerror=alert(1)>", "**bold**"):
        shown = plain(hostile)
        assert all(shown[i - 1] == "\\" for i, c in enumerate(shown) if c in ":[]$<>*" and i > 0)


def test_plain_words_and_unicode_are_unchanged_and_lines_joined() -> None:
    assert plain("café  naïve") == "café naïve"
    assert plain("two\nlines") == "two lines"


def test_count_says_one_pair_and_many_pairs() -> None:
    from components.text import count

    assert count(1, "pair") == "1 pair"
    assert count(0, "pair") == "0 pairs"
    assert count(20000, "pair") == "20,000 pairs"
    assert count(2, "child", "children") == "2 children"


def test_label_kind_in_words() -> None:
    from components.text import label_kind

    assert label_kind("three_way") == "3-way labels (entailment / neutral / contradiction)"
    assert "three_way" not in label_kind("three_way", 3, 5)
    assert label_kind("binary", 393, 800) == "entailment labels (yes/no) on 393 of 800 pairs"
    assert label_kind("binary", 800, 800) == "entailment labels (yes/no)"
    assert label_kind("unlabelled", 0, 10) == "no labels"
