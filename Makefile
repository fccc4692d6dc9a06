# The two commands a fresh machine needs: `make run` and `make test` (and `make scale`,
# the same scaled out on this machine: docs/scaling.md).
# The newest of Python 3.13, 3.12 and 3.11 that runs (a pyenv shim may exist and fail);
# `make PYTHON=...` chooses another.
SUPPORTED_PYTHONS := python3.13 python3.12 python3.11
ifndef PYTHON
PYTHON := $(shell for p in $(SUPPORTED_PYTHONS); do $$p -c '' 2>/dev/null && { echo $$p; break; }; done)
endif
ifeq ($(PYTHON),)
$(error Parley needs Python 3.13, 3.12 or 3.11 on PATH (or make PYTHON=/path/to/python))
endif
UV := .tools/bin/uv
VENV := .venv
export UV_PYTHON_DOWNLOADS := never

.PHONY: run scale test lint typecheck env eval bench fuzz

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet uv==0.13.9

# The libraries' bytecode is compiled once here: where PYTHONDONTWRITEBYTECODE is set
# (as on the 2-core machine) every process would otherwise compile what it imports,
# 2.7 s of CPU for `python -m bot_api` (4.0 -> 1.3 s), and the suite starts hundreds
# of them (tests/integration/bot_api/test_story_command.py: 117 s -> 41 s).
$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --compile-bytecode --python $(PYTHON)
	touch $@

env: $(VENV)/.synced

run: env
	$(VENV)/bin/python -m tools.local_stack

# Debian's nginx is the gateway (installed with apt-get when missing, as tests/deploy do).
scale: env
	$(VENV)/bin/python -m tools.scale_stack

# A hung test prints every stack after 120 s (faulthandler_timeout); the suite as a
# whole never outlives 25 minutes (it took 17.6 on the 2-core machine, issue 28's note).
# Two workers (pytest-xdist), each taking whole files so that a module's stack or
# gateway starts once.
# The browser tests drive Debian's Chromium (tests/e2e/browser; docs/console.md).
test: env lint typecheck
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	timeout 1500 $(VENV)/bin/python -m pytest -n 2 --dist loadfile

# Schemathesis for longer than `make test` does: 20,000+ generated requests per service
# (docs/reliability.md "HTTP input and the OpenAPI contract").
fuzz: env
	PARLEY_FUZZ_SECONDS=$${PARLEY_FUZZ_SECONDS:-1200} PARLEY_FUZZ_MIN_REQUESTS=20000 \
		timeout 3600 $(VENV)/bin/python -m pytest tests/integration/contract -o faulthandler_timeout=0

lint: env
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: env
	$(VENV)/bin/mypy

eval: env
	$(VENV)/bin/python -m bench.eval_nlu
	$(VENV)/bin/python -m bench.eval_knowledge

bench: env
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	PYTHONPATH=tests $(VENV)/bin/python -m bench.run
