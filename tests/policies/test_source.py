"""Values the plan leaves unknown, decided from the configuration source (--source-dir).

Real plans of real configurations: the evaluator is checked against Terraform's own
evaluation (tests/policies/source_eval), the fixtures in the common styles
(configs/source-good, configs/source-bad) against the findings they must give, the
existing fixtures and examples against what must stay unknown, and the CLI as CI runs it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.graph import Plan
from resilient_sqs.policy.source import JsonText, Pending, Source, Unknown
from resilient_sqs.policy.source.functions import _whole_deep
from tests.support.helpers import REPO_ROOT
from tests.policies import plans

E, W = "error", "warning"
FAIL, UNK = "fail", "unknown"
EVAL = plans.SOURCE_EVAL


def _got(report) -> set:
    return {(f.rule_id, f.status, f.severity, f.address) for f in report.findings}


def _source_of(name: str) -> Path:
    return plans.subjects()[name][0]


# -- the evaluator agrees with Terraform ---------------------------------------------------------
def test_evaluator_gives_what_terraform_plans(plan_doc):
    """Every output of source_eval/main.tf (templates, heredocs, for expressions, splats,
    functions, operators) evaluated from source equals Terraform's planned value; the one
    built from a value known after apply is a placeholder naming that resource."""
    doc = plan_doc("eval:source")
    src = Source(Plan(doc), EVAL)
    outputs = doc["planned_values"]["outputs"]
    assert len(outputs) >= 6 and len(outputs["functions"]["value"]) >= 30
    for name, out in outputs.items():
        got = _whole_deep(src.evaluator.output("", name))
        if name == "unknown":
            assert doc["output_changes"]["unknown"]["after_unknown"] is True
            assert isinstance(got, JsonText) and got.value["n"] == 5
            arn = got.value["arn"]
            assert isinstance(arn, Pending) and arn.res.address == "terraform_data.later" and arn.path == ("id",)
            continue
        if isinstance(out["value"], dict):
            for k, want in out["value"].items():
                assert got[k] == want, (name, k)
        assert got == out["value"], name
    assert src.notes == []


def test_references_are_those_terraform_records(plan_doc):
    """The references read from source (how source is matched to the plan) equal the ones
    Terraform lists in the plan's configuration, for every output of source_eval."""
    from resilient_sqs.policy.source.refs import _longest, _plan_refs, references

    doc = plan_doc("eval:source")
    src = Source(Plan(doc), EVAL)
    ms = src.module_source("")
    outputs = doc["configuration"]["root_module"]["outputs"]
    assert set(outputs) == set(ms.outputs)
    for name, out in outputs.items():
        assert _longest(references(ms.outputs[name][0])) == _longest(_plan_refs(out["expression"])), name


# -- the new fixtures ------------------------------------------------------------------------------
EXPECTED = {
    # a compliant stack in the common styles: nothing unknown, nothing failing
    "config:source-good": set(),
    # every mistake found; unknown only what cannot be known before apply
    "config:source-bad": {
        # decided from source
        ("SQS003", FAIL, E, "aws_sqs_queue.orders"),  # inline jsonencode, maxReceiveCount 1
        ("SQS003", FAIL, W, "aws_sqs_queue.payments"),  # through a local, 10
        ("SQS003", FAIL, E, 'aws_sqs_queue.work["billing"]'),  # for_each, each.value.max_receive 1
        ("SQS003", FAIL, E, "module.legacy.aws_sqs_queue.this"),  # module input 1
        ("SQS002", FAIL, E, "aws_sqs_queue.refunds"),  # deadLetterTargetArn = the DLQ's id (URL)
        ("SQS009", FAIL, E, "aws_sqs_queue.orders"),  # heredoc policy without the TLS Deny
        ("SQS010", FAIL, E, "aws_sqs_queue.orders"),  # heredoc policy: public Allow
        ("SQS011", FAIL, E, 'aws_sqs_queue.work_dlq["billing"]'),  # byQueue naming the other key's queue
        ("SQS011", FAIL, E, 'aws_sqs_queue.work_dlq["shipping"]'),
        ("IAM001", FAIL, E, "aws_iam_policy.producer"),  # jsonencode: sqs:*
        ("IAM001", FAIL, E, "aws_iam_policy.worker"),  # s3:* in a source_policy_documents document
        # undecidable before apply, with the reason
        ("SQS003", UNK, E, "aws_sqs_queue.audit"),  # a condition on the DLQ's URL
        ("SQS012", UNK, E, "aws_sqs_queue.audit"),  # reads that maxReceiveCount
        # the rest of the stack (found without the source too)
        ("S3001", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3002", FAIL, E, "aws_s3_bucket.payloads"),
        ("S3003", FAIL, E, "aws_s3_bucket.payloads"),
        *{("SQS009", FAIL, E, a) for a in (
            "aws_sqs_queue.audit", "aws_sqs_queue.audit_dlq", "aws_sqs_queue.orders_dlq", "aws_sqs_queue.payments_dlq",
            "aws_sqs_queue.refunds", "aws_sqs_queue.refunds_dlq", 'aws_sqs_queue.work["billing"]',
            'aws_sqs_queue.work["shipping"]', 'aws_sqs_queue.work_dlq["billing"]', 'aws_sqs_queue.work_dlq["shipping"]',
            "module.legacy.aws_sqs_queue.dlq", "module.legacy.aws_sqs_queue.this")},
        # refunds_dlq: refunds names it by its id (URL), and it is still judged as the DLQ refunds
        # means (no SQS002 or CW002 of its own; CW001 and SQS011 on it)
        *{("SQS011", FAIL, W, a) for a in ("aws_sqs_queue.audit_dlq", "aws_sqs_queue.orders_dlq",
                                           "aws_sqs_queue.payments_dlq", "aws_sqs_queue.refunds_dlq",
                                           "module.legacy.aws_sqs_queue.dlq")},
        *{("CW001", FAIL, W, a) for a in ("aws_sqs_queue.audit_dlq", "aws_sqs_queue.orders_dlq", "aws_sqs_queue.payments_dlq",
                                          "aws_sqs_queue.refunds_dlq",
                                          'aws_sqs_queue.work_dlq["billing"]', 'aws_sqs_queue.work_dlq["shipping"]',
                                          "module.legacy.aws_sqs_queue.dlq")},
        *{("CW002", FAIL, W, a) for a in ("aws_sqs_queue.audit", "aws_sqs_queue.orders", "aws_sqs_queue.payments",
                                          "aws_sqs_queue.refunds",
                                          'aws_sqs_queue.work["billing"]', 'aws_sqs_queue.work["shipping"]',
                                          "module.legacy.aws_sqs_queue.this")},
    },
}


# other services' DLQs named through local values, found from the source: the queues
# (for_each over a constant set, which the plan's configuration leaves out) are the DLQs
# of an SNS subscription, an EventBridge target and a Lambda on-failure destination; the
# subscriber queue has none of its own
EXPECTED["config:service-dlq-locals"] = {
    ("SQS002", FAIL, E, "aws_sqs_queue.subscriber"),
    # the subscriber queue and the subscription DLQ the source names admit no topic
    ("PRD001", FAIL, E, "aws_sns_topic_subscription.subscriber"),
    ("PRD003", FAIL, E, "aws_sns_topic_subscription.subscriber"),
    # the function's on-failure destination the source names: its role may not send there
    ("PRD010", FAIL, E, "aws_lambda_function_event_invoke_config.worker"),
}


# keys through locals, coalesce(), try() and `!= null`: every queue's encryption decided
# (a key's ARN is never null: `coalesce(null, <ARN>)` is that ARN, `<ARN> != null` is true);
# the leaky DLQ fails; only the alarm warnings remain
EXPECTED["config:kms-through-locals"] = {
    ("SQS001", FAIL, E, "module.leaky.aws_sqs_queue.dlq"), ("SQS006", FAIL, E, "module.leaky.aws_sqs_queue.this"),
    *{("CW001", FAIL, W, a) for a in ('aws_sqs_queue.dlq["by_alias"]', 'aws_sqs_queue.dlq["by_arn"]', 'aws_sqs_queue.dlq["by_id"]',
                                     *(f"module.{m}.aws_sqs_queue.dlq" for m in ("audit", "leaky", "ledger", "plain")))},
    *{("CW002", FAIL, W, a) for a in ('aws_sqs_queue.q["by_alias"]', 'aws_sqs_queue.q["by_arn"]', 'aws_sqs_queue.q["by_id"]',
                                     *(f"module.{m}.aws_sqs_queue.this" for m in ("audit", "leaky", "ledger", "plain")))},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_source_fixture_findings(plan_doc, name):
    report = evaluate(plan_doc(name), source_dir=str(_source_of(name)))
    got = _got(report)
    assert got == EXPECTED[name], f"unexpected: {sorted(got - EXPECTED[name])}; missing: {sorted(EXPECTED[name] - got)}"
    assert report.notes == []


def test_good_stack_unknowns_before_and_after(plan_doc):
    """The compliant stack: many unknowns without its source (and false errors from links
    through locals), none with it; what is decided is decided from the source lines."""
    doc = plan_doc("config:source-good")
    before = Counter(f.rule_id for f in evaluate(doc).findings if f.status == UNK)
    assert {r for r, n in before.items() if n} >= {"SQS003", "SQS009", "SQS010", "SQS011", "IAM001"}
    assert sum(before.values()) >= 25
    after = evaluate(doc, source_dir=str(_source_of("config:source-good")))
    assert after.findings == []
    from_source = [f for f in after.passed if f.source is not None]
    assert {f.rule_id for f in from_source} >= {"SQS002", "SQS003", "SQS009", "SQS010", "SQS011", "IAM001", "IAM002"}
    main = (_source_of("config:source-good") / "main.tf").read_text().splitlines()
    mrc = next(f for f in after.passed if f.rule_id == "SQS003" and f.address == 'aws_sqs_queue.work["shipping"]')
    assert mrc.message.startswith("maxReceiveCount 5 within 3..5 (from main.tf:")
    assert main[mrc.source.line - 1].strip().startswith("redrive_policy = jsonencode({")
    heredoc = next(f for f in after.passed if f.rule_id == "SQS009" and f.address == "aws_sqs_queue.payments")
    assert main[heredoc.source.line - 1].strip().startswith("policy") and "<<EOF" in main[heredoc.source.line - 1]
    module = next(f for f in after.passed if f.rule_id == "SQS003" and f.address == "module.audit.aws_sqs_queue.this")
    assert "maxReceiveCount 3 within" in module.message and "(from modules/queue/main.tf:" in module.message


def test_bad_stack_says_why_it_stays_unknown(plan_doc):
    report = evaluate(plan_doc("config:source-bad"), source_dir=str(_source_of("config:source-bad")))
    msgs = {(f.rule_id, f.address): f.message for f in report.findings}
    # the policy templatefile() renders (queue-policy.json.tftpl) is decided, from the line that calls it
    tls = next(f for f in report.passed if f.rule_id == "SQS009" and f.address == "aws_sqs_queue.payments")
    main = (_source_of("config:source-bad") / "main.tf").read_text().splitlines()
    assert "templatefile(" in main[tls.source.line - 1] and "queue-policy.json.tftpl" in main[tls.source.line - 1]
    assert "the URL of aws_sqs_queue.audit_dlq, known after apply" in msgs[("SQS003", "aws_sqs_queue.audit")]
    assert "is the ID of aws_sqs_queue.refunds_dlq, not its ARN" in msgs[("SQS002", "aws_sqs_queue.refunds")]
    assert report.findings[[(f.rule_id, f.address) for f in report.findings].index(
        ("SQS002", "aws_sqs_queue.refunds"))].remediation.startswith(
        "Set deadLetterTargetArn = aws_sqs_queue.refunds_dlq.arn (the queue's ARN) in place of aws_sqs_queue.refunds_dlq.id")
    # the broken redrive policy is SQS002's finding alone: the DLQ rules compare refunds with the
    # DLQ it names by its id, and pass
    assert not {r for r, a in msgs if a == "aws_sqs_queue.refunds"} & {"SQS004", "SQS005", "SQS006"}
    passed = {(f.rule_id, f.address): f.message for f in report.passed}
    for rule_id in ("SQS004", "SQS005", "SQS006"):
        assert "aws_sqs_queue.refunds_dlq" in passed[(rule_id, "aws_sqs_queue.refunds")], rule_id


@pytest.fixture(scope="module")
def copied():
    """(plan, configuration, TF_DATA_DIR) of source-good whose module call `terraform init`
    copied into its data directory (as it does registry and git modules)."""
    plan, directory, data = plans.copied_plan("source-good")
    return json.loads(plan.read_text()), directory, data, plan


@pytest.mark.plan
def test_copied_module_is_found_through_modules_json(copied, monkeypatch):
    """Found through modules.json in TF_DATA_DIR; without it, said once, and left unknown."""
    doc, directory, data, _ = copied
    manifest = json.loads((data / "modules" / "modules.json").read_text())
    audit = next(m for m in manifest["Modules"] if m["Key"] == "audit")
    assert audit["Source"].startswith("file://") and Path(audit["Dir"]).is_relative_to(data)
    monkeypatch.setenv("TF_DATA_DIR", str(data))
    report = evaluate(doc, source_dir=str(directory))
    assert report.findings == [] and report.notes == []
    module = next(f for f in report.passed if f.rule_id == "SQS003" and f.address == "module.audit.aws_sqs_queue.this")
    assert module.source is not None and Path(module.source.path).is_relative_to(data)
    monkeypatch.delenv("TF_DATA_DIR")
    without = evaluate(doc, source_dir=str(directory))
    assert without.notes and len(without.notes) == 1 and "module.audit" in without.notes[0]
    assert "terraform init" in without.notes[0]
    assert {f.address for f in without.findings if f.status == UNK} == {
        "module.audit.aws_sqs_queue.this", "module.audit.aws_sqs_queue.dlq", 'module.audit.aws_sqs_queue_policy.this["dlq"]',
        'module.audit.aws_sqs_queue_policy.this["this"]'}


@pytest.mark.plan
def test_locations_share_the_evaluators_module_directories(copied, monkeypatch):
    """SARIF, GitHub and GitLab locations look module directories up in the check's one
    files.ModuleDirs: a resource of a module `terraform init` copied into TF_DATA_DIR is
    located in that copy, also when nothing about it was decided from source."""
    from resilient_sqs.policy.formats import SourceLocator

    doc, directory, data, plan = copied
    monkeypatch.setenv("TF_DATA_DIR", str(data))
    report = evaluate(doc, source_dir=str(directory))
    loc = SourceLocator.of(report, doc, str(directory), str(plan))
    assert loc.dirs is report.model.source.dirs
    path, line = loc.locate("module.audit.aws_sqs_queue.dlq")
    installed = Path(next(m for m in json.loads((data / "modules" / "modules.json").read_text())["Modules"]
                          if m["Key"] == "audit")["Dir"])  # terraform init links a local path there
    assert Path(path).resolve().parent == installed.resolve(), path
    text = Path(path).read_text().splitlines()
    assert text[line - 1].lstrip().startswith('resource "aws_sqs_queue" "dlq"')
    # without the data directory the module is not found: the plan file, line 1
    monkeypatch.delenv("TF_DATA_DIR")
    report = evaluate(doc, source_dir=str(directory))
    assert SourceLocator.of(report, doc, str(directory), str(plan)).locate("module.audit.aws_sqs_queue.dlq")[1] == 1


# -- existing fixtures and examples: what stays unknown -----------------------------------------------
UNDECIDABLE = {
    # a DLQ in another stack, named by a literal ARN: its settings are not in the plan
    "config:redrive-links": {("SQS004", UNK, E, "aws_sqs_queue.uses_existing"),
                             ("SQS005", UNK, E, "aws_sqs_queue.uses_existing"),
                             ("SQS006", UNK, E, "aws_sqs_queue.uses_existing"),
                             ("SQS004", FAIL, E, "aws_sqs_queue.literal")},
    # a consumer function outside the plan
    "config:consumers": {("ESM001", FAIL, E, 'module.queue["slow"].aws_sqs_queue.this'),
                         ("ESM001", FAIL, E, "module.fifo.aws_sqs_queue.this"),
                         ("ESM001", UNK, E, 'module.queue["fast"].aws_sqs_queue.this'),
                         ("ESM002", FAIL, E, "aws_lambda_event_source_mapping.sloppy"),
                         ("ESM003", FAIL, W, "aws_lambda_event_source_mapping.sloppy"),
                         ("ESM004", FAIL, E, "aws_lambda_event_source_mapping.fifo"),
                         ("ESM005", FAIL, E, "aws_lambda_event_source_mapping.provisioned_capped"),
                         ("ESM003", FAIL, W, "aws_lambda_event_source_mapping.provisioned_unbounded")},
    "config:raw-good": set(),
}


@pytest.mark.parametrize("name", sorted(UNDECIDABLE))
def test_existing_fixtures_with_source(plan_doc, name):
    """With the source, what the plan alone left unknown for lack of a literal is decided;
    what truly depends on something outside the plan stays unknown."""
    report = evaluate(plan_doc(name), source_dir=str(_source_of(name)))
    assert _got(report) == UNDECIDABLE[name]
    assert report.notes == []


def test_queue_bad_with_source_decides_the_redrive_of_defaults(plan_doc):
    from tests.support.expected_findings import EXPECTED as WITHOUT

    report = evaluate(plan_doc("config:queue-bad"), source_dir=str(_source_of("config:queue-bad")))
    # maxReceiveCount read from the source decides SQS003 and SQS012 (5 x 30 s < 4 days)
    assert _got(report) == WITHOUT["config:queue-bad"] - {("SQS003", UNK, E, "aws_sqs_queue.defaults"),
                                                          ("SQS012", UNK, E, "aws_sqs_queue.defaults")}
    sqs003 = next(f for f in report.passed if f.rule_id == "SQS003" and f.address == "aws_sqs_queue.defaults")
    assert sqs003.source is not None


@pytest.mark.parametrize("name", [n for n in plans.subjects() if n.startswith(("example:", "fixture:"))])
def test_examples_with_source_change_nothing(plan_doc, name):
    """Our examples build their ARNs: nothing to read from source, and nothing changes.
    They call the module by ../.. , outside their directory: read with the repository as
    a source root, as `--source-root` would."""
    doc = plan_doc(name)
    repo = Path(__file__).resolve().parents[2]
    report = evaluate(doc, source_dir=str(_source_of(name)), source_roots=(str(repo),))
    with_source, without = _got(report), _got(evaluate(doc))
    # except ESM001 on a mapping whose function is outside the plan: decided from the
    # timeout declared to modules/lambda-consumer, read from source (issue #23)
    decided = {g for g in without - with_source if g[0] == "ESM001" and g[1] == UNK}
    assert with_source == without - decided and report.notes == []


# -- source missing or not matching the plan: said once, fallback ----------------------------------------
def _copy(tmp_path, name="source-good") -> Path:
    dst = tmp_path / name
    shutil.copytree(plans.CONFIGS / name, dst, ignore=shutil.ignore_patterns(".terraform*"))
    return dst


def _unknowns(report) -> set:
    return {(f.rule_id, f.address) for f in report.findings if f.status == UNK}


def test_stale_literal_in_a_known_attribute_is_a_mismatch(plan_doc, tmp_path):
    """The source was edited after the plan: a value the plan knows differs. That
    resource's unknowns are not read from it (and the rest is)."""
    doc = plan_doc("config:source-good")
    d = _copy(tmp_path)
    main = d / "main.tf"
    text = main.read_text()
    assert 'name                      = "src-good-orders"\n' in text
    main.write_text(text.replace('name                      = "src-good-orders"\n',
                                 'name                      = "src-good-orders-renamed"\n'))
    report = evaluate(doc, source_dir=str(d))
    assert len(report.notes) == 1 and "aws_sqs_queue.orders.name is 'src-good-orders' in the plan" in report.notes[0]
    assert _unknowns(report) == {("SQS003", "aws_sqs_queue.orders"), ("SQS012", "aws_sqs_queue.orders")}


def test_changed_references_are_a_mismatch(plan_doc, tmp_path):
    doc = plan_doc("config:source-good")
    d = _copy(tmp_path)
    main = d / "main.tf"
    text = main.read_text()
    old = "    deadLetterTargetArn = aws_sqs_queue.orders_dlq.arn\n    maxReceiveCount     = 5\n"
    assert old in text
    main.write_text(text.replace(old, "    deadLetterTargetArn = aws_sqs_queue.payments_dlq.arn\n    maxReceiveCount     = 1\n"))
    report = evaluate(doc, source_dir=str(d))
    assert any("aws_sqs_queue.orders.redrive_policy does not match the plan" in n for n in report.notes)
    assert ("SQS003", "aws_sqs_queue.orders") in _unknowns(report)
    assert not any(f.rule_id == "SQS003" and f.status == FAIL for f in report.findings)


def test_other_configuration_is_not_read(plan_doc, tmp_path):
    doc = plan_doc("config:source-good")
    before = _unknowns(evaluate(doc))
    # another stack's root: declarations differ
    report = evaluate(doc, source_dir=str(plans.CONFIGS / "raw-good"))
    assert len(report.notes) == 1 and "does not match the plan" in report.notes[0]
    assert _unknowns(report) == before
    # no .tf files at all
    empty = tmp_path / "empty"
    empty.mkdir()
    report = evaluate(doc, source_dir=str(empty))
    assert len(report.notes) == 1 and "no .tf files" in report.notes[0] and _unknowns(report) == before
    # unparseable
    d = _copy(tmp_path)
    (d / "broken.tf").write_text('resource "aws_sqs_queue" "x" {\n  name = \n')
    report = evaluate(doc, source_dir=str(d))
    assert len(report.notes) == 1 and "broken.tf cannot be parsed" in report.notes[0] and _unknowns(report) == before


def test_a_plan_with_nothing_unknown_does_not_read_the_source(plan_doc, tmp_path):
    """raw-good is known but for one redrive policy; basic is fully known: no parse at all."""
    d = tmp_path / "unreadable"
    d.mkdir()
    (d / "main.tf").write_text("this is { not HCL\n")
    report = evaluate(plan_doc("example:basic"), source_dir=str(d))
    assert report.notes == []


# -- the CLI ------------------------------------------------------------------------------------------------
def cli(*args, cwd=REPO_ROOT, env=None):
    return subprocess.run([sys.executable, "-m", "resilient_sqs.policy", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120, env={**os.environ, **(env or {})})


def test_cli_reads_the_source_dir_and_sarif_points_at_the_expression(plan_files):
    plan = str(plan_files["config:source-bad"])
    src = "tests/policies/configs/source-bad"
    proc = cli("check", plan, "--format", "sarif", "--source-dir", src)
    assert proc.returncode == 1, proc.stderr
    run = json.loads(proc.stdout)["runs"][0]
    assert run["invocations"][0]["toolExecutionNotifications"] == []
    res = next(r for r in run["results"] if r["ruleId"] == "SQS003" and 'work[\\"billing\\"]' in json.dumps(r)
               and r["level"] == "error")
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == f"{src}/main.tf"
    line = (REPO_ROOT / src / "main.tf").read_text().splitlines()[loc["region"]["startLine"] - 1]
    assert line.strip().startswith("redrive_policy = jsonencode({")
    assert f"(from main.tf:{loc['region']['startLine']})" in res["message"]["text"]
    text = cli("check", plan, "--source-dir", src)
    assert "maxReceiveCount 1 < 2" in text.stdout and "note:" not in text.stdout


def test_cli_without_matching_source_says_so_once_and_falls_back(plan_files, tmp_path):
    plan = str(plan_files["config:source-bad"])
    # default --source-dir . from a directory that is not the configuration
    proc = cli("check", plan, "--format", "json", cwd=tmp_path)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert len(out["notes"]) == 1 and "no .tf files" in out["notes"][0] and "--source-dir" in out["notes"][0]
    # as without source: the worker policy is decided from the plan (25: refunds' SQS003 is not
    # unknown since SQS002 fails its redrive policy naming the DLQ by its id, the URL; refunds_dlq,
    # judged as that DLQ, adds failures (CW001, SQS011), no unknowns; SQS012 is unknown on the
    # six queues whose maxReceiveCount SQS003 cannot read)
    assert out["summary"]["unknown"] == 25
    text = cli("check", plan, cwd=tmp_path).stdout
    assert text.count("note: source not read") == 1
    # --no-source: nothing read, nothing said
    quiet = json.loads(cli("check", plan, "--format", "json", "--no-source", cwd=tmp_path).stdout)
    assert quiet["notes"] == [] and quiet["summary"] == out["summary"]


@pytest.mark.plan
def test_cli_finds_copied_modules_through_tf_data_dir(copied):
    _, directory, data, plan = copied
    proc = cli("check", str(plan), "--format", "json", "--source-dir", str(directory), env={"TF_DATA_DIR": str(data)})
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["notes"] == [] and out["summary"]["unknown"] == 0, out


def test_reading_source_is_lazy(plan_files):
    """python-hcl2 (and lark) are imported only when a plan has something unknown to read."""
    code = ("import sys\nfrom resilient_sqs.policy.cli import main\nrc = main(['check', sys.argv[1], '--format', 'json',"
            " '--source-dir', sys.argv[2]])\nsys.stderr.write(repr(sorted(m for m in ('hcl2', 'lark') if m in sys.modules)))\n")
    for name, want in (("example:many-queues", "[]"), ("config:source-good", "['hcl2', 'lark']")):
        proc = subprocess.run([sys.executable, "-c", code, str(plan_files[name]), str(_source_of(name))],
                              capture_output=True, text=True, timeout=60)
        assert proc.stderr.strip().endswith(want), (name, proc.stderr)


def test_unknown_reasons_are_specific(plan_doc):
    """What the evaluator does not evaluate stays unknown, naming why."""
    doc = plan_doc("eval:source")
    src = Source(Plan(doc), EVAL)
    ev = src.evaluator
    from hcl2.api import parses_to_tree

    from resilient_sqs.policy.source.scope import Scope
    from resilient_sqs.policy.source.tree import _trees

    def expr(text):
        return _trees(_trees(_trees(parses_to_tree(f"x = {text}\n"))[0])[0])[-1]

    for text, why in (('filebase64sha256("p.zip")', "function `filebase64sha256` not evaluated"),
                      ('templatefile("/etc/hostname", {})', "reads a file outside the source directories"),
                      ("terraform_data.later.id == \"x\" ? 1 : 2", "the ID of terraform_data.later, known after apply"),
                      ("[for x in [terraform_data.later.id] : x][0]", None),
                      ("<<-EOT\n  %{~if true~}a%{~endif~}\n  EOT\n", "heredoc"),
                      ("var.nope", "var.nope is not in the plan's variables")):
        got = ev.eval(expr(text), Scope(""))
        if why is None:
            assert isinstance(got, Pending), text
        else:
            assert isinstance(got, Unknown) and why in got.why, (text, got)


def test_hcl_past_the_parse_budget_is_not_parsed_and_said(tmp_path):
    """Issue #30 §5: parsing costs per token (python-hcl2: a 1 MiB file of dense tokens took
    minutes), so the tokens a check parses are counted first (files.MAX_PARSE_TOKENS): a module
    whose files pass the budget is not parsed, a note says so and its values stay unknown;
    the check ends promptly (tooling/bench_bounds.py has the figures). Under the budget the same
    file is parsed (the source of the root module is read)."""
    from resilient_sqs.policy.files import MAX_PARSE_TOKENS
    from tests.support.helpers import sqs_policy_in_process as cli

    plan = plans.plan_path("config:source-good")
    src = tmp_path / "src"
    shutil.copytree(REPO_ROOT / "tests/policies/configs/source-good", src, ignore=shutil.ignore_patterns(".terraform*"))
    (src / "zz_dense.tf").write_text("locals {\n  dense = [" + ",".join(["1"] * (MAX_PARSE_TOKENS // 2 + 10)) + "]\n}\n")
    out = json.loads(cli("check", str(plan), "--source-dir", str(src), "--format", "json").stdout)
    note = next((n for n in out["notes"] if "parse budget" in n), None)
    assert note and "not parsed" in note and "source of the root module not read" in note, out["notes"]
    (src / "zz_dense.tf").write_text("locals {\n  dense = [" + ",".join(["1"] * 1000) + "]\n}\n")
    out = json.loads(cli("check", str(plan), "--source-dir", str(src), "--format", "json").stdout)
    assert not any("parse budget" in n or "root module not read" in n for n in out["notes"]), out["notes"]


def test_long_strings_count_toward_the_parse_budget():
    """python-hcl2 reads a quoted string's characters one by one: 1 MiB inside one string costs
    seconds, so it counts (one token per 8 characters) though it is one token."""
    from resilient_sqs.policy.files import MAX_PARSE_TOKENS
    from resilient_sqs.policy.source.tree import _parse_cost

    assert _parse_cost('locals {\n  a = [1, 2]\n}\n') == 10  # locals { a = [ 1 , 2 ] }
    assert _parse_cost('locals {\n  a = "' + "x" * 1_000_000 + '"\n}\n') > MAX_PARSE_TOKENS
