"""The one way the behaviour checks, this project's tests and its scripts drive Terraform.

A thin adapter over python-terraform 0.10.1 (the library the project was asked
to use). python-terraform builds the command lines; this module fixes what it
gets wrong with Terraform >= 1.0 and adds what the project needs:

* ``plan`` never passes ``-detailed-exitcode`` (python-terraform adds it, so a
  successful plan with changes returns 2 and looks like a failure);
* the directory is always the working directory (``cwd``), never a positional
  argument (Terraform >= 0.15 refuses it: "use -chdir");
* ``destroy`` passes ``-auto-approve``, not the removed ``-force``;
* variables go through one JSON var file (types survive; python-terraform
  writes an empty temp var file on every command otherwise);
* commands run with an explicit environment: the provider-mirror CLI config
  (see :func:`cli_config_file`), no prompts, no checkpoint calls;
* a failure raises :class:`TerraformError` carrying Terraform's own ``Error:``
  lines, so the caller can print something a person understands.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import python_terraform as _pt

MIRROR_DIR = Path(os.environ.get("TF_PROVIDER_MIRROR", "/opt/tf-plugins"))


def user_cache_dir() -> Path:
    """Where the provider-mirror CLI config is written unless a caller says (``$XDG_CACHE_HOME/resilient-sqs``;
    this repository's tooling/terraform.py passes ``<repo>/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "resilient-sqs"


class TerraformError(RuntimeError):
    """A Terraform command failed. ``str()`` gives the command and Terraform's errors.
    ``timed_out``: it was stopped at its time bound."""

    def __init__(self, command: list[str], returncode: int, stdout: str, stderr: str, cwd: Path,
                 timed_out: bool = False):
        self.command = command
        self.timed_out = timed_out
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.cwd = cwd
        self.errors = extract_errors(stderr) or extract_errors(stdout)
        detail = "\n".join(self.errors) if self.errors else (stderr.strip() or stdout.strip())[-2000:]
        super().__init__(
            f"terraform {command[1] if len(command) > 1 else ''} failed in {cwd} (exit {returncode}):\n{detail}"
        )


def extract_errors(text: str) -> list[str]:
    """Return Terraform's diagnostics ("Error: summary" + detail) from its plain-text output."""
    errors: list[str] = []
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip().lstrip("│╷╵").strip()
        if line.startswith("Error: "):
            if current:
                errors.append(" ".join(current))
            current = [line]
        elif current is not None:
            if raw.strip().startswith("╵"):
                errors.append(" ".join(current))
                current = None
            elif line and not line.startswith("on ") and not line.startswith(("├", "─")):
                current.append(line)
    if current:
        errors.append(" ".join(current))
    return errors


def mirrored_providers(mirror: Path | None = None) -> list[str]:
    """Provider source addresses (host/namespace/type) present in an unpacked filesystem mirror."""
    mirror = Path(mirror) if mirror is not None else MIRROR_DIR
    if not mirror.is_dir():
        return []
    found = []
    for host in sorted(p for p in mirror.iterdir() if p.is_dir()):
        for ns in sorted(p for p in host.iterdir() if p.is_dir()):
            for typ in sorted(p for p in ns.iterdir() if p.is_dir()):
                found.append(f"{host.name}/{ns.name}/{typ.name}")
    return found


HEADER = "# Written by resilient_sqs.testing.terraform: install mirrored providers from the local mirror.\n"
_PROVIDER_INSTALLATION = re.compile(r"^\s*provider_installation\s*\{", re.M)


def user_cli_config(environ: Mapping[str, str] | None = None) -> Path | None:
    """The CLI configuration Terraform would read for the caller: ``$TF_CLI_CONFIG_FILE``, else
    ``~/.terraformrc`` (None: neither exists)."""
    environ = os.environ if environ is None else environ
    given = environ.get("TF_CLI_CONFIG_FILE", "").strip()
    path = Path(given) if given else Path.home() / ".terraformrc"
    return path if path.is_file() else None


def cli_config_file(mirror: Path | None = None, cache_dir: Path | None = None,
                    user_config: Path | None = None) -> Path | None:
    """Write (if needed) a Terraform CLI config that installs mirrored providers from the mirror.

    Providers found in the mirror come only from it (no registry access is
    attempted for them); anything else is installed directly as usual. Returns
    None when there is no mirror, so a normal registry install is left alone.

    ``user_config``: the caller's own CLI configuration (plugin cache, registry credentials,
    host blocks). It is kept: merged with the mirror block into one file, or, when it has a
    ``provider_installation`` block of its own, returned as it is (the caller decided how
    providers are installed).
    """
    mirror = Path(mirror) if mirror is not None else MIRROR_DIR
    cache_dir = Path(cache_dir) if cache_dir is not None else user_cache_dir()
    providers = mirrored_providers(mirror)
    if not providers:
        return None
    quoted = ", ".join(json.dumps(p) for p in providers)
    text = (
        HEADER +
        "provider_installation {\n"
        "  filesystem_mirror {\n"
        f"    path    = {json.dumps(str(mirror))}\n"
        f"    include = [{quoted}]\n"
        "  }\n"
        "  direct {\n"
        f"    exclude = [{quoted}]\n"
        "  }\n"
        "}\n"
    )
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / "terraform.rc"
    if user_config is not None and user_config.resolve() != path.resolve():
        try:
            theirs = user_config.read_text()
        except OSError:
            theirs = None
        if theirs is not None and HEADER not in theirs:
            if _PROVIDER_INSTALLATION.search(theirs):
                return user_config
            text = f"# {user_config}, merged with the mirror block below\n{theirs.rstrip()}\n\n{text}"
            digest = hashlib.sha256(text.encode()).hexdigest()[:12]
            path = cache_dir / f"terraform-merged-{digest}.rc"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(path)  # atomic: parallel workers never see a half-written file
    return path


def terraform_env(extra: Mapping[str, str] | None = None, cache_dir: Path | None = None) -> dict[str, str]:
    """The environment every Terraform command runs with (``cache_dir``: where the mirror CLI config goes)."""
    env = dict(os.environ)
    cfg = cli_config_file(cache_dir=cache_dir, user_config=user_cli_config(env))
    if cfg is not None:
        env["TF_CLI_CONFIG_FILE"] = str(cfg)
    elif env.get("TF_CLI_CONFIG_FILE") and not Path(env["TF_CLI_CONFIG_FILE"]).exists():
        env.pop("TF_CLI_CONFIG_FILE")  # a dangling path only produces a warning on every command
    env.update({"TF_IN_AUTOMATION": "1", "TF_INPUT": "0", "CHECKPOINT_DISABLE": "1"})
    if extra:
        env.update({k: str(v) for k, v in extra.items()})
    return env


INTERRUPT_GRACE = 60.0  # seconds Terraform gets after SIGINT to stop and write its state


def _interrupt(proc: subprocess.Popen) -> tuple[str, str]:
    """SIGINT to Terraform's process group, SIGKILL to the group after INTERRUPT_GRACE s; its output."""
    import signal

    for sig, wait in ((signal.SIGINT, INTERRUPT_GRACE), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        try:
            out, err = proc.communicate(timeout=wait)
            try:  # the plugins may outlive Terraform itself
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            return out or "", err or ""
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def terraform_bin() -> str:
    if os.environ.get("SQS_FAST_TIER"):
        raise RuntimeError("the fast tier (make test-fast) runs no Terraform: mark this test `plan` or `static`, "
                           "or read a committed plan (tests/policies/plans)")
    found = shutil.which("terraform")
    if not found:
        raise RuntimeError(
            "terraform is not on PATH. Install Terraform >= 1.7 (https://developer.hashicorp.com/terraform/install) and retry."
        )
    return found


# Terraform (1.11) keeps the provider process of every test run whose plan fails (each
# `expect_failures` run, each refused input) alive until `terraform test` exits: about 200 MB
# of the AWS provider each, so one command over a module's 100 refusal runs holds 20 GB and
# a machine of 24 GB runs out of memory. Terraform.test() holds each command to this many runs.
TEST_RUNS_PER_COMMAND = 10
_RUN_BLOCK = re.compile(r'^run\s+"([^"]*)"\s*\{', re.M)
# what makes the runs of a file depend on each other: one reads another's outputs or state
_RUNS_SHARE = re.compile(r"\brun\.[A-Za-z_]|^\s*command\s*=\s*apply\b", re.M)
# files of the test directory that test files read (variables, mocks)
_TEST_DIR_EXTRAS = ("*.tfvars", "*.tfvars.json", "*.tfmock.hcl")


def split_runs(text: str) -> tuple[str, list[tuple[str, str]]]:
    """A test file's text as (everything above its first run block, [(run name, run block)]),
    in the file's order; each block runs to the next top-level ``run``."""
    found = list(_RUN_BLOCK.finditer(text))
    if not found:
        return text, []
    ends = [m.start() for m in found[1:]] + [len(text)]
    return text[: found[0].start()], [(m.group(1), text[m.start() : end]) for m, end in zip(found, ends)]


def test_batches(config: Path, runs_per_command: int) -> list[list[tuple[str, str]]] | None:
    """The test files of ``config/tests`` as batches of (file name, text) to run one
    ``terraform test -test-directory`` each, every batch of at most ``runs_per_command`` runs.

    A file of independent runs (none reads ``run.<name>``, none applies) longer than that is
    cut into parts, each keeping the file's name and everything above its first run (provider
    blocks, variables); a file whose runs depend on each other stays whole. None when the
    files cannot be moved (test files beside the configuration, no ``tests`` folder) or
    all fit in one command."""
    tests = Path(config) / "tests"
    if not tests.is_dir() or any(Path(config).glob("*.tftest.hcl")) or any(Path(config).glob("*.tftest.json")):
        return None
    extras = [(p.name, p.read_text()) for pattern in _TEST_DIR_EXTRAS for p in sorted(tests.glob(pattern))]
    units: list[tuple[str, str, int]] = []  # (name, text, runs)
    for path in sorted(tests.glob("*.tftest.hcl")):
        text = path.read_text()
        header, runs = split_runs(text)
        if len(runs) <= runs_per_command or _RUNS_SHARE.search(text):
            units.append((path.name, text, max(len(runs), 1)))
            continue
        for k in range(0, len(runs), runs_per_command):
            part = runs[k : k + runs_per_command]
            units.append((path.name, header + "".join(block for _, block in part), len(part)))
    if sum(n for _, _, n in units) <= runs_per_command:
        return None
    batches: list[list[tuple[str, str]]] = []
    count = runs_per_command + 1
    for name, text, n in units:
        # parts of one file go to different batches: they keep the file's name
        if count + n > runs_per_command or any(name == have for have, _ in batches[-1]):
            batches.append(list(extras))
            count = 0
        batches[-1].append((name, text))
        count += n
    return batches


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


class Terraform(_pt.Terraform):
    """python-terraform's Terraform, fixed for Terraform >= 1.0 (see module docstring).

    ``cache_dir``: where the provider-mirror CLI config is written (None: the per-user cache).
    """

    cache_dir: Path | None = None

    def __init__(
        self,
        working_dir: str | os.PathLike,
        variables: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float | None = 1800,
        cache_dir: Path | None = None,
    ):
        super().__init__(working_dir=str(Path(working_dir).resolve()), terraform_bin_path=terraform_bin())
        self.path = Path(working_dir).resolve()
        self.tf_variables = dict(variables or {})
        self.extra_env = dict(env or {})
        self.timeout = timeout
        if cache_dir is not None:
            self.cache_dir = Path(cache_dir)
        # raw "-var k=v" / "-var-file=F" arguments given by a user (kept in their order and
        # Terraform's own parsing), passed to every command that takes variables
        self.var_args: list[str] = []

    def env(self) -> dict[str, str]:
        """The environment of this instance's commands."""
        return terraform_env(self.extra_env, cache_dir=self.cache_dir)

    def _run(self, cmds: list[str], timeout: float | None) -> Result:
        """Run Terraform in its own process group, bounded by ``timeout`` seconds. When the bound
        is reached, or this process is interrupted (Ctrl-C, SIGTERM raised as KeyboardInterrupt),
        Terraform gets SIGINT, as from a terminal, and up to INTERRUPT_GRACE seconds to stop and
        write its state; then its whole group (the provider plugins too) is killed."""
        proc = subprocess.Popen(cmds, cwd=self.path, env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            out, err = _interrupt(proc)
            raise TerraformError(cmds, -1, out, f"Error: timed out after {timeout:.0f} s (stopped)\n{err}",
                                 self.path, timed_out=True) from None
        except BaseException:
            _interrupt(proc)
            raise
        return Result(proc.returncode, out, err)

    # -- the fixed core -------------------------------------------------------------
    def _generate_default_options(self, input_options):
        options = super()._generate_default_options(input_options)
        options["var"] = None  # variables travel in one JSON var file instead (see cmd)
        return options

    def cmd(self, cmd, *args, **kwargs):  # python-terraform's signature
        """Run ``terraform <cmd>`` in the working directory; raise TerraformError on failure."""
        if args:
            raise TypeError("pass no positional directory: the working directory is the Terraform directory")
        check = kwargs.pop("check", True)
        timeout = kwargs.pop("timeout", self.timeout)
        kwargs.pop("capture_output", None)
        kwargs.pop("raise_on_error", None)
        var_file = None
        if cmd.split()[0] in {"plan", "apply", "destroy", "import", "refresh", "console"} and self.tf_variables:
            fd, var_file = tempfile.mkstemp(prefix="tfvars-", suffix=".tfvars.json")
            with os.fdopen(fd, "w") as fh:
                json.dump(self.tf_variables, fh)
            existing = kwargs.get("var_file")
            kwargs["var_file"] = ([existing] if isinstance(existing, str) else list(existing or [])) + [var_file]
        cmds = self.generate_cmd_string(cmd, **kwargs)
        if self.var_args and cmd.split()[0] in {"plan", "apply", "destroy", "import", "refresh", "console"}:
            cmds[2:2] = self.var_args
        try:
            proc = self._run(cmds, timeout)
        finally:
            if var_file:
                os.unlink(var_file)
        if check and proc.returncode != 0:
            raise TerraformError(cmds, proc.returncode, proc.stdout, proc.stderr, self.path)
        return proc.returncode, proc.stdout, proc.stderr

    # -- commands -------------------------------------------------------------------
    def init(self, backend: bool = True, upgrade: bool = False, **kwargs):
        return self.cmd(
            "init",
            backend=backend,
            upgrade=_pt.IsFlagged if upgrade else None,
            no_color=_pt.IsFlagged,
            input=False,
            **kwargs,
        )

    def validate(self) -> dict:
        _, out, _ = self.cmd("validate", json=_pt.IsFlagged, no_color=_pt.IsFlagged, check=False)
        result = json.loads(out)
        if not result.get("valid"):
            msgs = [f"{d.get('summary')}: {d.get('detail', '')}".strip() for d in result.get("diagnostics", [])]
            raise TerraformError(["terraform", "validate"], 1, out, "\n".join("Error: " + m for m in msgs), self.path)
        return result

    def plan(self, out: str = "tfplan", destroy: bool = False, refresh: bool = True, **kwargs) -> Path:
        """Plan to a file (path relative to the working dir) and return its path."""
        self.cmd(
            "plan",
            out=out,
            destroy=_pt.IsFlagged if destroy else None,
            refresh=None if refresh else False,
            detailed_exitcode=None,
            no_color=_pt.IsFlagged,
            input=False,
            lock=False,
            **kwargs,
        )
        return self.path / out

    def show_json(self, plan_file: str | os.PathLike | None = None) -> dict:
        args = [str(plan_file)] if plan_file else []
        cmds = [self.terraform_bin_path, "show", "-json", "-no-color", *args]
        proc = self._run(cmds, self.timeout)
        if proc.returncode != 0:
            raise TerraformError(cmds, proc.returncode, proc.stdout, proc.stderr, self.path)
        return json.loads(proc.stdout)

    def plan_json(self, out: str = "tfplan", **kwargs) -> dict:
        """Plan and return the plan as JSON (``terraform show -json``)."""
        return self.show_json(self.plan(out=out, **kwargs))

    def apply(self, plan_file: str | os.PathLike | None = None, **kwargs):
        if plan_file is not None:
            # a saved plan carries its variables; Terraform refuses -var-file with it
            cmds = [self.terraform_bin_path, "apply", "-no-color", "-input=false", "-lock=false", str(plan_file)]
            proc = self._run(cmds, self.timeout)
            if proc.returncode != 0:
                raise TerraformError(cmds, proc.returncode, proc.stdout, proc.stderr, self.path)
            return proc.returncode, proc.stdout, proc.stderr
        return self.cmd("apply", auto_approve=_pt.IsFlagged, no_color=_pt.IsFlagged, input=False, lock=False, **kwargs)

    def destroy(self, **kwargs):
        return self.cmd("destroy", auto_approve=_pt.IsFlagged, no_color=_pt.IsFlagged, input=False, lock=False, **kwargs)

    def state_rm(self, addresses: list[str]) -> None:
        """``terraform state rm`` the given resource addresses (forget them; nothing is deleted)."""
        if addresses:
            cmds = [self.terraform_bin_path, "state", "rm", "-lock=false", *addresses]
            proc = self._run(cmds, self.timeout)
            if proc.returncode != 0:
                raise TerraformError(cmds, proc.returncode, proc.stdout, proc.stderr, self.path)

    def outputs(self) -> dict[str, Any]:
        """All root outputs as {name: value}."""
        _, out, _ = self.cmd("output", json=_pt.IsFlagged, no_color=_pt.IsFlagged)
        return {k: v["value"] for k, v in json.loads(out or "{}").items()}

    def test(self, *, filter: str | None = None, json_output: bool = True,
             runs_per_command: int | None = TEST_RUNS_PER_COMMAND) -> Result:
        """Run ``terraform test``; returns the Result (not raising) so callers can report it.

        The runs of ``tests/`` go through as many commands as it takes to hold each to
        ``runs_per_command`` runs (see :data:`TEST_RUNS_PER_COMMAND`); the Result joins their
        output, and fails when any of them failed. ``filter`` or ``runs_per_command=None``:
        one command, as Terraform runs it."""
        kwargs: dict[str, Any] = {"no_color": _pt.IsFlagged, "check": False}
        if json_output:
            kwargs["json"] = _pt.IsFlagged
        if filter:
            kwargs["filter"] = filter
        batches = None if filter or not runs_per_command else test_batches(self.path, runs_per_command)
        if batches is None:
            rc, out, err = self.cmd("test", **kwargs)
            return Result(rc, out, err)
        (self.path / ".terraform").mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="test-batches-", dir=self.path / ".terraform"))
        results = []
        try:
            for i, batch in enumerate(batches):
                where = root / f"{i:03d}"
                where.mkdir()
                for name, text in batch:
                    (where / name).write_text(text)
                results.append(self.cmd("test", test_directory=where.relative_to(self.path).as_posix(), **kwargs))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        return Result(next((rc for rc, _, _ in results if rc != 0), 0),
                      "".join(out for _, out, _ in results), "".join(err for _, _, err in results))

    def fmt_check(self) -> list[str]:
        """Files ``terraform fmt -check -recursive`` would change (empty list: clean)."""
        cmds = [self.terraform_bin_path, "fmt", "-check", "-recursive", "-no-color"]
        proc = subprocess.run(cmds, cwd=self.path, env=terraform_env(cache_dir=self.cache_dir), capture_output=True,
                              text=True)
        if proc.returncode not in (0, 3):
            raise TerraformError(cmds, proc.returncode, proc.stdout, proc.stderr, self.path)
        return [line for line in proc.stdout.splitlines() if line.strip()]
