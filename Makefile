# Two entry points: `make demo` and `make test`. Each builds .venv from nothing when needed.
PYTHON ?= python3
# Extra pytest arguments, e.g. PYTEST_ARGS='-m "not samples"' where shared/ is absent.
PYTEST_ARGS ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-harness harnesses phoenix docs bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("trail needs Python 3.11+") if sys.version_info < (3, 11) else None'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# compat mode puts the checkout on sys.path with a plain .pth line; the default editable
	# finder imports pathlib & co. (~20 ms) into every hook call. Fall back if it is ever gone.
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat \
	  || $(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m compileall -q hooks trace_ingest telemetry scorers dashboard
	touch $(STAMP)

demo: $(STAMP)
	TRAIL_HOME=$${TRAIL_HOME:-$(CURDIR)/.demo-home} $(BIN)/trail demo

# The real harness programs the rig drives (tests/harnesses/versions.py pins them), installed
# from their registries into a cache outside the repository; needs node and npm (Claude Code)
# and a Python >= 3.12 for Mistral Vibe's own venv (tests/harnesses/install.py finds one).
harnesses: $(STAMP)
	$(BIN)/python -m tests.harnesses.install

# Arize Phoenix for the export integration test (tests/telemetry/otlp/phoenix_install.py),
# in its own venv in a cache outside the repository; from PyPI.
phoenix: $(STAMP)
	$(BIN)/python -m tests.telemetry.otlp.phoenix_install

# mypy runs twice: the package, then bench/ and tools/ apart (bench/dashboard.py would shadow
# the dashboard package), with the corpus modules they import on MYPYPATH.
test: $(STAMP) harnesses phoenix
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	MYPYPATH=tests/trace_ingest $(BIN)/mypy bench tools
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

# Only the real-harness rig (docs/testing.md).
test-harness: $(STAMP) harnesses
	$(BIN)/python -m pytest -q tests/harnesses

# agent_walltime drives the pinned Claude Code, hence `harnesses`.
bench: $(STAMP) harnesses
	$(BIN)/python -m pip install --quiet -e '.[bench]' --config-settings editable_mode=compat \
	  || $(BIN)/python -m pip install --quiet -e '.[bench]'
	status=0; \
	for script in hook_latency collector_latency agent_walltime sync_throughput import_throughput \
	    scrub score_throughput score_reference dashboard export; do \
	  $(BIN)/python bench/$$script.py || status=1; \
	done; exit $$status

docs: $(STAMP)
	$(BIN)/python tools/gen_cli_docs.py
	$(BIN)/python tools/gen_sources_doc.py

clean:
	rm -rf $(VENV) .demo-home .pytest_cache .mypy_cache .ruff_cache
