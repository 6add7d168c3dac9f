"""A real synth job's BFCL export, read the way bfcl-eval reads it: the category comes from
the id, and bfcl-eval's own ``ast_checker`` judges the exported ground truth under it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("bfcl_eval")

from bfcl_eval.constants.category_mapping import ALL_CATEGORIES
from bfcl_eval.utils import extract_test_category_from_id, is_relevance_or_irrelevance
from fastapi.testclient import TestClient

from services.synth.app import build_app
from services.synth.bfcl.convert import bfcl_id, split_row
from services.synth.bfcl.data import BFCL_FILES
from services.synth.bfcl.loader import judge
from services.synth.config import SynthSettings

MIX = {name: 1.0 for name in BFCL_FILES}


def _export(tmp_path: Path) -> list[dict[str, Any]]:
    settings = SynthSettings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'db'}")
    with TestClient(build_app(settings)) as client:
        job = client.post("/v1/synthesize", json={"n": 15, "seed": 2, "mix": MIX}).json()
        deadline = time.monotonic() + 120
        while client.get(f"/v1/jobs/{job['job_id']}").json()["status"] != "succeeded":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        body = client.get(f"/v1/jobs/{job['job_id']}/export?format=bfcl").text
    return [json.loads(line) for line in body.splitlines()]


def _first(options: dict[str, list[Any]]) -> dict[str, Any]:
    """Each key's first accepted value, nested dicts (and lists of them) included."""
    return {key: _pick(values[0]) for key, values in options.items() if values and values[0] != ""}


def _pick(value: Any) -> Any:
    if isinstance(value, dict):
        return _first(value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_first(v) for v in value]
    return value


def _first_choices(answer: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A model output that picks each parameter's first accepted value."""
    return [{name: _first(args)} for call in answer for name, args in call.items()]


def test_ids_name_bfcl_v4_categories() -> None:
    assert [bfcl_id(c, 7) for c in BFCL_FILES] == [
        "simple_python_7",
        "multiple_7",
        "parallel_7",
        "parallel_multiple_7",
        "irrelevance_7",
    ]


def test_bfcl_eval_reads_the_category_from_the_id_and_judges_the_row(tmp_path: Path) -> None:
    rows = _export(tmp_path)
    assert len(rows) == 15 and len({row["id"] for row in rows}) == 15
    seen = set()
    for row in rows:
        category = extract_test_category_from_id(row["id"])
        assert category in ALL_CATEGORIES, row["id"]
        seen.add(category)
        question, answer = split_row(row)
        if is_relevance_or_irrelevance(category):
            assert answer is None
            continue
        output = _first_choices(answer["ground_truth"])
        verdict = judge(question["function"], output, answer["ground_truth"], category)
        assert verdict["valid"], (row["id"], verdict["error"])
        wrong = judge(question["function"], output[1:], answer["ground_truth"], category)
        assert not wrong["valid"]
    assert seen == set(BFCL_FILES.values())
