# The two commands a fresh machine needs: `make run` and `make test`.
PYTHON ?= python3.11
UV := .tools/bin/uv
VENV := .venv
export UV_PYTHON_DOWNLOADS := never

.PHONY: run test lint typecheck env eval bench fuzz

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet uv==0.13.9

$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --python $(PYTHON)
	touch $@

env: $(VENV)/.synced

run: env
	$(VENV)/bin/python -m shared.local_stack

# A hung test prints every stack after 120 s (faulthandler_timeout); the suite as a
# whole never outlives 20 minutes.
test: env lint typecheck
	timeout 1200 $(VENV)/bin/python -m pytest

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

bench: env
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(VENV)/bin/python -m bench.run
