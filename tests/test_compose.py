"""docker-compose.yml publishes on loopback unless told otherwise, and tells every service
where it is exposed so an unauthenticated one refuses to start beyond loopback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

COMPOSE = Path(__file__).resolve().parents[1] / "docker-compose.yml"
REFINERY = ("verifier", "planner", "synth", "trainer", "trainer-gpu")
_DEFAULT = re.compile(r"\$\{(\w+):-([^}]*)\}")


def _defaults(text: str) -> str:
    """``${VAR:-default}`` → ``default``: the file as compose reads it with nothing set."""
    return _DEFAULT.sub(lambda m: m.group(2), text)


def _services() -> dict[str, Any]:
    return yaml.safe_load(_defaults(COMPOSE.read_text()))["services"]


def test_every_port_is_published_on_loopback_by_default() -> None:
    published = [
        (name, port) for name, spec in _services().items() for port in spec.get("ports", [])
    ]
    assert published and all(port.startswith("127.0.0.1:") for _, port in published), published


def test_every_service_knows_its_exposure_and_keys() -> None:
    services = _services()
    for name in REFINERY:
        env = services[name]["environment"]
        assert env["REFINERY_BIND_HOST"] == "127.0.0.1", name
        assert "REFINERY_API_KEYS" in env and "REFINERY_ALLOWED_UPSTREAMS" in env, name
        assert str(env["REFINERY_ALLOW_UNAUTHENTICATED"]).lower() == "false", name


def test_one_variable_publishes_and_tells_the_services() -> None:
    text = COMPOSE.read_text()
    for port in ("8101", "8102", "8103", "8104"):
        assert f'"${{REFINERY_PUBLISH_HOST:-127.0.0.1}}:{port}:{port}"' in text
    assert "REFINERY_BIND_HOST: ${REFINERY_PUBLISH_HOST:-127.0.0.1}" in text


def test_refinery_services_start_with_shared_worker_metrics() -> None:
    ours = {n: s for n, s in _services().items() if n not in {"postgres", "vllm"}}
    assert ours
    for name, service in ours.items():
        command = service["command"].split()
        assert command[:3] == ["python", "-m", "services.common.serve"], name
        assert "PROMETHEUS_MULTIPROC_DIR" not in service.get("environment", {}), name
