# Two entry points for a newcomer: `make run` (the app on its sample data) and
# `make test` (set up, lint, type-check, every test; the browser tests as a second step).
# Both create .venv on first use.
# While working: `make test-fast` (the unit tests without the slow ones, under a
# minute) or one layer with `make test-unit`, `make test-app`, `make test-e2e`.
# No test depends on the order: `pytest --random-order` shuffles files and tests (the
# header prints the seed, `--random-order-seed N` replays it), `--reverse-order` runs last
# to first (tests/conftest.py). Every wait is bounded by tests/deadline.py's one deadline;
# EXPLORER_TEST_DEADLINE_SCALE multiplies it on a slow machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Use ../shared/nltk_data when it is there (development machines and CI).
SHARED_NLTK := $(abspath ../shared/nltk_data)
ifneq ($(wildcard $(SHARED_NLTK)),)
export NLTK_DATA ?= $(SHARED_NLTK)
endif

.PHONY: run serve-class test test-fast test-unit test-app test-e2e setup setup-dev lint resources bench bench-browser clean

$(BIN)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	# The package itself, editable: `entailment-explorer` on PATH, no sys.path edits.
	$(BIN)/pip install --quiet --no-deps -e .
	# The disk caches and compiled kernels a server's first start would build (a minute or
	# two, in parallel), so that start only reads them; without NLTK data, one line and on.
	-$(BIN)/python -m runtime.disk_caches --build
	touch $@

$(BIN)/.installed-dev: $(BIN)/.installed requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

setup: $(BIN)/.installed

setup-dev: $(BIN)/.installed-dev

resources: setup
	$(BIN)/python -m explorer resources --download

# First use fetches the missing NLTK resources (with progress); offline, it says so in one
# line and the app runs degraded.
run: setup
	@$(BIN)/python -m explorer.resources ensure || true
	$(BIN)/python -m streamlit run app.py

# A class on one server (README, "Serving a class"): Caddy asks every request for the
# password (ENTAILMENT_EXPLORER_PASSWORD), then passes it to one of PROCESSES Streamlit
# processes; on every network interface at PORT (default 8501), on purpose. Installs
# Debian's caddy package when it is missing and this is root; otherwise names it.
serve-class: setup
	@$(BIN)/python -m explorer.resources ensure || true
	exec $(BIN)/python -m serve

lint: setup-dev
	$(BIN)/ruff check explorer runtime components serve tests bench experiments app.py
	$(BIN)/mypy explorer
	$(BIN)/mypy runtime
	$(BIN)/mypy components app.py
	$(BIN)/mypy serve

# The browser tests run as their own step after the rest, and both steps always run: a
# browser test timing out on a loaded machine does not hide the other results, nor the
# other way round. The target fails when either step does.
test: lint
	@rest=0; browser=0; \
	$(BIN)/python -m pytest -q --ignore=tests/e2e || rest=$$?; \
	echo "== browser tests (tests/e2e)"; \
	$(BIN)/python -m pytest -q tests/e2e || browser=$$?; \
	if [ $$rest -ne 0 ] || [ $$browser -ne 0 ]; then \
	  echo "make test: the suite exited $$rest, the browser tests $$browser"; exit 1; fi

test-fast: setup-dev
	$(BIN)/python -m pytest -q -m "unit and not slow" tests/unit

test-unit test-app test-e2e: test-%: setup-dev
	$(BIN)/python -m pytest -q tests/$*

bench: setup-dev
	$(BIN)/python -m bench.bench_bleu
	$(BIN)/python -m bench.bench_pages

# The app's first-use timings in headless Chromium (/usr/bin/chromium): typed pair, RTE2 pair, editor
# click, a pair of a 20,000-pair upload, cold start; medians with the load average.
bench-browser: setup-dev
	$(BIN)/python -m bench.bench_browser_timings

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
