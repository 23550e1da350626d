# The front door. `make demo` and `make test` set themselves up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
# the suite's xdist workers (tests sharing a file or a fixture built once run on one worker: tests/conftest.py,
# worker_groups). One process by default: on CI's 2 cores two workers ran slower (docs/DEVELOPMENT.md)
WORKERS ?= 0
PYTEST := $(BIN)/pytest -n $(WORKERS) --dist loadgroup --no-loadscope-reorder

.PHONY: setup browser demo test test-fast bench lint format clean

setup: $(STAMP)  ## Create .venv: the CPU build of torch first, then the package with its cpu (faiss-cpu) and dev extras.

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[cpu,dev]"
	touch $(STAMP)

demo: setup  ## Run the main job on the embedded default (local Ray, CPU, sqlite MLflow, the 360-paper demo corpus).
	$(BIN)/python jobs/demo.py --config demo

browser:  ## Debian's chromium for the Playwright explorer tests (never `playwright install`: no browser downloads here).
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

test: setup browser  ## The whole suite, slow end-to-end tests included (WORKERS=N: on N xdist workers).
	$(PYTEST)

test-fast: setup  ## Everything but the slow end-to-end tests.
	$(PYTEST) -m "not slow"

bench: setup  ## Side-by-side benchmarks (not tests; they print ratios).
	@for script in benchmarks/[a-z]*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

lint: setup  ## Style and static checks: ruff over everything, mypy (strict) over the library.
	$(BIN)/ruff check semcse tests jobs benchmarks tune examples
	$(BIN)/ruff format --check semcse tests jobs benchmarks tune examples
	$(BIN)/mypy

format: setup
	$(BIN)/ruff format semcse tests jobs benchmarks tune examples
	$(BIN)/ruff check --fix semcse tests jobs benchmarks tune examples

clean:  ## Remove run outputs and the local MLflow store (keeps .venv).
	rm -rf runs mlruns mlflow.db .pytest_cache
