"""Real checkov 3.3.30 (its own venv, offline) with our custom checks, on the
module directories (HCL) and on real plans (terraform_plan)."""
from __future__ import annotations

import json
import os
import subprocess
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.helpers import REPO_ROOT, module_dirs

# one worker runs them all, so that each checkov scan (a module-scoped fixture) runs once
pytestmark = [pytest.mark.checkov, pytest.mark.xdist_group("checkov")]

CHECKOV = REPO_ROOT / ".venv-checkov" / "bin" / "checkov"
CHECKS_DIR = REPO_ROOT / "policies" / "checkov"
CUSTOM = {"CKV_RSQS_SQS001", "CKV_RSQS_SQS003", "CKV_RSQS_SQS007", "CKV_RSQS_ESM002", "CKV_RSQS_ESM003",
          "CKV_RSQS_S3001", "CKV_RSQS_S3002", "CKV_RSQS_DDB001", "CKV_RSQS_DDB003"}


def run_checkov(*args: str) -> list[dict]:
    assert CHECKOV.exists(), "checkov's venv is missing: run `make checkov-venv` (make test does it)"
    env = dict(os.environ, BC_SKIP_MAPPING="TRUE", CKV_SKIP_PACKAGE_UPDATE_CHECK="true", LOG_LEVEL="WARNING")
    proc = subprocess.run([str(CHECKOV), "--skip-download", "-o", "json", "--compact",
                           "--external-checks-dir", str(CHECKS_DIR), *args],
                          capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=600)
    # checkov exits 0 on some errors (unknown -c id, missing -d path, HCL parse errors): read the JSON
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    # several -d give one JSON document each, one after the other
    reports, dec, i, text = [], json.JSONDecoder(), 0, proc.stdout
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            break
        out, i = dec.raw_decode(text, i)
        reports.extend(out if isinstance(out, list) else [out])
    assert reports and all("results" in r for r in reports), proc.stdout[:2000]
    return reports


def _index(reports: list[dict]):
    """{(check_id, resource, file): result} for failed and passed checks."""
    failed, passed = {}, {}
    for r in reports:
        for f in r["results"]["failed_checks"]:
            failed[(f["check_id"], f["resource"], os.path.basename(f["file_path"]))] = f
        for f in r["results"]["passed_checks"]:
            passed[(f["check_id"], f["resource"], os.path.basename(f["file_path"]))] = f
    return failed, passed


@pytest.fixture(scope="module")
def hcl_reports():
    """Two scans, in parallel: ``modules/`` (every module on its own, with its own
    defaults) and the root (the modules as the root composes them).

    One checkov process per directory: checkov 3.3.30 given several ``-d``
    reports the FIRST directory again for every other one (measured: with
    ``-d modules/alarms -d modules/queue`` the second report is alarms' again),
    so every module after the first went unscanned."""
    scans = [("modules", "--skip-path", "tests"), (".", "--skip-path", "tests", "--skip-path", "examples")]
    with ThreadPoolExecutor(max_workers=len(scans)) as ex:
        results = list(ex.map(lambda a: run_checkov("--framework", "terraform", "-d", a[0], *a[1:]), scans))
    return dict(zip(("modules", "root"), results))


def test_our_modules_pass_checkov_builtin_and_custom_checks(hcl_reports):
    for scan, reports in hcl_reports.items():
        assert len(reports) == 1, scan
        assert reports[0]["summary"]["parsing_errors"] == 0, scan
        failed, _ = _index(reports)
        assert failed == {}, (scan, sorted(failed))
    failed, passed = _index(hcl_reports["modules"])
    ran = {cid for cid, _, _ in passed}
    assert {"CKV_RSQS_SQS001", "CKV_RSQS_SQS007"} <= ran, "custom checks did not load"
    assert any(cid.startswith("CKV_AWS_") for cid in ran), "built-in checks did not run"
    # every module with resources was scanned (checkov exits 0 on many errors: read what it saw)
    seen = {f["file_path"] for r in hcl_reports["modules"]
            for kind in ("passed_checks", "failed_checks", "skipped_checks") for f in r["results"][kind]}
    with_resources = {d.name for d in module_dirs() if any('resource "' in f.read_text() for f in d.glob("*.tf"))}
    assert with_resources <= {p.strip("/").split("/")[0] for p in seen}, sorted(seen)
    queues = {res for cid, res, f in passed if cid == "CKV_RSQS_SQS001" and f == "main.tf"}
    assert {"aws_sqs_queue.this", "aws_sqs_queue.dlq"} <= queues
    # every inline skip names its reason
    for r in hcl_reports["modules"]:
        for f in r["results"]["skipped_checks"]:
            reason = f["check_result"].get("suppress_comment") or ""
            assert len(reason) > 20, (f["check_id"], f["resource"], reason)
    # the root composes the modules: the same checks hold for their instances
    _, root_passed = _index(hcl_reports["root"])
    assert any(res.startswith("module.queue.") for cid, res, _ in root_passed if cid == "CKV_RSQS_SQS001")


@pytest.fixture(scope="module")
def plan_reports(plan_files):
    args = []
    for name in ("example:basic", "example:fifo", "example:many-queues", "config:raw-good", "config:queue-bad",
                 "config:consumers", "config:claim-check-bad"):
        args += ["-f", str(plan_files[name])]
    reports = run_checkov("--framework", "terraform_plan", *args)
    by_file: dict[str, dict] = defaultdict(lambda: {"failed": set(), "passed": set()})
    names = {os.path.basename(str(p)): n for n, p in plan_files.items()}
    for r in reports:
        for kind in ("failed", "passed"):
            for f in r["results"][f"{kind}_checks"]:
                if f["check_id"] in CUSTOM:
                    by_file[names[os.path.basename(f["file_path"])]][kind].add((f["check_id"], f["resource"]))
    return by_file


def test_example_plans_pass_the_custom_checks(plan_reports):
    for ex in ("example:basic", "example:fifo", "example:many-queues"):
        r = plan_reports[ex]
        assert r["failed"] == set(), (ex, r["failed"])
        sse = {res for cid, res in r["passed"] if cid == "CKV_RSQS_SQS001"}
        polling = {res for cid, res in r["passed"] if cid == "CKV_RSQS_SQS007"}
        assert sse and sse == polling, ex  # every queue of the example, encrypted and long-polling
    assert len({res for cid, res in plan_reports["example:many-queues"]["passed"] if cid == "CKV_RSQS_SQS001"}) == 8


def test_custom_checks_fail_the_bad_fixtures(plan_reports):
    assert plan_reports["config:queue-bad"]["failed"] == {
        ("CKV_RSQS_SQS001", 'aws_sqs_queue.src["nosse"]'),
        ("CKV_RSQS_SQS001", 'aws_sqs_queue.dlq["plaindlq"]'),
        ("CKV_RSQS_SQS001", "aws_sqs_queue.defaults"),
        ("CKV_RSQS_SQS003", 'aws_sqs_queue.src["mrc1"]'),
        ("CKV_RSQS_SQS003", 'aws_sqs_queue.src["mrc10"]'),
        ("CKV_RSQS_SQS007", 'aws_sqs_queue.src["shortpoll"]'),
    }
    assert plan_reports["config:consumers"]["failed"] == {
        ("CKV_RSQS_ESM002", "aws_lambda_event_source_mapping.sloppy"),
        ("CKV_RSQS_ESM003", "aws_lambda_event_source_mapping.sloppy"),
        # provisioned mode without maximum_pollers (with it, the mapping passes)
        ("CKV_RSQS_ESM003", "aws_lambda_event_source_mapping.provisioned_unbounded"),
    }
    assert ("CKV_RSQS_ESM003", "aws_lambda_event_source_mapping.provisioned") in plan_reports["config:consumers"]["passed"]
    assert plan_reports["config:claim-check-bad"]["failed"] == {
        ("CKV_RSQS_DDB001", "aws_dynamodb_table.idempotency"),
        ("CKV_RSQS_DDB003", "aws_dynamodb_table.idempotency"),
        ("CKV_RSQS_S3002", "aws_s3_bucket_public_access_block.logs"),
    }


def test_custom_checks_pass_the_good_fixture(plan_reports):
    r = plan_reports["config:raw-good"]
    assert r["failed"] == set()
    assert {cid for cid, _ in r["passed"]} == CUSTOM
    # the FIFO pair's redrive policy is unknown at plan time: checkov cannot list it
    assert ("CKV_RSQS_SQS003", "aws_sqs_queue.orders") in r["passed"]
    assert not any(res == "aws_sqs_queue.events" for cid, res in r["passed"] if cid == "CKV_RSQS_SQS003")
