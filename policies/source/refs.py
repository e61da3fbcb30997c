"""The references an expression makes, reduced as Terraform lists them in the plan's
``configuration`` section: the source of an expression is used only when they agree."""
from __future__ import annotations

import json

from ..graph import reduce_refs
from .templates import _heredoc_expr, _unescape
from .tree import _name, _trees


# -- references, as Terraform lists them in the plan --------------------------------------------
def references(node, bound: frozenset = frozenset()) -> set[str]:
    """The static traversals an expression makes (Terraform's ``references``,
    reduced to the longest), names bound by for expressions excluded."""
    out: set[str] = set()
    _refs(node, bound, out)
    return out


_TRAV_NODES = ("get_attr_expr_term", "index_expr_term", "attr_splat_expr_term", "full_splat_expr_term")


def _static_index(node):
    """The constant key of an index node, or None."""
    if node.data == "short_index":
        return int(str(node.children[-1]))
    expr = _trees(node)[0]
    while expr.data == "expr_term" and len(_trees(expr)) == 1 and not any(
            not hasattr(c, "data") and str(c) == "(" for c in expr.children):
        expr = _trees(expr)[0]
    if expr.data == "int_lit":
        return int(str(expr.children[0]))
    if expr.data == "string":
        parts = [p for p in expr.children if hasattr(p, "data")]
        if all(not hasattr(p.children[0], "data") and p.children[0].type == "STRING_CHARS" for p in parts):
            return _unescape("".join(str(p.children[0]) for p in parts))
    return None


def _traversal(node):
    """(root name, [steps], [dynamic sub-expressions]) of a traversal chain, or None."""
    steps: list = []
    dynamic: list = []
    chain = []
    n = node
    while n.data in _TRAV_NODES or (n.data == "expr_term" and len(_trees(n)) == 1 and _trees(n)[0].data in
                                    _TRAV_NODES + ("identifier",) and not any(
                                        not hasattr(c, "data") and str(c) == "(" for c in n.children)):
        if n.data == "expr_term":
            n = _trees(n)[0]
            continue
        kids = _trees(n)
        chain.append(kids[1])
        n = kids[0]
    if n.data == "expr_term":
        kids = _trees(n)
        if len(kids) == 1 and kids[0].data == "identifier":
            n = kids[0]
    if n.data != "identifier":
        return None
    root = _name(n)
    stopped = False
    for step in reversed(chain):
        if stopped:
            _collect_step_dynamic(step, dynamic)
            continue
        if step.data == "get_attr":
            steps.append(_name(_trees(step)[0]))
        elif step.data in ("braces_index", "short_index"):
            k = _static_index(step)
            if k is None:
                stopped = True
                dynamic.extend(_trees(step))
            else:
                steps.append(_Key(k) if isinstance(k, str) else k)
        else:  # splats end the static traversal
            stopped = True
            _collect_step_dynamic(step, dynamic)
    return root, steps, dynamic


def _collect_step_dynamic(step, dynamic):
    """The expressions inside a traversal step (an index, a splat) that make it dynamic."""
    if step.data == "braces_index":
        dynamic.extend(_trees(step))
    elif step.data in ("attr_splat", "full_splat"):
        for s in _trees(step):
            _collect_step_dynamic(s, dynamic)


def _fmt_ref(root: str, steps: list) -> str:
    """A traversal as Terraform writes a reference (``aws_sqs_queue.q["a"].arn``)."""
    s = root
    for p in steps:
        if isinstance(p, str) and not isinstance(p, _Key):
            s += f".{p}"
        elif isinstance(p, int):
            s += f"[{p}]"
        else:
            s += f"[{json.dumps(str(p))}]"
    return s


class _Key(str):
    """A string index key (``["a"]``), as opposed to an attribute name."""


def _refs(node, bound, out):
    """Collect the references of ``node`` into ``out``, names in ``bound`` excluded."""
    if not hasattr(node, "data"):
        return
    d = node.data
    if d in _TRAV_NODES or d == "identifier" or (d == "expr_term" and len(_trees(node)) == 1
                                                 and _trees(node)[0].data == "identifier"):
        t = _traversal(node)
        if t is not None:
            root, steps, dynamic = t
            if root not in bound:
                if steps:  # a bare name is no reference (a function's result attribute, a typo)
                    out.add(_fmt_ref(root, steps))
            for x in dynamic:
                _refs(x, bound, out)
            return
    if d in ("for_tuple_expr", "for_object_expr"):
        intro = next(c for c in _trees(node) if c.data == "for_intro")
        names = [_name(c) for c in _trees(intro) if c.data == "identifier"]
        _refs(_trees(intro)[-1], bound, out)
        inner = bound | frozenset(names)
        for c in _trees(node):
            if c is not intro:
                _refs(c, inner, out)
        return
    if d in ("heredoc_template", "heredoc_template_trim"):
        got = _heredoc_expr(node)
        if got is not None:
            _refs(got, bound, out)
        return
    if d == "string":  # names bound by %{for} directives are not references
        names = [_name(x) for p in node.children if hasattr(p, "data") for c in p.children
                 if hasattr(c, "data") and c.data == "template_for_start" for x in _trees(c) if x.data == "identifier"]
        if names:
            bound = bound | frozenset(names)
    if d == "function_call":
        for c in _trees(node)[1:]:
            _refs(c, bound, out)
        return
    if d == "object_elem_key":
        kids = _trees(node)
        if kids and kids[0].data == "expr_term" and len(_trees(kids[0])) == 1 and _trees(kids[0])[0].data == "identifier":
            return  # a bare key is a name, not a reference
    for c in node.children:
        _refs(c, bound, out)


def _longest(refs) -> set[str]:
    """Terraform lists a.b.c with a.b and a: keep the longest, drop the link-less."""
    out = set()
    for r in reduce_refs(list(refs)):
        out.add(r)
    return out


def _plan_refs(expr) -> list[str]:
    """The references the plan recorded for an expression (graph.collect_refs)."""
    from ..graph import collect_refs

    return collect_refs(expr)
