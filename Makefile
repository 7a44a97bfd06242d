# Shelfwise: `make run` serves everything on 127.0.0.1:$(PORT); `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000
HOST ?= 127.0.0.1

.PHONY: run test lint install

install: $(STAMP)

$(STAMP): $(wildcard requirements*.txt)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	@touch $(STAMP)

run: export PUBLIC_URL ?= http://$(HOST):$(PORT)
run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/python manage.py seed_demo --if-missing
	SHELFWISE_WARM_UP=1 $(BIN)/python -m uvicorn shelfwise.asgi:application --host $(HOST) --port $(PORT) --lifespan on

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
