"""The LocalStack column of docs/behave.md's capability table is what the embedded LocalStack shows
when probed now (issue 35 §5)."""
from __future__ import annotations

import json

import pytest

from resilient_sqs.testing.probes import check_answers, probe
from tests.support.helpers import REPO_ROOT

RECORD = REPO_ROOT / "docs" / "capabilities" / "localstack.json"


@pytest.mark.localstack
def test_the_localstack_record_is_what_the_embedded_localstack_shows(localstack):
    assert check_answers(localstack.endpoint)["kind"] == "localstack"
    fresh = {f.name: f.shown for f in probe(localstack.endpoint, slow=True)}
    assert fresh == {f["name"]: f["shown"] for f in json.loads(RECORD.read_text())["findings"]}


