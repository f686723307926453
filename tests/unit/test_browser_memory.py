"""What a browser remembers comes back as a plain, short name (the cookie is the browser's
to change: it is cleaned before use)."""

from __future__ import annotations

import pytest

from components.sections.browser_memory import MAX_NAME, clean


@pytest.mark.parametrize(("cookie", "name"), [
    ("Ada%20Lovelace", "Ada Lovelace"), ("  Jo  ", "Jo"), ("a%0Ab%1Bc", "abc"), ("%E5%BC%A0%E4%BC%9F", "张伟"),
    ("x" * 200, "x" * MAX_NAME), ("", ""),
])
def test_a_remembered_name_is_cleaned(cookie: str, name: str) -> None:
    assert clean(cookie) == name
