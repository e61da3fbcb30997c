"""The files the checker reads besides the plan: the configuration source (``*.tf``),
``.terraform/modules/modules.json``, the config file and the baseline.

All of them are read here, the same way: only regular files (a named pipe, a device
such as ``/dev/zero`` or a socket is refused, also through a symlink), opened without
blocking, up to a size cap per file and, for one check, in total; and module
directories are looked up by one resolver (:class:`ModuleDirs`) that stays inside
the source directory, the module directories ``terraform init`` placed in its data
directory (``.terraform/modules``) and any directory the user names with
``--source-root``. Whatever is refused is refused with a reason naming the file and
the cap, for the caller's note or error line.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Iterable

MiB = 1 << 20
# one .tf file, modules.json: real ones are a few KiB to a few hundred KiB.
MAX_FILE_BYTES = 1 * MiB
# everything read from the configuration source during one check (only the modules a value needs)
MAX_TOTAL_BYTES = 4 * MiB
# HCL tokens parsed during one check. Parsing costs per token, not per byte (python-hcl2/lark:
# 50 to 110 us a token, so a 1 MiB file of dense tokens took minutes), so the parser is given
# at most this many, counted by a linear pre-scan before any file is parsed: about 5 to 11 s
# at worst (a quoted string's characters count one token per 8: source.tree._parse_cost);
# this repository's module tree (47 files, 267 KiB) is about 42,000.
MAX_PARSE_TOKENS = 100_000
# the config file (YAML or TOML)
MAX_CONFIG_BYTES = 1 * MiB
# a baseline file (sqs-policy baseline): an entry is about 300 bytes, so 100,000 findings fit
MAX_BASELINE_BYTES = 32 * MiB

_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class Refused(Exception):
    """A file that is not read: the message says which file and why."""


def _mib(n: int) -> str:
    return f"{n / MiB:g} MiB"


class Budget:
    """Bytes left for one check's reading of files other than the plan."""

    __slots__ = ("total", "left", "tokens")

    def __init__(self, total: int = MAX_TOTAL_BYTES, tokens: int = MAX_PARSE_TOKENS):
        self.total = self.left = total
        self.tokens = tokens  # HCL tokens the parser may still be given (MAX_PARSE_TOKENS)


def read_regular(path: str | os.PathLike, cap: int = MAX_FILE_BYTES, budget: Budget | None = None,
                 label: str | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``cap`` bytes (and within
    ``budget``); else :class:`Refused`. Never blocks: the open is non-blocking, and only
    a regular file is read from."""
    name = label or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise Refused(f"{name}: no such file") from None
    except IsADirectoryError:
        raise Refused(f"{name}: is a directory, not a file") from None
    except OSError as e:
        raise Refused(f"{name}: cannot open it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a regular file")
            raise Refused(f"{name}: is {kind}, not a regular file; only regular files are read")
        limit = cap if budget is None else min(cap, budget.left)
        if st.st_size > limit:
            raise Refused(_too_big(name, st.st_size, cap, budget))
        chunks = []
        size = 0
        while True:  # the size may have changed since fstat: never read past the limit
            chunk = os.read(fd, min(MiB, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise Refused(_too_big(name, size, cap, budget))
    except OSError as e:
        raise Refused(f"{name}: cannot read it ({e.strerror or e})") from None
    finally:
        os.close(fd)
    if budget is not None:
        budget.left -= size
    return b"".join(chunks)


def _too_big(name: str, size: int, cap: int, budget: Budget | None) -> str:
    if size > cap:
        return f"{name}: is larger than the {_mib(cap)} cap for one file, so it is not read"
    return (f"{name}: reading it would pass the {_mib(budget.total)} cap on all the configuration files one check "
            "reads, so it is not read")


# CI systems that check a repository out without its .git directory name its root here
_CI_ROOTS = ("GITHUB_WORKSPACE", "CI_PROJECT_DIR")


def work_tree(start: str | os.PathLike) -> Path | None:
    """The repository work tree ``start`` lies in: the nearest directory, ``start`` or one of its
    parents (symlinks resolved first), that holds ``.git`` (the directory of a clone, or the file
    of a linked worktree or submodule), found without the git binary. A checkout without
    ``.git`` (a CI that exports the sources) falls back to the CI's workspace variable
    (``GITHUB_WORKSPACE``, GitLab's ``CI_PROJECT_DIR``) when ``start`` lies inside it. None
    elsewhere."""
    try:
        real = Path(start).resolve()
    except (OSError, RuntimeError):
        return None
    for d in (real, *real.parents):
        try:
            if (d / ".git").is_dir() or (d / ".git").is_file():
                return d
        except OSError:
            continue
    for var in _CI_ROOTS:
        value = os.environ.get(var)
        if value:
            try:
                ws = Path(value).resolve()
            except (OSError, RuntimeError):
                continue
            if ws == real or ws in real.parents:
                return ws
    return None


def repository_roots(source_dir: str | os.PathLike, repo_root: str | os.PathLike | None = None) -> tuple:
    """The module-source roots a check of ``source_dir`` gets by default: the repository it lies
    in (``repo_root``, else its git work tree), or none when it lies in no repository."""
    root = Path(repo_root) if repo_root is not None else work_tree(source_dir)
    if root is None:
        return ()
    try:
        real = root.resolve()
    except (OSError, RuntimeError):
        return ()
    return (str(root),) if within(Path(source_dir), [real]) else ()


def within(path: Path, roots: Iterable[Path]) -> bool:
    """Whether ``path`` (resolved: symlinks followed) lies inside one of ``roots`` (resolved)."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return False
    return any(real == r or r in real.parents for r in roots)


class ModuleDirs:
    """Module path (call names from the root) -> the directory holding its ``.tf`` files.

    From ``modules.json`` (``terraform init``'s manifest in the data directory) when it
    lists the module, else from a local ``source`` (``./x``, ``../x``) relative to the
    caller's directory. A directory is used only inside ``roots``: the root module's
    directory, the data directory's ``modules`` and what ``--source-root`` adds; else
    :meth:`why` says what to pass. ``configuration``: the plan's ``configuration``
    section, where each module call's ``source`` is read.

    One instance serves a whole check: the evaluator (source.Source) and the SARIF, GitHub
    and GitLab locations (report.SourceLocator) look module directories up in the same one.
    """

    def __init__(self, root: str | os.PathLike, configuration: dict | None,
                 data_dir: str | os.PathLike | None = None, extra_roots: Iterable[str | os.PathLike] = (),
                 budget: Budget | None = None):
        self.root = Path(root)
        self.configuration = configuration if isinstance(configuration, dict) else {}
        if data_dir is None:
            data_dir = os.environ.get("TF_DATA_DIR") or ".terraform"
        dd = Path(data_dir)
        self.data_dir = dd if dd.is_absolute() else self.root / dd
        self.budget = budget
        self.roots = []
        for r in (self.root, self.data_dir / "modules", *[Path(x) for x in extra_roots]):
            try:
                self.roots.append(r.resolve())
            except (OSError, RuntimeError):
                pass
        self._dirs: dict[tuple, Path | None] = {(): self.root}
        self._why: dict[tuple, str] = {}
        self._manifest: dict | None = None
        self.manifest_note: str | None = None  # why modules.json was not read, when it exists

    def call_source(self, path: tuple) -> str | None:
        """The ``source`` of the module call at ``path`` (call names from the root), from the
        plan's configuration; None when the plan does not show it."""
        mod = self.configuration.get("root_module") or {}
        for name in path[:-1]:
            mod = ((mod.get("module_calls") or {}).get(name) or {}).get("module") or {}
        src = ((mod.get("module_calls") or {}).get(path[-1]) or {}).get("source") if path else None
        return src if isinstance(src, str) else None

    def _modules_json(self) -> dict:
        if self._manifest is None:
            self._manifest = {}
            f = self.data_dir / "modules" / "modules.json"
            if not os.path.lexists(f):
                return self._manifest
            try:
                doc = json.loads(read_regular(f, MAX_FILE_BYTES, self.budget).decode("utf-8"))
                for m in (doc.get("Modules") if isinstance(doc, dict) else None) or ():
                    if isinstance(m, dict) and isinstance(m.get("Key"), str) and isinstance(m.get("Dir"), str):
                        self._manifest[m["Key"]] = m
            except Refused as e:
                self.manifest_note = str(e)
            except (ValueError, RecursionError) as e:  # not JSON, not UTF-8, too deep
                self.manifest_note = f"{f}: is not valid JSON ({' '.join(str(e).split())[:120]})"
        return self._manifest

    def get(self, path: tuple) -> Path | None:
        if path in self._dirs:
            return self._dirs[path]
        self._dirs[path] = None  # a cycle of sources resolves to nothing
        d = None
        entry = self._modules_json().get(".".join(path))
        if entry is not None:
            d = Path(entry["Dir"])
            d = d if d.is_absolute() else self.root / d
        else:
            parent = self.get(path[:-1])
            src = self.call_source(path)
            if parent is not None and isinstance(src, str) and src.startswith(("./", "../")):
                d = Path(os.path.normpath(parent / src))
            elif parent is not None:
                self._why[path] = (f"source {src!r} was not found: run `terraform init` in {self.root} (or set "
                                   "TF_DATA_DIR) before the check")
        if d is not None and not within(d, self.roots):
            self._why[path] = (f"its directory {d} is outside --source-dir {self.root}, the modules `terraform "
                               "init` installed and the repository (git work tree, or --repo-root) it lies in; pass "
                               "--source-root with a directory that holds it to read it")
            d = None
        self._dirs[path] = d
        return d

    def why(self, path: tuple) -> str | None:
        """Why :meth:`get` gave no directory (None when it gave one or the caller's is missing)."""
        return self._why.get(path)

    def read(self, f: Path, budget: Budget | None = None) -> bytes:
        """A ``.tf`` file of a module directory: inside the roots (a symlink out of them is
        refused), regular, within the caps (``budget``, default the instance's); else :class:`Refused`."""
        try:
            mode = os.stat(f).st_mode  # follows a symlink; never blocks
        except OSError as e:
            raise Refused(f"{f}: cannot read it ({e.strerror or e})") from None
        if not stat.S_ISREG(mode):
            kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
            raise Refused(f"{f}: is {kind}, not a regular file; only regular files are read")
        if not within(f, self.roots):
            raise Refused(f"{f}: is a link to outside --source-dir and the installed modules, so it is not read "
                          "(--source-root widens that)")
        return read_regular(f, MAX_FILE_BYTES, budget or self.budget)
