"""In-process planner (with its verifier) and trainer apps for the trainer's HTTP tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from clients.planner import PlannerClient
from clients.verifier import VerifierClient
from services.planner.app import build_app as build_planner
from services.planner.config import PlannerSettings
from services.trainer.app import build_app
from services.trainer.config import TrainerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    folder = EXAMPLES / name
    return (
        json.loads((folder / "task.json").read_text()),
        json.loads((folder / "timeline.json").read_text()),
    )


def broken_timeline(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The example's timeline cut short, so the planner has something to repair."""
    task, timeline = example(name)
    timeline = {**timeline, "shots": timeline["shots"][:1]}
    return task, timeline


@contextmanager
def planner_app(tmp_path: Path, database_url: str, **extra: Any) -> Iterator[TestClient]:
    """A planner (verifier in process) that has already repaired two cuts."""
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(
        data_dir=tmp_path / "planner",
        database_url=database_url,
        media_root=tmp_path,
        log_level="WARNING",
        **extra,
    )
    with TestClient(build_planner(settings, verifier=verifier)) as client:
        yield client


def plan_repairs(planner: TestClient, names: tuple[str, ...] = ("surf-reel",)) -> list[str]:
    plan_ids = []
    for name in names:
        task, timeline = broken_timeline(name)
        body = {"task": task, "timeline": timeline, "options": {"max_rounds": 4, "seed": 1}}
        answer = planner.post("/v1/plan", json=body)
        assert answer.status_code == 200, answer.text
        plan_ids.append(answer.json()["plan_id"])
    return plan_ids


@contextmanager
def trainer_app(
    tmp_path: Path, database_url: str, planner: TestClient | None = None, **settings: Any
) -> Iterator[TestClient]:
    client = PlannerClient(http_client=planner) if planner is not None else None
    settings.setdefault("log_level", "WARNING")
    config = TrainerSettings(data_dir=tmp_path / "trainer", database_url=database_url, **settings)
    with TestClient(build_app(config, planner=client)) as trainer:
        yield trainer
