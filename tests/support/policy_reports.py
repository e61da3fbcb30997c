"""The report formats' schemas, every committed fixture plan, and a plan's report
context (tests/policies/: the formats, waivers, baseline, markdown and changed-only tests)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

from resilient_sqs.policy.engine import evaluate
from resilient_sqs.policy.formats import Context
from tests.policies import plans
from tests.policies.fixture_plans import UPDATE_PLANS
from tooling.terraform import REPO_ROOT

SCHEMAS = REPO_ROOT / "tests" / "policies" / "schemas"


class _Loaded:
    """A schema built on first use: every pytest worker imports this module to collect it,
    and building the two (xmlschema's import included) costs most of a second."""

    def __init__(self, build):
        self._build, self._built = build, None

    def __getattr__(self, name):
        if self._built is None:
            self._built = self._build()
        return getattr(self._built, name)


def _junit_schema():
    import xmlschema

    return xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))


JUNIT = _Loaded(_junit_schema)
GITLAB = json.loads((SCHEMAS / "gitlab-codequality.schema.json").read_text())
SARIF = _Loaded(lambda: jsonschema.Draft4Validator(json.loads((SCHEMAS / "sarif-2.1.0-rtm.5.json").read_text())))
# ::level file=F,line=N,title=T::message, with the property and data escapes GitHub documents
GH_LINE = re.compile(r"^::(error|warning|notice)(?: (?:file=[^,:\n]+,line=[1-9][0-9]*,)?title=[^,:\n]+)?::[^\r\n]+$")


def _fixture_plans() -> list[tuple[str, Path, Path | None]]:
    out = []
    subjects = plans.subjects()
    for subject, (directory, _vars, _copy) in subjects.items():
        out.append((subject, plans.plan_path(subject), directory))
    for p in sorted(UPDATE_PLANS.glob("*.json")):
        if p.name != "MANIFEST.json":
            out.append((f"update:{p.stem}", p, None))
    return out


FIXTURES = _fixture_plans()


def _ctx(path: Path, source: Path | None) -> Context:
    doc = json.loads(path.read_text())
    report = evaluate(doc, keep_passes=True, source_dir=str(source) if source else None)
    return Context(report, doc, str(path.relative_to(REPO_ROOT)), str(source or REPO_ROOT))
