# kpcourse — every target sets up .venv first when it is missing or out of date.
#   make lab    start JupyterLab on the course
#   make test   run every test (unit, notebooks, grading pipeline)
#   make lint   ruff
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
# nbgrader runs `alembic` by name: the venv's bin/ must come first on PATH.
export PATH := $(BIN):$(PATH)
CONSTRAINTS ?= constraints.txt
PIP_FLAGS ?=
STAMP := $(VENV)/.installed
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
PYTEST_FLAGS ?=

.PHONY: setup lab test test-unit test-notebooks lint clean help

help:
	@sed -n '1,5p' Makefile

setup: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(PIP_FLAGS) $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) -e '.[course,dev]'
	@touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=$(CURDIR) $(ROOT_FLAG) notebooks/

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_FLAGS)

lint: $(STAMP)
	$(BIN)/ruff check kpcourse tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
