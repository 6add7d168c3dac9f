"""Tasks and states for the model-proposer tests: the shipped examples and a large pool."""

from __future__ import annotations

import json
import random
from pathlib import Path

from protocol.verifier import TaskIn
from services.planner.proposers.simple_draft import simple_draft
from services.verifier.score import Report, Verifier
from services.verifier.task import Task
from services.verifier.timeline import Timeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

_SUBJECTS = ("surfer", "dog", "van", "friends", "waves", "board", "gull", "kid", "camera", "fire")
_ACTIONS = ("rides a wave", "runs along the sand", "rolls along the coast road", "laugh by a fire")
_PLACES = ("near the pier", "on the reef", "in the lineup", "at the car park", "on the dunes")
_FRAMING = ("wide shot", "closeup", "aerial view", "tracking shot", "pov shot", "slowmo")
_LIGHT = ("sunrise", "golden hour", "sunset", "overcast", "midday glare")


def example_task(name: str = "surf-reel") -> Task:
    data = json.loads((EXAMPLES / name / "task.json").read_text())
    return TaskIn.model_validate(data).to_task()


def pool_task(n_clips: int = 80, seed: int = 0) -> Task:
    """A task with ``n_clips`` clips carrying long captions and five tags each."""
    rng = random.Random(seed)
    clips = []
    for i in range(1, n_clips + 1):
        words = [rng.choice(w) for w in (_SUBJECTS, _ACTIONS, _PLACES, _FRAMING, _LIGHT)]
        clips.append(
            {
                "id": f"c{i:03d}",
                "duration_s": round(rng.uniform(2, 20), 2),
                "caption": f"{words[0]} {words[1]} {words[2]}, {words[3]}, {words[4]}",
                "tags": [w.split()[0] for w in words],
                "orientation": rng.choice(("portrait", "landscape")),
                "quality": round(rng.random(), 2),
            }
        )
    beats = [round(0.5 * k, 3) for k in range(1, 240)]
    data = {
        "schema": "Task.1",
        "id": "pool-80",
        "fps": 25,
        "brief": {
            "text": "45-second upbeat reel of a surf trip, open on the waves, end on the sunset",
            "aspect": "9:16",
            "style": "upbeat",
        },
        "clips": clips,
        "music": [
            {
                "id": "m01",
                "duration_s": 120,
                "bpm": 120,
                "beats_s": beats,
                "downbeats_s": beats[::4],
                "mood": "upbeat",
            },
            {"id": "m02", "duration_s": 90, "bpm": 96, "mood": "chill"},
        ],
        "ledger": [
            {"id": "L1", "kind": "duration", "min_s": 42, "max_s": 48, "target_s": 45},
            {"id": "L2", "kind": "shot_length", "min_s": 1, "max_s": 3},
            {
                "id": "L3",
                "kind": "order",
                "first": {"tags": ["waves"]},
                "last": {"tags": ["sunset"]},
            },
            {"id": "L4", "kind": "must_include", "tags": ["dog"], "min_count": 2},
            {"id": "L5", "kind": "must_exclude", "clip_ids": ["c007", "c013"]},
            {"id": "L6", "kind": "orientation", "value": "portrait"},
            {"id": "L7", "kind": "no_reuse"},
            {"id": "L8", "kind": "music", "track_id": "m01"},
            {
                "id": "L9",
                "kind": "beat_alignment",
                "hard": False,
                "tolerance_s": 0.08,
                "min_fraction": 0.8,
                "weight": 2,
            },
            {
                "id": "L10",
                "kind": "coverage",
                "hard": False,
                "topics": ["surfer", "dog", "van"],
                "min_fraction": 0.67,
            },
        ],
    }
    return TaskIn.model_validate(data).to_task()


def state(task: Task, seed: int = 0) -> tuple[Timeline, Report]:
    """The greedy draft of ``task`` and the verifier's report on it."""
    timeline = simple_draft(task, seed=seed)
    return timeline, Verifier(task).verify(timeline)
