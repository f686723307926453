"""What the browser tests share: one served app per test module (starting one takes a while
on a shared machine), with a store and an uploads folder of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.browser import require_chromium, throwaway_app


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[str]:
    require_chromium()
    with throwaway_app(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])) as url:
        yield url
