# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

# Two shared cores: one BLAS/OpenMP thread per process, parallelism across processes only.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export MPLBACKEND := Agg
# Offline copies of the real datasets when this checkout sits beside ../shared (CI, developers).
ifneq ($(wildcard ../shared/datasets),)
export FAIRACQ_DATA ?= $(abspath ../shared/datasets)
endif

.PHONY: demo test lint bench bench-quick docs docs-check venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -e ".[dev]" -c constraints.txt
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/fairacq demo --out fairacq-demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not bench"

lint: $(STAMP)
	$(BIN)/ruff format --check src tests benchmarks examples docs
	$(BIN)/ruff check src tests benchmarks examples docs
	$(BIN)/mypy
	$(BIN)/lint-imports

# The documentation site (docs/_build/html): API reference, guides, executed examples.
# Any Sphinx warning fails the build; docs-check then opens pages in headless Chromium.
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

docs-check: docs
	$(BIN)/python docs/check_site.py docs/_build/html

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

bench-quick: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n 2 -q -m bench tests/test_benchmarks.py

clean:
	rm -rf $(VENV) fairacq-demo .pytest_cache .mypy_cache .ruff_cache docs/_build \
		docs/auto_examples docs/api/generated docs/api/packages
