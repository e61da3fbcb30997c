"""The facts of resilient_sqs/facts.py have one source: the generated copies are current, the
declared copies (the redrive function's constants, HCL literals) agree with it, and the
modules, rules and checks use the source rather than a literal of their own."""
from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import hcl2
from tests.support.helpers import REPO_ROOT
import pytest

from resilient_sqs import facts
from tests.support.helpers import load_dlq_redrive
from tooling import facts as gen

ROOT = REPO_ROOT


def _variables(module: str) -> dict[str, dict]:
    with open(ROOT / module / "variables.tf") as f:
        return {name.strip('"'): {k: v.strip('"') if isinstance(v, str) and k in ("default", "description") else v
                                     for k, v in body.items()}
                for block in hcl2.load(f)["variable"] for name, body in block.items()}


def _fact_names() -> dict[str, object]:
    return {n: getattr(facts, n) for n in dir(facts) if n.isupper()}


# -- generated copies ------------------------------------------------------------------------------

def test_generated_files_are_current():
    assert gen.stale() == [], gen.stale_message(gen.stale())


def test_a_changed_fact_makes_its_generated_files_stale(tmp_path):
    """The staleness check can fail: change one fact and exactly the files that hold it differ."""
    changed = types.ModuleType("facts")
    changed.__dict__.update(_fact_names())
    changed.VISIBILITY_TIMEOUT_MULTIPLIER = 7
    for path, text in gen.outputs().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert gen.stale(tmp_path) == []
    assert gen.stale(tmp_path, changed) == ["modules/queue/facts.tf", "modules/lambda-consumer/facts.tf"]
    assert "visibility_timeout_multiplier     = 7\n" in gen.outputs(changed)["modules/queue/facts.tf"]
    assert "generated fact files are stale: modules/queue/facts.tf" in gen.stale_message(["modules/queue/facts.tf"])


@pytest.mark.parametrize("path", sorted(gen.HCL_LOCALS))
def test_every_generated_local_is_used_by_its_module(path):
    """A generated local nobody reads would leave the module on a literal of its own."""
    module = (ROOT / path).parent
    text = "".join(p.read_text() for p in sorted(module.glob("*.tf")) if p.name != "facts.tf")
    unused = [n for n in gen.HCL_LOCALS[path] if f"local.{n}" not in text]
    assert unused == [], f"{path}: locals {unused} are generated but {module.name} does not use them"


@pytest.mark.parametrize("path", sorted(gen.PY_CONSTANTS))
def test_every_generated_constant_is_used_by_the_checks(path):
    checks = "".join(p.read_text() for p in (ROOT / path).parent.glob("*.py") if p.name != "_facts.py")
    unused = [n for n in gen.PY_CONSTANTS[path] if not re.search(rf"\b{n}\b", checks)]
    assert unused == []


def test_every_generated_name_is_a_fact():
    names = _fact_names()
    for path, locs in gen.HCL_LOCALS.items():
        assert set(locs.values()) <= set(names), path
    for path, consts in gen.PY_CONSTANTS.items():
        assert set(consts) <= set(names), path


def test_the_modules_hold_no_literal_of_the_visibility_multiplier():
    for module in ("modules/queue", "modules/lambda-consumer"):
        for p in sorted((ROOT / module).glob("*.tf")):
            if p.name == "facts.tf":
                continue
            code = "\n".join(line for line in p.read_text().splitlines() if "description" not in line)
            assert not re.search(rf"\b{facts.VISIBILITY_TIMEOUT_MULTIPLIER}\s*\*|below {facts.VISIBILITY_TIMEOUT_MULTIPLIER} x", code), p


# -- declared copies -------------------------------------------------------------------------------

def _module_constants(path: Path) -> dict[str, object]:
    """Module-level constant assignments of a Python file, read without importing it."""
    out: dict[str, object] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = value
                elif isinstance(target, ast.Tuple) and isinstance(value, tuple):
                    out.update({t.id: v for t, v in zip(target.elts, value) if isinstance(t, ast.Name)})
    return out


def test_the_redrive_function_declares_the_same_facts():
    """The function ships in a Lambda zip without the package: its copies must agree."""
    got = _module_constants(ROOT / "modules/dlq-redrive/src/dlq_redrive.py")
    assert {k: got.get(k) for k in ("REDRIVE_COUNT_ATTR", "FAILURE_REASON_ATTR", "MAX_REDRIVE_COUNT_DEFAULT",
                                    "MAX_REDRIVE_COUNT_MIN", "MAX_REDRIVE_COUNT_MAX")} == {
        "REDRIVE_COUNT_ATTR": facts.REDRIVE_COUNT_ATTRIBUTE,
        "FAILURE_REASON_ATTR": facts.FAILURE_REASON_ATTRIBUTE,
        "MAX_REDRIVE_COUNT_DEFAULT": facts.MAX_REDRIVE_COUNT_DEFAULT,
        "MAX_REDRIVE_COUNT_MIN": facts.MAX_REDRIVE_COUNT_MIN,
        "MAX_REDRIVE_COUNT_MAX": facts.MAX_REDRIVE_COUNT_MAX,
    }


def test_the_redrive_function_accepts_what_the_module_accepts():
    """The settled bounds: the function's MAX_REDRIVE_COUNT range is the module input's."""
    mod = load_dlq_redrive()
    env = {"DLQ_URL": "https://sqs/1/dlq", "SOURCE_QUEUE_URL": "https://sqs/1/src", "ARCHIVE_BUCKET": "b"}
    assert mod.Config.from_env(env).max_redrive_count == facts.MAX_REDRIVE_COUNT_DEFAULT
    assert mod.Config.from_env(env).failure_reason_attribute == facts.FAILURE_REASON_ATTRIBUTE
    for ok in (facts.MAX_REDRIVE_COUNT_MIN, facts.MAX_REDRIVE_COUNT_MAX):
        assert mod.Config.from_env({**env, "MAX_REDRIVE_COUNT": str(ok)}).max_redrive_count == ok
    for bad in (facts.MAX_REDRIVE_COUNT_MIN - 1, facts.MAX_REDRIVE_COUNT_MAX + 1):
        with pytest.raises(mod.ConfigError, match=rf"MAX_REDRIVE_COUNT.*{bad}"):
            mod.Config.from_env({**env, "MAX_REDRIVE_COUNT": str(bad)})


def test_the_consumer_helpers_use_the_facts():
    from resilient_sqs import consumer

    assert (consumer.REDRIVE_COUNT_ATTR, consumer.FAILURE_REASON_ATTR) == (
        facts.REDRIVE_COUNT_ATTRIBUTE, facts.FAILURE_REASON_ATTRIBUTE)


def test_hcl_defaults_declare_the_same_facts():
    """HCL variable defaults and optional() defaults must be literals: declared copies."""
    redrive = _variables("modules/dlq-redrive")
    assert redrive["max_redrive_count"]["default"] == facts.MAX_REDRIVE_COUNT_DEFAULT
    assert redrive["failure_reason_attribute"]["default"] == facts.FAILURE_REASON_ATTRIBUTE
    assert _variables("modules/lambda-consumer")["maximum_concurrency"]["default"] == facts.MAXIMUM_CONCURRENCY_DEFAULT
    assert _variables("modules/queue")["max_receive_count"]["default"] == facts.MAX_RECEIVE_COUNT_DEFAULT
    inputs = (ROOT / "internal/inputs/variables.tf").read_text()
    assert re.search(rf"\bmax_redrive_count\s*=\s*optional\(any, {facts.MAX_REDRIVE_COUNT_DEFAULT}\)", inputs)
    assert re.search(rf'\bfailure_reason_attribute\s*=\s*optional\(any, "{facts.FAILURE_REASON_ATTRIBUTE}"\)', inputs)
    consumers = (ROOT / "internal/inputs/main.tf").read_text()
    d = facts.MAXIMUM_CONCURRENCY_DEFAULT
    assert (f"maximum_concurrency             = try([for v in [local.q_entries[k].consumer.maximum_concurrency, {d}] "
            f": v if v != null][0], {d})") in consumers


def test_hcl_descriptions_state_the_same_facts():
    """Descriptions are literal strings (they feed the generated docs): declared copies."""
    redrive = _variables("modules/dlq-redrive")["max_redrive_count"]["description"]
    assert f"`{facts.REDRIVE_COUNT_ATTRIBUTE}`" in redrive
    assert f"{facts.MAX_REDRIVE_COUNT_MIN}-{facts.MAX_REDRIVE_COUNT_MAX}." in redrive
    concurrency = _variables("modules/lambda-consumer")["maximum_concurrency"]["description"]
    assert f"{facts.MAXIMUM_CONCURRENCY_MIN}-{facts.MAXIMUM_CONCURRENCY_MAX} (scaling_config). " \
           f"Default {facts.MAXIMUM_CONCURRENCY_DEFAULT}:" in concurrency
    mrc = _variables("modules/queue")["max_receive_count"]["description"]
    assert f"{facts.MAX_RECEIVE_COUNT_MIN}-{facts.MAX_RECEIVE_COUNT_MAX}. Default {facts.MAX_RECEIVE_COUNT_DEFAULT}." in mrc
    k = facts.VISIBILITY_TIMEOUT_MULTIPLIER
    assert f"{k} x timeout + window" in _variables("modules/queue")["consumer"]["description"]
    assert f"{k} x consumer timeout" in _variables("modules/queue")["visibility_timeout_seconds"]["description"]
    assert f"at least {k} x `function_timeout_seconds`" in \
        _variables("modules/lambda-consumer")["queue_visibility_timeout_seconds"]["description"]
    assert facts.FAILURE_REASON_ATTRIBUTE in _variables("modules/iam")["consumer_dlq_arns"]["description"]


def test_the_idempotency_table_module_declares_the_same_layout():
    """The module writes Powertools' layout as HCL literals (a declared copy); the rules
    DDB001/DDB002 and the checkov check expect the facts."""
    with open(ROOT / "modules/idempotency-table/main.tf") as f:
        main = hcl2.load(f)
    table = next(b['"this"'] for block in main["resource"] for t, b in block.items() if t == '"aws_dynamodb_table"')
    assert table["hash_key"] == f'"{facts.IDEMPOTENCY_KEY_ATTRIBUTE}"'
    assert table["attribute"][0]["name"] == f'"{facts.IDEMPOTENCY_KEY_ATTRIBUTE}"'
    assert table["ttl"][0]["attribute_name"] == f'"{facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE}"'
    with open(ROOT / "modules/idempotency-table/outputs.tf") as f:
        outputs = {n.strip('"'): b for block in hcl2.load(f)["output"] for n, b in block.items()}
    assert outputs["key_attr"]["value"] == f'"{facts.IDEMPOTENCY_KEY_ATTRIBUTE}"'
    assert outputs["expiry_attr"]["value"] == f'"{facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE}"'
    assert outputs["expiry_attr"]["description"].endswith(f'always `{facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE}`."')


def test_the_rules_take_their_option_defaults_from_the_facts():
    from resilient_sqs.policy.rules import RULES

    opts = {r: {o.name: o.default for o in RULES[r].options} for r in ("DDB001", "DDB002", "DDB003")}
    assert {o["table_pattern"] for o in opts.values()} == {facts.IDEMPOTENCY_TABLE_PATTERN}
    assert opts["DDB001"]["attribute"] == facts.IDEMPOTENCY_EXPIRY_ATTRIBUTE
    assert opts["DDB002"]["key"] == facts.IDEMPOTENCY_KEY_ATTRIBUTE
    mrc = {o.name: o.default for o in RULES["SQS003"].options}
    assert mrc == {"min": facts.MAX_RECEIVE_COUNT_RECOMMENDED_MIN, "max": facts.MAX_RECEIVE_COUNT_RECOMMENDED_MAX,
                   "floor": facts.MAX_RECEIVE_COUNT_MIN}
    assert {o.name: o.default for o in RULES["ESM001"].options} == {"multiplier": facts.VISIBILITY_TIMEOUT_MULTIPLIER}
