"""Plan cost stays linear in the number of queues: a guard on the HCL pattern that made it
quadratic (measured with tooling/bench_plan.py; see README "Plan cost").

Terraform evaluates a reference to a module call or a resource as the object of *all* its
instances, even when the expression then picks one with ``[each.key]``. Inside a block
repeated N times (for_each/count), ``module.queue[each.key].x`` therefore builds N objects
per instance: N^2 for the plan. Such blocks must index a local built once instead
(``local.pairs[each.key]`` in the root module).
"""
from __future__ import annotations

import re
from pathlib import Path

from tests.support.helpers import REPO_ROOT

# module.<call>[each.key|count.index], <type>.<name>[...], data.<type>.<name>[...]
PER_INSTANCE_REF = re.compile(
    r"(?<![\w.])(module\.[A-Za-z_][\w-]*|data\.[a-z][\w]*\.[A-Za-z_][\w-]*|(?!local\.|var\.|each\.|count\.|path\.|terraform\.|module\.|data\.)[a-z][a-z0-9]*_[\w]*\.[A-Za-z_][\w-]*)"
    r"\[\s*(each\.key|count\.index)\s*\]"
)
# a reference kept on purpose says so in a comment on its line, with the reason beside it
ALLOWED = "per-instance on purpose"
BLOCK_START = re.compile(r'^(module|resource|data|output)\s+"[^"]+"(\s+"[^"]+")?\s*\{\s*$')
REPEATED = re.compile(r"^  (for_each|count)\s*=")


def _blocks(text: str):
    """Top-level blocks of a formatted .tf file: (first line number, header, body lines)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if BLOCK_START.match(lines[i]):
            start = i
            i += 1
            while i < len(lines) and lines[i] != "}":
                i += 1
            yield start + 1, lines[start], lines[start + 1:i]
        i += 1


def per_instance_references(text: str) -> list[tuple[int, str, str]]:
    """(line number, reference, block header) for each per-instance module/resource reference
    inside a block repeated with for_each or count."""
    found = []
    for line_no, header, body in _blocks(text):
        if not any(REPEATED.match(line) for line in body):
            continue
        for offset, line in enumerate(body, start=1):
            code, _, comment = line.partition("#")
            if ALLOWED in comment:
                continue
            found += [(line_no + offset, m.group(1), header.rstrip(" {")) for m in PER_INSTANCE_REF.finditer(code)]
    return found


def module_tf_files() -> list[Path]:
    return sorted([*REPO_ROOT.glob("*.tf"), *(REPO_ROOT / "modules").glob("*/*.tf")])


def test_no_repeated_block_indexes_a_module_or_resource_per_instance():
    found = [
        f"{tf.relative_to(REPO_ROOT)}:{line}: {ref}[...] in {header}"
        for tf in module_tf_files()
        for line, ref, header in per_instance_references(tf.read_text())
    ]
    assert found == [], (
        "blocks repeated with for_each/count reference a module call or resource by [each.key]: "
        "each instance then evaluates all N instances (quadratic plan). Index a local built once "
        "instead (see local.pairs in main.tf):\n" + "\n".join(found)
    )


def test_the_guard_finds_the_pattern():
    """The scanner itself: the quadratic forms are reported, the local form, comments and
    blocks that are not repeated are not."""
    text = (
        'module "iam" {\n'
        '  source   = "./modules/iam"\n'
        "  for_each = var.queues\n\n"
        "  producer_queue_arns = [module.queue[each.key].queue_arn_static]\n"
        "  name                = aws_sqs_queue.this[each.key].name\n"
        "  doc                 = data.aws_iam_policy_document.x[count.index].json\n"
        "  fine                = local.pairs[each.key].queue_arn_static # module.queue[each.key] in a comment\n"
        "  kept                = module.queue[each.key].queue_arn # per-instance on purpose: a reason\n"
        "}\n\n"
        'output "single" {\n'
        "  value = module.queue[each.key]\n"
        "}\n"
    )
    assert per_instance_references(text) == [
        (5, "module.queue", 'module "iam"'),
        (6, "aws_sqs_queue.this", 'module "iam"'),
        (7, "data.aws_iam_policy_document.x", 'module "iam"'),
    ]
    assert module_tf_files(), "no .tf files found: the guard would pass vacuously"


# Terraform's plan cost also grows with the outputs each module instance declares (for
# every output of every instance it scans the output changes recorded so far): measured at
# 300 pairs, modules/queue with fifteen outputs cost 68 s of plan CPU, with one output 55 s.
# The modules the root calls once per queue therefore return objects, not one output per
# value. The budget is what they declare today: modules/queue 2 (modules/iam is called per
# queue only when it creates managed policies; the documents come from one instance of
# internal/iam-documents).
OUTPUTS_PER_PAIR_BUDGET = 2
PER_QUEUE_CALL = re.compile(r'^module "([^"]+)" \{\n  source\s*=\s*"\./([^"]+)"\n  for_each\s*=\s*local\.queues\n', re.M)
OUTPUT_BLOCK = re.compile(r'^output "[^"]+" \{', re.M)


def per_queue_module_outputs() -> dict[str, int]:
    """{module call: outputs its source declares} for the root's calls made once per queue."""
    root = (REPO_ROOT / "main.tf").read_text()
    return {
        name: sum(len(OUTPUT_BLOCK.findall(tf.read_text())) for tf in (REPO_ROOT / source).glob("*.tf"))
        for name, source in PER_QUEUE_CALL.findall(root)
    }


def test_modules_called_per_queue_declare_few_outputs():
    outputs = per_queue_module_outputs()
    assert "queue" in outputs, f"the per-queue module call was not found in main.tf: {outputs}"
    assert sum(outputs.values()) <= OUTPUTS_PER_PAIR_BUDGET, (
        f"modules called once per queue declare {outputs} outputs: each output of each instance adds plan "
        f"cost that grows faster than the number of queues. Return an object from an existing output "
        f"instead of adding one (budget {OUTPUTS_PER_PAIR_BUDGET} per pair)."
    )
