"""The CI report formats (junit, github, gitlab) and several reports from one check.

Every committed fixture plan (first-apply and update) is rendered in each format and validated
against the format's schema (tests/policies/schemas/README.md says where each comes from);
then one test per format pins the fields a CI server reads, so a wrong field fails.
"""
from __future__ import annotations

import json
import re

import jsonschema
import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.formats import Context, render
from resilient_sqs.policy.rules import UNDECIDED
from tests.support.helpers import REPO_ROOT
from tests.support.policy_reports import FIXTURES, GH_LINE, GITLAB, JUNIT, SARIF, _ctx
from tests.policies import plans
from tests.policies.fixture_plans import PLANS, UPDATE_PLANS
from tests.support.helpers import sqs_policy_in_process as cli  # main() in this process: the reports are judged

# what `make test-fast` renders (the rest are marked `sweep`, for `make test`): a plan with
# errors, warnings and waivers read from source, one of a consumer, and an update plan
FAST_SAMPLE = {"config:queue-bad", "config:consumers", "config:warnings", "update:raw-dlq-removed"}


def test_every_committed_plan_is_covered():
    assert FAST_SAMPLE <= {subject for subject, _, _ in FIXTURES}
    names = {p.name for p in PLANS.glob("*.json")} | {f"update/{p.name}" for p in UPDATE_PLANS.glob("*.json")}
    covered = {str(p.relative_to(PLANS)) for _, p, _ in FIXTURES}
    assert names - {"MANIFEST.json", "update/MANIFEST.json"} == covered


@pytest.mark.parametrize("subject,path,source", [
    pytest.param(*f, id=f[0], marks=() if f[0] in FAST_SAMPLE else pytest.mark.sweep) for f in FIXTURES])
def test_reports_are_valid_on_every_fixture_plan(subject, path, source):
    ctx = _ctx(path, source)
    counted = [f for f in ctx.report.findings if f.counts_toward_exit()]
    # JUnit: valid against junit-10.xsd; one test case per rule x resource result
    xml = render("junit", ctx)
    JUNIT.validate(xml)
    root = JUNIT.to_dict(xml)
    suites = root.get("testsuite", [])
    cases = [c for s in suites for c in s.get("testcase", [])]
    assert len(cases) == len(ctx.report.findings) + len(ctx.report.passed)
    # failures: what fails the check (--fail-on error: errors; warnings are skipped, saying so)
    assert int(root["@failures"]) == sum(f.status != UNDECIDED and f.severity == "error" for f in counted)
    # GitLab Code Quality: valid, one issue per counted finding, unique fingerprints
    cq = json.loads(render("gitlab", ctx))
    jsonschema.validate(cq, GITLAB)
    assert len(cq) == len(counted)
    assert len({i["fingerprint"] for i in cq}) == len(cq)
    # SARIF: valid against the SARIF 2.1.0 schema (results carry suppressions from waivers)
    SARIF.validate(json.loads(render("sarif", ctx)))
    # GitHub workflow commands: every line a well-formed command
    gh = render("github", ctx).splitlines()
    for line in gh:
        assert GH_LINE.match(line), line
    from resilient_sqs.policy.formats.github import MAX_PER_LEVEL, annotations

    per = annotations(ctx)
    assert sum(f is not None for v in per.values() for _, f in v) == len(counted)
    # at most 10 per level (GitHub shows no more per step): the 10th says how many more
    assert len(gh) == sum(min(len(v), MAX_PER_LEVEL) for v in per.values())


# -- one test per format: the fields a CI server reads ---------------------------------------
QUEUE_BAD = REPO_ROOT / "tests/policies/configs/queue-bad"


def _queue_bad(no_source: bool = False) -> Context:
    doc = plans.load("config:queue-bad")
    report = evaluate(doc, keep_passes=True, source_dir=None if no_source else str(QUEUE_BAD))
    return Context(report, doc, "tests/policies/plans/queue-bad.json", str(QUEUE_BAD))


def test_junit_fields():
    ctx = _queue_bad(no_source=True)
    xml = render("junit", ctx)
    root = JUNIT.to_dict(xml)
    suite = {s["@name"]: s for s in root["testsuite"]}
    # one suite per rule run, named by ID and slug; counts add up
    assert len(suite) == len(ctx.report.rules_run)
    sqs002 = suite["SQS002 queue-has-dlq"]
    failing = [c for c in sqs002["testcase"] if "failure" in c]
    assert [c["@name"] for c in failing] == ["aws_sqs_queue.nodlq"]
    failure = failing[0]["failure"][0]
    assert failure["@type"] == "error" and "no dead-letter queue" in failure["@message"]
    assert "Fix: Add redrive_policy" in failure["$"]
    assert failing[0]["@classname"] == "sqs-policy.SQS002"
    assert int(sqs002["@tests"]) == len(sqs002["testcase"]) and int(sqs002["@failures"]) == 1
    # an undecided finding is skipped, not failed
    unknown = next(f for f in ctx.report.findings if f.status == UNDECIDED)
    s = suite[f"{unknown.rule_id} {unknown.slug}"]
    case = next(c for c in s["testcase"] if c["@name"] == unknown.address)
    assert "failure" not in case and case["skipped"][0]["@message"].startswith("cannot be decided before apply")
    # the schema is strict enough to catch a misplaced field
    bad = xml.replace("<testcase ", '<testcase file="main.tf" ', 1)
    assert not JUNIT.is_valid(bad)


@pytest.mark.parametrize("fail_on", ["error", "warning"])
def test_junit_warnings_fail_only_when_fail_on_says_so(fail_on):
    """A warning that does not fail the check is no <failure> (Jenkins would mark the build
    unstable, GitLab show failed tests on a passing check): skipped, saying why. With
    --fail-on warning it fails like an error. The report's failures agree with the exit code."""
    ctx = _queue_bad(no_source=True)
    ctx.fail_on = fail_on
    xml = render("junit", ctx)
    assert JUNIT.is_valid(xml)
    root = JUNIT.to_dict(xml)
    cases = [c for s in root["testsuite"] for c in s.get("testcase", [])]
    failed_types = {f["@type"] for c in cases for f in c.get("failure", [])}
    warnings = [f for f in ctx.report.findings if f.severity == "warning" and f.status == "fail"]
    assert warnings, "queue-bad has failing warnings"
    if fail_on == "error":
        assert failed_types == {"error"}
        skipped = [c["skipped"][0]["@message"] for c in cases if "skipped" in c]
        assert sum(m.startswith("a warning: it does not fail the check") for m in skipped) == len(warnings)
    else:
        assert failed_types == {"error", "warning"}
    assert (int(root["@failures"]) > 0) == ctx.report.failed(fail_on)


def test_junit_escapes_what_xml_cannot_carry():
    ctx = _queue_bad()
    ctx.report.findings[0].message = "bad \x01 byte & <tag> \ud800"
    xml = render("junit", ctx)
    JUNIT.validate(xml)
    assert "bad \ufffd byte &amp; &lt;tag&gt; \ufffd" in xml


def test_gitlab_fields():
    ctx = _queue_bad()
    cq = json.loads(render("gitlab", ctx))
    by_rule = {}
    for i in cq:
        by_rule.setdefault(i["check_name"], []).append(i)
    nodlq, = by_rule["SQS002"]
    assert nodlq["severity"] == "critical"  # an error
    assert nodlq["description"].startswith("SQS002 queue-has-dlq: aws_sqs_queue.nodlq: has no dead-letter queue")
    loc = nodlq["location"]
    assert loc["path"] == "tests/policies/configs/queue-bad/main.tf"
    line = (QUEUE_BAD / "main.tf").read_text().splitlines()[loc["lines"]["begin"] - 1]
    assert line.startswith('resource "aws_sqs_queue" "nodlq"')
    from resilient_sqs.policy.findings import order

    counted = [f for f in sorted(ctx.report.findings, key=order) if f.counts_toward_exit()]
    want = ["info" if f.status == UNDECIDED else {"error": "critical", "warning": "minor"}[f.severity] for f in counted]
    assert [i["severity"] for i in cq] == want and "minor" in want
    # the fingerprint is the finding's identity: rewording the message keeps it
    before = {i["check_name"] + i["location"]["path"]: i["fingerprint"] for i in cq}
    for f in ctx.report.findings:
        f.message = "reworded: " + f.message.replace("dead-letter queue", "DLQ")
    ctx2 = Context(ctx.report, ctx.doc, ctx.plan_path, ctx.source_dir)
    after = json.loads(render("gitlab", ctx2))
    assert [i["fingerprint"] for i in after] == [i["fingerprint"] for i in cq] and before


def test_sarif_schema_catches_a_wrong_field():
    ctx = _queue_bad()
    sarif = json.loads(render("sarif", ctx))
    SARIF.validate(sarif)
    res = sarif["runs"][0]["results"][0]
    res["baselineState"] = "unchanged"
    res["kind"], res["level"] = "notApplicable", "none"
    SARIF.validate(sarif)
    for field, bad in (("baselineState", "same"), ("kind", "skipped"), ("level", "critical")):
        broken = json.loads(json.dumps(sarif))
        broken["runs"][0]["results"][0][field] = bad
        assert not SARIF.is_valid(broken), field


def test_github_annotations_point_at_the_tf_lines():
    ctx = _queue_bad()
    gh = render("github", ctx).splitlines()
    line = next(x for x in gh if "title=SQS002 queue-has-dlq" in x)
    m = re.match(r"::error file=([^,]+),line=(\d+),title=([^:]+)::(.*)", line)
    assert m, line
    path, n = m.group(1), int(m.group(2))
    assert path == "tests/policies/configs/queue-bad/main.tf"
    assert (REPO_ROOT / path).read_text().splitlines()[n - 1].startswith('resource "aws_sqs_queue" "nodlq"')
    assert m.group(4).startswith("aws_sqs_queue.nodlq: has no dead-letter queue")
    # warnings are warnings; a newline or a comma in a value cannot break the command
    assert any(x.startswith("::warning ") for x in gh)
    f = next(f for f in ctx.report.findings if f.rule_id == "SQS002")
    f.message = "two\nlines, 100%"
    gh2 = render("github", Context(ctx.report, ctx.doc, ctx.plan_path, ctx.source_dir)).splitlines()
    assert any("two%0Alines, 100%25" in x for x in gh2)
    # the job log is a terminal too: an escape sequence from the input is shown, never obeyed
    f.message = "forged \x1b[2K\x1b]0;title\x07 \u202e"
    gh3 = render("github", Context(ctx.report, ctx.doc, ctx.plan_path, ctx.source_dir))
    assert not any(c in gh3 for c in "\x1b\x07\u202e"), gh3
    assert "forged \\x1b[2K" in gh3


# -- several reports from one check ----------------------------------------------------------
def test_several_reports_from_one_check(tmp_path):
    plan = "tests/policies/plans/queue-bad.json"
    src = "tests/policies/configs/queue-bad"
    proc = cli("check", plan, "--source-dir", src, "--report", f"sarif={tmp_path}/r.sarif",
               "--report", f"junit={tmp_path}/r.xml", "--report", f"gitlab={tmp_path}/cq.json",
               "--report", f"json={tmp_path}/r.json")
    assert proc.returncode == 1
    assert proc.stdout.decode() == cli("check", plan, "--source-dir", src).stdout.decode()
    for fmt, name in (("sarif", "r.sarif"), ("junit", "r.xml"), ("gitlab", "cq.json"), ("json", "r.json")):
        alone = cli("check", plan, "--source-dir", src, "--format", fmt).stdout.decode()
        assert (tmp_path / name).read_text() == alone, fmt
    JUNIT.validate(str(tmp_path / "r.xml"))


@pytest.mark.parametrize("spec,needle", [
    ("sarif", "write it as FORMAT=PATH"),
    ("yaml=out.yaml", "unknown format 'yaml'"),
    ("junit=", "write it as FORMAT=PATH"),
])
def test_bad_report_option(spec, needle):
    proc = cli("check", "tests/policies/plans/queue-bad.json", "--report", spec)
    assert proc.returncode == 2 and needle in proc.stderr.decode() and proc.stdout == b""


def test_report_directory_is_made(tmp_path):
    proc = cli("check", "tests/policies/plans/queue-bad.json", "--report", f"junit={tmp_path}/reports/ci/junit.xml")
    assert proc.returncode == 1 and (tmp_path / "reports/ci/junit.xml").read_text().startswith("<?xml")
    (tmp_path / "file").write_text("")
    proc = cli("check", "tests/policies/plans/queue-bad.json", "--report", f"junit={tmp_path}/file/junit.xml")
    assert proc.returncode == 2 and "cannot make its directory" in proc.stderr.decode() and proc.stdout == b""


def test_two_reports_to_one_file(tmp_path):
    proc = cli("check", "tests/policies/plans/queue-bad.json", "-o", f"{tmp_path}/x", "--report", f"junit={tmp_path}/x")
    assert proc.returncode == 2 and "two reports would be written to" in proc.stderr.decode()
