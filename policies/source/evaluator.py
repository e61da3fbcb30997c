"""The partial evaluator of configuration expressions against the plan."""
from __future__ import annotations

from pathlib import Path

from ..graph import module_parent, parse_module_address
from .filefns import ARITY as FILE_ARITY
from .functions import (FUNCTIONS, _TemplateOut, arity_error, _bool, _get, _index, _norm_num, _num, _num_str, _pairs, _plain,
                        _whole, _whole_deep, _why)
from .scope import Scope, _Coll, _ModObj, _NS, _ResObj
from .templates import _heredoc_expr, _unescape
from .tree import MAX_ITEMS, MAX_TEXT, ModuleSource, _Error, _OutOfSteps, _TooLarge, _declared_sensitive, _name, _trees
from .values import Template, Unknown, settled, first_unknown, is_unknown


_ROOTS = {"var", "local", "module", "data", "each", "count"}


class Evaluator:
    """Partial evaluation of configuration expressions against the plan."""

    def __init__(self, source, refine: bool = True):
        """``source``: the reader.Source that owns it (its plan, module sources, notes); the
        reader imports this module, not the other way round."""
        self.src = source
        self.plan = source.plan
        self._memo: dict = {}
        self._busy: set = set()
        # decide `x != null` when x is an identity attribute known only after apply
        # (Terraform leaves it unknown); off: Terraform's own view, to tell a value the source
        # decides by that from a source that does not match the plan
        self.refine = refine

    def module_source(self, module_addr: str) -> ModuleSource | None:
        """The parsed source of a module instance (see Source.module_source)."""
        return self.src.module_source(module_addr)

    # -- references ------------------------------------------------------------------------
    def _memoized(self, key, fn):
        """``fn()`` once per ``key``; a value that refers to itself is unknown, a failing one unknown with the
        reason."""
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return Unknown(f"{key[1]} refers to itself")
        self._busy.add(key)
        try:
            got = fn()
        except _Error as e:
            got = Unknown(str(e))
        finally:
            self._busy.discard(key)
        self._memo[key] = got
        return got

    def variable(self, module: str, name: str):
        """The value module instance ``module``'s input ``name`` gets: the plan's variable at the root, else the
        call's argument or the variable's default."""
        def compute():
            if not module:
                if name in self.plan.variables:
                    return self.plan.variables[name]
                return Unknown(f"var.{name} is not in the plan's variables")
            parent = module_parent(module)
            call_name, key = parse_module_address(module)[-1]
            pms = self.module_source(parent)
            call = pms.calls.get(call_name) if pms else None
            if call is None:
                return Unknown(f"the module call {call_name} is not in the source")
            attrs = call.attrs()
            cfg = self.plan.module_config(module)
            if name in attrs:
                each = attrs.get("for_each")
                sc = Scope(parent, key, (parent, each) if each is not None else None)
                got = self.eval(attrs[name], sc)
                # null given to a `nullable = false` variable: Terraform uses its default. The
                # evaluator may also reach null where Terraform has a value (an expression it
                # does not follow, caught by try()), so the value is not decided: unknown, never
                # "null" (which SQS would refuse)
                if got is not None or not self._not_nullable(module, name):
                    return self._typed(module, name, got)
            var = (cfg.variables.get(name) if cfg else None) or {}
            return self._typed(module, name, var.get("default"))

        def checked():
            v = compute()
            if self._var_sensitive(module, name):
                self.src.sensitive(v)
            return v
        return self._memoized(("var", f"var.{name}", module), checked)

    def _var_sensitive(self, module: str, name: str) -> bool:
        """Whether the variable is declared sensitive (in the plan's configuration or the source)."""
        cfg = self.plan.module_config(module)
        var = (cfg.variables.get(name) if cfg else None) or {}
        if isinstance(var, dict) and var.get("sensitive") is True:
            return True
        ms = self.src._modules.get(tuple(n for n, _ in parse_module_address(module)))
        return ms is not None and _declared_sensitive(ms.variables.get(name))

    def _typed(self, module: str, name: str, value):
        """``value`` converted as the variable's declared type converts it where that changes what
        expressions read: the attributes an ``object(...)`` type declares ``optional`` are present
        (null, or the optional default) also when the value lacks them, undeclared ones dropped, at
        every depth (``map(object(...))``, ...). Without it ``var.x.attr`` would fail where Terraform
        reads null, and a try() around it take the wrong argument."""
        ms = self.module_source(module)
        block = ms.variables.get(name) if ms is not None else None
        node = block.attrs().get("type") if block is not None else None
        return self._convert(value, node, module, 0) if node is not None else value

    def _convert(self, value, node, module: str, depth: int):
        """``value`` converted by type expression ``node`` (see _typed); other types leave it as it is."""
        while node.data in ("expr_term", "expression") and len(_trees(node)) == 1:
            node = _trees(node)[0]
        if depth > 32 or node.data != "function_call" or value is None:
            return value
        kids = _trees(node)
        args_node = next((k for k in kids if k.data == "arguments"), None)
        args = _trees(args_node) if args_node is not None else []
        kind = _name(kids[0])
        value = _whole(value)
        if kind in ("map", "list", "set") and len(args) == 1:
            if isinstance(value, dict):
                return {k: self._convert(v, args[0], module, depth + 1) for k, v in value.items()}
            if isinstance(value, list):
                return [self._convert(v, args[0], module, depth + 1) for v in value]
            return value
        if kind != "object" or len(args) != 1 or not isinstance(value, dict):
            return value
        spec = args[0]
        while spec.data == "expr_term" and len(_trees(spec)) == 1:
            spec = _trees(spec)[0]
        if spec.data != "object":
            return value
        out = {}
        for elem in _trees(spec):
            if elem.data != "object_elem":
                continue
            key_node, type_node = _trees(elem)[0], _trees(elem)[-1]
            key = _name(_trees(_trees(key_node)[0])[0] if _trees(_trees(key_node)[0]) else _trees(key_node)[0])
            t = type_node
            while t.data == "expr_term" and len(_trees(t)) == 1:
                t = _trees(t)[0]
            optional = t.data == "function_call" and _name(_trees(t)[0]) == "optional"
            if optional:
                oargs_node = next((k for k in _trees(t) if k.data == "arguments"), None)
                oargs = _trees(oargs_node) if oargs_node is not None else []
                if not oargs:
                    return value
                got = value.get(key)
                if got is None and len(oargs) > 1:
                    got = self.eval(oargs[1], Scope(module))
                out[key] = self._convert(got, oargs[0], module, depth + 1)
            elif key in value:
                out[key] = self._convert(value[key], type_node, module, depth + 1)
            else:
                return value  # a required attribute missing: Terraform refuses the value
        return out

    def _not_nullable(self, module: str, name: str) -> bool:
        """Whether the variable is declared ``nullable = false``."""
        ms = self.module_source(module)
        block = ms.variables.get(name) if ms is not None else None
        if block is None:
            return False
        expr = block.attrs().get("nullable")
        return expr is not None and self.eval(expr, Scope(module)) is False

    def local(self, module: str, name: str):
        """``local.<name>`` of a module instance."""
        def compute():
            ms = self.module_source(module)
            if ms is None:
                return Unknown(f"the source of {module or 'the root module'} is not available")
            if name not in ms.locals:
                raise _Error(f"local.{name} is not declared")
            return self.eval(ms.locals[name][0], Scope(module))
        return self._memoized(("local", f"local.{name}", module), compute)

    def output(self, module: str, name: str):
        """Output ``name`` of module instance ``module``."""
        def compute():
            ms = self.module_source(module)
            if ms is None:
                return Unknown(f"the source of {module} is not available")
            if name not in ms.outputs:
                raise _Error(f"{module} has no output {name}")
            v = self.eval(ms.outputs[name][0], Scope(module))
            if name in ms.sensitive_outputs:
                self.src.sensitive(v)
            return v
        return self._memoized(("output", f"{module}.{name}", module), compute)

    def resource_ref(self, module: str, local: str):
        """A reference to a resource of the module instance: its planned instance, or its count/for_each instances."""
        cfg = self.plan.module_config(module)
        rcfg = cfg.resources.get(local) if cfg else None
        insts = self.plan.instances.get((module, local)) or {}
        if rcfg is None:
            raise _Error(f"{local} is not in the plan's configuration")
        if not rcfg.keyed:
            r = insts.get(None)
            return _ResObj(r) if r is not None else Unknown(f"{local} is not in the plan")
        kind = "count" if isinstance(next(iter(insts), 0), int) else "for_each"
        return _Coll({k: _ResObj(r) for k, r in insts.items()}, kind, local)

    def module_ref(self, module: str, name: str):
        """A reference to a module call: its instance, or its count/for_each instances."""
        cfg = self.plan.module_config(module)
        call = cfg.calls.get(name) if cfg else None
        if call is None:
            raise _Error(f"module.{name} is not in the plan's configuration")
        if not call.keyed:
            addr = f"{module + '.' if module else ''}module.{name}"
            return _ModObj(self, addr)
        kids = self.plan.children.get((module, name)) or {}
        kind = "count" if isinstance(next(iter(kids), 0), int) else "for_each"
        return _Coll({k: _ModObj(self, a) for k, a in kids.items()}, kind, f"module.{name}")

    def each_value(self, sc: Scope):
        """``each.value`` in scope ``sc``: the element of the for_each collection at its key."""
        mod, expr = sc.each
        coll = self._memoized(("each", id(expr), mod), lambda: self.eval(expr, Scope(mod)))
        if isinstance(coll, Unknown):
            return Unknown(f"each.value: the for_each collection is not known ({coll.why})")
        coll = _whole(coll)
        if isinstance(coll, dict):
            if sc.key in coll:
                return coll[sc.key]
            raise _Error(f"each.value: no key {sc.key!r} in the for_each collection")
        if isinstance(coll, list):  # a set of strings: each.value is each.key
            return sc.key
        raise _Error("for_each is neither a map nor a set")

    # -- expressions -----------------------------------------------------------------------
    def eval(self, node, sc: Scope):
        """The partial value of expression ``node`` in scope ``sc`` (one step of the check's budget)."""
        src = self.src
        src.steps += 1
        if src.steps > src.max_steps:
            raise _OutOfSteps()
        d = node.data
        fn = getattr(self, "_e_" + d, None)
        if fn is None:
            return Unknown(f"`{d}` expressions are not evaluated")
        return fn(node, sc)

    def _e_expr_term(self, node, sc):
        """A parenthesised or plain expression term."""
        kids = _trees(node)
        return self.eval(kids[0], sc)

    def _e_int_lit(self, node, sc):
        """An integer literal."""
        return int(str(node.children[0]))

    def _e_float_lit(self, node, sc):
        """A decimal literal (a whole one as an int, as Terraform's numbers compare)."""
        v = float(str(node.children[0]))
        return int(v) if v.is_integer() else v

    def _e_literal_value(self, node, sc):
        """true, false, null."""
        return {"true": True, "false": False, "null": None}[str(node.children[0])]

    def _e_identifier(self, node, sc):
        """A name: bound by a for expression or dynamic block, a namespace (var, local, ...) or a resource type."""
        name = _name(node)
        if name in sc.bound:
            return sc.bound[name]
        if sc.closed:  # a template file sees only templatefile()'s variables
            raise _Error(f"templatefile: the template refers to {name!r}, which is not among its variables")
        if name in _ROOTS:
            return _NS(name, self, sc)
        if name in ("path", "terraform", "self"):
            return _NS(name, self, sc, name)
        return _NS("type", self, sc, name)

    _e_keyword = _e_identifier

    def _e_tuple(self, node, sc):
        """``[a, b]``."""
        return [self.eval(c, sc) for c in _trees(node)]

    def _e_object(self, node, sc):
        """``{k = v}``."""
        out = {}
        for el in _trees(node):
            kids = _trees(el)
            keynode, val = kids[0], kids[-1]
            k = self._object_key(keynode, sc)
            if isinstance(k, Unknown):
                return Unknown(f"an object key is not known ({k.why})")
            out[k] = self.eval(val, sc)
        return out

    def _object_key(self, keynode, sc):
        """An object key: a bare name is the string itself, ``(expr)`` is evaluated."""
        kids = _trees(keynode)
        inner = kids[0]
        if inner.data == "keyword":
            return _name(inner)
        if inner.data == "expr_term":
            sub = _trees(inner)
            paren = any(not hasattr(c, "data") and str(c) == "(" for c in inner.children)
            if len(sub) == 1 and sub[0].data == "identifier" and not paren:
                return _name(sub[0])
        k = self.eval(inner, sc)
        if isinstance(k, (int, float, bool)) and not isinstance(k, bool):
            k = _num_str(k)
        if isinstance(k, Template):
            return Unknown("part of it is known only after apply")
        if not isinstance(k, str) and not isinstance(k, Unknown):
            raise _Error("an object key is not a string")
        return k

    def _e_string(self, node, sc):
        """A quoted string with interpolations and directives."""
        parts = [p for p in node.children if hasattr(p, "data")]
        return self._template(parts, sc)

    def _e_template_string(self, node, sc):
        """A template string token."""
        raw = str(node.children[0])
        return _unescape(raw[2:-2])

    def _e_heredoc_template(self, node, sc):
        """A heredoc, read as a quoted template."""
        expr = _heredoc_expr(node)
        if expr is None:
            return Unknown("a heredoc that could not be read as a template")
        return self.eval(expr, sc)

    _e_heredoc_template_trim = _e_heredoc_template

    def _template(self, parts, sc):
        """Parts of a template (literals, interpolations, if/for directives) rendered; unknown parts kept as such."""
        items = []  # ("lit", str) | ("expr", node) | ("if", node, strip) ...
        for p in parts:
            c = p.children[0]
            if not hasattr(c, "data"):
                t = c.type
                if t == "STRING_CHARS":
                    items.append(("lit", _unescape(str(c))))
                elif t == "ESCAPED_INTERPOLATION":
                    items.append(("lit", str(c)[1:]))
                elif t == "ESCAPED_DIRECTIVE":
                    items.append(("lit", str(c)[1:]))
                continue
            kind = c.data
            strip_l = any(not hasattr(x, "data") and x.type == "STRIP_MARKER" and i == 1
                          for i, x in enumerate(c.children))
            strip_r = any(not hasattr(x, "data") and x.type == "STRIP_MARKER" and i == len(c.children) - 2
                          for i, x in enumerate(c.children))
            if kind == "interpolation":
                items.append(("expr", _trees(c)[0], strip_l, strip_r))
            elif kind == "template_if_start":
                items.append(("if", _trees(c)[-1], strip_l, strip_r))
            elif kind == "template_else":
                items.append(("else", None, strip_l, strip_r))
            elif kind == "template_endif":
                items.append(("endif", None, strip_l, strip_r))
            elif kind == "template_for_start":
                names = [_name(x) for x in _trees(c) if x.data == "identifier"]
                items.append(("for", (names, _trees(c)[-1]), strip_l, strip_r))
            elif kind == "template_endfor":
                items.append(("endfor", None, strip_l, strip_r))
        out = _TemplateOut()
        self._render(items, 0, len(items), sc, out)
        return out.result()

    def _render(self, items, i, end, sc, out):
        """Render ``items[i:end]`` of a template into ``out``, directives included."""
        while i < end:
            it = items[i]
            kind = it[0]
            if kind == "lit":
                out.add(it[1])
                i += 1
                continue
            if len(it) > 2 and it[2]:
                out.strip_right()
            if kind == "expr":
                v = self.eval(it[1], sc)
                out.add_value(v)
                if it[3]:
                    out.strip_next = True
                i += 1
                continue
            if kind in ("if", "for"):
                close = "endif" if kind == "if" else "endfor"
                depth, j, mid = 0, i + 1, None
                while j < end:
                    k2 = items[j][0]
                    if k2 in ("if", "for"):
                        depth += 1
                    elif k2 in ("endif", "endfor"):
                        if depth == 0:
                            break
                        depth -= 1
                    elif k2 == "else" and depth == 0 and kind == "if":
                        mid = j
                    j += 1
                if j >= end or items[j][0] != close:
                    out.failed = Unknown("an unterminated template directive")
                    return
                if kind == "if":
                    cond = self.eval(it[1], sc)
                    if isinstance(cond, Unknown) or is_unknown(cond):
                        out.failed = Unknown(f"a template %{{if}} condition is not known ({_why(cond)})")
                        return
                    if cond is True or cond == "true":
                        branch, end_strip = (i + 1, mid if mid is not None else j), it[3]
                        close_strip = items[mid][2] if mid is not None else items[j][2]
                    elif mid is not None:
                        branch, end_strip, close_strip = (mid + 1, j), items[mid][3], items[j][2]
                    else:
                        branch, end_strip, close_strip = None, it[3] or items[j][3], False
                    if branch is not None:
                        if end_strip:
                            out.strip_next = True
                        self._render(items, branch[0], branch[1], sc, out)
                        if close_strip:
                            out.strip_right()
                else:
                    names, coll_node = it[1]
                    coll = _whole(self.eval(coll_node, sc))
                    if is_unknown(coll):
                        out.failed = Unknown(f"a template %{{for}} collection is not known ({_why(coll)})")
                        return
                    for k, v in _pairs(coll):
                        bind = {names[0]: v} if len(names) == 1 else {names[0]: k, names[1]: v}
                        if it[3]:
                            out.strip_next = True
                        self._render(items, i + 1, j, sc.bind(bind), out)
                        if items[j][2]:
                            out.strip_right()
                if items[j][3]:
                    out.strip_next = True
                i = j + 1
                continue
            i += 1  # a stray else/endif/endfor

    def _e_conditional(self, node, sc):
        """``c ? a : b``: unknown when the condition is; a condition that is not a bool fails."""
        cond, a, b = _trees(node)
        c = self.eval(cond, sc)
        if is_unknown(c):
            return Unknown(f"a condition is not known ({_why(c)})")
        if c is True:
            return self.eval(a, sc)
        if c is False:
            return self.eval(b, sc)
        raise _Error("a condition is not a boolean")

    def _e_unary_op(self, node, sc):
        """``!x``, ``-x``."""
        op = node.children[0].type
        v = self.eval(_trees(node)[0], sc)
        if is_unknown(v):
            return Unknown(_why(v))
        if op == "MINUS":
            return -_num(v)
        return not _bool(v)

    def _e_binary_op(self, node, sc):
        """Arithmetic, comparison and logical operators (``!= null`` of an identity attribute decided when
        ``refine``)."""
        left, term = _trees(node)
        opnode, right = _trees(term)
        op = opnode.children[0].type
        a = self.eval(left, sc)
        if op in ("DOUBLE_AMP", "DOUBLE_PIPE") and not is_unknown(a):
            a = _bool(a)
            if op == "DOUBLE_AMP" and a is False:
                return False
            if op == "DOUBLE_PIPE" and a is True:
                return True
        b = self.eval(right, sc)
        if op in ("DOUBLE_EQ", "NEQ") and self.refine and (a is None or b is None) and settled(_whole(b if a is None else a)):
            return (op == "NEQ") is (_whole(b if a is None else a) is not None)
        if is_unknown(a) or is_unknown(b):
            return Unknown(_why(a if is_unknown(a) else b))
        if op in ("DOUBLE_AMP", "DOUBLE_PIPE"):
            return _bool(b)
        if op == "DOUBLE_EQ":
            return _plain(a) == _plain(b)
        if op == "NEQ":
            return _plain(a) != _plain(b)
        a, b = _num(a), _num(b)
        if op == "PLUS":
            return _norm_num(a + b)
        if op == "MINUS":
            return _norm_num(a - b)
        if op == "ASTERISK":
            return _norm_num(a * b)
        if op == "SLASH":
            if b == 0:
                raise _Error("division by zero")
            return _norm_num(a / b)
        if op == "PERCENT":
            return _norm_num(a % b)
        return {"LT": a < b, "GT": a > b, "LEQ": a <= b, "GEQ": a >= b}[op]

    def _step(self, v, step, sc):
        """One traversal step (attribute, index, splat) applied to ``v``."""
        d = step.data
        if d == "get_attr":
            name = _name(_trees(step)[0])
            return _get(v, name)
        if d in ("braces_index", "short_index"):
            if d == "short_index":
                key = int(str(step.children[-1]))
            else:
                key = self.eval(_trees(step)[0], sc)
            if is_unknown(key):
                return Unknown(f"an index is not known ({_why(key)})")
            return _index(v, key)
        if d in ("attr_splat", "full_splat"):
            subs = _trees(step)
            v = _whole(v)
            if v is None:
                return []
            if isinstance(v, Unknown):
                return Unknown(v.why)
            items = v if isinstance(v, list) else ([v] if not isinstance(v, dict) else None)
            if items is None:
                raise _Error("a splat over a map")
            out = []
            for x in items:
                for s in subs:
                    x = self._step(x, s, sc)
                out.append(x)
            return out
        return Unknown(f"`{d}` is not evaluated")

    def _e_get_attr_expr_term(self, node, sc):
        """``x.attr`` and ``x[key]``."""
        base, step = _trees(node)
        return self._step(self.eval(base, sc), step, sc)

    _e_index_expr_term = _e_get_attr_expr_term
    _e_attr_splat_expr_term = _e_get_attr_expr_term
    _e_full_splat_expr_term = _e_get_attr_expr_term

    def _for(self, node, sc, is_object):
        """A for expression over a known collection (``obj``: ``{for ...}``, else ``[for ...]``)."""
        kids = _trees(node)
        intro = kids[0]
        names = [_name(c) for c in _trees(intro) if c.data == "identifier"]
        coll = _whole(self.eval(_trees(intro)[-1], sc))
        if is_unknown(coll):
            return Unknown(f"a for expression's collection is not known ({_why(coll)})")
        rest = kids[1:]
        cond = rest[-1] if rest and rest[-1].data == "for_cond" else None
        if cond is not None:
            rest = rest[:-1]
        group = any(not hasattr(c, "data") and c.type == "ELLIPSIS" for c in node.children)
        out_l: list = []
        out_d: dict = {}
        for k, v in _pairs(coll):
            bind = {names[0]: v} if len(names) == 1 else {names[0]: k, names[1]: v}
            s2 = sc.bind(bind)
            if cond is not None:
                c = self.eval(_trees(cond)[-1], s2)
                if is_unknown(c):
                    return Unknown(f"a for expression's condition is not known ({_why(c)})")
                if not _bool(c):
                    continue
            if is_object:
                key = self.eval(rest[0], s2)
                if is_unknown(key):
                    return Unknown(f"a for expression's key is not known ({_why(key)})")
                key = _num_str(key) if isinstance(key, (int, float)) and not isinstance(key, bool) else key
                val = self.eval(rest[1], s2)
                if group:
                    out_d.setdefault(key, []).append(val)
                elif key in out_d:
                    raise _Error(f"duplicate key {key!r} in a for expression")
                else:
                    out_d[key] = val
            else:
                out_l.append(self.eval(rest[0], s2))
        return out_d if is_object else out_l

    def _e_for_tuple_expr(self, node, sc):
        """``[for ...]``."""
        return self._for(node, sc, False)

    def _e_for_object_expr(self, node, sc):
        """``{for ...}``."""
        return self._for(node, sc, True)

    def _e_function_call(self, node, sc):
        """A function call: the library's functions (source.functions.FUNCTIONS), try() and can(); others unknown."""
        kids = _trees(node)
        idents = [k for k in kids if k.data == "identifier"]
        if len(idents) > 1:
            return Unknown(f"provider function `{'::'.join(_name(i) for i in idents)}` not evaluated")
        name = _name(idents[0])
        args_node = next((k for k in kids if k.data == "arguments"), None)
        arg_nodes = _trees(args_node) if args_node is not None else []
        expand = args_node is not None and any(not hasattr(c, "data") and c.type == "ELLIPSIS" for c in args_node.children)
        if name in ("try", "can"):
            return self._try(name, arg_nodes, sc)
        if name in FILE_ARITY:
            return self._file_function(name, arg_nodes, expand, sc)
        fn = FUNCTIONS.get(name)
        if fn is None:
            return Unknown(f"function `{name}` not evaluated")
        if not expand and (why := arity_error(name, len(arg_nodes))):
            # Terraform counts the arguments before it looks at them: unknown ones fail too
            raise _Error(f"{name}: {why}")
        args = [self.eval(a, sc) for a in arg_nodes]
        if expand and args:
            last = _whole(args[-1])
            if is_unknown(last):
                return Unknown(_why(last))
            args = args[:-1] + list(last if isinstance(last, list) else [])
            if why := arity_error(name, len(args)):
                raise _Error(f"{name}: {why} (with the list expanded by ...)")
        _within_budget(name, args, arguments=True)
        try:
            return _within_budget(name, fn(*args))
        except (TypeError, ValueError, ArithmeticError, LookupError, AttributeError) as e:
            # Terraform fails the plan when a function gets arguments it cannot take
            # (max() of nothing, lower() of a number, ...): the expression fails, as any other.
            raise _Error(f"{name}: {' '.join(str(e).split())[:160] or type(e).__name__}") from None

    def _file_function(self, name, arg_nodes, expand, sc):
        """file(), fileexists(), fileset(), templatefile(): files inside the source directories
        (source.filefns)."""
        if expand:
            return Unknown(f"`{name}` with its arguments expanded by ... is not evaluated")
        least, most = FILE_ARITY[name]
        if not least <= len(arg_nodes) <= most:
            raise _Error(f"{name}: takes exactly {least} argument{'s' if least > 1 else ''}, got {len(arg_nodes)}")
        if name == "templatefile" and sc.closed:
            raise _Error("templatefile: a template cannot call templatefile")
        args = [_whole_deep(self.eval(a, sc)) for a in arg_nodes]
        files = self.src.files
        if name == "templatefile":
            return files.templatefile(args[0], args[1], self)
        return getattr(files, name)(*args)

    def path_value(self, module: str, name: str):
        """``path.module`` (the module's directory, relative to the root module's, as Terraform
        gives it), ``path.root`` (``.``); ``path.cwd`` is where Terraform ran: not known here."""
        if name == "root":
            return "."
        if name == "module":
            if not module:
                return "."
            d = self.src.module_dir(tuple(n for n, _ in parse_module_address(module)))
            if d is None:
                return Unknown(f"path.module of {module}: its directory is not known")
            import os

            return Path(os.path.relpath(d, self.src.root)).as_posix()
        if name == "cwd":
            return Unknown("path.cwd is the directory Terraform ran in, which the plan does not record")
        raise _Error(f"path.{name} is not a path attribute")

    def _try(self, name, arg_nodes, sc):
        """try() / can(): the first argument that evaluates without failing."""
        for a in arg_nodes:
            try:
                v = self.eval(a, sc)
                v = _whole_deep(v)
            except _Error:
                if name == "can":
                    return False
                continue
            if first_unknown(v) is not None and not isinstance(v, (str, int, float, bool)) and not settled(v):
                return Unknown(f"{name}() of a value known only after apply ({first_unknown(v).why})")
            return True if name == "can" else v
        if name == "can":
            return False
        raise _Error("no argument of try() succeeded")


def _within_budget(name: str, v, arguments: bool = False):
    """``v`` (a function's result, or with ``arguments`` its argument list) if it is within the
    memory budget of one value (tree.MAX_TEXT characters of text, tree.MAX_ITEMS elements),
    counted without building anything; else _TooLarge (the value stays unknown, with a note).
    The arguments are bounded as a whole: join() of a list that repeats one long string is
    cheap to hold and costly to build."""
    text = items = 0
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            text += len(x)
        elif isinstance(x, (list, tuple)):
            items += len(x)
            stack.extend(x)
        elif isinstance(x, dict):
            items += len(x)
            stack.extend(x.values())
        elif isinstance(x, Template):
            stack.extend(x.parts)
        if text > MAX_TEXT or items > MAX_ITEMS:
            what = "its arguments hold" if arguments else "it gives"
            raise _TooLarge(f"{name}(): {what} over {MAX_TEXT:,} characters or {MAX_ITEMS:,} elements")
    return v
