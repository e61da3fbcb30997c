"""README input/output tables match variables.tf / outputs.tf."""
from __future__ import annotations

import re

from tests.helpers import REPO_ROOT, module_dirs
from tooling import docs


def test_readme_tables_are_current():
    stale = [f"{r.name}: {p}" for r in docs.readmes() for p in docs.update(r, check=True)]
    assert stale == [], f"run `.venv/bin/python -m tooling.docs` to regenerate: {stale}"


def test_every_module_is_documented():
    text = (REPO_ROOT / "README.md").read_text()
    documented = set(re.findall(r"<!-- BEGIN_TF_DOCS ([^ ]+) -->", text))
    expected = {"."} | {str(d.relative_to(REPO_ROOT)) for d in module_dirs()}
    assert expected - documented == set(), f"README has no TF_DOCS section for {expected - documented}"


def test_every_variable_and_output_is_described():
    for d in [REPO_ROOT, *module_dirs()]:
        for fname, kind in (("variables.tf", "variable"), ("outputs.tf", "output")):
            f = d / fname
            if not f.exists():
                continue
            for block in docs.parse_blocks(f.read_text(), kind):
                assert block.attrs.get("description", "").strip('" '), f"{f}: {kind} {block.name} has no description"


def test_generator_sees_every_block_and_detects_drift(tmp_path):
    mod = tmp_path / "m"
    mod.mkdir()
    (mod / "variables.tf").write_text(
        'variable "a" {\n  description = "first \\"quoted\\" | piped"\n  type = object({\n    x = number\n    y = optional(string, "}")\n  })\n'
        '  default = null\n  validation {\n    condition = true\n    error_message = "{"\n  }\n}\n\nvariable "b" {\n  type = string\n}\n'
    )
    (mod / "outputs.tf").write_text('output "o" {\n  description = "out"\n  value = { a = 1 }\n}\n')
    body = docs.render(mod)
    assert '| `a` | first "quoted" \\| piped | `object({x = number, y = optional(string, "}")})` | `null` | no |' in body
    assert "| `b` |  | `string` | n/a | yes |" in body
    assert "| `o` | out |" in body
    readme = tmp_path / "README.md"
    readme.write_text("x\n<!-- BEGIN_TF_DOCS m -->\nold\n<!-- END_TF_DOCS m -->\n")
    assert docs.update(readme, check=True) == ["m"]
    assert docs.update(readme) == ["m"]
    assert docs.update(readme, check=True) == []
