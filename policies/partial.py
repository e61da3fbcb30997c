"""A plan that is not the whole change: said, and refused under ``--strict``, never judged as whole.

Terraform marks what its plan leaves out (``terraform show -json``):

- ``errored: true``: planning stopped at an error (a failed precondition, a provider error);
  the changes planned before it are there, the rest is not. Refused (exit 2) by the loader,
  with or without ``--strict``: fix the error and plan again.
- ``complete: false``: the plan does not hold every change the configuration needs: a
  ``-target`` plan, or one with changes deferred to a later plan (``deferred_changes``, the
  resources whose ``for_each`` or provider configuration is not known yet). Checked, with a
  note naming what is left out; under ``--strict`` refused (exit 2), since a strict gate must
  not pass a change it has not seen whole.
- ``applyable: false`` alone is not partial: a plan with nothing to change is not applyable.
"""
from __future__ import annotations


def partial_plan(doc: dict) -> str | None:
    """Why ``doc`` is not the whole change (None: it is)."""
    deferred = doc.get("deferred_changes")
    deferred = deferred if isinstance(deferred, list) else []
    if doc.get("complete") is not False and not deferred:
        return None
    bits = []
    if deferred:
        addrs = []
        for d in deferred:
            rc = d.get("resource_change") if isinstance(d, dict) else None
            addr = rc.get("address") if isinstance(rc, dict) else None
            if isinstance(addr, str):
                addrs.append(addr)
        shown = ", ".join(addrs[:3]) + (f" and {len(addrs) - 3} more" if len(addrs) > 3 else "")
        bits.append(f"{len(deferred)} change(s) are deferred to a later plan" + (f" ({shown})" if shown else ""))
    else:
        bits.append("Terraform marks it incomplete (complete: false; e.g. planned with -target)")
    return ("the plan is partial: " + "; ".join(bits) + ": what it leaves out is not checked, and a finding that "
            "depends on it may be missing; check the plan of the whole change (--strict refuses a partial plan)")
