"""The plan schema, its precompiled validator, and agreement with jsonschema."""
from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from resilient_sqs.policy import schema



def test_generated_validator_matches_the_schema():
    assert schema.GENERATED_PATH.read_text() == schema.generate(), \
        "policies/_plan_validator.py is stale: run `python -m resilient_sqs.policy.schema --generate`"


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(schema.load_schema())


def _walk(module: dict, children: str, resources: str = "resources"):
    yield module
    kids = module.get(children) or []
    for c in (kids.values() if isinstance(kids, dict) else kids):
        yield from _walk(c.get("module", c) if children == "module_calls" else c, children, resources)


def _first_config_resource(d: dict, pred=lambda r: True) -> dict:
    return next(r for m in _walk(d["configuration"]["root_module"], "module_calls")
                for r in m.get("resources") or () if pred(r))


def _first_planned_resource(d: dict) -> dict:
    return next(r for m in _walk(d["planned_values"]["root_module"], "child_modules") for r in m.get("resources") or ())


def _mutations(doc: dict):
    """Broken copies of a real plan, each breaking one thing the engine reads."""
    def m(fn):
        d = copy.deepcopy(doc)
        fn(d)
        return d

    rc0 = lambda d: d["resource_changes"][0]  # noqa: E731
    yield "format_version int", m(lambda d: d.__setitem__("format_version", 1))
    yield "format_version 1.x.y", m(lambda d: d.__setitem__("format_version", "1.2.3"))
    yield "no planned_values", m(lambda d: d.pop("planned_values"))
    yield "resource_changes object", m(lambda d: d.__setitem__("resource_changes", {}))
    yield "actions string", m(lambda d: rc0(d)["change"].__setitem__("actions", "create"))
    yield "unknown action", m(lambda d: rc0(d)["change"].__setitem__("actions", ["explode"]))
    yield "no change", m(lambda d: rc0(d).pop("change"))
    yield "after list", m(lambda d: rc0(d)["change"].__setitem__("after", []))
    yield "mode bogus", m(lambda d: rc0(d).__setitem__("mode", "bogus"))
    yield "index float", m(lambda d: rc0(d).__setitem__("index", 1.5))
    yield "address int", m(lambda d: rc0(d).__setitem__("address", 7))
    yield "references string", m(lambda d: _first_config_resource(d, lambda r: r.get("expressions"))["expressions"].__setitem__(
        "x", {"references": "x"}) or _first_config_resource(d).__setitem__("count_expression", {"references": "x"}))
    yield "module_calls list", m(lambda d: d["configuration"]["root_module"].__setitem__("module_calls", []))
    yield "child module resources object", m(lambda d: d["planned_values"]["root_module"].__setitem__("child_modules", [{"resources": {}}]))
    yield "variables list", m(lambda d: d.__setitem__("variables", []))
    yield "values list", m(lambda d: _first_planned_resource(d).__setitem__("values", []))
    yield "config resource without type", m(lambda d: _first_config_resource(d).pop("type"))


@pytest.mark.parametrize("subject", ["config:queue-bad", "config:consumers",
                                     pytest.param("example:many-queues", marks=pytest.mark.sweep)])
def test_fast_validator_agrees_with_jsonschema(plan_doc, subject):
    doc = plan_doc(subject)
    v = jsonschema.Draft202012Validator(schema.load_schema())
    assert schema.is_valid(doc) and v.is_valid(doc)
    broken = list(_mutations(doc))
    assert len(broken) >= 15
    for label, bad in broken:
        assert v.is_valid(bad) is False, f"jsonschema accepts mutation {label!r}: the schema is too loose"
        assert schema.is_valid(bad) is False, f"fast validator accepts mutation {label!r}"
        assert schema.explain_invalid(bad), label


def test_every_real_plan_is_valid(plan_files):
    for name, path in plan_files.items():
        assert schema.is_valid(json.loads(path.read_text())), name


def test_compiler_refuses_keywords_it_does_not_implement():
    with pytest.raises(ValueError, match="not supported"):
        schema.generate({"type": "object", "oneOf": [{}]})
    with pytest.raises(ValueError, match="local"):
        schema.generate({"$ref": "https://example.com/x.json"})
