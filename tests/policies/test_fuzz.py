"""In-suite fuzz: about 2,000 mutated real plans and the hand-made hostile inputs, seeded
and bounded (a few seconds). Every case must end in exit 0, 1 or a one-line input
error; none in an internal error. The larger run is `python -m tooling.fuzz_policy`
(10,000 cases in worker processes, with hang detection)."""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from tooling import fuzz_policy

pytestmark = pytest.mark.plan

CASES = 2000
SEED = 11
# the smallest fixture plans: mutations reach the rules often, each case is cheap
SEEDS = ["config:warnings", "config:existing-queues", "config:policy-from-locals"]


@pytest.mark.timeout(600)
def test_fuzzed_plans_never_end_in_an_internal_error(plan_files, tmp_path):
    seeds = fuzz_policy.load_seeds([Path(plan_files[n]) for n in SEEDS])
    outcomes: Counter = Counter()
    bad = []
    cases = fuzz_policy.hand_made() + [fuzz_policy.make_case(random.Random(f"{SEED}:{i}"), seeds) for i in range(CASES)]
    for i, case in enumerate(cases):
        o = fuzz_policy.run_in_memory(case, tmp_path)
        outcomes[o.kind] += 1
        if o.kind not in ("0", "1", "2"):
            bad.append((i, case.label, o.kind, o.site, o.detail))
    assert not bad, bad[:10]
    # the mutations reach the rules: clean plans, violations and refused inputs all occur
    assert min(outcomes["0"], outcomes["1"], outcomes["2"]) > CASES // 20, outcomes


# -- what surrounds the plan (issue #24): the text renderer, the config file, the source tree ------------------
TEXT_CASES, CONFIG_CASES, SOURCE_CASES = 300, 200, 30


@pytest.mark.timeout(300)
def test_fuzzed_text_reports_cannot_be_forged(plan_files, tmp_path):
    """Addresses, values and waiver reasons full of ESC sequences, newlines, fake summaries and bidi
    overrides: the text report never holds a character a terminal acts on, and its only summary line
    is the last."""
    seeds = fuzz_policy.load_seeds([Path(plan_files[n]) for n in SEEDS])
    outcomes: Counter = Counter()
    bad = []
    for i in range(TEXT_CASES):
        o = fuzz_policy.run_text_case(fuzz_policy.text_case(random.Random(f"text:{SEED}:{i}"), seeds), tmp_path)
        outcomes[o.kind] += 1
        if o.kind not in ("0", "1", "2"):
            bad.append((i, o.kind, o.site, o.detail))
    assert not bad, bad[:10]
    assert outcomes["1"] > TEXT_CASES // 5, outcomes


@pytest.mark.timeout(300)
def test_fuzzed_config_files_end_in_a_check_or_one_error_line(plan_files, tmp_path):
    plan_text = Path(plan_files["config:queue-bad"]).read_text()
    outcomes: Counter = Counter()
    bad = []
    for i in range(CONFIG_CASES):
        name, data = fuzz_policy.config_text(random.Random(f"config:{SEED}:{i}"))
        o = fuzz_policy.run_config_case(name, data, plan_text, tmp_path)
        outcomes[o.kind] += 1
        if o.kind not in ("0", "1", "2"):
            bad.append((i, name, data[:80], o.kind, o.site, o.detail))
    assert not bad, bad[:10]
    assert min(outcomes["1"], outcomes["2"]) > CONFIG_CASES // 10, outcomes


@pytest.mark.timeout(300)
def test_fuzzed_source_trees_never_fail_or_block_the_check(plan_files, tmp_path):
    """Hostile copies of configs/source-good (expressions, truncated files, FIFOs, /dev/zero, oversized
    files, modules.json pointing anywhere, symlinks out of the tree): the check ends in 0 or 1, in seconds."""
    from tests.policies import plans

    doc = Path(plan_files["config:source-good"]).read_text()
    outcomes: Counter = Counter()
    bad = []
    for i in range(SOURCE_CASES):
        rng = random.Random(f"source:{SEED}:{i}")
        src, label = fuzz_policy.source_case(rng, plans.CONFIGS / "source-good", tmp_path)
        o = fuzz_policy.run_source_case(doc, src, rng.choice(("text", "json", "sarif")))
        outcomes[o.kind] += 1
        if o.kind not in ("0", "1"):
            bad.append((i, label, o.kind, o.site, o.detail))
    assert not bad, bad[:10]
    assert outcomes["1"] > 0 and outcomes["0"] > 0, outcomes
