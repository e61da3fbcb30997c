"""What ships to users: `pip install <checkout>` gives the plan checker and the runtime
helpers under `resilient_sqs`, with only the checker's dependencies; dev tooling, tests and
their dependencies stay behind.
"""
from __future__ import annotations

import ast
import re
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.helpers import REPO_ROOT
from tests.support.packaging import _run, _source_copy

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]

# never imported by anything shipped
DEV_ONLY = {"tooling", "tests", "policies", "python_terraform", "localstack_client", "pytest", "_pytest"}
# the plan checker runs in other teams' CI with jsonschema, PyYAML and python-hcl2 only
AWS_LIBS = {"boto3", "botocore", "aws_lambda_powertools", "sqs_extended_client"}
# what `pip install <checkout>` must not bring
FORBIDDEN_DISTS = {"python-terraform", "localstack-client", "boto3", "botocore", "pytest", "s3transfer"}


def package_dir(name: str) -> Path:
    """Source directory of a shipped package, through the package-dir mapping."""
    mapping = SETUPTOOLS.get("package-dir", {})
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in mapping:
            return REPO_ROOT / mapping[prefix] / Path(*parts[i:])
    return REPO_ROOT / Path(*parts)


def absolute_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_shipped_package_exists_and_every_policy_subpackage_is_shipped():
    packages = SETUPTOOLS["packages"]
    for name in packages:
        assert (package_dir(name) / "__init__.py").is_file(), f"{name}: no {package_dir(name)}/__init__.py"
    # a subpackage added under policies/ or resilient_sqs/ but not listed would silently not ship
    for root, prefix in ((REPO_ROOT / "policies", "resilient_sqs.policy"), (REPO_ROOT / "resilient_sqs", "resilient_sqs")):
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            name = ".".join([prefix, *rel.parts]) if rel.parts else prefix
            assert name in packages, f"{init.parent} is a package but pyproject.toml does not ship it as {name}"


# the behaviour checks (the [testing] extra) are built on these; nothing else shipped imports them
TESTING_LIBS = {"python_terraform", "localstack_client", "pytest", "_pytest"}
# pytest plugins, which only pytest loads (pytest11 entry points): they may import pytest
PYTEST_PLUGINS = {REPO_ROOT / "policies" / "pytest_plugin.py"}


@pytest.mark.parametrize("package", SETUPTOOLS["packages"])
def test_shipped_package_imports_no_dev_code(package):
    forbidden = DEV_ONLY | (AWS_LIBS if package.startswith("resilient_sqs.policy") else set())
    if package == "resilient_sqs.testing":
        forbidden -= TESTING_LIBS
    offenders = {}
    for path in sorted(package_dir(package).glob("*.py")):
        bad = absolute_imports(path) & (forbidden - {"pytest", "_pytest"} if path in PYTEST_PLUGINS else forbidden)
        if bad:
            offenders[str(path.relative_to(REPO_ROOT))] = sorted(bad)
    assert not offenders, f"shipped package {package} imports dev-only or AWS code: {offenders}"


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    src = _source_copy(base / "src")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    proc = subprocess.run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "--quiet", str(src)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"pip install of the checkout failed:\n{proc.stdout}\n{proc.stderr}"
    return venv


@pytest.mark.install
def test_fresh_install_brings_only_the_checkers_dependencies(fresh_install, tmp_path):
    listed = json.loads(_run(fresh_install, "python", "-m", "pip", "list", "--format=json", cwd=tmp_path).stdout)
    names = {d["name"].lower() for d in listed}
    assert {"resilient-sqs", "jsonschema", "pyyaml", "python-hcl2"} <= names
    assert not names & FORBIDDEN_DISTS, f"pip install of the checkout pulled in {sorted(names & FORBIDDEN_DISTS)}"


@pytest.mark.install
def test_fresh_install_has_one_top_level_package(fresh_install, tmp_path):
    site = Path(_run(fresh_install, "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                     cwd=tmp_path).stdout.strip())
    record = next(site.glob("resilient_sqs-*.dist-info")) / "RECORD"
    tops = {line.split(",", 1)[0].split("/", 1)[0] for line in record.read_text().splitlines()}
    tops = {t for t in tops if not t.endswith(".dist-info") and t != ".."}
    assert tops == {"resilient_sqs"}, f"installed top-level names: {sorted(tops)}"


def _source_version() -> str:
    tree = ast.parse((REPO_ROOT / "resilient_sqs" / "__init__.py").read_text())
    return next(n.value.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "__version__")


@pytest.mark.install
def test_installed_checker_works_from_another_directory(fresh_install, tmp_path):
    from tests.policies import plans

    # a directory with its own `policies` and `tooling` packages, as other repositories have
    for name in ("policies", "tooling"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('the project under test')\n")
    version = _run(fresh_install, "sqs-policy", "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"sqs-policy {_source_version()}"
    as_module = _run(fresh_install, "python", "-m", "resilient_sqs.policy", "--version", cwd=tmp_path)
    assert as_module.stdout == version.stdout, as_module.stderr

    # the installed checker decides a real plan exactly as the checkout does
    # (reading the same configuration source: python-hcl2 works in the installed checker too)
    for subject in ("config:queue-bad", "example:basic", "config:source-bad"):
        plan = shutil.copy(plans.plan_path(subject), tmp_path / "plan.json")
        source = str(plans.subjects()[subject][0])
        installed = _run(fresh_install, "sqs-policy", "check", "plan.json", "--format", "json", "--source-dir", source,
                         cwd=tmp_path)
        checkout = subprocess.run([sys.executable, "-m", "resilient_sqs.policy", "check", str(plan), "--format", "json",
                                   "--source-dir", source], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
        assert installed.returncode == checkout.returncode and installed.returncode in (0, 1), installed.stderr
        assert json.loads(installed.stdout) == json.loads(checkout.stdout)
        if subject == "config:source-bad":  # decided from the .tf source by the installed checker
            assert any("source" in f for f in json.loads(installed.stdout)["findings"])

    checks = Path(_run(fresh_install, "sqs-policy", "checkov-dir", cwd=tmp_path).stdout.strip())
    assert {"__init__.py", "_common.py", "_facts.py", "sqs.py"} <= {p.name for p in checks.iterdir()}


@pytest.mark.install
def test_runtime_cli_without_the_runtime_extra_says_what_to_install(fresh_install, tmp_path):
    proc = _run(fresh_install, "sqs-redrive", "list", "my-dlq", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("sqs-redrive: boto3 is not installed; install the runtime extra: "
                                   "pip install 'resilient-sqs[runtime]'")


@pytest.mark.install
def test_plan_plugin_needs_only_the_plain_install_and_pytest(tmp_path):
    """`pytest --sqs-plan` where a team installed the checker and pytest, and none of the [testing]
    extra: the plugin loads through its entry point and decides a real plan."""
    from tests.policies import plans

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pin = next(line for line in (REPO_ROOT / "requirements.txt").read_text().splitlines() if line.startswith("pytest=="))
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                           "--quiet", str(_source_copy(tmp_path / "src")), pin],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"pip install failed:\n{proc.stdout}\n{proc.stderr}"
    listed = {d["name"].lower() for d in json.loads(_run(venv, "python", "-m", "pip", "list", "--format=json",
                                                           cwd=tmp_path).stdout)}
    assert not listed & {"boto3", "python-terraform", "localstack-client"}, sorted(listed)
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(plans.plan_path("config:queue-bad"), work / "plan.json")
    run = _run(venv, "pytest", "--sqs-plan", "plan.json", "--sqs-no-source", "-q", "-rf", "-p", "no:cacheprovider",
               cwd=work)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED plan.json::SQS002[aws_sqs_queue.nodlq]" in run.stdout, run.stdout


# CHANGELOG.md: `## [Unreleased]` first (at most once), then `## [X.Y.Z] - YYYY-MM-DD` newest first; in each
# section the subsections in this order, each at most once (CONTRIBUTING.md "Releases")
_SUBSECTIONS = ["Breaking", "Added", "Changed", "Fixed"]
_RELEASE = re.compile(r"\[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})")


def changelog_problems(text: str, version: str) -> list[str]:
    """What is wrong with a CHANGELOG's releases, against ``__version__`` (empty: nothing)."""
    import datetime

    problems, released = [], []
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    if not sections:
        return ["no `## ` section"]
    for i, section in enumerate(sections):
        heading = section.splitlines()[0].strip()
        if heading == "[Unreleased]":
            if i:
                problems.append("`## [Unreleased]` is not the first section")
        elif m := _RELEASE.fullmatch(heading):
            try:
                day = datetime.date.fromisoformat(m[4])
            except ValueError:
                problems.append(f"`## {heading}`: {m[4]} is not a date")
                continue
            released.append(((int(m[1]), int(m[2]), int(m[3])), day, heading))
        else:
            problems.append(f"`## {heading}`: neither `[Unreleased]` nor `[X.Y.Z] - YYYY-MM-DD`")
        subs = re.findall(r"^### (.+?)\s*$", section, flags=re.M)
        if [s for s in _SUBSECTIONS if s in subs] != subs:
            problems.append(f"`## {heading}`: subsections {subs}, expected each of {_SUBSECTIONS} at most once, "
                            "in that order")
    if not released:
        problems.append("no released version (`## [X.Y.Z] - YYYY-MM-DD`)")
    elif ".".join(map(str, released[0][0])) != version:
        problems.append(f"the newest released version is {released[0][2]}, resilient_sqs.__version__ is {version}")
    for newer, older in zip(released, released[1:]):
        if not (newer[0] > older[0] and newer[1] >= older[1]):
            problems.append(f"`## {newer[2]}` stands above `## {older[2]}`: newest first")
    return problems


def test_changelog_records_the_version():
    assert changelog_problems((REPO_ROOT / "CHANGELOG.md").read_text(), _source_version()) == []


@pytest.mark.parametrize("text, wrong", [
    ("## [0.1.0] - Unreleased\n### Added\n", "neither"),                    # the layout before the first release
    ("## [Unreleased]\n### Added\n## [0.2.0] - 2026-12-01\n", "resilient_sqs.__version__ is 0.1.0"),
    ("## [0.1.0] - 2026-11-28\n## [Unreleased]\n", "is not the first section"),
    ("## [0.1.0] - 2026-11-31\n", "is not a date"),
    ("## [0.1.0] - 2026-11-28\n### Added\n- a\n### Changed\n### Added\n- b\n", "at most once"),
    ("## [0.1.0] - 2026-11-28\n### Added\n### Breaking\n", "in that order"),
    ("## [0.1.0] - 2026-11-28\n## [0.2.0] - 2026-12-01\n", "newest first"),
    ("## [Unreleased]\n### Added\n", "no released version"),
])
def test_changelog_problems_are_found(text, wrong):
    assert any(wrong in p for p in changelog_problems(text, "0.1.0")), changelog_problems(text, "0.1.0")


def test_testing_extra_and_plugin_entry_points():
    project = PYPROJECT["project"]
    testing = {re.split(r"[<>=\[ ]", d, maxsplit=1)[0].lower() for d in project["optional-dependencies"]["testing"]}
    assert {"pytest", "boto3", "python-terraform", "localstack-client"} <= testing
    assert project["entry-points"]["pytest11"]["resilient_sqs_behave"] == "resilient_sqs.testing.pytest_plugin"
    assert project["scripts"]["sqs-behave"] == "resilient_sqs.testing.cli:main"
    # the launcher's files ship with it
    assert "localstack_files/*" in SETUPTOOLS["package-data"]["resilient_sqs.testing"]
    for f in ("serve.py", "NoopAgent.java", "constraints-4.9.2.txt"):
        assert (REPO_ROOT / "resilient_sqs" / "testing" / "localstack_files" / f).is_file()


def test_the_checkers_pytest_plugin_is_loaded_by_pytest_alone():
    """policies/pytest_plugin.py may import pytest because only pytest loads it (its pytest11 entry
    point): no module of the checker imports it, so `sqs-policy` runs without pytest."""
    entry = PYPROJECT["project"]["entry-points"]["pytest11"]["sqs_policy_plan"]
    assert package_dir(entry).with_suffix(".py") in PYTEST_PLUGINS, entry
    importers = [str(p.relative_to(REPO_ROOT)) for p in sorted((REPO_ROOT / "policies").rglob("*.py"))
                 if p not in PYTEST_PLUGINS and re.search(r"\bpytest_plugin\b", p.read_text())]
    assert importers == [], f"modules of the checker that import its pytest plugin: {importers}"


def test_plain_install_never_imports_the_testing_package():
    """The checker and the runtime helpers stay usable without the [testing] extra."""
    for package in SETUPTOOLS["packages"]:
        if package == "resilient_sqs.testing" or package.startswith("resilient_sqs.testing."):
            continue
        for path in sorted(package_dir(package).glob("*.py")):
            text = path.read_text()
            assert "resilient_sqs.testing" not in text and "from .testing" not in text, path


@pytest.mark.install
def test_sqs_behave_without_the_testing_extra_says_what_to_install(fresh_install, tmp_path):
    proc = _run(fresh_install, "sqs-behave", str(tmp_path), "--embedded", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pip install 'resilient-sqs[testing]'" in proc.stderr and "Traceback" not in proc.stderr
