"""The documentation against what it documents.

- Generated sections (tooling/docs.py: inputs/outputs tables of every module and
  example, the README's rule table) match their sources.
- Every module and example has a README with its usage and tables.
- Every ```hcl block of the documentation plans, for real (offline), against this
  checkout.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from resilient_sqs.policy.rules import CONFIG_RULES, RULES
from tests.support.helpers import OFFLINE_ACCOUNT, REPO_ROOT, example_dirs, module_dirs
from tooling import docs
from tooling.terraform import TerraformError


# ------------------------------------------------------------------------------------------
# generated sections
# ------------------------------------------------------------------------------------------
def test_generated_docs_are_current():
    """Fails after a variable, output or rule changes until `make docs` is run."""
    stale = docs.stale_sections()
    assert stale == [], docs.stale_message(stale)


@pytest.mark.parametrize("tf_dir", [*module_dirs(), *example_dirs()], ids=lambda d: str(d.relative_to(REPO_ROOT)))
def test_module_and_example_have_a_readme_with_usage_and_tables(tf_dir: Path):
    readme = tf_dir / "README.md"
    rel = tf_dir.relative_to(REPO_ROOT)
    assert readme.exists(), f"{rel} has no README.md: write one (purpose, usage) with a generated table " \
                            f"(`<!-- BEGIN_TF_DOCS . -->` / `<!-- END_TF_DOCS . -->`, then `{docs.REGENERATE}`)"
    text = readme.read_text()
    assert "<!-- BEGIN_TF_DOCS . -->" in text, f"{rel}/README.md has no generated inputs/outputs section"
    assert text.startswith("# "), f"{rel}/README.md: start with a title and what the {rel.parts[0][:-1]} is for"
    if rel.parts[0] == "modules":
        # a usage block that calls this very module (planned by test_documented_hcl_plans)
        sources = re.findall(r'source\s*=\s*"([^"]+)"', "\n".join(_hcl_blocks(text)))
        assert any(_module_dir(s) == tf_dir for s in sources), f"{rel}/README.md has no ```hcl usage block calling {rel}"


def test_root_tables_and_rule_table_are_generated_where_the_readme_links():
    readme = (REPO_ROOT / "README.md").read_text()
    assert "(docs/reference.md)" in readme and "(docs/policy.md#rules)" in readme
    assert "<!-- BEGIN_TF_DOCS .. -->" in (REPO_ROOT / "docs" / "reference.md").read_text()
    text = (REPO_ROOT / "docs" / "policy.md").read_text()
    assert "<!-- BEGIN_RULES -->" in text
    table = text.split("<!-- BEGIN_RULES -->")[1].split("<!-- END_RULES -->")[0]
    missing = [r for r in [*RULES, *CONFIG_RULES] if f"| `{r}` |" not in table]
    assert missing == [], f"docs/policy.md rule table lacks {missing}: run `{docs.REGENERATE}`"


def test_every_variable_and_output_is_described():
    for d in [REPO_ROOT, *module_dirs(), *example_dirs()]:
        for fname, kind in (("variables.tf", "variable"), ("outputs.tf", "output")):
            f = d / fname
            if not f.exists():
                continue
            for block in docs.parse_blocks(f.read_text(), kind):
                assert block.attrs.get("description", "").strip('" '), f"{f}: {kind} {block.name} has no description"


def test_generator_sees_every_block_abbreviates_links_and_detects_drift(tmp_path):
    mod = tmp_path / "m"
    mod.mkdir()
    (mod / "variables.tf").write_text(
        'variable "a" {\n  description = "first \\"quoted\\" | piped"\n  type = object({\n    x = number\n    y = optional(string, "}")\n  })\n'
        '  default = null\n  validation {\n    condition = true\n    error_message = "{"\n  }\n}\n\nvariable "b" {\n  type = string\n}\n\n'
        'variable "c" {\n  description = "long"\n  type = map(object({\n    first_attribute = optional(string)\n'
        '    second_attribute = optional(list(object({ z = number })), [])\n  }))\n  default = {\n    k = { first_attribute = "a default value long enough to abbreviate" }\n  }\n}\n'
    )
    (mod / "outputs.tf").write_text('output "o" {\n  description = "out"\n  value = { a = 1 }\n}\n')
    body = docs.render(mod, tmp_path)
    # short types in full, with the name linked to its line (relative to the Markdown file)
    assert '| [`a`](m/variables.tf#L1) | first "quoted" \\| piped | `object({x = number, y = optional(string, "}")})` | `null` | no |' in body
    assert "| [`b`](m/variables.tf#L14) |  | `string` | n/a | yes |" in body
    # long types and defaults abbreviated
    assert "| [`c`](m/variables.tf#L18) | long | `map(object({...}))` | `{...}` | no |" in body
    assert "| [`o`](m/outputs.tf#L1) | out |" in body
    assert docs.render(mod, tmp_path) == body  # deterministic
    readme = tmp_path / "README.md"
    readme.write_text("x\n<!-- BEGIN_TF_DOCS m -->\nold\n<!-- END_TF_DOCS m -->\n<!-- BEGIN_RULES -->\n<!-- END_RULES -->\n")
    assert docs.update(readme, check=True) == ["m", "rules"]
    assert docs.update(readme) == ["m", "rules"]
    assert docs.update(readme, check=True) == []
    assert "| `CFG002` | waiver-unused | warning |" in readme.read_text()


def test_check_command_names_the_stale_file_and_the_command(tmp_path):
    """`python -m tooling.docs --check` on a tree whose table is stale: exit 1, one line
    naming the file and `make docs`; after `python -m tooling.docs` it exits 0."""
    (tmp_path / "modules" / "m").mkdir(parents=True)
    (tmp_path / "modules" / "m" / "variables.tf").write_text('variable "v" {\n  description = "d"\n  type = string\n}\n')
    (tmp_path / "modules" / "m" / "README.md").write_text("# m\n<!-- BEGIN_TF_DOCS . -->\n<!-- END_TF_DOCS . -->\n")

    def run(*args):
        return subprocess.run([sys.executable, "-m", "tooling.docs", "--root", str(tmp_path), *args],
                              cwd=REPO_ROOT, capture_output=True, text=True)

    stale = run("--check")
    assert stale.returncode == 1
    assert "modules/m/README.md" in stale.stderr and f"`{docs.REGENERATE}`" in stale.stderr
    assert len(stale.stderr.strip().splitlines()) == 1
    assert run().returncode == 0
    assert run("--check").returncode == 0
    make = subprocess.run(["make", "-n", "docs"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert make.returncode == 0 and "-m tooling.docs" in make.stdout, "the Makefile has no working `docs` target"


# ------------------------------------------------------------------------------------------
# the documentation's HCL, planned
# ------------------------------------------------------------------------------------------
USAGE_DIR = REPO_ROOT / ".cache" / "doc-usage"  # two levels below the root, like an example


def _hcl_blocks(text: str) -> list[str]:
    return re.findall(r"```hcl\n(.*?)```", text, flags=re.DOTALL)


def _module_dir(source: str) -> Path | None:
    """The checkout directory a documented module source names (`...resilient-sqs.git//modules/x?ref=...`)."""
    m = re.match(r"(?:git::)?[^?]*resilient-sqs(?:\.git)?(?://(?P<sub>[^?]*))?(?:\?.*)?$", source)
    if not m:
        return None
    return (REPO_ROOT / (m.group("sub") or "")).resolve()


def _module_labels(hcl: str) -> list[str]:
    return re.findall(r'^module\s+"([^"]+)"', hcl, flags=re.M)


def _rewrite(hcl: str, where: str, depth: int) -> str:
    """Sources pointed at this checkout; ``account_id`` given where the module takes one
    (an offline plan cannot ask STS; the users' plans can)."""

    def one(m: re.Match) -> str:
        target = _module_dir(m.group(2))
        if target is None or not target.is_dir():
            raise AssertionError(f"{where}: module source {m.group(2)!r} is not this repository "
                                 "(documented sources look like git::https://…/resilient-sqs.git//modules/<name>?ref=…)")
        rel = "/".join([".."] * depth + ([str(target.relative_to(REPO_ROOT))] if target != REPO_ROOT else []))
        line = f'{m.group(1)}"{rel}"'
        takes_account = any(b.name == "account_id" for b in docs.parse_blocks(
            (target / "variables.tf").read_text(), "variable")) if (target / "variables.tf").exists() else False
        if takes_account:
            line += f'\n  account_id = "{OFFLINE_ACCOUNT}"'
        return line

    out = re.sub(r'(^\s*source\s*=\s*)"([^"]+)"', one, hcl, flags=re.M)
    # a documented account_id wins over the injected one
    for block in re.split(r"(?=^module\s+\")", out, flags=re.M):
        if block.count("account_id =") > 1:
            out = out.replace(block, block.replace(f'\n  account_id = "{OFFLINE_ACCOUNT}"', "", 1))
    return out


def documented_usage() -> dict[str, str]:
    """{directory name: configuration} for every ```hcl block of the documentation. A block
    that refers to ``module.X`` it does not declare is planned with the earlier block of
    the same file that declares X (as a reader would combine them)."""
    out: dict[str, str] = {}
    for md in docs.doc_files():
        blocks = _hcl_blocks(md.read_text())
        slug = str(md.relative_to(REPO_ROOT)).replace("/", "-").removesuffix(".md")
        for i, block in enumerate(blocks, 1):
            parts = [block]
            declared = set(_module_labels(block))
            for ref in sorted(set(re.findall(r"\bmodule\.([A-Za-z0-9_-]+)", block)) - declared):
                context = next((b for b in blocks[: i - 1] if ref in _module_labels(b)), None)
                assert context is not None, f"{md.relative_to(REPO_ROOT)} hcl block {i} uses module.{ref}, declared by no earlier block"
                parts.insert(0, context)
                declared |= set(_module_labels(context))
            out[f"{slug}-{i}"] = _rewrite("\n".join(parts), f"{md.relative_to(REPO_ROOT)} hcl block {i}", depth=3)
    return out


def _write_usage_config() -> dict[str, str]:
    import shutil

    usage = documented_usage()
    shutil.rmtree(USAGE_DIR, ignore_errors=True)
    USAGE_DIR.mkdir(parents=True)
    calls = ['provider "aws" {\n  region = "us-east-1"\n}\n']
    for name, hcl in sorted(usage.items()):
        (USAGE_DIR / name).mkdir()
        (USAGE_DIR / name / "main.tf").write_text(hcl)
        calls.append(f'module "{name.replace(".", "_")}" {{\n  source = "./{name}"\n}}\n')
    (USAGE_DIR / "main.tf").write_text("\n".join(calls))
    return usage


def test_usage_discovery_maps_sources_and_context(tmp_path):
    assert _module_dir("git::https://example.com/resilient-sqs.git?ref=v1.2.3") == REPO_ROOT
    assert _module_dir("git::https://example.com/resilient-sqs.git//modules/queue?ref=v1") == REPO_ROOT / "modules" / "queue"
    assert _module_dir("github.com/acme/resilient-sqs//modules/iam") == REPO_ROOT / "modules" / "iam"
    assert _module_dir("terraform-aws-modules/sqs/aws") is None
    hcl = _rewrite('module "q" {\n  source = "git::https://x/resilient-sqs.git//modules/queue?ref=v1"\n  name = "a"\n}\n', "t", 3)
    assert 'source = "../../../modules/queue"\n  account_id = "123456789012"' in hcl
    hcl = _rewrite('module "q" {\n  source = "git::https://x/resilient-sqs.git//modules/queue?ref=v1"\n  account_id = "1"\n}\n', "t", 3)
    assert hcl.count("account_id") == 1
    hcl = _rewrite('module "b" {\n  source = "git::https://x/resilient-sqs.git//modules/iam?ref=v1"\n}\n', "t", 3)
    assert "account_id" not in hcl  # modules/iam takes none
    with pytest.raises(AssertionError, match="not this repository"):
        _rewrite('module "x" {\n  source = "terraform-aws-modules/sqs/aws"\n}\n', "t", 3)
    usage = documented_usage()
    assert any(name.startswith("README-") for name in usage), "the README's usage blocks are not collected"
    redrive = [hcl for name, hcl in usage.items() if name.startswith("modules-dlq-redrive-README")]
    assert redrive and all('module "messaging"' in h for h in redrive)


@pytest.mark.plan
def test_documented_hcl_plans():
    """Every ```hcl block of README.md, docs/*.md and the module/example READMEs, each in a
    module of its own (so the blocks' names cannot collide), planned in one offline plan."""
    from tests.support import plan_cache

    usage = _write_usage_config()
    try:
        plan = plan_cache.load(USAGE_DIR, {}, offline=True)
    except TerraformError as e:
        # "on modules-queue-README-1/main.tf line 7" names the Markdown file and its block
        where = sorted(set(re.findall(r"on ([\w.-]+)/main\.tf line (\d+)", e.stderr + e.stdout)))
        blocks = ", ".join(f"{d.rsplit('-', 1)[0].replace('-README', '/README').replace('-', '/')}.md hcl block "
                           f"{d.rsplit('-', 1)[1]} (.cache/doc-usage/{d}/main.tf line {ln})" for d, ln in where)
        pytest.fail(f"documented ```hcl does not plan: {blocks or 'see below'}\n{e}")
    created = {}
    for rc in plan["resource_changes"]:
        top = rc["address"].split(".")[1] if rc["address"].startswith("module.") else None
        if "create" in rc["change"]["actions"]:
            created[top] = created.get(top, 0) + 1
    empty = [name for name in usage if created.get(name.replace(".", "_"), 0) == 0]
    assert empty == [], f"documented blocks that create nothing: {empty}"
    # and what the documentation shows passes the project's own checker: no error
    # (the shared-DLQ block gave three SQS003 errors before issue #23)
    from resilient_sqs.policy.engine import evaluate

    report = evaluate(plan, source_dir=str(USAGE_DIR), source_roots=(str(REPO_ROOT),))  # blocks call the checkout
    errors = [(f.rule_id, f.address, f.message) for f in report.findings if f.status == "fail" and f.severity == "error"
              and f.counts_toward_exit()]  # a waiver the block documents waives
    assert errors == [], "documented ```hcl fails sqs-policy check:\n" + "\n".join(map(str, errors))


@pytest.mark.static
def test_documented_hcl_is_formatted():
    """Each ```hcl block as `terraform fmt` writes it, so readers copy canonical code."""
    from tooling.terraform import terraform_bin, terraform_env

    bad = []
    for md in docs.doc_files():
        for i, block in enumerate(_hcl_blocks(md.read_text()), 1):
            fmt = subprocess.run([terraform_bin(), "fmt", "-"], input=block, capture_output=True, text=True,
                                 env=terraform_env())
            assert fmt.returncode == 0, f"{md.relative_to(REPO_ROOT)} hcl block {i} is not valid HCL: {fmt.stderr}"
            if fmt.stdout != block:
                bad.append(f"{md.relative_to(REPO_ROOT)} hcl block {i}")
    assert bad == [], f"not `terraform fmt` clean (pipe each through `terraform fmt -`): {bad}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_relative_links_and_anchors_resolve():
    """Every relative link of the documentation names an existing file, heading or line."""
    broken = []
    for md in docs.doc_files():
        text = re.sub(r"```.*?```", "", md.read_text(), flags=re.DOTALL)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            where = f"{md.relative_to(REPO_ROOT)}: ({target})"
            if not dest.exists():
                broken.append(f"{where}: no such file")
            elif anchor.startswith("L") and anchor[1:].isdigit():
                if int(anchor[1:]) > len(dest.read_text().splitlines()):
                    broken.append(f"{where}: the file has fewer lines")
            elif anchor and dest.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", re.sub(r"```.*?```", "", dest.read_text(), flags=re.DOTALL), re.M)
                if anchor not in {_slug(h) for h in headings}:
                    broken.append(f"{where}: no heading with that anchor")
    assert broken == [], "\n".join(broken)
