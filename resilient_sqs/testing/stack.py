"""Apply a team's own Terraform stack on an endpoint (LocalStack) and destroy it afterwards.

* The stack directory is copied to a work directory; the team's directory is never written.
  Module sources that are relative paths leaving the stack directory (``../..``, a module in
  a sibling folder) are rewritten to the relative path from the copy, so they keep working;
  local module folders inside the stack are copied with it.
* An override file points every AWS provider configuration of the root module (the default
  and each alias) at the endpoint, as tflocal does: every service's endpoint, test
  credentials, S3 path style. A declared backend is overridden with a local one.
* ``terraform init``, ``plan`` and ``apply`` of that plan run through python-terraform
  (:mod:`resilient_sqs.testing.terraform`); the plan (for its configuration) and the state
  (``terraform show -json``, for the applied values) feed the discovery.
* :meth:`AppliedStack.destroy` runs ``terraform destroy`` within a time bound (attribute-only
  resources on the stack's own queues are dropped from the state first) and reports what is
  left behind by name, with the command that removes it.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .terraform import Terraform, TerraformError

Progress = Callable[[str], None]

# The provider's endpoint names of the services LocalStack emulates (canonical names only: an
# alias beside its canonical name is an error). AWS_ENDPOINT_URL covers any other service.
ENDPOINT_SERVICES = (
    "acm", "apigateway", "apigatewayv2", "appconfig", "appsync", "athena", "autoscaling", "backup", "batch",
    "cloudformation", "cloudfront", "cloudtrail", "cloudwatch", "codecommit", "cognitoidentity", "cognitoidp",
    "dynamodb", "ec2", "ecr", "ecs", "eks", "elasticache", "elbv2", "es", "events", "firehose", "glue", "iam",
    "iot", "kafka", "kinesis", "kms", "lambda", "logs", "opensearch", "organizations", "pipes", "rds",
    "redshift", "resourcegroups", "resourcegroupstaggingapi", "route53", "route53resolver", "s3", "s3control",
    "scheduler", "secretsmanager", "servicediscovery", "ses", "sesv2", "sfn", "sns", "sqs", "ssm", "sts",
    "swf", "transfer", "wafv2", "xray",
)

_SOURCE = re.compile(r'(^\s*source\s*=\s*")(\.{1,2}/[^"]*|\.{1,2})(")', re.MULTILINE)
_PROVIDER_AWS = re.compile(r'^\s*provider\s+"aws"\s*\{', re.MULTILINE)
_BACKEND = re.compile(r'^\s*backend\s+"[^"]+"', re.MULTILINE)
_CLOUD = re.compile(r'^\s*cloud\s*\{', re.MULTILINE)
DESTROY_TIMEOUT = 600.0  # seconds `terraform destroy` may take before it is stopped (--destroy-timeout)
_COPY_IGNORE = shutil.ignore_patterns(".terraform", "*.tfstate", "*.tfstate.*", "terraform.tfstate.d", ".git",
                                      "__pycache__", ".venv*")


@contextlib.contextmanager
def ticking(progress: "Progress", what: str, every: float = 20.0):
    """A progress line every ``every`` seconds while a long step runs."""
    done = threading.Event()
    t0 = time.monotonic()

    def tick() -> None:
        while not done.wait(every):
            progress(f"... {what}: {time.monotonic() - t0:.0f} s")

    t = threading.Thread(target=tick, daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


class StackError(RuntimeError):
    """The stack cannot be used as given (not a Terraform directory, apply failed, bad
    variables). The message says what was wrong; the CLI exits 2 with it."""


def _quiet(_msg: str) -> None:
    pass


def _tf_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.suffix == ".tf" or p.name.endswith(".tf.json"))
                  and ".terraform" not in p.relative_to(root).parts)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def _rewrite_source(src: str, original_dir: Path, copy_dir: Path, stack: Path) -> str:
    target = (original_dir / src).resolve()
    if _inside(target, stack):
        return src  # copied with the stack: the relative path still holds
    rel = os.path.relpath(target, copy_dir)
    return rel if rel.startswith("..") else f"./{rel}"


def copy_stack(stack_dir: Path, work_root: Path) -> Path:
    """Copy ``stack_dir`` into ``work_root`` with relative module sources that leave it rewritten.

    Returns the copy's root directory. Raises :class:`StackError` when ``stack_dir`` is not a
    Terraform root configuration.
    """
    stack = Path(stack_dir).resolve()
    if not stack.is_dir():
        raise StackError(f"{stack_dir}: no such directory. Give the directory of the Terraform root module to check.")
    if not any(p.suffix == ".tf" or p.name.endswith(".tf.json") for p in stack.iterdir()):
        raise StackError(f"{stack_dir}: no *.tf files in it. Give the directory of the Terraform root module "
                         "(where you run `terraform apply`).")
    work = Path(work_root) / stack.name
    shutil.copytree(stack, work, ignore=_COPY_IGNORE, symlinks=True)
    for copy in _tf_files(work):
        original = stack / copy.relative_to(work)
        text = copy.read_text()
        if copy.suffix == ".tf":
            new = _SOURCE.sub(lambda m: m.group(1) + _rewrite_source(m.group(2), original.parent, copy.parent, stack)
                              + m.group(3), text)
        else:
            try:
                doc = json.loads(text)
            except ValueError:
                continue
            mods = doc.get("module") if isinstance(doc, dict) else None
            changed = False
            for block in ([mods] if isinstance(mods, dict) else mods if isinstance(mods, list) else []):
                for _name, body in block.items():
                    for b in (body if isinstance(body, list) else [body]):
                        src = b.get("source") if isinstance(b, dict) else None
                        if isinstance(src, str) and src.startswith(("./", "../")):
                            b["source"] = _rewrite_source(src, original.parent, copy.parent, stack)
                            changed = True
            new = json.dumps(doc, indent=2) if changed else text
        if new != text:
            copy.write_text(new)
    return work


def provider_aliases(root: Path) -> tuple[bool, list[str]]:
    """(whether the root module configures the default ``aws`` provider, the aliases it configures)."""
    has_default, aliases = False, []
    for tf in sorted(root.glob("*.tf")):
        if tf.name.endswith("_override.tf") or tf.name == "override.tf":
            continue
        text = tf.read_text()
        for m in _PROVIDER_AWS.finditer(text):
            # the block's body: up to the matching closing brace
            depth, i = 0, m.end() - 1
            while i < len(text):
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            body = text[m.end():i]
            alias = re.search(r'^\s*alias\s*=\s*"([^"]+)"', body, re.MULTILINE)
            if alias:
                aliases.append(alias.group(1))
            else:
                has_default = True
    for tfj in sorted(root.glob("*.tf.json")):
        try:
            doc = json.loads(tfj.read_text())
        except ValueError:
            continue
        prov = doc.get("provider", {}) if isinstance(doc, dict) else {}
        for block in ([prov] if isinstance(prov, dict) else prov):
            aws = block.get("aws") if isinstance(block, dict) else None
            for b in (aws if isinstance(aws, list) else [aws] if aws else []):
                if isinstance(b, dict) and b.get("alias"):
                    aliases.append(b["alias"])
                elif b is not None:
                    has_default = True
    return has_default, aliases


def provider_override(endpoint: str, has_default: bool, aliases: list[str], region: str) -> dict[str, str]:
    """{file name: HCL} of the files pointing every AWS provider configuration at ``endpoint``.

    An ``_override.tf`` file merges into the stack's own provider blocks; a stack that has no
    default ``provider "aws"`` block gets one in a plain file (an override needs a block to override).
    """
    def block(alias: str | None, with_region: bool) -> str:
        lines = ['provider "aws" {']
        if alias:
            lines.append(f'  alias                       = "{alias}"')
        if with_region:
            lines.append(f'  region                      = "{region}"')
        lines += [
            '  access_key                  = "test"',
            '  secret_key                  = "test"',
            "  skip_credentials_validation = true",
            "  skip_metadata_api_check     = true",
            "  s3_use_path_style           = true",
            "  endpoints {",
            *[f'    {svc:<26} = "{endpoint}"' for svc in ENDPOINT_SERVICES],
            "  }",
            "}",
        ]
        return "\n".join(lines)

    header = "# Written by sqs-behave: every AWS service of every provider configuration goes to the endpoint.\n"
    files = {}
    overrides = ([block(None, False)] if has_default else []) + [block(a, False) for a in aliases]
    if overrides:
        files["sqs_behave_override.tf"] = header + "\n\n".join(overrides) + "\n"
    if not has_default:
        files["sqs_behave_provider.tf"] = header + block(None, True) + "\n"
    return files


@dataclass
class AppliedStack:
    """A copy of a team's stack, applied (or being applied) on an endpoint.

    ``endpoint``: None for real AWS (no override file: the provider and credentials from the
    environment, as the stack is normally applied).
    """

    source: Path
    endpoint: str | None
    env: dict[str, str]
    var_args: list[str] = field(default_factory=list)
    progress: Progress = _quiet
    keep: bool = False
    region: str = "us-east-1"
    work_root: Path | None = None
    work: Path | None = None
    tf: Terraform | None = None
    applied: bool = False
    destroyed: bool = False
    plan: dict | None = None
    state: dict | None = None
    outputs: dict = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    destroy_timeout: float = DESTROY_TIMEOUT
    discard: bool = False  # the endpoint is thrown away after the run: do not destroy
    leftovers: list[str] = field(default_factory=list)
    remedy: str | None = None  # how to remove the leftovers
    kept: str | None = None  # --keep: how to destroy it

    def prepare(self) -> None:
        self.work_root = Path(tempfile.mkdtemp(prefix="sqs-behave-"))
        self.work = copy_stack(self.source, self.work_root)
        if self.endpoint:
            has_default, aliases = provider_aliases(self.work)
            for name, text in provider_override(self.endpoint, has_default, aliases, self.region).items():
                (self.work / name).write_text(text)
            if any(_BACKEND.search(tf.read_text()) for tf in self.work.glob("*.tf")):
                (self.work / "sqs_behave_backend_override.tf").write_text(
                    '# Written by sqs-behave: state stays in the work directory\nterraform {\n  backend "local" {}\n}\n')
            if any(_CLOUD.search(tf.read_text()) for tf in self.work.glob("*.tf")):
                raise StackError(f"{self.source}: the stack uses a `cloud {{}}` block (HCP Terraform); sqs-behave "
                                 "applies the stack locally. Remove the cloud block in a copy, or move it to a backend.")
        try:
            self.tf = Terraform(self.work, env=self.env, timeout=3600)
        except RuntimeError as exc:  # terraform not on PATH
            raise StackError(str(exc)) from None
        self.tf.var_args = list(self.var_args)

    def apply(self) -> None:
        """init, plan, apply the plan; read the plan's configuration and the state. Raises StackError."""
        if self.tf is None:
            self.prepare()
        t0 = time.monotonic()
        self.progress(f"terraform init in {self.work} (a copy of {self.source})")
        try:
            self.tf.init()
        except TerraformError as exc:
            raise StackError(f"terraform init of {self.source} failed:\n" + "\n".join(exc.errors or [str(exc)])) from None
        self.timings["init"] = time.monotonic() - t0
        t0 = time.monotonic()
        self.progress("terraform plan")
        try:
            plan_file = self.tf.plan(out="sqs-behave.tfplan")
            self.plan = self.tf.show_json(plan_file)
        except TerraformError as exc:
            raise StackError(f"terraform plan of {self.source} failed:\n" + "\n".join(exc.errors or [str(exc)])) from None
        self.timings["plan"] = time.monotonic() - t0
        t0 = time.monotonic()
        n = sum(1 for rc in self.plan.get("resource_changes", []) if "create" in rc["change"]["actions"])
        self.progress(f"terraform apply: creating {n} resources (the AWS provider waits about 25 s per queue round)")
        self.applied = True  # a failed apply may have created something: destroy it at the end
        try:
            with ticking(self.progress, "terraform apply still running"):
                self.tf.apply(plan_file)
        except TerraformError as exc:
            raise StackError(f"terraform apply of {self.source} failed:\n" + "\n".join(exc.errors or [str(exc)])) from None
        self.timings["apply"] = time.monotonic() - t0
        self.state = self.tf.show_json()
        try:
            self.outputs = self.tf.outputs()
        except TerraformError:
            self.outputs = {}

    def destroy(self) -> list[str]:
        """Destroy what was applied; returns what is left behind, one line per resource (empty:
        nothing; :attr:`remedy` then says how to remove it).

        * ``keep``: nothing is destroyed; :attr:`kept` says how to destroy it.
        * ``discard``: the endpoint is thrown away after the run (an embedded instance this run
          started): nothing to wait for, nothing is destroyed, and that is said.
        * Attribute-only resources (queue policies, redrive and redrive-allow policies, see
          :data:`ATTRIBUTE_RESOURCES`) on queues of the state are removed from the state first:
          deleting their queue deletes them. (On LocalStack 4.9.2 a cleared ``RedriveAllowPolicy``
          reads back as ``""`` instead of absent, so the AWS provider's delete of
          ``aws_sqs_queue_redrive_allow_policy`` waits its full 20-minute timeout.)
        * ``terraform destroy`` is bounded by ``destroy_timeout`` seconds; at the bound it is
          stopped and what is left is reported.
        """
        if not self.applied or self.tf is None:
            self._remove_work()
            return []
        if self.keep:
            self.kept = f"kept applied (--keep): destroy it with `{self.destroy_command()}`"
            return []
        if self.discard:
            self.progress("not destroyed: the embedded endpoint this run started is stopped and its data removed, "
                          "which removes the stack with it (no destroy to wait for)")
            self.applied = False
            self.destroyed = True
            self._remove_work()
            return []
        t0 = time.monotonic()
        left: list[str] = []
        try:
            state = self.tf.show_json()
        except TerraformError:
            state = self.state or {}
        resources = state_resources(state)
        attrs = attribute_resources_on_own_queues(resources)
        if attrs:
            self.progress(f"removing {len(attrs)} attribute resource(s) from the state before destroy; deleting their "
                          f"queue deletes them: {', '.join(attrs)}")
            try:
                self.tf.state_rm(attrs)
            except TerraformError as exc:
                self.progress(f"could not remove them from the state ({' '.join(exc.errors) or exc}); destroying them")
        self.progress(f"terraform destroy ({len(resources) - len(attrs)} resources; stopped after "
                      f"{self.destroy_timeout:.0f} s if still running)")
        try:
            with ticking(self.progress, "terraform destroy still running"):
                self.tf.destroy(refresh=False, timeout=self.destroy_timeout)  # just applied: no need to read back
            self.applied = False
            self.destroyed = True
        except TerraformError as exc:
            if exc.timed_out:
                left.append(f"terraform destroy did not finish within {self.destroy_timeout:.0f} s and was stopped "
                            "(set the bound with --destroy-timeout / --sqs-destroy-timeout)")
            else:
                left.append(f"terraform destroy failed: {' '.join(exc.errors) or exc}")
        except BaseException:
            self.remedy = f"run `{self.destroy_command()}`"
            self.leftovers = ["terraform destroy interrupted"]
            raise
        finally:
            self.timings["destroy"] = time.monotonic() - t0
        try:
            after = state_resources(self.tf.show_json())
        except TerraformError as exc:
            left.append(f"cannot read the state after destroy: {exc}")
            after = []
        left += [leftover_line(r) for r in after]
        left += self.sweep_unrecorded(after)
        if left:
            self.remedy = (f"the work directory {self.work} is kept; remove what is left with `{self.destroy_command()}`"
                           + (f" while the endpoint {self.endpoint} runs" if self.endpoint else ""))
            hints = [h for h in (leftover_hint(r, self.endpoint) for r in after) if h]
            if hints:
                self.remedy += "; first " + "; ".join(hints)
        else:
            self._remove_work()
        self.leftovers = left
        return left

    def sweep_unrecorded(self, in_state: list[dict]) -> list[str]:
        """Queues, topics and alarms the plan named that exist on the endpoint although the state does
        not hold them: an apply stopped mid-way (Ctrl-C, SIGTERM, a time bound) can create a resource
        and be stopped before it records it, so ``terraform destroy`` never sees it. On an emulator
        endpoint they are deleted (this run created them); on real AWS they are reported with the
        command that deletes them (a queue of that name may have existed before)."""
        if self.plan is None:
            return []
        recorded = {r["address"] for r in in_state}
        planned = [r for r in state_resources({"values": self.plan.get("planned_values") or {}})
                   if r["address"] not in recorded]
        if not planned:
            return []
        from .aws import Clients

        clients = Clients(self.endpoint, self.region)
        out: list[str] = []
        for r in planned:
            v = r.get("values") or {}
            kind, name = r.get("type"), v.get("name") or v.get("alarm_name")
            if not isinstance(name, str):
                continue
            try:
                if kind == "aws_sqs_queue":
                    sqs = clients.client("sqs")
                    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
                    gone = (sqs.delete_queue, {"QueueUrl": url})
                    command = f"aws sqs delete-queue --queue-url {url}"
                elif kind == "aws_sns_topic":
                    sns = clients.client("sns")
                    arn = next((t["TopicArn"] for page in sns.get_paginator("list_topics").paginate()
                                for t in page["Topics"] if t["TopicArn"].rsplit(":", 1)[-1] == name), None)
                    if arn is None:
                        continue
                    gone = (sns.delete_topic, {"TopicArn": arn})
                    command = f"aws sns delete-topic --topic-arn {arn}"
                elif kind == "aws_cloudwatch_metric_alarm":
                    cw = clients.client("cloudwatch")
                    if not cw.describe_alarms(AlarmNames=[name]).get("MetricAlarms"):
                        continue
                    gone = (cw.delete_alarms, {"AlarmNames": [name]})
                    command = f"aws cloudwatch delete-alarms --alarm-names {name}"
                else:
                    continue
            except Exception:  # noqa: BLE001 - not there (QueueDoesNotExist) or not readable: nothing to sweep
                continue
            if self.endpoint is not None:
                try:
                    gone[0](**gone[1])
                    self.progress(f"deleted {r['address']} ({name}): created by the stopped apply but not recorded "
                                  "in the state")
                    continue
                except Exception as exc:  # noqa: BLE001 - reported below
                    self.progress(f"could not delete {name}: {exc}")
            if self.endpoint:
                command += f" --endpoint-url {self.endpoint}"
            out.append(f"{r['address']} ({name}): not in the state; delete it with `{command}`")
        return out

    def destroy_command(self) -> str:
        """The shell command that destroys the work directory's stack (its endpoint is in the override file)."""
        cfg = self.tf.env().get("TF_CLI_CONFIG_FILE") if self.tf is not None else None
        prefix = f"TF_CLI_CONFIG_FILE={shlex.quote(cfg)} " if cfg else ""
        variables = "".join(f" {shlex.quote(a)}" for a in self.var_args)
        return f"cd {shlex.quote(str(self.work))} && {prefix}terraform destroy -auto-approve{variables}"

    def _remove_work(self) -> None:
        if self.work_root is not None:
            shutil.rmtree(self.work_root, ignore_errors=True)


# attribute-only resources: each sets one attribute of a queue; deleting the queue deletes it
ATTRIBUTE_RESOURCES = {
    "aws_sqs_queue_policy": "Policy",
    "aws_sqs_queue_redrive_policy": "RedrivePolicy",
    "aws_sqs_queue_redrive_allow_policy": "RedriveAllowPolicy",
}


def attribute_resources_on_own_queues(resources: list[dict]) -> list[str]:
    """Addresses of the attribute-only resources whose queue (``queue_url``) is a queue of the same
    state: destroying the queue removes them. Those on a queue the stack does not manage are left
    to ``terraform destroy`` (the queue stays, so its attribute must be cleared)."""
    own = {(r.get("values") or {}).get(k) for r in resources if r.get("type") == "aws_sqs_queue" for k in ("url", "id")}
    own.discard(None)
    return [r["address"] for r in resources
            if r.get("type") in ATTRIBUTE_RESOURCES and (r.get("values") or {}).get("queue_url") in own]


def leftover_line(resource: dict) -> str:
    """A resource still in the state after destroy, by address and by the name it has on the endpoint."""
    v = resource.get("values") or {}
    name = v.get("name") or v.get("bucket") or v.get("alarm_name") or v.get("function_name") or v.get("arn") or v.get("id")
    return f"{resource['address']}" + (f" ({name})" if name else "")


def leftover_hint(resource: dict, endpoint: str | None) -> str | None:
    """What must happen before ``terraform destroy`` can remove ``resource`` (None: nothing)."""
    v = resource.get("values") or {}
    url = f" --endpoint-url {endpoint}" if endpoint else ""
    if resource.get("type") == "aws_dynamodb_table" and v.get("deletion_protection_enabled"):
        return (f"turn off the deletion protection of table {v.get('name')} (`aws dynamodb update-table --table-name "
                f"{v.get('name')} --no-deletion-protection-enabled{url}`)")
    if resource.get("type") == "aws_s3_bucket" and not v.get("force_destroy"):
        return (f"empty bucket {v.get('bucket')} (`aws s3 rm s3://{v.get('bucket')} --recursive{url}`; it has no "
                "force_destroy)")
    return None


def state_resources(state: dict) -> list[dict]:
    """Every managed resource in ``terraform show -json`` state output (modules included)."""
    out: list[dict] = []

    def walk(mod: dict) -> None:
        out.extend(r for r in mod.get("resources", []) if r.get("mode") == "managed")
        for child in mod.get("child_modules", []):
            walk(child)

    walk((state.get("values") or {}).get("root_module") or {})
    return out


def parse_var(text: str) -> str:
    """Check a ``--var k=v`` argument; returns it for Terraform's ``-var``."""
    name, sep, _value = text.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name.strip()):
        raise StackError(f"--var {text!r}: expected NAME=VALUE (as terraform's -var), e.g. --var name_prefix=ci")
    return text


def unique_suffix() -> str:
    return uuid.uuid4().hex[:6]
