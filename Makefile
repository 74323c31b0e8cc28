# kpcourse — every target sets up .venv first when it is missing or out of date.
#   make lab    start JupyterLab on the course
#   make test   run every test (unit, grading pipeline, notebooks), with stage times
#   make lint   ruff
# Instructors: make release | make autograde [STUDENT=id] | make report [ASSIGNMENT=NN-slug] | make validate [NB=path.ipynb]
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

JOBS ?=
STUDENT ?=
ASSIGNMENT ?=
NB ?=
NBVAL_FLAGS := --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=300

DEVICE ?=

.PHONY: setup sandbox lab student-edition test test-unit test-pipeline sweep-seeds test-notebooks test-browser lint release autograde report checks-data validate export-grades import-roster test-hub giveaway bench bench-mnist-full bench-gpu \
	clean help

help:
	@sed -n '1,5p' Makefile
	@echo "Targets:"; grep -E '^[a-z][a-z-]*:' Makefile | sed 's/:.*//' | sort -u | tr '\n' ' '; echo

setup: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(PIP_FLAGS) $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) -e '.[course,dev]'
	@touch $(STAMP)

# JupyterLab on the course: the file browser at the repository's top (lectures in notebooks/, assignments in
# release/), the start page open, the instructor's folders and files left out of the listing.
LAB_HIDDEN := ['__pycache__','*.pyc','*.pyo','.DS_Store','*~','*.egg-info','source','tests','.ci','submitted',\
'autograded','feedback','reports','gradebook.db']
lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) "--ContentsManager.hide_globs=$(LAB_HIDDEN)" \
	  --LabApp.default_url=/lab/tree/notebooks/00-start-here.ipynb $(ROOT_FLAG)

# The grading sandbox (bubblewrap): installed with apt when missing and we are root.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null; \
	  else echo "make: the grading tests need bubblewrap (bwrap): sudo apt-get install bubblewrap" >&2; exit 1; fi; }

# Every test, in three stages whose times are printed at the end (and appended to $(TIMES)):
# unit tests, the grading pipeline (golden submissions autograded), nbval on every notebook.
# UNIT_ENV: variables for the unit stage only (CI runs it on another BLAS kernel, one thread).
UNIT_ENV ?=
TIMES ?= $(CURDIR)/.test-times
timed = s=$$(date +%s); $(2); rc=$$?; echo "$(1) $$(( $$(date +%s) - s ))" >> $(TIMES); exit $$rc

test: $(STAMP) sandbox
	@$(call timed,unit,env $(UNIT_ENV) $(BIN)/python -m pytest $(PYTEST_FLAGS) tests --ignore=tests/test_pipeline.py)
	@$(call timed,pipeline,$(BIN)/python -m pytest $(PYTEST_FLAGS) tests/test_pipeline.py)
	@$(call timed,notebooks,$(MAKE) --no-print-directory test-notebooks)
	@echo "stage times (s):"; tail -n 3 $(TIMES) | sed 's/^/  /'

test-unit: $(STAMP)
	env $(UNIT_ENV) $(BIN)/python -m pytest $(PYTEST_FLAGS) tests --ignore=tests/test_pipeline.py

test-pipeline: $(STAMP) sandbox
	$(BIN)/python -m pytest $(PYTEST_FLAGS) tests/test_pipeline.py

# After changing a grader's hidden probes: every golden case judged with other seeds of them
# (SEEDS="1 2 3"); a case whose points depend on the seed is printed (tests/sweep_seeds.py, ~6 min).
SEEDS ?= 1 2 3
sweep-seeds: $(STAMP)
	$(BIN)/python tests/sweep_seeds.py --seeds $(SEEDS)

test-notebooks: $(STAMP)
	@nbs="$$(ls notebooks/*.ipynb source/*/*.ipynb 2>/dev/null)"; \
	if [ -z "$$nbs" ]; then echo "no notebooks yet"; else \
	$(BIN)/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider $(NBVAL_FLAGS) $$nbs; fi

# The student's view (tests/browser/): every notebook run in JupyterLab in headless Chromium,
# widgets moved, nbgrader's Validate clicked. Needs Debian's chromium (apt-get install -y chromium;
# never `playwright install`). Screenshots land in tests/browser/screenshots/.
test-browser: $(STAMP)
	KPCOURSE_BROWSER=1 $(BIN)/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider tests/browser

# The course on a real JupyterHub (tests/browser/test_hub.py; root: it makes Unix users, README
# "Deploying on a JupyterHub"): jupyterhub and the Python configurable-http-proxy, pinned in constraints.txt.
HUB_STAMP := $(VENV)/.hub-installed
$(HUB_STAMP): $(STAMP) $(CONSTRAINTS)
	$(BIN)/python -m pip install --quiet $(PIP_FLAGS) $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) jupyterhub configurable-http-proxy
	@touch $(HUB_STAMP)

test-hub: $(HUB_STAMP) sandbox
	KPCOURSE_BROWSER=1 KPCOURSE_HUB=1 $(BIN)/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider tests/browser/test_hub.py

# Instructor workflow (README): generate the student version, grade, validate.
release: $(STAMP)
	$(BIN)/python -m kpcourse.grading release

# STUDENT=id re-grades that student only; a progress line (done/total, rate, ETA) goes to stderr.
autograde: $(STAMP)
	$(BIN)/python -m kpcourse.grading autograde $(if $(JOBS),--jobs $(JOBS)) $(if $(STUDENT),--student $(STUDENT))

# After autograde: reports/<assignment>.html (+ PNGs) per graded assignment, or only ASSIGNMENT.
report: $(STAMP)
	$(BIN)/python -m kpcourse.grading report $(ASSIGNMENT)

# After editing a grader file: rewrite the visible checks' data (kpcourse/checks/data/).
checks-data: $(STAMP)
	$(BIN)/python -m kpcourse.grading checks-data

validate: $(STAMP)
	$(BIN)/python -m kpcourse.grading validate $(NB)

# Grades for an LMS, from gradebook.db, late penalties taken off (README, "Exporting grades to an LMS"):
# FORMAT=canvas|moodle|csv writes grades-$(FORMAT).csv; CANVAS_IDS="02-perceptron-by-hand=4711 ..." names Canvas columns.
FORMAT ?= canvas
CANVAS_IDS ?=
# MISSING=blank|zero|leave: a non-submitter's grade (leave: no row; with ASSIGNMENT=name, one assignment only).
MISSING ?= blank
ASSIGNMENT ?=
# The folder a course hands to students (start page, lectures, release/, the package; no source/, no grader):
# make student-edition EDITION=../kpcourse-student
EDITION ?= ../kpcourse-student
student-edition: $(STAMP)
	$(BIN)/python -m kpcourse.grading.course.edition $(EDITION)

export-grades: $(STAMP)
	$(BIN)/python -m kpcourse.grading.course.export $(FORMAT) $(foreach i,$(CANVAS_IDS),--canvas-id $(i)) \
	  $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) --missing $(MISSING)

# The LMS's roster into the gradebook (FILE=: Canvas's gradebook export or Moodle's grade export; ID_COLUMN=:
# the column of the nbgrader ids, default SIS Login ID / ID number): kpcourse.grading.course.roster.
import-roster: $(STAMP)
	@test -n "$(FILE)" || { echo "make import-roster FILE=roster.csv (the LMS's export)"; exit 2; }
	$(BIN)/python -m kpcourse.grading.course.roster "$(FILE)" $(if $(ID_COLUMN),--id-column "$(ID_COLUMN)")

lint: $(STAMP)
	$(BIN)/ruff check kpcourse tests benchmarks source

# What a lecture function or a package function earns in the student's place (a Markdown report).
giveaway: $(STAMP)
	$(BIN)/python tests/giveaway.py

# Benchmarks (issue: fast engine): results land in benchmarks/RESULTS.md.
bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench

bench-mnist-full: $(STAMP)
	$(BIN)/python -m benchmarks.mnist_full $(if $(DEVICE),--device $(DEVICE))

# On a CUDA machine (< 5 min): Gram vs cuBLAS SGEMM, full MNIST, lesson 07 on the GPU (RESULTS.md GPU sections).
bench-gpu: $(STAMP)
	$(BIN)/python -m benchmarks.bench_gpu $(if $(DEVICE),--device $(DEVICE))

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
