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
