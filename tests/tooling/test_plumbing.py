"""The queue attributes' plumbing is generated from its one declaration and is current
(tooling/plumbing.py from tooling/queue_settings.py); a new attribute reaches every place
at once; the hand-written parts (validations, what each attribute does) stay outside the
generated regions. No Terraform: this runs in the fast tier. The plan tier's
tests/root_module/test_every_queue_attribute.py shows each attribute reaching the real plan."""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys

import pytest

from tooling import plumbing as gen
from tooling import queue_settings as decl
from tooling.terraform import REPO_ROOT

NEW = decl.Attribute(
    "dlq_max_message_size", "dlq",
    decl.Variable("Maximum message size of the DLQ in bytes. Null: the same as `max_message_size`."),
    defaults=True, dlq_only=True,
)


def _copy(tmp_path):
    """The files the generator reads and writes, in a scratch tree."""
    for p in [*gen.REGIONS, *gen.WHOLE]:
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / p, tmp_path / p)
    return tmp_path


def _write(root, out):
    for p, text in out.items():
        (root / p).write_text(text)


def test_generated_plumbing_is_current():
    assert gen.stale() == [], gen.stale_message(gen.stale())


def test_check_command_says_what_to_run(tmp_path):
    root = _copy(tmp_path)
    text = (root / "main.tf").read_text()
    (root / "main.tf").write_text(re.sub(r"\n  delay_seconds +=[^\n]*", "", text, count=1))
    assert gen.stale(root) == ["main.tf"]
    assert gen.stale_message(["main.tf"]).startswith("generated queue-attribute plumbing is stale: main.tf: run `make plumbing`")
    # the command itself on the repository: current, exit 0
    proc = subprocess.run([sys.executable, "-m", "tooling.plumbing", "--check"], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_a_new_attribute_reaches_every_place(tmp_path):
    """One declaration, every place: the module's variable, how refusals name it, the DLQ
    settings refused with an existing DLQ, the root's attribute lists, its type, the typed
    queue_defaults, the module call's argument and the `queues` description."""
    root = _copy(tmp_path)
    attrs = list(decl.ATTRIBUTES)
    attrs.insert([a.name for a in attrs].index("dlq_delay_seconds") + 1, NEW)
    assert gen.stale(root) == []
    assert sorted(gen.stale(root, attrs)) == sorted([*gen.REGIONS, *gen.WHOLE])
    out = gen.outputs(root, attrs)
    n = NEW.name
    assert re.search(rf'\nvariable "{n}" {{\n  description = "Maximum message size of the DLQ in bytes\. '
                     r'Null: the same as `max_message_size`\."\n  type        = number\n  default     = null\n}\n',
                     out["modules/queue/variables.tf"])
    queue_locals = out["modules/queue/attributes.tf"]
    assert f'\n    "{n}",\n' in queue_locals.split("fifo_options_given")[0]  # local.n
    assert re.search(rf"\n    {n} +=  ?var\.{n} != null\n", queue_locals.split("dlq_settings_given")[1])
    inputs = out["internal/inputs/attributes.tf"]
    assert re.search(rf"\n    {n} += optional\(any\)\n", inputs)  # the typed queue_defaults
    assert f'\n    "{n}",\n' in inputs.split("queue_settings = [")[1].split("]")[0]
    assert re.search(rf'\n    {n} += "number"\n', inputs)
    assert re.search(rf"\n  {n} += each\.value\.settings\.{n}\n", out["main.tf"])
    assert f"`dlq_delay_seconds`, `{n}`, `dlq_receive_wait_time_seconds`" in out["variables.tf"]
    # written, it is current; written again, nothing changes (byte-stable)
    _write(root, out)
    assert gen.stale(root, attrs) == []
    assert gen.outputs(root, attrs) == out


def test_the_hand_written_parts_survive_regeneration(tmp_path):
    """Regeneration rewrites the regions only: the validations (on modules/queue's `name`),
    the hand-written variables and the rest of each file come back byte for byte."""
    root = _copy(tmp_path)
    before = {p: (root / p).read_text() for p in gen.REGIONS}
    attrs = [a for a in decl.ATTRIBUTES if a.name != "delay_seconds"]
    for p, text in gen.outputs(root, attrs).items():
        if p in gen.REGIONS:
            outside = gen.REGION.sub("", text)
            assert outside == gen.REGION.sub("", before[p]), p
    variables = before["modules/queue/variables.tf"]
    generated = "".join(m.group("body") for m in gen.REGION.finditer(variables))
    assert "validation" not in generated
    assert variables.count("validation {") == len(re.findall(r"validation \{ # ", gen.REGION.sub("", variables)))


def test_every_generated_variable_is_used_by_the_module():
    """A variable modules/queue declares but never reads would take a value and drop it."""
    module = REPO_ROOT / "modules/queue"
    text = "".join(p.read_text() for p in sorted(module.glob("*.tf")) if p.name not in ("variables.tf", "attributes.tf"))
    unused = [a.name for a in decl.ATTRIBUTES if a.variable is not None and not re.search(rf"\bvar\.{a.name}\b", text)]
    assert unused == []


def test_attributes_the_root_module_keeps_are_read_there():
    """An attribute not passed to modules/queue (variable None) must be used by the root module."""
    text = (REPO_ROOT / "internal/inputs/main.tf").read_text() + (REPO_ROOT / "main.tf").read_text()
    kept = [a.name for a in decl.ATTRIBUTES if a.variable is None]
    assert kept and [n for n in kept if not re.search(rf"\b{n}\b", text)] == []


def test_hand_written_variables_are_declared_by_hand():
    text = gen.REGION.sub("", (REPO_ROOT / "modules/queue/variables.tf").read_text())
    for a in decl.ATTRIBUTES:
        declared = f'variable "{a.name}" {{' in text
        assert declared == (a.variable == decl.HAND), a.name


def test_lost_markers_are_named(tmp_path, capsys, monkeypatch):
    root = _copy(tmp_path)
    text = (root / "main.tf").read_text()
    (root / "main.tf").write_text(text.replace("  # END GENERATED queue-arguments\n", ""))
    with pytest.raises(gen.PlumbingError, match=r"main\.tf: expected the generated region queue-arguments once each .* "
                                                r"found none; restore the marker lines"):
        gen.outputs(root)
    monkeypatch.setattr(gen, "REPO_ROOT", root)
    assert gen.main([]) == 2
    assert capsys.readouterr().err.startswith("error: main.tf: expected the generated region")


def test_an_unknown_group_is_refused():
    bad = dataclasses.replace(NEW, group="dead-letter")
    with pytest.raises(gen.PlumbingError, match="unknown group"):
        gen.render_queue_variables([*decl.ATTRIBUTES, bad])


def test_strings_are_written_as_hcl_takes_them():
    assert gen.hcl_string('a "b" \\ ${c} %{d}') == '"a \\"b\\" \\\\ $${c} %%{d}"'
