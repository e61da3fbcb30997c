"""tooling.terraform: the adapter over python-terraform, driven against the real terraform binary."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import resilient_sqs.testing.terraform as tfmod  # the shipped adapter tooling.terraform re-exports
from tooling.terraform import Terraform, TerraformError, cli_config_file, extract_errors, terraform_env

# terraform_data comes from Terraform's built-in provider: real runs, no plugins, no network
LOCAL_CONFIG = """
variable "size" {
  type = number
}
variable "tags" {
  type    = map(string)
  default = {}
}
resource "terraform_data" "x" {
  input = { size = var.size, tags = var.tags }
}
output "size_plus_one" {
  value = var.size + 1
}
output "tag_count" {
  value = length(var.tags)
}
"""


@pytest.fixture()
def local_dir(tmp_path: Path) -> Path:
    (tmp_path / "main.tf").write_text(LOCAL_CONFIG)
    Terraform(tmp_path).init()
    return tmp_path


@pytest.mark.plan  # runs Terraform
def test_plan_with_changes_succeeds_and_keeps_variable_types(local_dir):
    # python-terraform alone adds -detailed-exitcode: a plan with changes exits 2
    plan = Terraform(local_dir, variables={"size": 3, "tags": {"a": "b"}}).plan_json()
    assert [rc["change"]["actions"] for rc in plan["resource_changes"]] == [["create"]]
    # a JSON var file keeps the number a number (-var would make it a string)
    assert plan["resource_changes"][0]["change"]["after"]["input"] == {"size": 3, "tags": {"a": "b"}}


@pytest.mark.plan  # runs Terraform
def test_apply_output_destroy_round_trip(local_dir):
    tf = Terraform(local_dir, variables={"size": 41, "tags": {"x": "1", "y": "2"}})
    tf.apply()
    assert tf.outputs() == {"size_plus_one": 42, "tag_count": 2}
    tf.destroy()  # python-terraform alone passes the removed -force flag
    state = json.loads((local_dir / "terraform.tfstate").read_text())
    assert state["resources"] == []


@pytest.mark.plan  # runs Terraform
def test_apply_saved_plan(local_dir):
    tf = Terraform(local_dir, variables={"size": 1})
    plan_file = tf.plan(out="saved.tfplan")
    tf.apply(plan_file)
    assert tf.outputs()["size_plus_one"] == 2


@pytest.mark.plan  # runs Terraform
def test_failure_raises_with_terraform_error_text(local_dir):
    with pytest.raises(TerraformError) as excinfo:
        Terraform(local_dir, variables={"size": "not-a-number"}).plan()
    err = excinfo.value
    assert err.returncode == 1
    assert any("Invalid value for input variable" in e or "Invalid value for variable" in e for e in err.errors), err.errors
    assert "terraform plan failed in" in str(err)


@pytest.mark.plan  # runs Terraform
def test_positional_directory_is_refused(local_dir):
    with pytest.raises(TypeError, match="working directory"):
        Terraform(local_dir).cmd("plan", str(local_dir))


@pytest.mark.plan  # runs Terraform
def test_validate_reports_invalid_config(tmp_path):
    (tmp_path / "main.tf").write_text('output "x" {\n  value = var.missing\n}\n')
    tf = Terraform(tmp_path)
    tf.init(backend=False)
    with pytest.raises(TerraformError, match="Reference to undeclared input variable"):
        tf.validate()


def test_cli_config_points_mirrored_providers_at_the_mirror(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "registry.terraform.io" / "hashicorp" / "aws" / "5.100.0" / "linux_amd64").mkdir(parents=True)
    (mirror / "registry.terraform.io" / "hashicorp" / "random").mkdir(parents=True)
    path = cli_config_file(mirror, tmp_path / "cache")
    text = path.read_text()
    assert f'path    = "{mirror}"' in text
    assert 'include = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/random"]' in text
    assert 'exclude = ["registry.terraform.io/hashicorp/aws", "registry.terraform.io/hashicorp/random"]' in text
    # idempotent: a second call leaves the same file
    assert cli_config_file(mirror, tmp_path / "cache").read_text() == text


def test_no_mirror_leaves_registry_installs_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(tfmod, "MIRROR_DIR", tmp_path / "absent")
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(tmp_path / "missing.rc"))
    assert cli_config_file() is None
    env = terraform_env()
    assert "TF_CLI_CONFIG_FILE" not in env  # a dangling path would only warn on every command
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(tmp_path / "user.rc"))
    (tmp_path / "user.rc").write_text("")
    assert terraform_env()["TF_CLI_CONFIG_FILE"] == str(tmp_path / "user.rc")


def test_extract_errors_joins_wrapped_diagnostics():
    text = (
        "\n╷\n│ Error: Invalid value for variable\n│ \n│   on main.tf line 3:\n│    3:   x = 1\n"
        "│     ├────────────────\n│     │ var.x is 1\n│ \nx: must be\n│ at least 2.\n╵\n"
        "╷\n│ Error: Second\n│ \n│ detail two\n╵\n"
    )
    errors = extract_errors(text)
    assert len(errors) == 2
    assert errors[0].startswith("Error: Invalid value for variable")
    assert "must be at least 2." in errors[0]
    assert errors[1] == "Error: Second detail two"


@pytest.mark.plan  # runs Terraform
def test_relative_working_dir(local_dir, monkeypatch):
    monkeypatch.chdir(local_dir.parent)
    plan = Terraform(local_dir.name, variables={"size": 2}).plan_json(out="rel.tfplan")
    assert plan["resource_changes"][0]["change"]["after"]["input"]["size"] == 2


# --- terraform test, a few runs per command ----------------------------------------------
# Terraform 1.11 keeps the provider process of each run whose plan fails until the command
# exits (about 200 MB of the AWS provider each); Terraform.test() holds a command to
# TEST_RUNS_PER_COMMAND runs so a module's hundred refusal runs cannot exhaust memory.
CHECKED_CONFIG = """
variable "size" {
  type = number
  validation {
    condition     = var.size < 100
    error_message = "size must be below 100."
  }
}
resource "terraform_data" "x" {
  input = var.size
}
"""


def _runs(n: int, start: int = 0, *, fails: bool = True) -> str:
    return "".join(
        f'run "r{i}" {{\n  command = plan\n  variables {{\n    size = {100 + i if fails else i}\n  }}\n'
        + ("  expect_failures = [var.size]\n" if fails else "") + "}\n\n"
        for i in range(start, start + n))


def test_test_batches_cut_independent_runs_and_keep_header_and_name(tmp_path):
    (tmp_path / "tests").mkdir()
    header = 'variables {\n  size = 1\n}\n\n'
    (tmp_path / "tests" / "refusals.tftest.hcl").write_text(header + _runs(23))
    (tmp_path / "tests" / "plans.tftest.hcl").write_text(_runs(3, fails=False))
    (tmp_path / "tests" / "shared.tfvars").write_text("size = 2\n")
    batches = tfmod.test_batches(tmp_path, 10)
    assert batches is not None
    runs = [(name, text.count('run "')) for batch in batches for name, text in batch if name.endswith(".tftest.hcl")]
    assert sum(n for _, n in runs) == 26
    assert all(sum(text.count('run "') for _, text in batch) <= 10 for batch in batches)
    parts = [text for batch in batches for name, text in batch if name == "refusals.tftest.hcl"]
    assert len(parts) == 3 and all(p.startswith(header) for p in parts)
    # the names of the runs, in order, once each
    assert [line for p in parts for line in p.splitlines() if line.startswith("run ")] == [f'run "r{i}" {{' for i in range(23)]
    assert all(any(name == "shared.tfvars" for name, _ in batch) for batch in batches)


def test_test_batches_keep_dependent_runs_together(tmp_path):
    (tmp_path / "tests").mkdir()
    text = _runs(12, fails=False) + 'run "after" {\n  command = plan\n  variables {\n    size = run.r0.size\n  }\n}\n'
    (tmp_path / "tests" / "chain.tftest.hcl").write_text(text)
    (tmp_path / "tests" / "more.tftest.hcl").write_text(_runs(4))
    batches = tfmod.test_batches(tmp_path, 10)
    assert [[name for name, _ in b] for b in batches] == [["chain.tftest.hcl"], ["more.tftest.hcl"]]
    assert batches[0][0][1] == text


def test_test_batches_leave_test_files_beside_the_configuration_alone(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.tftest.hcl").write_text(_runs(30))
    (tmp_path / "root.tftest.hcl").write_text(_runs(1))
    assert tfmod.test_batches(tmp_path, 10) is None
    (tmp_path / "root.tftest.hcl").unlink()
    (tmp_path / "tests" / "a.tftest.hcl").write_text(_runs(10))
    assert tfmod.test_batches(tmp_path, 10) is None  # fits in one command


@pytest.mark.plan  # runs Terraform
def test_terraform_test_in_batches_reports_every_run_and_any_failure(tmp_path):
    (tmp_path / "main.tf").write_text(CHECKED_CONFIG)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "refusals.tftest.hcl").write_text(_runs(23))
    tf = Terraform(tmp_path)
    tf.init()
    result = tf.test(runs_per_command=10)
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    done = {e["test_run"]["run"]: e["test_run"]["status"] for e in events
            if e.get("type") == "test_run" and e["test_run"].get("progress") == "complete"}
    assert done == {f"r{i}": "pass" for i in range(23)}
    assert len([e for e in events if e.get("type") == "test_summary"]) == 3
    assert result.returncode == 0
    assert not list((tmp_path / ".terraform").glob("test-batches-*")), "the batch folders are left behind"
    # one run that fails, in the last command, fails the whole
    (tmp_path / "tests" / "refusals.tftest.hcl").write_text(_runs(22) + _runs(1, 22, fails=False).replace("size = 22", "size = 122"))
    result = tf.test(runs_per_command=10)
    assert result.returncode != 0
