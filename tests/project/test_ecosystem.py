"""The ecosystem's manifests: the pre-commit hook (.pre-commit-hooks.yaml) and the GitHub
Action (action.yml), run as their users run them.

- The hook runs through the real `pre-commit` (pinned in requirements.txt) from a local
  clone of this checkout, in a stack repository of its own, on real plans.
- The action's structure is checked, then its steps' `run` scripts are executed the way a
  runner executes a composite action: inputs and step outputs substituted, GITHUB_OUTPUT,
  GITHUB_STEP_SUMMARY, RUNNER_TEMP and GITHUB_ACTION_PATH provided, `bash -eo pipefail`,
  and a step that fails ends the action.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from resilient_sqs.policy import hook
from tests.support.helpers import REPO_ROOT
from tests.policies import plans

CLEAN, VIOLATIONS, WARNINGS_ONLY = "example:basic", "config:queue-bad", "config:warnings"
FIXED_DATE = {"GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
              "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.com",
              "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.com"}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **FIXED_DATE, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def checkout_copy(dest: Path) -> Path:
    """The checkout's files as a clone would have them (tracked and new, not ignored)."""
    try:
        listed = _git(REPO_ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    except (subprocess.CalledProcessError, FileNotFoundError):
        pytest.fail("the pre-commit test needs the repository as a git checkout (it clones it)")
    for rel in filter(None, listed):
        src = REPO_ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


# ------------------------------------------------------------------------------------------
# the hook's entry point, in-process
# ------------------------------------------------------------------------------------------
def test_hook_without_a_plan_says_how_to_name_one(capsys):
    assert hook.main([]) == 2
    assert hook.main(["--strict"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "args: [plan.json]" in err[0] and "terraform show -json" in err[0]


def test_hook_with_a_missing_plan_says_how_to_make_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert hook.main(["plan.json"]) == 2
    assert "plan.json does not exist" in capsys.readouterr().err


def test_hook_finds_the_config_file_and_refuses_two(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(plans.plan_path(VIOLATIONS), "plan.json")
    assert hook.main(["plan.json"]) == 1  # no config file: the default rules, no failure of its own
    Path(".sqs-policy.yml").write_text("select: [DDB003]\n")  # a rule the plan passes
    assert hook.main(["plan.json"]) == 0
    Path("other.toml").write_text('select = ["SQS002"]\n')
    assert hook.main(["plan.json", "--config", "other.toml"]) == 1  # an explicit --config wins
    Path(".sqs-policy.toml").write_text('select = ["DDB003"]\n')
    capsys.readouterr()
    assert hook.main(["plan.json"]) == 2
    assert "found .sqs-policy.yml and .sqs-policy.toml" in capsys.readouterr().err


def test_hook_passes_check_options_through(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(plans.plan_path(WARNINGS_ONLY), "p.json")
    assert hook.main(["p.json"]) == 0
    assert hook.main(["--fail-on", "warning", "p.json"]) == 1
    assert hook.main(["p.json", "--format", "json", "-o", "r.json"]) == 0
    assert json.loads(Path("r.json").read_text())["summary"]


def test_hook_takes_the_ci_options(tmp_path, monkeypatch, capsys):
    """--baseline FILE and --report FORMAT=PATH before the plan: the plan is still found."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(plans.plan_path(VIOLATIONS), "p.json")
    from resilient_sqs.policy.cli import main as cli_main

    assert cli_main(["baseline", "p.json", "-o", "b.json"]) == 0
    assert hook.main(["--baseline", "b.json", "--report", "junit=j.xml", "p.json", "--changed-only"]) == 0
    assert Path("j.xml").read_text().startswith("<?xml")
    assert hook.main(["--report", "gitlab=cq.json", "p.json"]) == 1


# ------------------------------------------------------------------------------------------
# the hook through pre-commit, from a local clone
# ------------------------------------------------------------------------------------------
PRE_COMMIT_HOME = REPO_ROOT / ".cache" / "pre-commit"


def test_hook_manifest_shape():
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    (h,) = hooks
    assert h["id"] == "sqs-policy" and h["language"] == "python" and h["pass_filenames"] is False
    # a commit that touches no Terraform file, plan or config does not run it (nor fail for want of a plan)
    assert h.get("always_run", False) is False
    files = re.compile(h["files"])
    for path in ("main.tf", "infra/prod/vars.tfvars", "stack/main.tf.json", "plan.json", "infra/prod/plan.json",
                 ".sqs-policy.yaml"):
        assert files.search(path), path
    for path in ("README.md", "package.json", "src/app.py", "plan.json.bak"):
        assert not files.search(path), path
    scripts = __import__("tomllib").loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert h["entry"] in scripts, f"the hook's entry {h['entry']} is not a console script of the package"


@pytest.fixture(scope="module")
def hook_repo():
    """A git repository holding this checkout, committed with fixed dates (the same
    content gives the same commit, so pre-commit reuses its environment across runs)."""
    repo = PRE_COMMIT_HOME / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    checkout_copy(repo)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "checkout under test")
    return repo, _git(repo, "rev-parse", "HEAD")


def _stack(tmp_path: Path, hook_repo, plan: str | None, args: list[str], config: str | None = None,
           tf: bool = True) -> Path:
    repo, rev = hook_repo
    stack = tmp_path / "stack"
    stack.mkdir()
    _git(stack, "init", "-q")
    if tf:
        (stack / "main.tf").write_text("# the stack's configuration\n")
    else:
        (stack / "README.md").write_text("docs only\n")
    if plan:
        shutil.copy(plans.plan_path(plan), stack / "plan.json")
    if config:
        (stack / ".sqs-policy.yaml").write_text(config)
    (stack / ".pre-commit-config.yaml").write_text(yaml.safe_dump(
        {"repos": [{"repo": str(repo), "rev": rev, "hooks": [{"id": "sqs-policy", "args": args}]}]}))
    _git(stack, "add", "-A")
    return stack


def _pre_commit(stack: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PRE_COMMIT_HOME=str(PRE_COMMIT_HOME / "home"), GIT_CONFIG_GLOBAL=os.devnull, PRE_COMMIT_COLOR="never")
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=stack, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.mark.install  # pre-commit installs the hook's environment
@pytest.mark.xdist_group("pre-commit")  # one worker owns the clone and pre-commit's store
@pytest.mark.parametrize("plan,args,config,rc,needles", [
    pytest.param(CLEAN, ["plan.json"], None, 0, ["Passed"], id="clean-plan-no-config-file"),
    pytest.param(VIOLATIONS, ["plan.json"], None, 1, ["Failed", "exit code: 1", "SQS002 queue-has-dlq"],
                 id="violations"),
    pytest.param(VIOLATIONS, ["plan.json"], "select: [DDB003]\n", 0, ["Passed"], id="config-file-found"),
    pytest.param(WARNINGS_ONLY, ["plan.json", "--fail-on", "warning"], None, 1, ["Failed", "WARNING"],
                 id="check-options"),
    pytest.param(None, ["plan.json"], None, 1, ["exit code: 2", "plan.json does not exist"], id="no-plan-yet"),
    # a commit of no Terraform file, plan or config: the hook does not run, the commit is not failed
    pytest.param(None, ["plan.json"], None, 0, ["Skipped"], id="no-terraform-files"),
])
def test_pre_commit_runs_the_hook_from_a_clone(hook_repo, tmp_path, plan, args, config, rc, needles):
    proc = _pre_commit(_stack(tmp_path, hook_repo, plan, args, config, tf=needles != ["Skipped"]))
    out = proc.stdout + proc.stderr
    assert proc.returncode == rc, out
    assert "sqs-policy (SQS plan policy check)" in out
    for needle in needles:
        assert needle in out, out
    assert "Traceback" not in out and "internal error" not in out


# ------------------------------------------------------------------------------------------
# the GitHub Action
# ------------------------------------------------------------------------------------------
ACTION = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _expressions(value) -> list[str]:
    if isinstance(value, dict):
        return [e for v in value.values() for e in _expressions(v)]
    if isinstance(value, list):
        return [e for v in value for e in _expressions(v)]
    return EXPR.findall(value) if isinstance(value, str) else []


def test_action_structure():
    assert ACTION["runs"]["using"] == "composite"
    inputs, outputs, steps = ACTION["inputs"], ACTION["outputs"], ACTION["runs"]["steps"]
    assert ACTION["name"] and ACTION["description"]
    assert inputs["plan"]["required"] is True
    for name, spec in inputs.items():
        assert spec.get("description"), f"input {name} has no description"
        assert spec.get("required") or "default" in spec, f"optional input {name} has no default"
    assert {"fail-on-violations", "sarif-file", "config", "fail-on", "strict"} <= set(inputs)
    ids = {s["id"]: s for s in steps if "id" in s}
    used = set()
    for step in steps:
        if "uses" in step:  # only the cache of the checker's environment, pinned to a major version
            assert step["uses"] == "actions/cache@v4" and set(step["with"]) == {"path", "key"}, step
            for e in _expressions(step):
                assert re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e), e
            continue
        assert "run" in step and step.get("shell") == "bash", f"step {step.get('name')}: a bash run step"
        for e in _expressions(step):
            m = re.fullmatch(r"inputs\.([\w-]+)|steps\.([\w-]+)\.outputs\.([\w-]+)", e)
            assert m, f"step {step['name']}: expression {e!r} (only inputs.* and steps.*.outputs.* are used)"
            if m.group(1):
                assert m.group(1) in inputs, f"step {step['name']} reads undeclared input {m.group(1)}"
                used.add(m.group(1))
            else:
                assert m.group(2) in ids, f"step {step['name']} reads outputs of unknown step {m.group(2)}"
        assert "${{" not in step["run"], f"step {step['name']}: pass inputs through env, not into the script text"
    assert used == set(inputs), f"inputs never used: {set(inputs) - used}"
    for name, spec in outputs.items():
        assert spec.get("description"), f"output {name} has no description"
        step_id, key = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", spec["value"]).groups()
        assert f"{key}=" in ids[step_id]["run"], f"output {name}: step {step_id} never writes {key}"


def _resolve(value: str, inputs: dict, outputs: dict) -> str:
    def one(m):
        e = m.group(1)
        if e.startswith("inputs."):
            return inputs[e[len("inputs."):]]
        _, step, _, key = e.split(".")
        return outputs.get(step, {}).get(key, "")

    return EXPR.sub(one, value)


def run_action(action_path: Path, workspace: Path, runner_temp: Path, given: dict, steps: list[dict],
               outputs: dict | None = None) -> dict:
    """Run the given composite steps like a runner: returns {"failed": step name or None,
    "rc", "log", "outputs": per step id, "action_outputs", "summary"}."""
    inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of the action: {unknown}"
    inputs.update(given)
    missing = [k for k, v in ACTION["inputs"].items() if v.get("required") and not inputs.get(k)]
    assert not missing, f"required inputs missing: {missing}"
    outputs = dict(outputs or {})
    summary = runner_temp / "summary.md"
    log, failed, rc = [], None, 0
    for i, step in enumerate(steps):
        if "uses" in step:  # actions/cache: nothing is cached between these runs
            continue
        out_file = runner_temp / f"output-{i}"
        out_file.write_text("")
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        env.update({k: _resolve(str(v), inputs, outputs) for k, v in step.get("env", {}).items()})
        env.update(GITHUB_OUTPUT=str(out_file), GITHUB_STEP_SUMMARY=str(summary), RUNNER_TEMP=str(runner_temp),
                   GITHUB_ACTION_PATH=str(action_path), GITHUB_WORKSPACE=str(workspace),
                   HOME=str(runner_temp / "home"))
        cwd = workspace / _resolve(step.get("working-directory", "."), inputs, outputs)
        script = runner_temp / f"step-{i}.sh"
        script.write_text(step["run"])
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=600)
        log.append(proc.stdout + proc.stderr)
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
        if proc.returncode != 0:
            failed, rc = step["name"], proc.returncode
            break
    action_outputs = {k: _resolve(v["value"], inputs, outputs) for k, v in ACTION["outputs"].items()}
    return {"failed": failed, "rc": rc, "log": "\n".join(log), "outputs": outputs, "action_outputs": action_outputs,
            "summary": summary.read_text() if summary.exists() else ""}


@pytest.fixture(scope="module")
def installed_action(tmp_path_factory):
    """The action's install step, run once: the checker installed from the action's checkout."""
    base = tmp_path_factory.mktemp("action")
    action_path = checkout_copy(base / "action")
    runner_temp = base / "runner-temp"
    runner_temp.mkdir()
    steps = ACTION["runs"]["steps"]
    upto = [s.get("id") for s in steps].index("install") + 1
    result = run_action(action_path, base, runner_temp, {"plan": "unused", "python": sys.executable}, steps[:upto])
    assert result["failed"] is None, result["log"]
    assert re.search(r"^sqs-policy \d", result["log"], flags=re.M), result["log"]
    return action_path, runner_temp, result["outputs"]


@pytest.mark.install
@pytest.mark.xdist_group("action-pin")
def test_action_never_reuses_the_checker_of_another_pin(tmp_path, monkeypatch):
    """A persistent self-hosted runner keeps $HOME between jobs: after a pin bump the action
    installs the checker of the new ref, and reuses an environment only for the same ref and files."""
    steps = ACTION["runs"]["steps"]
    upto = [s.get("id") for s in steps].index("install") + 1
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    old = checkout_copy(tmp_path / "old")
    new = checkout_copy(tmp_path / "new")
    init = new / "resilient_sqs" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "([^"]+)"', r'__version__ = "\1.post99"', init.read_text()))

    def install(action: Path, ref: str) -> dict:
        monkeypatch.setenv("GITHUB_ACTION_REF", ref)
        r = run_action(action, tmp_path, runner_temp, {"plan": "unused", "python": sys.executable}, steps[:upto])
        assert r["failed"] is None, r["log"]
        return r

    first = install(old, "v0.1.0")
    assert "using the cached environment" not in first["log"]
    bumped = install(new, "v0.1.1")
    assert "using the cached environment" not in bumped["log"] and ".post99" in bumped["log"]
    again = install(new, "v0.1.1")
    assert "using the cached environment" in again["log"] and ".post99" in again["log"]
    # the same files asked for by another ref (a tag moved to another commit): installed anew
    moved = install(old, "v0.1.1-moved")
    assert "using the cached environment" not in moved["log"] and ".post99" not in moved["log"]


def _workspace(tmp_path: Path, plan: str | None, config: str | None = None, where: str = ".") -> Path:
    ws = tmp_path / "ws"
    (ws / where).mkdir(parents=True, exist_ok=True)
    if plan == "not-json":
        (ws / where / "plan.json").write_text("this is not JSON\n")
    elif plan:
        shutil.copy(plans.plan_path(plan), ws / where / "plan.json")
    if config:
        (ws / where / ".sqs-policy.yaml").write_text(config)
    return ws


def _sqs_policy(installed_action, ws: Path, *args: str) -> subprocess.CompletedProcess:
    """The checker the Action installed, run in the workspace."""
    return subprocess.run([str(Path(installed_action[2]["install"]["bin"]) / "sqs-policy"), *args], cwd=ws,
                          capture_output=True, text=True)


def _json_report(installed_action, ws: Path, *args: str) -> dict:
    """The installed checker's JSON report of the workspace's plan.json (``args``: more flags)."""
    proc = _sqs_policy(installed_action, ws, "check", "plan.json", "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _run_checks(installed_action, ws: Path, given: dict) -> dict:
    action_path, runner_temp, install_outputs = installed_action
    steps = ACTION["runs"]["steps"]
    after = [s.get("id") for s in steps].index("install") + 1
    return run_action(action_path, ws, runner_temp, {"plan": "plan.json", **given}, steps[after:],
                      outputs=install_outputs)


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_clean_plan_passes_and_writes_sarif(installed_action, tmp_path):
    r = _run_checks(installed_action, _workspace(tmp_path, CLEAN), {})
    assert r["failed"] is None, r["log"]
    md = installed_action[1] / "sqs-policy-summary.md"
    assert r["action_outputs"] == {"exit-code": "0", "sarif-file": str(tmp_path / "ws" / "sqs-policy.sarif"),
                                   "config": "", "markdown-file": str(md)}
    sarif = json.loads(Path(r["action_outputs"]["sarif-file"]).read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "sqs-policy"
    assert "No violations." in r["summary"]


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_violations_fail_the_step_and_still_write_sarif(installed_action, tmp_path):
    r = _run_checks(installed_action, _workspace(tmp_path, VIOLATIONS), {})
    assert r["failed"] == "Outcome" and r["rc"] == 1, r["log"]
    assert r["action_outputs"]["exit-code"] == "1"
    assert "SQS002" in r["log"] and "::error title=sqs-policy::the plan has policy violations" in r["log"]
    results = json.loads((tmp_path / "ws" / "sqs-policy.sarif").read_text())["runs"][0]["results"]
    assert any(res["ruleId"] == "SQS002" for res in results)


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_reports_only_when_told_not_to_fail(installed_action, tmp_path):
    r = _run_checks(installed_action, _workspace(tmp_path, VIOLATIONS), {"fail-on-violations": "false"})
    assert r["failed"] is None, r["log"]
    assert r["action_outputs"]["exit-code"] == "1"
    assert r["action_outputs"]["sarif-file"] == str(tmp_path / "ws" / "sqs-policy.sarif")


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_finds_the_config_file_in_the_working_directory(installed_action, tmp_path):
    ws = _workspace(tmp_path, VIOLATIONS, config="select: [DDB003]\n", where="infra")
    r = _run_checks(installed_action, ws, {"working-directory": "infra", "sarif-file": ""})
    assert r["failed"] is None, r["log"]
    assert r["action_outputs"] == {"exit-code": "0", "sarif-file": "", "config": ".sqs-policy.yaml",
                                   "markdown-file": str(installed_action[1] / "sqs-policy-summary.md")}
    assert not list(ws.rglob("*.sarif"))


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_in_a_repository_of_stacks(installed_action, tmp_path):
    """A stack in infra/prod of a repository: run from the repository root with source-dir, or from
    the stack's folder (working-directory), the .tf waivers are read, annotations and SARIF point
    at infra/prod/main.tf (GitHub resolves them against the repository root) and the SARIF run's
    category is the stack's; without source-dir, from the root, the waivers are not read."""
    ws = tmp_path / "ws"
    stack = ws / "infra" / "prod"
    shutil.copytree(REPO_ROOT / "tests" / "policies" / "configs" / "inline-waivers", stack)
    shutil.copy(plans.plan_path("config:inline-waivers"), stack / "plan.json")
    from_root = _run_checks(installed_action, ws, {"plan": "infra/prod/plan.json", "source-dir": "infra/prod",
                                                   "fail-on-violations": "false"})
    in_stack = _run_checks(installed_action, ws, {"working-directory": "infra/prod", "fail-on-violations": "false"})
    ignored = _run_checks(installed_action, ws, {"plan": "infra/prod/plan.json", "fail-on-violations": "false",
                                                 "sarif-file": "ignored.sarif"})
    for r in (from_root, in_stack):
        assert r["failed"] is None, r["log"]
        files = set(re.findall(r"^::\w+ file=([^,]+),", r["log"], flags=re.M))
        assert files and files <= {"infra/prod/main.tf", "infra/prod/legacy/main.tf"}, files
        sarif = json.loads(Path(r["action_outputs"]["sarif-file"]).read_text())["runs"][0]
        assert sarif["automationDetails"] == {"id": "sqs-policy/infra/prod/"}
        assert any(res.get("suppressions") for res in sarif["results"]), "the .tf waivers are read"
    sarif = json.loads(Path(ignored["action_outputs"]["sarif-file"]).read_text())["runs"][0]
    assert not any(res.get("suppressions") for res in sarif["results"])
    assert int(ignored["action_outputs"]["exit-code"]) >= int(from_root["action_outputs"]["exit-code"])
    none = _run_checks(installed_action, ws, {"working-directory": "infra/prod", "sarif-category": "none",
                                              "fail-on-violations": "false"})
    assert "automationDetails" not in json.loads(Path(none["action_outputs"]["sarif-file"]).read_text())["runs"][0]


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_strict_and_fail_on_inputs_reach_the_check(installed_action, tmp_path):
    ws = _workspace(tmp_path, WARNINGS_ONLY)
    assert _run_checks(installed_action, ws, {})["action_outputs"]["exit-code"] == "0"
    assert _run_checks(installed_action, ws, {"fail-on": "warning"})["action_outputs"]["exit-code"] == "1"


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
@pytest.mark.parametrize("given,needle", [
    ({}, "sqs-policy: error: plan.json"),
    ({"fail-on": "fatal"}, "input fail-on is 'fatal'"),
    ({"strict": "yes"}, "input strict is 'yes'"),
])
def test_action_input_errors_always_fail(installed_action, tmp_path, given, needle):
    ws = _workspace(tmp_path, "not-json")
    r = _run_checks(installed_action, ws, {"fail-on-violations": "false", **given})
    assert r["failed"] == "Outcome" and r["rc"] == 2, r["log"]
    assert r["action_outputs"]["exit-code"] == "2" and r["action_outputs"]["sarif-file"] == ""
    assert needle in r["log"], r["log"]
    assert "Traceback" not in r["log"]


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_bad_fail_on_violations_value_is_refused(installed_action, tmp_path):
    r = _run_checks(installed_action, _workspace(tmp_path, "not-json"), {"fail-on-violations": "maybe"})
    assert r["failed"] == "Outcome" and "input fail-on-violations is 'maybe'" in r["log"]


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_checks_once_annotates_and_summarises(installed_action, tmp_path):
    ws = _workspace(tmp_path, VIOLATIONS)
    r = _run_checks(installed_action, ws, {"reports": "junit=junit.xml\n  gitlab=cq.json  \n"})
    assert r["failed"] == "Outcome", r["log"]
    # one sqs-policy run: the text report, then the annotations, on the log
    assert r["log"].count("error(s), ") == 1
    # GitHub shows 10 annotations per level and step: past 10 errors, 9 annotated and a 10th
    # saying how many more (the counts: the same checker's JSON report of the same plan)
    want = _json_report(installed_action, ws)
    errors = want["summary"]["errors"]
    assert errors > 10, "the violations plan should have more errors than GitHub annotates"
    assert f"{errors} error(s), " in r["log"]
    ann = [x for x in r["log"].splitlines() if x.startswith("::error file=")]
    assert len(ann) == 9 and any("title=SQS002 queue-has-dlq" in x for x in ann)
    more = [x for x in r["log"].splitlines() if x.startswith("::error title=sqs-policy%3A ")]
    assert len(more) == 1 and f"{errors - 9} more error(s) not annotated" in more[0], more
    # the job summary is the Markdown report with the topology diagram
    assert "**Violations found.**" in r["summary"] and "```mermaid" in r["summary"]
    assert (ws / "junit.xml").read_text().startswith("<?xml")
    assert len(json.loads((ws / "cq.json").read_text())) == len(want["findings"])
    assert json.loads((ws / "sqs-policy.sarif").read_text())["runs"][0]["results"]


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_baseline_annotates_only_new_findings(installed_action, tmp_path):
    ws = _workspace(tmp_path, VIOLATIONS)
    proc = _sqs_policy(installed_action, ws, "baseline", "plan.json", "-o", ".sqs-policy-baseline.json")
    assert proc.returncode == 0, proc.stderr
    r = _run_checks(installed_action, ws, {"baseline": ".sqs-policy-baseline.json"})
    assert r["failed"] is None and r["action_outputs"]["exit-code"] == "0", r["log"]
    found = len(_json_report(installed_action, ws)["findings"])
    assert "::error file=" not in r["log"] and f"{found} baselined" in r["summary"]
    # a new finding: the plan without the one queue's encryption
    doc = json.loads((ws / "plan.json").read_text())
    for rc in doc["resource_changes"]:
        if rc["address"] == 'aws_sqs_queue.src["ok"]':
            rc["change"]["after"]["sqs_managed_sse_enabled"] = False
    for res in doc["planned_values"]["root_module"]["resources"]:
        if res["address"] == 'aws_sqs_queue.src["ok"]':
            res["values"]["sqs_managed_sse_enabled"] = False
    (ws / "plan.json").write_text(json.dumps(doc))
    r = _run_checks(installed_action, ws, {"baseline": ".sqs-policy-baseline.json", "changed-only": "false"})
    ann = [x for x in r["log"].splitlines() if x.startswith("::error file=")]
    assert r["action_outputs"]["exit-code"] == "1" and len(ann) == 1 and 'aws_sqs_queue.src["ok"]' in ann[0]


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
@pytest.mark.parametrize("given,needle", [
    ({"changed-only": "yes"}, "input changed-only is 'yes'"),
    ({"annotate": "no"}, "inputs annotate and job-summary take true or false"),
    ({"reports": "yaml=x.yaml"}, "unknown format 'yaml'"),
    ({"baseline": "missing.json"}, "baseline missing.json: no such file"),
])
def test_action_new_input_errors(installed_action, tmp_path, given, needle):
    r = _run_checks(installed_action, _workspace(tmp_path, VIOLATIONS), {"fail-on-violations": "false", **given})
    assert r["failed"] == "Outcome" and r["action_outputs"]["exit-code"] == "2", r["log"]
    assert needle in r["log"]


# ------------------------------------------------------------------------------------------
# the documentation's examples use the manifests as they are declared
# ------------------------------------------------------------------------------------------
def _doc_yaml() -> list[tuple[str, object]]:
    from tooling.docs import doc_files

    out = []
    for md in doc_files():
        for block in re.findall(r"```yaml\n(.*?)```", md.read_text(), flags=re.DOTALL):
            out.append((str(md.relative_to(REPO_ROOT)), yaml.safe_load(block)))
    return out


def test_documented_workflows_use_the_action_as_declared():
    inputs, outputs = ACTION["inputs"], ACTION["outputs"]
    uses = 0
    for where, doc in _doc_yaml():
        if not isinstance(doc, dict) or "jobs" not in doc:
            continue
        for job in doc["jobs"].values():
            ours = {s.get("id"): s for s in job["steps"] if "resilient-sqs@" in str(s.get("uses", ""))}
            for step in ours.values():
                uses += 1
                given = set(step.get("with", {}))
                assert given <= set(inputs), f"{where}: the action has no input {given - set(inputs)}"
                required = {k for k, v in inputs.items() if v.get("required")}
                assert required <= given, f"{where}: the action needs {required - given}"
            for step in job["steps"]:
                for step_id, name in re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", json.dumps(step)):
                    if step_id in ours:
                        assert name in outputs, f"{where}: the action has no output {name}"
    assert uses, "no documented workflow uses the action"


def test_documented_pre_commit_configs_name_real_hooks():
    ids = {h["id"] for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    found = 0
    for where, doc in _doc_yaml():
        if not isinstance(doc, dict) or "repos" not in doc:
            continue
        for repo in doc["repos"]:
            if "resilient-sqs" not in str(repo.get("repo", "")):  # also other tools' repos: (Atlantis' repos.yaml)
                continue
            assert repo.get("rev"), f"{where}: pin a rev"
            for h in repo["hooks"]:
                found += 1
                assert h["id"] in ids, f"{where}: no hook {h['id']} in .pre-commit-hooks.yaml"
                assert h.get("args") and not h["args"][0].startswith("-"), f"{where}: name the plan JSON first in args"
    assert found, "no documented pre-commit configuration uses the hook"


@pytest.mark.install
@pytest.mark.xdist_group("action")  # one install of the checker
def test_action_log_summary_and_annotations_from_a_hostile_plan(installed_action, tmp_path):
    """A plan whose for_each keys and a config whose waiver reasons carry every hostile payload
    class (tooling.hostile_values): the job log (every format on standard output too) holds no
    runner command but the tool's own annotations, each the runner parses as error, warning or
    notice with file, line and title only; the job summary renders as the report's own table,
    each value in its cell (cmark-gfm)."""
    from tooling import hostile_values, runner_commands
    from tooling.report_consumers import check_markdown, check_markdown_cells, check_runner, own_annotation

    ws = tmp_path / "ws"
    ws.mkdir()
    payloads = [p for cls in hostile_values.PAYLOADS.values() for p in cls if len(p) < 1000]
    doc = hostile_values._queue_plan(payloads)
    (ws / "plan.json").write_bytes(json.dumps(doc).encode("utf-8", "surrogatepass"))
    first = doc["resource_changes"][0]["address"]
    (ws / ".sqs-policy.yaml").write_bytes(json.dumps({"waivers": [
        {"address": first, "rules": ["SQS002"], "reason": "\n".join(payloads)}]}).encode("utf-8", "surrogatepass"))
    (installed_action[1] / "summary.md").unlink(missing_ok=True)  # the job summary of this run only
    r = _run_checks(installed_action, ws, {"fail-on-violations": "false", "sarif-file": "",
                                           "reports": "json=-\njunit=-\ngitlab=-\nmarkdown=-\nsarif=-"})
    assert r["failed"] is None and r["action_outputs"]["exit-code"] == "1", r["log"][-3000:]
    assert not check_runner(r["log"], "log"), check_runner(r["log"], "log")[:10]
    ann = runner_commands.commands(r["log"])
    assert all(own_annotation(c.text) for c in ann)
    assert {c.name for c in ann} <= {"error", "warning", "notice"}
    # one finding per payload at least: at most 10 annotations a level (GitHub's limit per step), the
    # last one counting the findings not annotated
    for level in {c.name for c in ann}:
        mine = [c for c in ann if c.name == level]
        assert len(mine) <= 10, (level, len(mine))
    more = [int(m.group(1)) for c in ann if (m := re.match(r"sqs-policy: (\d+) more ", c.properties.get("title", "")))]
    assert len(ann) - len(more) + sum(more) >= len(payloads), (len(ann), more, len(payloads))
    assert any(c.properties.get("title", "").startswith("SQS001 ") for c in ann)  # the first rule's, annotated
    summary = r["summary"]
    assert "**Violations found.**" in summary and "SQS002" in summary  # every rule's, in the summary
    assert not check_markdown(summary)
    report = _json_report(installed_action, ws, "--config", ".sqs-policy.yaml")
    assert not check_markdown_cells(summary, [(f["address"], f["message"]) for f in report["findings"]])
