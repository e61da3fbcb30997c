"""Import cycles among the project's Python packages (policies/, resilient_sqs/, tooling/).

    python -m tooling.import_cycles [ROOT]          # every import
    python -m tooling.import_cycles --runtime        # without imports under ``if TYPE_CHECKING:``
    python -m tooling.import_cycles --top-level      # module-level imports only (what runs at import)

Prints each cycle (a strongly connected component of more than one module, or a module importing
itself) and their count. ``policies`` is installed as ``resilient_sqs.policy``: both names are one
package here. Imports are read with ``ast``, relative ones resolved; nothing is imported."""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

PACKAGES = {"policies": "policies", "resilient_sqs": "resilient_sqs", "tooling": "tooling"}
ALIASES = {"resilient_sqs.policy": "policies"}


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = f
    return out


def _canonical(name: str) -> str:
    for alias, real in ALIASES.items():
        if name == alias or name.startswith(alias + "."):
            return real + name[len(alias):]
    return name


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(mod: str, path: Path, runtime: bool, top_level: bool) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    found: list[str] = []

    def visit(body, depth):
        for node in body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                if not runtime:
                    visit(node.body, depth)
                visit(node.orelse, depth)
                continue
            if isinstance(node, ast.Import):
                found.extend(_canonical(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = _canonical(node.module or "")
                found.append(target)
                found.extend(f"{target}.{a.name}" for a in node.names)
            if top_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(node, field, None)
                if isinstance(sub, list) and sub and not isinstance(node, (ast.Import, ast.ImportFrom)):
                    if isinstance(node, ast.If) and _is_type_checking(node):
                        continue
                    visit(sub, depth + 1)

    visit(tree.body, 0)
    return found


def graph(root: Path, runtime: bool = False, top_level: bool = False) -> dict[str, set[str]]:
    mods = _modules(root)
    runtime = runtime or top_level
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        for target in _imports(m, p, runtime, top_level):
            while target and target not in mods:
                target = target.rpartition(".")[0]
            if target and target != m and not m.startswith(target + "."):  # a package's own __init__ is not a cycle
                edges[m].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tooling.import_cycles", description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=".", help="a checkout (default: here)")
    ap.add_argument("--runtime", action="store_true", help="leave out imports under `if TYPE_CHECKING:`")
    ap.add_argument("--top-level", action="store_true", help="module-level imports only (implies --runtime)")
    a = ap.parse_args(argv)
    found = cycles(graph(Path(a.root), runtime=a.runtime or a.top_level, top_level=a.top_level))
    for c in found:
        print("cycle: " + " <-> ".join(c))
    print(f"{len(found)} import cycle(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
