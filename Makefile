# The two commands a newcomer runs:
#   make demo   - the module end to end (see README)
#   make test   - the whole test suite
# Both install what they need (.venv with pinned packages, the Terraform
# provider-mirror config) and are safe to run again. While working on the plan
# checker or the runtime helpers, `make test-fast` runs their unit tests in
# seconds (no Terraform, no LocalStack; see CONTRIBUTING.md).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# checkov lives in its own venv (its pins conflict with ours); the checkov tests use it
CHECKOV_VENV  := .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed
# pytest workers: the suite is mostly waiting on Terraform and LocalStack
WORKERS ?= 4

.PHONY: all venv checkov-venv localstack demo lint test test-fast docs facts plumbing fixture-plans plan-features terraform-on-path fmt clean

all: test

terraform-on-path:
	@command -v terraform >/dev/null || { echo "error: terraform is not on PATH; install Terraform >= 1.9 and retry" >&2; exit 2; }

$(STAMP): requirements.txt pyproject.toml
	@echo "==> $(VENV): creating it and installing the pinned packages of requirements.txt (1-3 min, once)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@echo "==> $(VENV) ready"
	@touch $@

venv: $(STAMP)

$(CHECKOV_STAMP): requirements-checkov.txt
	@echo "==> $(CHECKOV_VENV): installing checkov and its pins (requirements-checkov.txt; 2-4 min, once)"
	@test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-checkov.txt
	@echo "==> $(CHECKOV_VENV) ready"
	@touch $@

checkov-venv: $(CHECKOV_STAMP)

# LocalStack 4.9.2 in its own venv (.venv-localstack) + the offline DynamoDB seed;
# one to two minutes the first time, a no-op afterwards; every step prints a line
# (the launcher is the package resilient_sqs/testing/localstack/; tooling/localstack.py passes it this repo's dirs)
localstack: $(STAMP)
	@$(PY) -m tooling.localstack install

demo: terraform-on-path $(STAMP) localstack
	$(PY) -m tooling.demo

# ruff (pinned in requirements.txt, configured in pyproject.toml) over the whole tree; its own
# report on failure. The HCL is linted by the `static` tests: terraform fmt -check, terraform
# validate (no warnings) and terraform test. tflint is not used: see CONTRIBUTING.md.
lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: lint terraform-on-path $(STAMP) $(CHECKOV_STAMP) localstack
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup --durations=25 $(PYTEST_ARGS)

# The policy engine's and the runtime's unit tests (and the other tests that need neither
# Terraform nor LocalStack nor a package install), on the committed plans; a test marked
# `sweep` (one check over every committed plan) runs here on its sample cases only
# (tests/policies/plans); SQS_FAST_TIER makes any Terraform call fail loudly.
FAST_MARKERS := not static and not plan and not localstack and not checkov and not install and not sweep
test-fast: $(STAMP)
	SQS_FAST_TIER=1 $(PY) -m pytest -n 2 -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

# re-plan the committed plan fixtures after changing their configurations or the modules
fixture-plans: terraform-on-path $(STAMP)
	$(PY) -m tests.policies.fixture_plans

# re-plan the plan-feature fixtures whose configurations changed (tests/policies/features;
# the sqs-* ones need LocalStack: make localstack)
plan-features: terraform-on-path $(STAMP)
	$(PY) -m tooling.plan_features --stale -j 2

# regenerate the generated sections of the Markdown (inputs/outputs tables, rule table)
docs: $(STAMP)
	$(PY) -m tooling.docs

# rewrite the copies of resilient_sqs/facts.py that cannot import it (modules/*/facts.tf locals,
# policies/checkov/_facts.py); tests/resilient_sqs/test_facts.py fails while they are stale
facts: $(STAMP)
	$(PY) -m tooling.facts

# rewrite the queue attributes' plumbing from its one declaration (tooling/queue_settings.py):
# modules/queue's variables and attributes.tf, internal/inputs/attributes.tf, the root's
# module "queue" arguments and `queues` description; tests/tooling/test_plumbing.py fails while stale
plumbing: $(STAMP)
	$(PY) -m tooling.plumbing

fmt:
	terraform fmt -recursive

clean:
	rm -rf $(VENV) .venv-* .cache .plans .localstack .pytest_cache
	find . -name .terraform -type d -prune -exec rm -rf {} +
	find . -name .terraform.lock.hcl -delete
