"""The behaviour checks keep the user's Terraform CLI configuration (TF_CLI_CONFIG_FILE or
~/.terraformrc: plugin cache, registry credentials) and add the provider mirror to it, instead
of replacing it (issue 35 §4). Read by the real terraform binary."""
from __future__ import annotations

import pytest

from resilient_sqs.testing.terraform import Terraform, cli_config_file, mirrored_providers, terraform_env

pytestmark = pytest.mark.static


@pytest.fixture()
def stack(tmp_path):
    d = tmp_path / "stack"
    d.mkdir()
    (d / "main.tf").write_text('terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws" }\n  }\n}\n')
    return d


@pytest.mark.skipif(not mirrored_providers(), reason="no provider mirror on this machine (the merge only applies with one)")
def test_the_users_plugin_cache_is_used_with_the_mirror(tmp_path, stack, monkeypatch):
    cache = tmp_path / "plugin-cache"
    cache.mkdir()
    user = tmp_path / "user.tfrc"
    user.write_text(f'plugin_cache_dir = "{cache}"\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(user))
    env = terraform_env(cache_dir=tmp_path / "ours")
    merged = env["TF_CLI_CONFIG_FILE"]
    assert merged != str(user) and f'plugin_cache_dir = "{cache}"' in open(merged).read()
    Terraform(stack, cache_dir=tmp_path / "ours").init(backend=False)
    # the real terraform read the user's setting: the provider went through their plugin cache
    assert list(cache.glob("registry.terraform.io/hashicorp/aws/*")), "the user's plugin_cache_dir was not used"
    assert user.read_text() == f'plugin_cache_dir = "{cache}"\n'  # never written


def test_a_user_config_with_its_own_provider_installation_is_used_as_it_is(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "registry.terraform.io" / "hashicorp" / "aws").mkdir(parents=True)
    user = tmp_path / "user.tfrc"
    user.write_text('provider_installation {\n  direct {}\n}\n')
    assert cli_config_file(mirror, tmp_path / "ours", user_config=user) == user
    # and our own file handed back to us (TF_CLI_CONFIG_FILE=.cache/terraform.rc) is not merged with itself
    ours = cli_config_file(mirror, tmp_path / "ours")
    assert cli_config_file(mirror, tmp_path / "ours", user_config=ours) == ours
