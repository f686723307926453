"""An in-app password form, for an app served straight from ``streamlit run``.

The app binds to localhost by default (``.streamlit/config.toml``). A class is served with
``make serve-class`` (:mod:`serve.class_server`), where Caddy asks every request for the
password before anything reaches Streamlit; it starts Streamlit without the password, so
this form stays off there and students are asked once.

This form guards the pages only: Streamlit's own endpoints (the websocket's session, file
uploads, media, metrics) answer before it, so it is no gate on a network. It is still
honoured when a password is set in the environment (``ENTAILMENT_EXPLORER_PASSWORD``) or in
Streamlit secrets (``.streamlit/secrets.toml``: ``explorer_password = "..."``): each browser
session then enters it once before any page is drawn."""

from __future__ import annotations

import hmac
import os
import time

import streamlit as st

from components import state

ENV_VAR = "ENTAILMENT_EXPLORER_PASSWORD"
SECRET = "explorer_password"
_FAILURE_DELAY_S = 1.0  # slows guessing; only the guessing session waits


def configured_password() -> str | None:
    """The password from the environment, else from Streamlit secrets, else None."""
    from_env = os.environ.get(ENV_VAR, "")
    if from_env:
        return from_env
    try:
        value = st.secrets.get(SECRET)
    except Exception:  # no secrets file, or an unreadable one: no password from there
        return None
    return str(value) if value else None


def matches(given: str, expected: str) -> bool:
    """Constant-time comparison (no timing hint of how much of a guess was right)."""
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def require_access() -> bool:
    """True when this session may use the app; otherwise draws the password form."""
    expected = configured_password()
    if expected is None or state.ACCESS_GRANTED.get():
        return True
    st.title("Entailment Alignment Explorer")
    with st.form("access"):
        given = st.text_input("Password", type="password",
                              help="This explorer is shared; ask whoever runs it for the password.")
        sent = st.form_submit_button("Enter", type="primary")
    if sent:
        if matches(given, expected):
            state.ACCESS_GRANTED.set(True)
            st.rerun()
        time.sleep(_FAILURE_DELAY_S)
        st.error("That is not the password.")
    return False
