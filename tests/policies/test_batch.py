"""Many plans in one run: `sqs-policy check plans/*.json` and `check @list` (policies/batch.py).

Each plan is a committed real plan (tests/policies/plans) copied under the name a monorepo
would give it; every report is read back with the parser its consumer uses (json, cmark-gfm,
the runner's command grammar: tooling/report_consumers.py)."""
from __future__ import annotations

import json
import shutil

import pytest

from resilient_sqs.policy import batch
from tests.support.helpers import sqs_policy_in_process
from tooling.report_consumers import check_json, check_runner, markdown_html, markdown_rows

CLEAN, FAILING = "config:raw-good", "config:claim-check-bad"


@pytest.fixture
def stacks(tmp_path, plan_files):
    """A monorepo's plans: infra/<stack>/plan.json, two clean and one failing."""
    out = {}
    for stack, subject in (("prod", CLEAN), ("staging", CLEAN), ("payments", FAILING)):
        d = tmp_path / "infra" / stack
        d.mkdir(parents=True)
        shutil.copy(plan_files[subject], d / "plan.json")
        out[stack] = f"infra/{stack}/plan.json"
    return tmp_path, out


def _run(cwd, *args):
    p = sqs_policy_in_process("check", *args, cwd=cwd)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def test_one_report_per_plan_and_the_worst_exit_code(stacks):
    root, plans = stacks
    rc, out, err = _run(root, *plans.values(), "--no-source", "--report", "json=reports/{plan}.json",
                        "--report", "markdown=summary.md", "--report", "json=summary.json")
    assert rc == 1, err  # one plan fails, none refused
    # named after the stack directory (the file is plan.json)
    single = {s: json.loads((root / "reports" / f"{s}.json").read_text())["summary"] for s in plans}
    assert single["payments"]["errors"] > 0 and single["prod"]["errors"] == 0
    # each plan's report is what `check PLAN` alone writes
    alone = sqs_policy_in_process("check", plans["payments"], "--no-source", "--format", "json", cwd=root)
    assert alone.returncode == 1
    assert json.loads(alone.stdout)["summary"] == single["payments"]
    summary = json.loads((root / "summary.json").read_text())
    assert summary["summary"]["exit_code"] == 1
    assert {p["name"]: p["summary"] for p in summary["plans"]} == single
    assert summary["summary"]["errors"] == sum(s["errors"] for s in single.values())
    assert (summary["summary"]["failed_plans"], summary["summary"]["passed_plans"]) == (1, 2)
    # the Markdown summary: one row per plan, the failing one first, as cmark-gfm renders it
    md = (root / "summary.md").read_text()
    rows = markdown_rows(md)
    assert [r[0] for r in rows] == ["payments", "prod", "staging"]
    assert rows[0][2] == "failed" and int(rows[0][3]) == single["payments"]["errors"]
    assert "<table>" in markdown_html(md)
    # the text on standard output: every plan's text report, then the summary and the verdict
    assert out.index("=== payments (infra/payments/plan.json) ===") < out.index("=== summary ===")
    assert out.rstrip().endswith("exit 1 (the worst plan's)")
    assert "3 plan(s): 1 failed, 0 refused, 2 passed" in out


def test_a_refused_plan_is_named_and_the_others_are_still_checked(stacks):
    root, plans = stacks
    (root / "infra" / "broken").mkdir()
    (root / "infra" / "broken" / "plan.json").write_text('{"not": "a plan"}')
    (root / "plans.txt").write_text("# every stack\n" + "\n".join([*plans.values(), "infra/broken/plan.json",
                                                                   "infra/missing/plan.json"]) + "\n\n")
    rc, out, err = _run(root, "@plans.txt", "--no-source", "--format", "json")
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("sqs-policy: error: plan broken (infra/broken/plan.json): ")
    assert "plan missing (infra/missing/plan.json)" in lines[1] and "no such file" in lines[1]
    doc = json.loads(out)
    got = {p["name"]: p["result"] for p in doc["plans"]}
    assert got == {"prod": "passed", "staging": "passed", "payments": "failed", "broken": "refused",
                   "missing": "refused"}
    assert "not a Terraform plan" in next(p["error"] for p in doc["plans"] if p["name"] == "broken")
    assert doc["summary"]["refused_plans"] == 2 and doc["summary"]["exit_code"] == 2


def test_list_file_errors_name_the_file_and_the_fix(tmp_path):
    (tmp_path / "empty.txt").write_text("# nothing yet\n\n")
    rc, _, err = _run(tmp_path, "@empty.txt")
    assert rc == 2 and "list file empty.txt: lists no plan" in err
    rc, _, err = _run(tmp_path, "@absent.txt")
    assert rc == 2 and "list file absent.txt: no such file" in err and "one plan path a line" in err
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe plan.json\n")
    rc, _, err = _run(tmp_path, "@bin.txt")
    assert rc == 2 and "list file bin.txt: is not UTF-8" in err


@pytest.mark.parametrize("args, words", [
    (["--format", "sarif"], ["--format sarif with several plans", "--report sarif=reports/{plan}.sarif"]),
    (["--report", "sarif=all.sarif"], ["put {plan} in the path", "sarif=reports/{plan}.sarif"]),
    (["--baseline", "base.json"], ["--baseline base.json with several plans", "{plan}"]),
    (["--category", "infra"], ["--category infra with several plans", "{plan}"]),
])
def test_a_single_file_for_many_plans_is_refused_with_the_fix(stacks, args, words):
    root, plans = stacks
    rc, out, err = _run(root, *plans.values(), "--no-source", *args)
    assert rc == 2 and out == ""
    assert all(w in err for w in words), err


def test_sarif_per_plan_gets_its_own_category(stacks):
    root, plans = stacks
    rc, _, err = _run(root, *plans.values(), "--no-source", "--report", "sarif=out/{plan}.sarif")
    assert rc == 1, err
    ids = {s: json.loads((root / "out" / f"{s}.sarif").read_text())["runs"][0]["automationDetails"]["id"]
           for s in plans}
    assert ids == {s: f"{s}/" for s in plans}  # GitHub code scanning keeps each stack's alerts apart


def test_the_config_file_is_read_once(stacks, monkeypatch):
    from resilient_sqs.policy import config

    root, plans = stacks
    (root / "policy.yaml").write_text("rules:\n  SQS004:\n    enabled: false\n")
    calls = []
    real = config.load_config
    monkeypatch.setattr(config, "load_config", lambda path: calls.append(path) or real(path))
    rc, out, err = _run(root, *plans.values(), "--no-source", "--config", "policy.yaml")
    assert calls == ["policy.yaml"], err


def test_hostile_plan_paths_stay_text(tmp_path, plan_files):
    names = ["##[error]x.json", "::warning file=a::y.json", "a|b`c<img>.json"]
    for n in names:
        shutil.copy(plan_files[FAILING], tmp_path / n)
    for fmt in ("text", "markdown", "json"):
        rc, out, err = _run(tmp_path, *names, "--no-source", "--format", fmt)
        assert rc == 1
        if fmt == "json":
            assert check_json(out, "json") == []
        assert check_runner(out, fmt) == [] and check_runner(err, "text") == []
        if fmt == "markdown":
            rows = markdown_rows(out)
            assert sorted(r[1] for r in rows) == sorted(names)  # each path shown as itself, one cell each
            assert all(len(r) == 8 for r in rows)


@pytest.mark.parametrize("paths, expect", [
    (["plans/prod.json", "plans/dev.json"], ["prod", "dev"]),
    (["infra/prod/plan.json", "infra/dev/tfplan.json"], ["prod", "dev"]),
    (["eu/prod/plan.json", "us/prod/plan.json"], ["eu-prod", "us-prod"]),
    (["a/x.json", "b/x.json", "x.json"], ["a-x", "b-x", "x"]),
    (["x.json", "./x.json"], ["x", "x-2"]),
    (["plan.json", "-"], ["plan", "stdin"]),
    (["st ack/..;rm -rf/plan.json", "../../etc/passwd.json"], ["rm_-rf", "passwd"]),
])
def test_plan_names(paths, expect):
    got = batch.names(paths)
    assert got == expect
    assert len(set(got)) == len(got)


def test_worst_exit_wins():
    assert batch.worst([0, 1, 0]) == 1 and batch.worst([1, 2, 0]) == 2 and batch.worst([0, 0]) == 0


def test_the_markdown_summary_of_many_plans_fits_a_comment():
    from resilient_sqs.policy.formats.batch_summary import render
    from resilient_sqs.policy.formats.markdown import MAX_MARKDOWN

    counts = {"errors": 0, "warnings": 0, "unknown": 0, "waived": 0, "passed": 60}
    results = [batch.PlanResult(f"stack-{i:04d}", f"infra/stack-{i:04d}/plan.json", 0, counts, {}) for i in range(3000)]
    results[2999] = batch.PlanResult("broken", "infra/broken/plan.json", 2, error="not a plan")
    md = render("markdown", results, 2)
    assert len(md) <= MAX_MARKDOWN
    rows = markdown_rows(md)
    assert rows[0][0] == "broken" and rows[0][2].startswith("refused")  # the refused plan is never cut
    assert f"{3000 - len(rows)} more plan(s) not shown" in md


def test_a_baseline_per_plan(stacks):
    root, plans = stacks
    (root / "baselines").mkdir()
    for stack, path in plans.items():
        p = sqs_policy_in_process("baseline", path, "--no-source", "-o", f"baselines/{stack}.json", cwd=root)
        assert p.returncode == 0, p.stderr
    rc, out, err = _run(root, *plans.values(), "--no-source", "--baseline", "baselines/{plan}.json", "--format", "json")
    assert rc == 0, err  # every finding is in its plan's baseline
    doc = json.loads(out)
    assert doc["summary"]["errors"] == 0
    assert next(p for p in doc["plans"] if p["name"] == "payments")["summary"]["baselined"] > 0
    (root / "baselines" / "prod.json").unlink()
    rc, out, err = _run(root, *plans.values(), "--no-source", "--baseline", "baselines/{plan}.json")
    assert rc == 2 and "plan prod (infra/prod/plan.json): " in err and "baselines/prod.json" in err
