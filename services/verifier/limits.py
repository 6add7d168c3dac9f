"""Size caps on a request, checked on the parsed JSON before anything is compiled.

A list past its cap is refused at once (a 422 naming the field and the cap), so a task of
100,000 clips costs one ``len`` rather than a model validation. Lists that are not lists
are left to the models, which say what they expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.verifier.errors import VerifierError


class LimitExceeded(VerifierError):
    """A list in the request is longer than this service accepts."""

    code = "limit_exceeded"


@dataclass(frozen=True, slots=True)
class Limits:
    """The caps, each with the setting that changes it."""

    shots: int = 2_000
    clips: int = 5_000
    music: int = 64
    ledger: int = 256
    beats: int = 20_000
    ops: int = 256
    patches: int = 256
    work: int = 32_768
    """Timeline shots × (patches + ops): each op rewrites the timeline, each patch's result
    is verified whole, so this bounds one apply or batch call's work (and its answer)."""

    def check_task(self, task: Any, loc: str = "task") -> None:
        if not isinstance(task, dict):
            return
        self._cap(task.get("clips"), f"{loc}.clips", self.clips, "MAX_CLIPS")
        self._cap(task.get("music"), f"{loc}.music", self.music, "MAX_MUSIC_TRACKS")
        self._cap(task.get("ledger"), f"{loc}.ledger", self.ledger, "MAX_LEDGER")
        music = task.get("music")
        if isinstance(music, list):
            for index, track in enumerate(music):
                if isinstance(track, dict):
                    for name in ("beats_s", "downbeats_s"):
                        param = f"{loc}.music[{index}].{name}"
                        self._cap(track.get(name), param, self.beats, "MAX_BEATS")

    def check_timeline(self, timeline: Any, loc: str = "timeline") -> None:
        if isinstance(timeline, dict):
            self._cap(timeline.get("shots"), f"{loc}.shots", self.shots, "MAX_SHOTS")

    def check_patch(self, patch: Any, loc: str = "patch") -> None:
        if isinstance(patch, dict):
            self._cap(patch.get("ops"), f"{loc}.ops", self.ops, "MAX_PATCH_OPS")

    def check_patches(self, patches: Any, loc: str = "patches") -> None:
        self._cap(patches, loc, self.patches, "MAX_BATCH_PATCHES", code="too_many_patches")
        if isinstance(patches, list):
            for index, patch in enumerate(patches):
                self.check_patch(patch, f"{loc}[{index}]")

    def check_request(self, data: dict[str, Any]) -> None:
        """Every capped list of a verify, apply, batch or plan body."""
        self.check_task(data.get("task"))
        self.check_timeline(data.get("timeline"))
        if "patch" in data:
            self.check_patch(data["patch"])
        if "patches" in data:
            self.check_patches(data["patches"])
        self.check_work(data)

    def check_work(self, data: dict[str, Any]) -> None:
        """Shots × (patches + ops) of an apply or batch body within :attr:`work`."""
        timeline = data.get("timeline")
        shots = timeline.get("shots") if isinstance(timeline, dict) else None
        patches = data.get("patches")
        if not isinstance(patches, list):
            patches = [data["patch"]] if "patch" in data else []
        ops = [p.get("ops") if isinstance(p, dict) else None for p in patches]
        steps = len(patches) + sum(len(o) for o in ops if isinstance(o, list))
        if not isinstance(shots, list) or not steps or len(shots) * steps <= self.work:
            return
        param = "patches" if "patches" in data else "patch.ops"
        raise LimitExceeded(
            f"{len(shots)} shots × {steps} patches and ops is {len(shots) * steps} steps; "
            f"one call may take at most {self.work} (REFINERY_MAX_SHOT_WORK): send fewer "
            "patches per call",
            param=param,
            context={"limit": self.work, "count": len(shots) * steps},
        )

    @staticmethod
    def _cap(items: Any, param: str, cap: int, setting: str, *, code: str | None = None) -> None:
        if isinstance(items, list) and len(items) > cap:
            raise LimitExceeded(
                f"{param} has {len(items)} items; this service accepts at most {cap} "
                f"(REFINERY_{setting}): split the work or raise the setting",
                param=param,
                code=code,
                context={"limit": cap, "count": len(items)},
            )
