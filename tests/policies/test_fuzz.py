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
