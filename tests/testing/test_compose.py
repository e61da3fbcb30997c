"""docker-compose.yml (for users with Docker) runs the LocalStack version the launcher pins, published
on the loopback interface at the endpoint the documentation tells users to export."""
from __future__ import annotations

import re

import pytest
import yaml

from tooling import localstack as L

pytestmark = pytest.mark.static


def test_compose_runs_the_launcher_version_where_the_docs_point():
    compose_text = (L.REPO_ROOT / "docker-compose.yml").read_text()
    service = yaml.safe_load(compose_text)["services"]["localstack"]
    # the image is the version the embedded launcher installs, whose pip lock is committed
    assert service["image"] == f"localstack/localstack:{L.LOCALSTACK_VERSION}"
    assert L.CONSTRAINTS.is_file(), f"{L.CONSTRAINTS} (the launcher's pip -c lock) is missing"
    lock_header = L.CONSTRAINTS.read_text().splitlines()[0]
    assert f"=={L.LOCALSTACK_VERSION} " in lock_header + " ", f"{L.CONSTRAINTS.name} is the lock of: {lock_header}"
    # published on 127.0.0.1 only (LocalStack has no authentication), and nowhere else
    published = set()
    for port in service["ports"]:
        parts = str(port).split(":")  # [HOST:]HOST_PORT:CONTAINER_PORT; no HOST: every interface
        host, host_port, container_port = parts if len(parts) == 3 else ["0.0.0.0", *parts[-2:]]
        assert host == "127.0.0.1", f"docker-compose.yml publishes {port} beyond the loopback interface"
        assert container_port == "4566", port
        published.add(f"http://{host}:{host_port}")
    # the endpoint the docs and the file's own instructions export is the one published
    told = set(re.findall(r"LOCALSTACK_ENDPOINT=(http://[\w.]+:\d+)",
                          compose_text + (L.REPO_ROOT / "docs" / "localstack.md").read_text()))
    assert told and told <= published, f"documented endpoints {sorted(told)}, published {sorted(published)}"
