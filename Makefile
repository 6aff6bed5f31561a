# One entry point per job. Every target builds the local venv first, so a
# fresh clone needs nothing but python3.11 on PATH.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test typecheck pytest demo bench bench-ab bench-peers clean system-packages

# The renderer modules setup.py compiles with mypyc: editing one rebuilds
# (a stale build would be ignored at import anyway, see _implementation.py).
COMPILED := $(addprefix dsh_tools_codegen/,_text.py _read.py _schema.py _sdk.py _pytypes.py _python.py _catalog.py)

$(STAMP): pyproject.toml setup.py $(COMPILED)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

typecheck: $(STAMP)
	$(PY) -m mypy --strict dsh_tools dsh_tools_codegen
	$(PY) -m mypy --strict tests examples

system-packages:
	scripts/ensure-system-packages.sh

pytest: $(STAMP) system-packages
	$(PY) -c 'from dsh_tools_codegen._implementation import IMPLEMENTATION; print("SDK renderer:", IMPLEMENTATION)'
	$(PY) -m pytest
	DSH_TOOLS_PURE_PYTHON=1 $(PY) -m pytest tests/codegen

test: typecheck pytest

demo: $(STAMP)
	$(VENV)/bin/dsh-tools demo

bench: $(STAMP)
	$(PY) -m benchmarks

# Every figure of `make bench`, this tree against BASE (a revision), measured alternately.
bench-ab: $(STAMP)
	$(PY) -m benchmarks.ab $(BASE) $(if $(ONLY),--only $(ONLY))

# The peer bench has a venv of its own, so nothing else depends on its packages.
PEERS_VENV  := .venv-peers
PEERS_PY    := $(PEERS_VENV)/bin/python
PEERS_STAMP := $(PEERS_VENV)/.installed

$(PEERS_STAMP): pyproject.toml setup.py benchmarks/peers-requirements.txt
	test -x $(PEERS_PY) || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install --quiet --upgrade pip
	$(PEERS_PY) -m pip install --quiet -e . -r benchmarks/peers-requirements.txt
	touch $(PEERS_STAMP)

# The same typed tool call through dsh-tools and its Python peers, in fresh interpreters.
bench-peers: $(PEERS_STAMP)
	$(PEERS_PY) -m benchmarks.peers

clean:
	rm -rf $(VENV) $(PEERS_VENV) build *.egg-info .mypy_cache .pytest_cache
	rm -f dsh_tools_codegen/*.so dsh_tools_codegen/_compiled_sources.json
