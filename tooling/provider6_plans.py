"""AWS provider 6.x-shaped plan fixtures, derived from real provider 5.100.0 plans.

The provider mirror here holds hashicorp/aws 5.100.0 only, so no plan by provider 6.x can be
made here. What 6.x changes in a plan that the checker reads is known from the provider's
source (``internal/provider/sdkv2/region.go`` of hashicorp/terraform-provider-aws 6.x):

* every regional resource has a top-level ``region`` argument (Optional, Computed): the
  Region the resource is managed in. When the configuration does not set it, the provider
  sets it in the plan to its configuration's Region (``defaultRegion``: ``d.SetNew("region",
  <provider region>)``), so a 6.x plan shows ``region`` on every regional resource, known;
  global resources (IAM) have none;
* ``aws_sqs_queue.max_message_size`` validates 1024-1048576 from 6.8.0 on
  (``validation.IntBetween(1024, 1_048_576)``; 1024-262144 before), default still 262144.

Each configuration ``tests/policies/provider6/<name>/main.tf`` is written as a 6.x user
writes it: resources with their own ``region`` argument, a queue of 1 MiB. This script

1. writes its **5.x twin**: each resource's ``region = "<r>"`` becomes ``provider =
   aws.region_<r>`` with a provider configuration of that Region (the default one's
   arguments otherwise: the same credentials), which is how a 5.x stack places a resource
   in another Region; an ``aws_sqs_queue`` ``max_message_size`` above 262144 becomes 262144;
2. plans the twin for real (``terraform plan``, provider 5.100.0 from the mirror, offline);
3. turns that plan into the 6.x shape by the rules above and nothing else: the twin's
   resources go back to the default provider configuration with a ``region`` expression
   (the twin's aliases leave ``provider_config``), every regional resource's planned values
   get ``region`` (its own, or the default configuration's), and the lowered
   ``max_message_size`` gets its configured value back, in the planned values and the
   configuration.

Both plans are committed (``tests/policies/plans/provider6/<name>.json`` in the 6.x shape,
``<name>.twin.json`` the twin's real plan), with a manifest whose digest covers the
configuration, the provider file and this script: ``--check`` needs no Terraform.

Only root-module managed resources of the types in :data:`REGIONAL` and :data:`GLOBAL`, and
the data sources of :data:`GLOBAL_DATA`, are derived; anything else is refused rather than
guessed. What this cannot show: anything else 6.x changes in a plan (new computed
attributes elsewhere, identities), and a real 6.x provider's behaviour.

Usage::

    .venv/bin/python -m tooling.provider6_plans            # derive every fixture (plans the twins)
    .venv/bin/python -m tooling.provider6_plans --check    # list stale fixtures; exit 1 if any (no Terraform)
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from tests.policies import fixture_plans
from tooling.terraform import REPO_ROOT, Terraform

CONFIGS = REPO_ROOT / "tests" / "policies" / "provider6"
OUT = fixture_plans.PLANS / "provider6"
PROVIDER = REPO_ROOT / "tests" / "policies" / "configs" / "_provider" / "providers.tf"
COMMAND = ".venv/bin/python -m tooling.provider6_plans"
DEFAULT_REGION = "us-east-1"  # the offline provider's (PROVIDER)

# resource types whose 6.x schema has the top-level `region` argument, and types without one
REGIONAL = frozenset({
    "aws_sqs_queue", "aws_sqs_queue_policy", "aws_sqs_queue_redrive_policy", "aws_sqs_queue_redrive_allow_policy",
    "aws_cloudwatch_metric_alarm", "aws_sns_topic", "aws_lambda_event_source_mapping", "aws_kms_key",
})
GLOBAL = frozenset({"aws_iam_role", "aws_iam_policy", "aws_iam_role_policy", "terraform_data"})
GLOBAL_DATA = frozenset({"aws_iam_policy_document"})
# (type, attribute) -> the largest value 5.100.0 accepts: the twin writes it instead
SIX_ONLY_MAX = {("aws_sqs_queue", "max_message_size"): 262144}

_RESOURCE = re.compile(r'^resource "([a-z0-9_]+)" "([A-Za-z0-9_-]+)" \{\s*$')
_REGION = re.compile(r'^  region\s*=\s*"([a-z]{2}(?:-[a-z]+)+-[0-9]+)"\s*$')
_NUMBER = re.compile(r"^  ([a-z_]+)\s*=\s*([0-9]+)\s*$")


class DerivationError(Exception):
    """A configuration or plan this script does not derive; the message says what and why."""


def alias(region: str) -> str:
    return "region_" + region.replace("-", "_")


def twin(text: str) -> tuple[str, dict[str, str], dict[tuple[str, str], int]]:
    """The 5.x twin of a 6.x configuration: (its text, {resource address: its own Region},
    {(address, attribute): the configured value the twin lowered})."""
    placed: dict[str, str] = {}
    lowered: dict[tuple[str, str], int] = {}
    out, current, depth = [], None, 0
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        m = _RESOURCE.match(line)
        if depth == 0 and m:
            current, depth = (m.group(1), f"{m.group(1)}.{m.group(2)}"), 1
            out.append(line)
            continue
        if current and depth == 1:
            r = _REGION.match(line)
            if r:
                if current[0] not in REGIONAL:
                    raise DerivationError(f"line {n}: {current[1]} sets region, but {current[0]} is not in REGIONAL")
                placed[current[1]] = r.group(1)
                out.append(f"  provider = aws.{alias(r.group(1))}\n")
                continue
            if re.match(r"^  provider\s*=", line):
                raise DerivationError(f"line {n}: {current[1]} names a provider configuration; a 6.x fixture "
                                      "places resources with region only")
            num = _NUMBER.match(line)
            if num and (current[0], num.group(1)) in SIX_ONLY_MAX:
                top = SIX_ONLY_MAX[(current[0], num.group(1))]
                if int(num.group(2)) > top:
                    lowered[(current[1], num.group(1))] = int(num.group(2))
                    out.append(f"  {num.group(1)} = {top}\n")
                    continue
        if current:
            depth += line.count("{") - line.count("}")
            if depth <= 0:
                current, depth = None, 0
        out.append(line)
    return "".join(out), placed, lowered


def twin_providers(regions: set[str]) -> str:
    """A provider configuration per Region: the default one's arguments, an alias, its Region."""
    base = PROVIDER.read_text()
    block = base[base.index('provider "aws" {'):]
    return "".join(block.replace('provider "aws" {\n', f'provider "aws" {{\n  alias                       = "{alias(r)}"\n', 1)
                   .replace(f'region                      = "{DEFAULT_REGION}"', f'region                      = "{r}"')
                   for r in sorted(regions))


def _base(address: str) -> str:
    return re.sub(r"\[[^\]]*\]$", "", address)


def derive(plan: dict, placed: dict[str, str], lowered: dict[tuple[str, str], int]) -> dict:
    """The 6.x shape of a real 5.x plan of a twin (see the module docstring)."""
    six = copy.deepcopy(plan)
    cfg = six.get("configuration", {})
    root = cfg.get("root_module", {})
    if root.get("module_calls"):
        raise DerivationError("module calls: only root-module resources are derived")
    for r in root.get("resources", []):
        kind = (r["mode"], r["type"])
        _known(*kind)
        if r["address"] in placed:
            r["provider_config_key"] = "aws"
            r.setdefault("expressions", {})["region"] = {"constant_value": placed[r["address"]]}
        for (address, attr), value in lowered.items():
            if address == r["address"]:
                r["expressions"][attr] = {"constant_value": value}
    for key in [k for k in cfg.get("provider_config", {}) if k.startswith("aws.region_")]:
        del cfg["provider_config"][key]

    def fill(values: dict | None, address: str, mode: str, type_: str) -> None:
        if values is None or mode != "managed" or type_ not in REGIONAL:
            return
        values["region"] = placed.get(_base(address), DEFAULT_REGION)
        for (a, attr), value in lowered.items():
            if a == _base(address):
                values[attr] = value

    for r in six.get("planned_values", {}).get("root_module", {}).get("resources", []):
        _known(r["mode"], r["type"])
        fill(r.get("values"), r["address"], r["mode"], r["type"])
    for rc in six.get("resource_changes", []):
        _known(rc["mode"], rc["type"])
        if rc.get("module_address"):
            raise DerivationError(f"{rc['address']}: only root-module resources are derived")
        for side in ("before", "after"):
            fill(rc["change"].get(side), rc["address"], rc["mode"], rc["type"])
    return six


def _known(mode: str, type_: str) -> None:
    ok = type_ in (REGIONAL | GLOBAL) if mode == "managed" else type_ in GLOBAL_DATA
    if not ok:
        raise DerivationError(f"{mode} {type_}: whether its 6.x schema has a top-level region is not declared here "
                              "(REGIONAL, GLOBAL, GLOBAL_DATA)")


# ------------------------------------------------------------------------------------------
# fixtures
# ------------------------------------------------------------------------------------------
def names() -> list[str]:
    return sorted(p.name for p in CONFIGS.iterdir() if p.is_dir() and (p / "main.tf").exists())


def inputs(name: str) -> list[fixture_plans.Input]:
    d = CONFIGS / name
    return [*sorted(d.glob("*.tf")), (d / "providers.tf", PROVIDER), Path(__file__).resolve()]


def plan_twin(name: str) -> tuple[dict, dict[str, str], dict[tuple[str, str], int]]:
    """Plan the 5.x twin of configuration ``name`` for real: (plan, placed, lowered)."""
    d = CONFIGS / name
    text, placed, lowered = twin((d / "main.tf").read_text())
    work = Path(tempfile.mkdtemp(prefix=f"provider6-{name}-"))
    try:
        for f in d.glob("*.tf"):
            if f.name != "main.tf":
                shutil.copy(f, work / f.name)
        (work / "main.tf").write_text(text)
        (work / "providers.tf").write_text(PROVIDER.read_text())
        (work / "twin_providers.tf").write_text(twin_providers(set(placed.values())))
        tf = Terraform(work)
        tf.init(backend=False)
        return tf.plan_json(), placed, lowered
    finally:
        shutil.rmtree(work, ignore_errors=True)


def regenerate(chosen: list[str] | None = None) -> list[str]:
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = fixture_plans.Manifest.load(OUT)
    env = fixture_plans.environment()
    changed = []
    for name in chosen or names():
        plan, placed, lowered = plan_twin(name)
        six = derive(plan, placed, lowered)
        for fixture, doc, what in ((name, six, "provider 6.x shape, derived"), (f"{name}.twin", plan, "real plan of the 5.x twin")):
            path = manifest.path(fixture)
            old = json.loads(path.read_text()) if path.exists() else None
            if old is None or fixture_plans.normalized(old) != fixture_plans.normalized(doc):
                path.write_text(fixture_plans.dump(doc))
                changed.append(fixture)
            manifest.record(fixture, inputs(name), None, COMMAND, environment=env, produced=what)
    manifest.save()
    return changed


def stale() -> list[str]:
    manifest = fixture_plans.Manifest.load(OUT)
    problems = []
    for name in names():
        for fixture in (name, f"{name}.twin"):
            p = manifest.check_inputs(fixture, inputs(name), None)
            if p:
                problems.append(p)
    return problems


def load(name: str) -> dict:
    """The 6.x-shaped fixture ``name`` (``<name>.twin``: its twin's real plan), after checking
    it is current."""
    base = name.removesuffix(".twin")
    problem = fixture_plans.Manifest.load(OUT).check_inputs(name, inputs(base), None)
    if problem:
        raise fixture_plans.StaleFixture(problem)
    return json.loads((OUT / f"{name}.json").read_text())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tooling.provider6_plans", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="configurations under tests/policies/provider6 (default: all)")
    ap.add_argument("--check", action="store_true", help="list stale fixtures and exit 1 if any (no Terraform)")
    args = ap.parse_args(argv)
    if args.check:
        problems = stale()
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    try:
        for fixture in regenerate(args.names or None):
            print(f"updated {OUT.relative_to(REPO_ROOT)}/{fixture}.json")
    except DerivationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
