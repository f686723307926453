"""User text is made inert before it is shown inside Markdown."""

from __future__ import annotations

import re

from components.text import plain


def test_image_and_link_markup_is_escaped() -> None:
    shown = plain("look ![x](http://example.invalid/a.png) and [here](http://example.invalid)")
    # No unescaped "![" or "](" remains, so no image or link can be formed.
    assert not re.search(r"(?<!\\)!\\?\[", shown.replace("\\!\\[", ""))
    assert not re.search(r"(?<!\\)\](?=\()", shown)  # a "(" after an escaped "]" starts nothing
    assert "\\!\\[x\\](http" in shown


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


def test_bare_urls_and_mail_addresses_cannot_become_links() -> None:
    # GitHub-style autolinks are found after escapes are undone (a backslash does not stop
    # them, seen in Chromium): a word joiner inside each pattern does.
    for hostile, broken in (("www.example.com", "www\u2060."), ("http://127.0.0.1:9/x", "http\u2060\\://"),
                            ("ann@example.com", "ann\u2060@"), ("MAILTO:ann", "MAILTO\u2060\\:")):
        shown = plain(hostile)
        # what an autolink needs: "www.", a scheme's letters right before "://", an address's before "@"
        assert broken in shown and not re.search(r"(?i)www\.|[a-z]\\?://|[a-z0-9.+-]\\?@|mailto\\?:", shown), shown


def test_emphasis_lists_and_tables_are_escaped_and_names_read_as_typed() -> None:
    assert plain("_u_ a_b") == "\\_u\\_ a_b"
    assert plain("- item") == "\\- item" and plain("12. x") == "12\\. x"
    assert plain("a | b ~~s~~ # h & +") == "a \\| b \\~\\~s\\~\\~ \\# h \\& +"
    assert plain("+ a") == "\\+ a" and plain(":smile:frown: 12:30") == "\\:smile\\:frown\\: 12\\:30"
    assert plain("shipped default: best on a + b (56 pairs)") == "shipped default: best on a + b (56 pairs)"
    assert plain("rte1_dev.xml") == "rte1_dev.xml"


def test_svg_plain_leaves_no_tag_for_plotly() -> None:
    from components.text import svg_plain

    assert svg_plain('<a href="x">a</a> & <b>') == '&lt;a href="x"&gt;a&lt;/a&gt; &amp; &lt;b&gt;'
