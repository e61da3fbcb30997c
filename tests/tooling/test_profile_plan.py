"""tooling/profile_plan.py names the functions of Terraform's stripped binary from its
.gopclntab, and folds perf's stacks into own and inclusive counts."""
import shutil
from pathlib import Path

import pytest

from tooling.profile_plan import GoSymbols, fold

pytestmark = pytest.mark.static


@pytest.fixture(scope="module")
def terraform():
    path = shutil.which("terraform")
    if path is None:
        pytest.fail("terraform is not on PATH (the suite needs Terraform >= 1.9)")
    return Path(path).resolve()


def test_function_names_are_read_from_the_stripped_binary(terraform):
    symbols = GoSymbols(terraform)
    plan = "github.com/hashicorp/terraform/internal/terraform.(*Context).Plan"
    assert plan in symbols.names
    start = symbols.starts[symbols.names.index(plan)]
    # an address inside the function, and just before it, name the right functions
    assert symbols.name(start + 5) == plan
    assert symbols.name(start - 1) != plan
    assert symbols.starts == sorted(symbols.starts)


def test_perf_stacks_are_folded_into_own_and_inclusive_counts(terraform):
    symbols = GoSymbols(terraform)
    bias = symbols.load_bias
    plan = symbols.starts[symbols.names.index("github.com/hashicorp/terraform/internal/terraform.(*Context).Plan")]
    walk = symbols.starts[symbols.names.index("github.com/hashicorp/terraform/internal/dag.(*Walker).walkVertex")]
    script = (
        "terraform \n"
        f"\tffffffff815a2001 ([kernel.kallsyms])\n"
        f"\t{walk + 4 - bias:x} ({terraform})\n"
        f"\t{plan + 4 - bias:x} ({terraform})\n"
        "\n"
        "terraform \n"
        f"\t{plan + 8 - bias:x} ({terraform})\n"
    )
    total, own, incl = fold(script, symbols, terraform)
    assert total == 2
    assert own["github.com/hashicorp/terraform/internal/dag.(*Walker).walkVertex"] == 1
    assert own["github.com/hashicorp/terraform/internal/terraform.(*Context).Plan"] == 1
    assert incl["github.com/hashicorp/terraform/internal/terraform.(*Context).Plan"] == 2


def test_a_file_that_is_not_go_is_refused_with_its_name(tmp_path):
    bogus = tmp_path / "not-go"
    bogus.write_bytes(b"#!/bin/sh\necho hi\n")
    with pytest.raises(ValueError, match="not-go: no .gopclntab section"):
        GoSymbols(bogus)
