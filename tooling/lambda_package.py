"""Deterministic Lambda deployment packages, built without Terraform's archive provider.

Only the hashicorp/aws provider is available offline, so modules that ship a
function commit a zip built here from their ``src/`` folder: entries sorted,
timestamps fixed at 1980-01-01, permissions 0644, stored uncompressed. The same
source always gives the same bytes, so ``source_code_hash`` only changes when
the code does, and the test suite can prove the committed package matches its
source (``python -m tooling.lambda_package --check``).
"""
from __future__ import annotations

import argparse
import io
import sys
import zipfile
from pathlib import Path

from tooling.terraform import REPO_ROOT

FIXED_DATE = (1980, 1, 1, 0, 0, 0)
EXCLUDE_DIRS = {"__pycache__", ".pytest_cache"}


def package_bytes(src_dir: Path) -> bytes:
    files = sorted(
        p for p in Path(src_dir).rglob("*")
        if p.is_file() and not (set(p.relative_to(src_dir).parts) & EXCLUDE_DIRS) and p.suffix not in {".pyc", ".pyo"}
    )
    if not files:
        raise ValueError(f"{src_dir}: no source files to package")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for f in files:
            info = zipfile.ZipInfo(f.relative_to(src_dir).as_posix(), date_time=FIXED_DATE)
            info.external_attr = 0o100644 << 16
            info.create_system = 3  # unix, whatever the build host
            zf.writestr(info, f.read_bytes())
    return buf.getvalue()


def packages() -> list[tuple[Path, Path]]:
    """(src dir, zip path) for every module or example that ships a function:
    modules/<m>/src -> modules/<m>/dist/<m>.zip, examples/<e>/src -> examples/<e>/dist/<e>.zip"""
    return [
        (d / "src", d / "dist" / f"{d.name}.zip")
        for parent in ("modules", "examples")
        for d in sorted((REPO_ROOT / parent).iterdir())
        if (d / "src").is_dir()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build (or --check) the Lambda packages of modules/*/src.")
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed package differs from its source")
    args = parser.parse_args(argv)
    stale = []
    for src, out in packages():
        data = package_bytes(src)
        if out.exists() and out.read_bytes() == data:
            continue
        if args.check:
            stale.append(str(out.relative_to(REPO_ROOT)))
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
            print(f"wrote {out.relative_to(REPO_ROOT)} ({len(data)} bytes)")
    if stale:
        print("stale Lambda packages (run `python -m tooling.lambda_package`): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
