"""Record what each embedded emulator can show (docs/capabilities/<kind>.json), by probing a fresh
instance of each (resilient_sqs.testing.probes, with the slow probes). ``make docs`` renders the
tables in docs/behave.md from these files; tests/testing/test_capabilities.py compares the
LocalStack file with a fresh probe of the embedded LocalStack.

    python -m tooling.probe_emulators [localstack] [ministack]
"""
from __future__ import annotations

import json
import os
import sys

from resilient_sqs.testing import ministack
from resilient_sqs.testing.probes import check_answers, probe
from tooling import localstack
from tooling.terraform import REPO_ROOT

OUT = REPO_ROOT / "docs" / "capabilities"
HOW = {"localstack": "sqs-behave --embedded (LocalStack {v}, no Docker)", "ministack": "sqs-behave --embedded ministack"}


def record(kind: str) -> dict:
    handle = localstack.start(users=[os.getpid()]) if kind == "localstack" else ministack.start(users=[os.getpid()])
    try:
        who = check_answers(handle.endpoint)
        findings = probe(handle.endpoint, slow=True)
    finally:
        handle.stop()
    who["how"] = HOW[kind].format(v=who.get("version"))
    doc = {"emulator": who, "findings": [f.__dict__ for f in findings]}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{kind}.json").write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def main(argv: list[str] | None = None) -> int:
    kinds = (argv if argv is not None else sys.argv[1:]) or ["localstack", "ministack"]
    for kind in kinds:
        doc = record(kind)
        print(f"{kind}: " + ", ".join(f"{f['name']}={'yes' if f['shown'] else 'no'}" for f in doc["findings"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
