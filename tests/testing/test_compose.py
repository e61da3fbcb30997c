"""docker-compose.yml (for users with Docker) runs the LocalStack version the launcher pins."""
from __future__ import annotations

import pytest
import yaml

from tooling import localstack as L

pytestmark = pytest.mark.static


def test_compose_pins_the_launcher_version_on_loopback():
    compose = yaml.safe_load((L.REPO_ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["localstack"]
    assert service["image"] == f"localstack/localstack:{L.LOCALSTACK_VERSION}"
    assert service["ports"] == ["127.0.0.1:4566:4566"]
    # the lock the embedded venv is installed with belongs to the same version
    assert L.CONSTRAINTS.name == f"constraints-{L.LOCALSTACK_VERSION}.txt" and L.CONSTRAINTS.is_file()
    assert f"=={L.LOCALSTACK_VERSION} " in L.CONSTRAINTS.read_text().splitlines()[0] + " "
