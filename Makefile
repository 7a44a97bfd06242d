# Shelfwise: `make run` serves everything on 127.0.0.1:$(PORT); `make test` runs the fast suite, `make test-all` everything.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000
HOST ?= 127.0.0.1

.PHONY: run test test-all lint install system-deps up down up-status up-session up-check

install: $(STAMP)

# From the lock files: every package (dependencies included) at one version with its sha256 hashes,
# so a fresh machine installs what CI tested. The *.txt files are what we ask for; `make lock`
# turns them into the *.lock files (pip-tools, in a throwaway environment).
$(STAMP): requirements-dev.lock requirements-nodeps.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --require-hashes -r requirements-dev.lock
	$(BIN)/python -m pip install -q --require-hashes --no-deps -r requirements-nodeps.lock
	@touch $(STAMP)

PIP_TOOLS := pip-tools==7.7.0
LOCK_FLAGS := --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links -q
.PHONY: lock
lock:
	@test -x var/lock-env/bin/pip-compile || ($(PYTHON) -m venv var/lock-env && var/lock-env/bin/pip install -q $(PIP_TOOLS))
	var/lock-env/bin/pip-compile $(LOCK_FLAGS) -o requirements.lock requirements.txt
	var/lock-env/bin/pip-compile $(LOCK_FLAGS) -o requirements-dev.lock requirements-dev.txt
	var/lock-env/bin/python scripts/lock_nodeps.py requirements-nodeps.txt requirements-nodeps.lock

# The web process and one worker beside it (Procfile.dev): SQLite, a folder as the Celery broker, no Redis.
# The worker holds the models (warmed at start) and runs beat; the web process never loads a model.
run: export PUBLIC_URL ?= http://$(HOST):$(PORT)
run: export CELERY_BROKER_URL ?= filesystem://
run: export SHELFWISE_WARM_UP ?= 1
run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/python manage.py seed_demo --if-missing
	SW_HOST=$(HOST) SW_PORT=$(PORT) $(BIN)/honcho -f Procfile.dev start

# The suite in parallel (pytest-xdist), one worker per core up to 4; each worker has its own test database
# and Redis database (tests/settings.py). `make test` leaves out the tests marked `model` (pytest.ini:
# the bundled 1.5B GGUF, the small model's training and inference, the spoken phrases through Whisper and
# the router); `make test-all` runs them too. `--dist load` hands tests out one by one in pytest-django's
# order, so on every worker the ordinary database tests run before the transactional ones, whose teardown
# empties the tables (`--dist loadfile` would run one file's flush before another file's plain tests).
# TEST_WORKERS=0 runs in this process; PYTEST_ARGS adds options (-x, -k ..., a path).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
PYTEST_ARGS ?=
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist load

test: $(STAMP) system-deps
	$(PYTEST) -m "not model" $(PYTEST_ARGS)

test-all: $(STAMP) system-deps
	$(PYTEST) $(PYTEST_ARGS)

# ruff, the import contract (the runtime never imports the lab) and mypy; settings in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

.PHONY: screenshots bench-pages

# PNGs of the main pages (owner, shopper, admin, vendor) in var/screenshots/, from a fresh seeded demo site.
# The sample turns use scripted models (fast); SCREENSHOT_ARGS= runs them on the configured models.
SCREENSHOT_ARGS ?= --scripted-models
screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py --out var/screenshots $(SCREENSHOT_ARGS)

# Render time (median / p90 ms) and SQL queries per main page on the demo store; target < 300 ms.
BENCH_PAGES_ARGS ?= --scripted-models
bench-pages: $(STAMP)
	$(BIN)/python scripts/bench_pages.py $(BENCH_PAGES_ARGS)

# espeak-ng (the voice tests' speech) and Chromium (the browser tests), from apt when missing.
# Only as root on Debian/Ubuntu; anywhere else it says nothing and the tests that need them skip.
SYSTEM_TOOLS := espeak-ng chromium chromedriver sox
system-deps:
	@missing=""; for tool in $(SYSTEM_TOOLS); do command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ -f /etc/debian_version ]; then \
		echo "Installing$$missing with apt-get"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends espeak-ng sox chromium chromium-driver >/dev/null \
		|| echo "apt-get could not install$$missing; the tests that need them will skip"; \
	fi

# The production topology natively (Procfile: web, turns/jobs/bench workers, beat) against this machine's
# PostgreSQL, Redis and RabbitMQ; `make up-session` drives a scripted owner session against it.
up: $(STAMP)
	scripts/up.sh up
down:
	scripts/up.sh down
up-status:
	scripts/up.sh status
up-check: $(STAMP)
	scripts/up_check.sh
up-session: $(STAMP)
	$(BIN)/python scripts/up_session.py --url http://$${UP_HOST:-127.0.0.1}:$${UP_PORT:-8014}
