"""tooling.wrong_inputs' verdicts and its list of valid inputs, on made-up `terraform test`
outcomes (the tool itself plans every case for real; that takes minutes and runs by hand)."""
from __future__ import annotations

import tooling.wrong_inputs as wi


def test_wrong_and_valid_cases_are_apart():
    wrong = {c[0] for c in wi.CASES}
    valid = {c[0] for c in wi.VALID}
    assert len(wrong) == len(wi.CASES) and len(valid) == len(wi.VALID), "duplicate case ids"
    assert not wrong & valid
    assert all(why for _, _, why in wi.VALID), "every valid input says why it is valid"


def test_classify():
    path = 'queues["orders"].content_based_deduplication'
    assert wi.classify("pass", [], path) == "silent"
    assert wi.classify("error", [f"{path} = true: FIFO-only setting"], path) == "named"
    assert wi.classify("error", ['queues["orders"].fifo: FIFO-only settings'], path) == "unnamed"
    assert wi.classify("error", ["module.inputs.var.queues: a bool is required"], path) == "internal"


def _outcomes(valid_status: str):
    def run(source, cases):
        return {c[0]: {"status": "error" if c in wi.CASES else valid_status, "errors": ["refused"]} for c in cases}
    return run


def test_a_refused_valid_input_fails_the_run(monkeypatch, capsys):
    monkeypatch.setattr(wi, "run", _outcomes("pass"))
    assert wi.main([]) == 0
    out = capsys.readouterr().out
    assert f"{len(wi.VALID)} valid inputs that must plan: {len(wi.VALID)} planned, 0 refused" in out

    monkeypatch.setattr(wi, "run", _outcomes("error"))
    assert wi.main([]) == 1
    out = capsys.readouterr().out
    assert f"0 planned, {len(wi.VALID)} refused" in out
    assert all(f"REFUSED  {case}" in out for case, _, _ in wi.VALID)


def test_classify_a_refusal_for_the_wrong_reason():
    """A refusal that names the input but says what is not the problem (a KMS value that is no
    key refused as "a key by alias") counts as unnamed."""
    path = 'queues["orders"].kms_master_key_id'
    alias = f'iam.kms_key_arns: {path} = "false" names a customer-managed KMS key by alias'
    assert wi.classify("error", [alias], path) == "named"
    assert wi.classify("error", [alias], path, wi.WRONG_REASON["kms-false"]) == "unnamed"
    assert wi.classify("error", [f"{path}: false is not a string."], path, wi.WRONG_REASON["kms-false"]) == "named"
    assert set(wi.WRONG_REASON) <= {c[0] for c in wi.CASES}
