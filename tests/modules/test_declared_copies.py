"""Facts about the modules that other code must restate (it cannot read the .tf at run time),
proven equal to the modules themselves:

* ``policies/module_inputs.py`` (shipped: it recognises this project's modules in a plan by
  their resources and inputs, and names the module input that sets a resource attribute);
* ``internal/inputs``' per-consumer defaults, which must be the ``lambda-consumer`` module's
  variable defaults (the root module always passes a value, so the submodule's own default
  never applies through it)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import hcl2
from tests.support.helpers import REPO_ROOT
import pytest

from resilient_sqs.policy.module_inputs import ROOT_INPUTS, SUBMODULES

ROOT = REPO_ROOT


def _unquote(s: str) -> str:
    return s.strip('"')


def _load(module: Path) -> dict[str, list]:
    """The module's top-level blocks from every .tf file, merged per block type."""
    out: dict[str, list] = {}
    for p in sorted(module.glob("*.tf")):
        with open(p) as f:
            for kind, blocks in hcl2.load(f).items():
                out.setdefault(kind, []).extend(blocks)
    return out


def _variables(module: Path) -> dict[str, dict]:
    return {_unquote(n): b for block in _load(module).get("variable", []) for n, b in block.items()}


def _resources(module: Path) -> dict[str, dict]:
    return {f"{_unquote(t)}.{_unquote(n)}": body
            for block in _load(module).get("resource", []) for t, named in block.items() for n, body in named.items()}


def _locals(module: Path) -> dict[str, Any]:
    return {k: v for block in _load(module).get("locals", []) for k, v in block.items()}


def _expressions(body: Any, attr: str) -> list[str]:
    """The expressions of attribute path ``attr`` (dotted, through nested blocks) in a
    resource body; inside a jsonencode()d document, the value after ``attr =``."""
    head, _, rest = attr.partition(".")
    found: list[str] = []

    def walk(v: Any):
        if isinstance(v, dict):
            for k, sub in v.items():
                if _unquote(k) == head:
                    found.extend(_expressions(sub, rest) if rest else [str(sub)])
                else:
                    walk(sub)
        elif isinstance(v, list):
            for sub in v:
                walk(sub)
        elif isinstance(v, str) and not rest:
            found.extend(m.group(1) for m in re.finditer(rf"\b{re.escape(head)}\s*=\s*([^,}}\n]+)", v))

    walk(body)
    return found


def _inputs_behind(expr: str, locals_: dict[str, Any], seen: frozenset = frozenset()) -> set[str]:
    """The variables an expression reads, through the module's locals."""
    got = set(re.findall(r"\bvar\.([A-Za-z0-9_]+)", expr))
    for name in re.findall(r"\blocal\.([A-Za-z0-9_]+)", expr):
        if name in locals_ and name not in seen:
            got |= _inputs_behind(str(locals_[name]), locals_, seen | {name})
    return got


@pytest.mark.parametrize("kind", sorted(SUBMODULES))
def test_module_inputs_restates_the_submodule(kind):
    resources, inputs, call, root_fmt, attr_inputs = SUBMODULES[kind]
    module = ROOT / "modules" / kind
    declared_resources, declared_inputs = _resources(module), _variables(module)
    assert resources <= set(declared_resources), f"{kind}: {resources - set(declared_resources)} not in the module"
    assert inputs <= set(declared_inputs), f"{kind}: {inputs - set(declared_inputs)} not in the module"
    root_calls = {_unquote(n): b for block in _load(ROOT).get("module", []) for n, b in block.items()}
    assert call in root_calls and _unquote(root_calls[call]["source"]) == f"./modules/{kind}"
    assert root_fmt.split("[")[0].split(".")[0] in ROOT_INPUTS
    assert ROOT_INPUTS <= set(_variables(ROOT))
    locals_ = _locals(module)
    wrong = {}
    for (res, attr), var in attr_inputs.items():
        exprs = _expressions(declared_resources[res], attr)
        behind = set().union(*(_inputs_behind(e, locals_) for e in exprs)) if exprs else set()
        if var not in behind:
            wrong[(res, attr)] = (var, sorted(behind))
    assert wrong == {}, f"{kind}: module_inputs names inputs the module does not use for these attributes " \
                        f"((resource, attribute): (named input, inputs the module reads)): {wrong}"


def test_the_checker_sees_a_wrong_restatement():
    """The comparison above can fail: an attribute mapped to an input the module does not read."""
    module = ROOT / "modules" / "queue"
    exprs = _expressions(_resources(module)["aws_sqs_queue.this"], "visibility_timeout_seconds")
    behind = set().union(*(_inputs_behind(e, _locals(module)) for e in exprs))
    assert "visibility_timeout_seconds" in behind and "consumer" in behind  # through local.visibility_timeout
    assert "message_retention_seconds" not in behind


def test_internal_inputs_consumer_defaults_are_the_consumer_modules():
    """internal/inputs fills every unset consumer setting before calling lambda-consumer; its
    fallbacks must be that module's defaults."""
    text = (ROOT / "internal/inputs/main.tf").read_text()
    fallbacks = dict(re.findall(r"^\s*(\w+)\s*=\s*try\(\[for v in \[local\.q_entries\[k\]\.consumer\.\1, (.+?)\] : "
                                r"v if v != null\]\[0\], \2\)$", text, re.M))
    assert set(fallbacks) >= {"batch_size", "maximum_concurrency", "maximum_batching_window_seconds",
                              "filter_patterns", "report_batch_item_failures", "enabled"}, sorted(fallbacks)
    defaults = _variables(ROOT / "modules/lambda-consumer")
    hcl = {True: "true", False: "false"}
    wrong = {k: (v, defaults[k].get("default")) for k, v in fallbacks.items()
             if v != (hcl[d] if isinstance(d := defaults[k].get("default"), bool) else str(d).replace("'", '"'))}
    assert wrong == {}, f"internal/inputs fallback vs lambda-consumer default: {wrong}"


def _hcl_literal(v: Any) -> str:
    """A python-hcl2 value as HCL source text (its strings keep their quotes)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


# the root's attribute name -> the submodule's variable (main.tf passes it under another name);
# None: not passed (dlq_redrive.enabled switches the feature on, off by default)
RENAMED = {"dlq_redrive": {"enabled": None, "schedule_enabled": "enabled"}}


@pytest.mark.parametrize("variable, module", [("dlq_redrive", "modules/dlq-redrive")])
def test_internal_inputs_optional_defaults_are_the_submodules(variable, module):
    """internal/inputs types the root module's object inputs with optional() defaults, then
    passes every attribute to the submodule: each default must be the submodule's own."""
    text = (ROOT / "internal/inputs/variables.tf").read_text()
    block = re.search(rf'^variable "{variable}" \{{\n(.*?)^\}}', text, re.M | re.S)
    assert block, f"internal/inputs declares no variable {variable}"
    optional = dict(re.findall(r"^\s*(\w+)\s*=\s*optional\(any, (.+)\)$", block.group(1), re.M))
    renamed = RENAMED.get(variable, {})
    optional = {renamed.get(k, k): v for k, v in optional.items() if renamed.get(k, k) is not None}
    defaults = {k: _hcl_literal(v["default"]) for k, v in _variables(ROOT / module).items() if "default" in v}
    shared = set(optional) & set(defaults)
    assert len(shared) >= 10, sorted(shared)  # the comparison covers the settings, not a few
    wrong = {k: (optional[k], defaults[k]) for k in shared if optional[k] != defaults[k]}
    assert wrong == {}, f"internal/inputs {variable} default vs {module} default: {wrong}"
