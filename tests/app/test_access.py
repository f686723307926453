"""Safe defaults for a shared server: localhost binding and the optional password."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.access import ENV_VAR, matches
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = DEADLINE  # seconds per AppTest run (tests/deadline.py)


def test_the_server_binds_to_localhost_by_default() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["address"] in {"127.0.0.1", "localhost"}


def test_password_comparison() -> None:
    assert matches("s3cret", "s3cret")
    assert not matches("s3cre", "s3cret")
    assert not matches("", "s3cret")
    assert matches("café", "café")


def test_with_a_password_nothing_is_shown_before_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "open sesame")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    assert [t.label for t in at.text_input] == ["Password"]
    assert not at.text_area  # no pair boxes: the Pair page did not run
    at.text_input[0].input("wrong")
    at.button[0].click().run()
    assert any("not the password" in e.value for e in at.error)
    assert [t.label for t in at.text_input] == ["Password"]
    at.text_input[0].input("open sesame")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "Password" not in [t.label for t in at.text_input]
