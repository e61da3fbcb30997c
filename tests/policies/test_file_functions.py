"""Settings kept in files beside the configuration (issue 33 §2): file(), yamldecode(),
jsondecode(), templatefile(), fileexists() and fileset() evaluated from --source-dir for
regular files inside the source directories, bounded; elsewhere unknown with a note.

The fixture configs/file-functions is planned for real; yamldecode() is compared with
Terraform's own (``terraform console``) on the YAML forms a catalogue uses and the ones
where YAML readers differ."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.source.filefns import _glob_regex
from resilient_sqs.policy.source.yamldecode import YamlError, yamldecode
from tests.policies import plans

E, W = "error", "warning"
FAIL, UNK = "fail", "unknown"
NAME = "config:file-functions"
CONFIG = plans.CONFIGS / "file-functions"


def _got(report) -> set:
    return {(f.rule_id, f.status, f.severity, f.address) for f in report.findings}


def _copy(tmp_path):
    d = tmp_path / "stack"
    shutil.copytree(CONFIG, d)
    return d


# -- the fixture, with its files -------------------------------------------------------------------
def test_settings_in_files_are_decided(plan_doc):
    """The YAML catalogue's maxReceiveCount 1 (a merge key override), the per-team file's 12
    (fileset), and the public Allow a template renders for a queue the JSON settings name are
    decided, with the line that reads them; nothing is unknown; no note."""
    doc = plan_doc(NAME)
    without = evaluate(doc)
    assert sum(f.status == UNK for f in without.findings) >= 30  # every redrive and queue policy
    report = evaluate(doc, source_dir=str(CONFIG))
    assert _got(report) == {
        ("SQS003", FAIL, E, 'aws_sqs_queue.queue["payments"]'),
        ("SQS003", FAIL, W, 'aws_sqs_queue.queue["team-shipping"]'),
        ("SQS010", FAIL, E, 'aws_sqs_queue.queue["invoices"]'),
    }
    assert report.notes == []
    msgs = {(f.rule_id, f.address): f for f in report.findings}
    mrc = msgs[("SQS003", 'aws_sqs_queue.queue["payments"]')]
    assert mrc.message.startswith("maxReceiveCount 1 < 2") and mrc.source.path.name == "main.tf"
    ok = {(f.rule_id, f.address) for f in report.passed}
    assert ("SQS003", 'aws_sqs_queue.queue["team-billing"]') in ok  # teams/billing.yaml: 4
    assert ("SQS009", 'aws_sqs_queue.queue["orders"]') in ok  # the template's TLS Deny


def _payments_mrc(report):
    return next(f for f in report.findings + report.passed
                if f.rule_id == "SQS003" and f.address == 'aws_sqs_queue.queue["payments"]')


@pytest.mark.parametrize("kind", ["outside", "symlink-out", "fifo", "too-big", "alias-bomb", "deep"])
def test_files_that_are_not_read(plan_doc, tmp_path, kind):
    """A catalogue outside the source directories (an absolute path, a symlink out), a named
    pipe, a file past the 1 MiB cap, an alias bomb and nesting past the bound are never read
    whole: the values built from them stay unknown (never a pass), with a note naming the
    path or the reason, and the check does not block."""
    d = _copy(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(d / "queues.yaml", outside / "queues.yaml")
    catalogue = d / "queues.yaml"
    if kind == "outside":
        main = d / "main.tf"
        main.write_text(main.read_text().replace('file("${path.module}/queues.yaml")',
                                                 f'file("{(outside / "queues.yaml").as_posix()}")'))
        want = str(outside / "queues.yaml")
    elif kind == "symlink-out":
        catalogue.unlink()
        catalogue.symlink_to(outside / "queues.yaml")
        want = "queues.yaml"
    elif kind == "fifo":
        catalogue.unlink()
        os.mkfifo(catalogue)
        want = "named pipe"
    elif kind == "too-big":
        catalogue.write_text(catalogue.read_text() + "#" * (1 << 20) + "\n")
        want = "1 MiB cap"
    elif kind == "alias-bomb":
        lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
        lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)]
        catalogue.write_text(catalogue.read_text() + "\n".join(lines) + "\n")
        want = "expands to more than"
    else:
        catalogue.write_text(catalogue.read_text() + "deep: " + "[" * 500 + "]" * 500 + "\n")
        want = "nests more than"
    report = evaluate(plan_doc(NAME), source_dir=str(d))
    mrc = _payments_mrc(report)
    assert mrc.status == UNK, mrc
    said = " ".join(report.notes) + " " + mrc.message
    assert want in said, (report.notes, mrc.message)


def test_a_missing_file_is_a_note_not_a_guess(plan_doc, tmp_path):
    d = _copy(tmp_path)
    (d / "settings.json").unlink()
    report = evaluate(plan_doc(NAME), source_dir=str(d))
    assert any("settings.json" in n and "no such file" in n for n in report.notes), report.notes
    assert all(f.status != FAIL or f.rule_id == "SQS003" for f in report.findings)


def test_edited_settings_after_the_plan_are_a_mismatch(plan_doc, tmp_path):
    """A file edited after the plan changes a value the plan knows (a retention from the YAML):
    the source no longer matches and its queues' unknown values stay unknown, never decided
    from the edited file."""
    d = _copy(tmp_path)
    y = d / "queues.yaml"
    y.write_text(y.read_text().replace("retention_days: 4", "retention_days: 5").replace("max_receive: 1 #", "max_receive: 4 #"))
    report = evaluate(plan_doc(NAME), source_dir=str(d))
    assert _payments_mrc(report).status == UNK
    assert any("does not match the plan" in n for n in report.notes)


# -- yamldecode: Terraform's reading, bounded --------------------------------------------------------
YAML_CASES = {
    "catalogue": "defaults: &d\n  max_receive: 5\n  retention_days: 4\nqueues:\n  a:\n    <<: *d\n  b:\n    <<: *d\n"
                 "    max_receive: 1\n",
    "merge-order": "b: &b {x: 1, z: 1}\nm1:\n  x: 9\n  <<: *b\nm2:\n  <<: *b\n  x: 5\n",
    "booleans": "a: yes\nb: y\nc: on\nd: Off\ne: NO\nf: True\ng: 'yes'\n",
    "keys": "y: 1\nn: 2\n1: one\n1.5: x\ntrue: t\n",
    "numbers": "a: 017\nb: 0o17\nc: 0x1F\nd: 1_000\ne: 1e3\nf: .5\ng: -0x1F\nh: +12\ni: 12.50\nj: 0b101\nk: 0X1F\n"
               "l: 99999999999999999999999\nm: 1.0\n",
    "strings": "a: 1:30\nb: \"017\"\nc: !!str 12\nd: !!int \"12\"\ne: |\n  true\nf: >\n  x\n  y\ng: ~\nh: ''\n",
    "timestamps": "a: 2024-01-02\nb: 2024-1-2\nc: 2001-12-14t21:59:43.10-05:00\nd: 2001-12-14 21:59:43.10\n",
    "tags": "a: !!float 3\nb: !!bool true\nc: !!null x\nd: !!binary aGVsbG8=\n",
    "lists": "- 1\n- [a, {b: 2}]\n- {}\n",
    "null-document": "---\n",
    "two-documents": "a: 1\n---\nb: 2\n",
    "self-alias": "a: &x [1, *x]\n",
    "list-key": "? [1, 2]\n: 3\n",
    "unknown-tag": "a: !foo 1\n",
    "nan": "- .nan\n",
    "merge-a-list": "b: &b {x: 1}\nm:\n  <<: [*b]\n",
    "duplicate-key": "a: 1\na: 2\n",
}


@pytest.mark.plan
def test_yamldecode_reads_yaml_as_terraform_does(tmp_path):
    """For every case, the decoder gives the value `terraform console` gives for
    jsonencode(yamldecode(file(...))), or fails where Terraform fails."""
    from tooling.terraform import terraform_bin, terraform_env

    for name, text in YAML_CASES.items():
        (tmp_path / f"{name}.yaml").write_text(text)
    env = terraform_env()
    for name, text in YAML_CASES.items():
        proc = subprocess.run([terraform_bin(), "console"], input=f'jsonencode(yamldecode(file("{name}.yaml")))\n',
                              capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
        for pure in (False, True):  # libyaml's parser and PyYAML's own
            try:
                mine = yamldecode(text, pure=pure)
            except YamlError:
                mine = YamlError
            if proc.returncode != 0 or not proc.stdout.strip():
                assert mine is YamlError, (name, pure, proc.stderr[-300:], mine)
                continue
            theirs = json.loads(json.loads(proc.stdout.strip()))
            assert mine == theirs, (name, pure, mine, theirs)


@pytest.mark.parametrize("pure", [False, True])
def test_yamldecode_is_bounded(pure):
    bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9))
    with pytest.raises(YamlError, match="expands to more than"):
        yamldecode(bomb, pure=pure)
    with pytest.raises(YamlError, match="nests more than 100 levels"):
        yamldecode("[" * 5000 + "]" * 5000, pure=pure)
    with pytest.raises(YamlError, match="nests more than"):
        yamldecode("a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 300)), pure=pure)
    # within the bounds, aliases are expanded into independent values
    got = yamldecode("a: &a {x: [1]}\nb: *a\n", pure=pure)
    got["b"]["x"].append(2)
    assert got["a"] == {"x": [1]}


@pytest.mark.parametrize("pattern, matches, misses", [
    ("*.yaml", ["a.yaml", ".hidden.yaml"], ["d/a.yaml", "a.yml"]),
    ("teams/*.yaml", ["teams/a.yaml"], ["teams/x/a.yaml", "a.yaml"]),
    ("**/*.yaml", ["a.yaml", "x/a.yaml", "x/y/a.yaml"], ["a.json"]),
    ("queues/**", ["queues/a", "queues/x/b"], ["other/a"]),
    ("{a,b}.json", ["a.json", "b.json"], ["c.json"]),
    ("q?.json", ["q1.json"], ["q12.json", "q/.json"]),
    ("[ab]*.tftpl", ["a1.tftpl", "b.tftpl"], ["c.tftpl"]),
    ("[!ab]*.tftpl", ["c.tftpl"], ["a.tftpl"]),
])
def test_fileset_patterns(pattern, matches, misses):
    rx = _glob_regex(pattern)
    assert all(rx.fullmatch(m) for m in matches), pattern
    assert not any(rx.fullmatch(m) for m in misses), pattern
