"""Where `terraform plan` of the module spends its CPU: a sampled profile, by Go function.

    .venv/bin/python -m tooling.profile_plan --n 300
    .venv/bin/python -m tooling.profile_plan --n 300 --ours-dir /path/to/other/checkout --top 40

Plans the same configuration as ``tooling.bench_plan`` (``ours``: the root module
with N default queue keys) under ``perf record -g``, and prints the functions that
take the most samples, by their own time and including what they call. Terraform's
release binary is stripped, so ``perf report`` shows bare addresses; this script
names them from the binary's ``.gopclntab`` (the table Go keeps for its own stack
traces, present in stripped binaries; Go 1.20+ layout).

How to read it: ``(*forEachEvaluator).ResourceValue`` high means a resource's
``for_each`` expression is costly (Terraform evaluates it again for every instance);
``(*NodeLocal).Execute`` with ``Function.Call`` and ``cty.walk`` under it, a local
calling functions on large values inside a loop; ``(*Scope).Functions`` and
``nodeModuleVariable``, the sheer number of expressions per module instance;
``runtime.gcBgMarkWorker``/``scanobject``, garbage collection. Needs ``perf`` (Linux,
``kernel.perf_event_paranoid`` <= 2 for user-space samples). Figures, not a test.
"""
from __future__ import annotations

import argparse
import bisect
import collections
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from tooling.bench_plan import init, write_config
from tooling.terraform import REPO_ROOT, terraform_bin, terraform_env

PCLNTAB_MAGIC_GO120 = 0xFFFFFFF1


class GoSymbols:
    """Function names of a Go executable from its .gopclntab section (Go 1.20+)."""

    def __init__(self, binary: Path):
        data = binary.read_bytes()
        section = _elf_section(data, ".gopclntab")
        if section is None:
            raise ValueError(f"{binary}: no .gopclntab section (not a Go ELF executable?)")
        tab = data[section[0]:section[0] + section[1]]
        magic = struct.unpack_from("<I", tab, 0)[0]
        if magic != PCLNTAB_MAGIC_GO120:
            raise ValueError(f"{binary}: .gopclntab magic {magic:#x}; this reader knows the Go 1.20+ layout "
                             f"({PCLNTAB_MAGIC_GO120:#x}) only")
        nfunc, _nfiles, text_start, funcname_off, _cu, _filetab, _pctab, pcln_off = struct.unpack_from("<8Q", tab, 8)
        entries = []
        for i in range(nfunc):
            entry_off, func_off = struct.unpack_from("<II", tab, pcln_off + 8 * i)
            name_off = struct.unpack_from("<i", tab, pcln_off + func_off + 4)[0]
            start = funcname_off + name_off
            entries.append((text_start + entry_off, tab[start:tab.index(b"\0", start)].decode(errors="replace")))
        entries.sort()
        self.starts = [a for a, _ in entries]
        self.names = [n for _, n in entries]
        self.load_bias = _load_bias(data)

    def name(self, address: int) -> str:
        i = bisect.bisect_right(self.starts, address) - 1
        return self.names[i] if i >= 0 else hex(address)


def _elf_section(data: bytes, wanted: str) -> tuple[int, int] | None:
    """(file offset, size) of a section of a 64-bit little-endian ELF file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    strtab_off = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)[0]
    for i in range(shnum):
        base = shoff + i * shentsize
        name_idx = struct.unpack_from("<I", data, base)[0]
        name = data[strtab_off + name_idx:data.index(b"\0", strtab_off + name_idx)].decode()
        if name == wanted:
            offset, size = struct.unpack_from("<QQ", data, base + 0x18)
            return offset, size
    return None


def _load_bias(data: bytes) -> int:
    """perf reports addresses of a non-PIE executable relative to its first mapping."""
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr = struct.unpack_from("<IIQQ", data, phoff + i * phentsize)
        if p_type == 1:  # PT_LOAD
            return p_vaddr - p_offset
    return 0


def fold(perf_script: str, symbols: GoSymbols, binary: Path) -> tuple[int, collections.Counter, collections.Counter]:
    """Samples, own-time and inclusive counts per function from ``perf script -F comm,ip,dso``."""
    bias = symbols.load_bias
    own: collections.Counter = collections.Counter()
    incl: collections.Counter = collections.Counter()
    total = 0
    stack: list[str] = []

    def flush():
        nonlocal total
        if stack:
            total += 1
            own[stack[0]] += 1
            for f in set(stack):
                incl[f] += 1

    for line in perf_script.splitlines():
        if not line.strip():
            flush()
            stack = []
        elif not line[0].isspace():
            flush()
            stack = []
        elif str(binary) in line:
            stack.append(symbols.name(int(line.split()[0], 16) + bias))
    flush()
    return total, own, incl


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="queue pairs (default 300)")
    ap.add_argument("--variant", default="ours", choices=("ours", "ours-noalarms"))
    ap.add_argument("--ours-dir", type=Path, default=REPO_ROOT, help="the module to profile (default: this checkout)")
    ap.add_argument("--top", type=int, default=30, help="functions to list (default 30)")
    ap.add_argument("--frequency", type=int, default=250, help="samples per second (default 250)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.top < 1 or args.frequency < 1:
        ap.error("--n, --top and --frequency must be positive")
    perf = shutil.which("perf")
    if perf is None:
        print("profile_plan: `perf` is not installed (Debian: apt-get install linux-perf).", file=sys.stderr)
        return 2
    binary = Path(terraform_bin()).resolve()
    try:
        symbols = GoSymbols(binary)
    except (OSError, ValueError) as e:
        print(f"profile_plan: cannot name the functions of {binary}: {e}", file=sys.stderr)
        return 2
    env = terraform_env()
    work = Path(tempfile.mkdtemp(prefix="profile-plan-"))
    try:
        write_config(args.variant, work, args.ours_dir.resolve())
        init(work, env)
        (work / "n.tfvars.json").write_text(f'{{"n": {args.n}}}')
        data = work / "perf.data"
        rec = subprocess.run([perf, "record", "-F", str(args.frequency), "-g", "-o", str(data), "--",
                              str(binary), "plan", "-refresh=false", "-input=false", "-lock=false", "-no-color",
                              "-var-file=n.tfvars.json", "-out=plan.tfplan"],
                             cwd=work, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if rec.returncode != 0:
            print(f"profile_plan: the plan (or perf) failed, exit {rec.returncode}; not a measurement:\n"
                  + (rec.stderr or rec.stdout)[-3000:], file=sys.stderr)
            return 1
        script = subprocess.run([perf, "script", "-i", str(data), "--comm", "terraform", "-F", "comm,ip,dso"],
                                capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total, own, incl = fold(script, symbols, binary)
    if total == 0:
        print("profile_plan: perf recorded no samples of terraform (is kernel.perf_event_paranoid > 2?)",
              file=sys.stderr)
        return 1
    print(f"terraform plan, {args.variant}, N = {args.n}: {total} samples of the terraform process")
    for title, counter in (("own time", own), ("including callees", incl)):
        print(f"\n-- {title}")
        for name, count in counter.most_common(args.top):
            print(f"{100 * count / total:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
