"""The server's warm-up (runtime/warmup.py): steps run once, in order, on a background
thread, with readable progress; a failing step is recorded (its traceback logged) and the rest
still run; a step whose NLTK data is missing is skipped, said in one line per resource."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from explorer.aligners import ALIGNERS
from explorer.scorers import SCORERS
from runtime import warmup
from tests.deadline import DEADLINE


def test_steps_run_once_in_order_with_progress_and_failures_recorded() -> None:
    ran: list[str] = []
    gate, entered = threading.Event(), threading.Event()

    def blocked() -> None:
        ran.append("second")
        entered.set()
        assert gate.wait(DEADLINE)

    def broken() -> None:
        ran.append("third")
        raise RuntimeError("no model file")

    steps = [warmup.Step("first", lambda: ran.append("first")), warmup.Step("second", blocked),
             warmup.Step("third", broken), warmup.Step("fourth", lambda: ran.append("fourth"))]
    warm = warmup.Warmup(lambda: steps)
    assert warm.status().total == 0 and not warm.finished  # not started yet
    warm.start()
    assert entered.wait(DEADLINE)  # held at the second step
    assert not warm.finished
    status = warm.status()
    assert (status.done, status.total, status.current, status.finished) == (1, 4, "second", False)
    assert status.share == 0.25
    assert warm.start() is warm  # a second start changes nothing
    gate.set()
    assert warm.wait(DEADLINE)
    status = warm.status()
    assert ran == ["first", "second", "third", "fourth"]  # once each, in order, past the failure
    assert (status.done, status.finished, status.current) == (4, True, "")
    assert status.errors == (("third", "RuntimeError: no model file"),)
    assert status.seconds > 0
    assert warm.status().seconds == status.seconds  # frozen once finished


def test_listing_failure_is_recorded_and_ends_the_warm_up() -> None:
    def listing() -> list[warmup.Step]:
        raise ImportError("no such module")

    warm = warmup.Warmup(listing).start()
    assert warm.wait(DEADLINE)
    assert warm.status().errors == (("listing the methods", "ImportError: no such module"),)


def test_default_steps_name_each_resource_then_cover_every_scorer_and_aligner() -> None:
    steps = warmup.default_steps()
    labels = [s.label for s in steps]
    resources = [s.label for s in warmup.resource_steps()]
    assert labels[: len(resources)] == resources  # the shared resources first, each named
    assert {"POS tagger (averaged perceptron)", "WordNet index and lemmatizer", "PPDB paraphrase table"} <= set(resources)
    assert len(steps) == len(resources) + len(SCORERS) + len(ALIGNERS)
    # Each method once, named; the ones that load more than the resources say what.
    assert all(any(label.startswith(f"{info.label} (scorer") for label in labels) for info in SCORERS.values())
    assert "Bracketing ITG (scorer: numba chart kernel)" in labels
    assert all(f"{info.label} (aligner)" in labels for info in ALIGNERS.values())
    assert steps[0].run() == ("Ilse", "Marrow", "bought", "a", "new", "car", "in", "Kettleby", "on", "3", "May", ",",
                              "her", "neighbours", "said", ".")


def test_status_survives_the_file_between_processes(tmp_path: Path) -> None:
    status = warmup.WarmupStatus(3, 8, "PPDB paraphrase table", (("stopwords", "OSError: gone"),), 2.5, False)
    path = tmp_path / "sub" / "warmup.json"
    assert warmup.read_status(path) is None  # nothing written yet
    warmup.write_status(path, status)
    assert warmup.read_status(path) == status
    path.write_text("{not json", encoding="utf-8")
    assert warmup.read_status(path) is None  # a torn or foreign file reads as nothing


def test_run_on_the_callers_thread_reports_every_change() -> None:
    seen: list[tuple[int, str, bool]] = []
    steps = [warmup.Step("one", lambda: None), warmup.Step("two", lambda: 1 / 0)]
    final = warmup.Warmup(lambda: steps, on_change=lambda s: seen.append((s.done, s.current, s.finished))).run()
    assert seen == [(0, "one", False), (1, "two", False), (2, "", True)]
    assert final.finished and final.errors == (("two", "ZeroDivisionError: division by zero"),)


def test_the_process_has_one_warm_up() -> None:
    fake = warmup.Warmup(lambda: [])
    previous = warmup.replace_for_tests(fake)
    try:
        assert warmup.start() is fake and warmup.current() is fake
        assert fake.wait(DEADLINE)
    finally:
        warmup.replace_for_tests(previous)


def _not_found(nltk_id: str) -> LookupError:
    """NLTK's own error for a resource it cannot find (its long message, as nltk.data raises it)."""
    return LookupError("\n" + "*" * 70 + f"\n  Resource '{nltk_id}' not found.\n  Please use the NLTK Downloader"
                       f" to obtain the resource:\n\n  >>> import nltk\n  >>> nltk.download('{nltk_id}')\n"
                       + "*" * 70 + "\n")


def test_missing_data_skips_its_steps_with_one_line_per_resource_and_no_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    from explorer import resources

    monkeypatch.setattr(resources, "is_available", lambda nltk_id: nltk_id not in {"brown", "wordnet"})
    ran: list[str] = []

    def undeclared() -> None:  # needs WordNet without saying so: NLTK raises when it looks
        ran.append("lemmas")
        raise _not_found("wordnet")

    steps = [warmup.Step("information content", lambda: ran.append("ic"), needs=("stopwords", "brown")),
             warmup.Step("idf table", lambda: ran.append("idf"), needs=("brown",)),
             warmup.Step("lemmas", undeclared),
             warmup.Step("tokenizer", lambda: ran.append("tokens"), needs=("stopwords",))]
    with caplog.at_level(logging.WARNING, logger="runtime.warmup"):
        status = warmup.Warmup(lambda: steps).run()
    assert ran == ["lemmas", "tokens"]  # the steps whose data is missing never start
    assert status.errors == ()  # missing data is not a failure
    assert status.skipped == (("information content", "brown"), ("idf table", "brown"), ("lemmas", "wordnet"))
    assert (status.done, status.total, status.finished) == (4, 4, True)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all("\n" not in line for line in lines)  # one line per missing resource
    assert "'brown'" in lines[0] and "2 steps were skipped (information content; idf table)" in lines[0]
    assert "'wordnet'" in lines[1] and "(lemmas)" in lines[1]
    assert all(r.exc_info is None for r in caplog.records)
    assert "Traceback" not in capsys.readouterr().err


def test_a_real_failure_keeps_its_traceback_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    models: dict[str, object] = {}

    def broken() -> None:
        models["model"]  # a KeyError is a LookupError too, but no missing resource

    with caplog.at_level(logging.WARNING, logger="runtime.warmup"):
        status = warmup.Warmup(lambda: [warmup.Step("model", broken)]).run()
    assert status.skipped == () and status.errors == (("model", "KeyError: 'model'"),)
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None and "'model'" in record.getMessage()


def test_nltk_not_found_names_its_resource() -> None:
    assert warmup.missing_resource(_not_found("averaged_perceptron_tagger_eng")) == "averaged_perceptron_tagger_eng"
    assert warmup.missing_resource(LookupError("unknown encoding: utf-99")) is None
