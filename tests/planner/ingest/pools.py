"""Small pools the brief-compiler tests compile against (Task.1 wire form)."""

from __future__ import annotations

from typing import Any


def clip(
    clip_id: str, caption: str, tags: str, *, seconds: float = 6.0, orientation: str = "landscape"
) -> dict[str, Any]:
    return {
        "id": clip_id,
        "duration_s": seconds,
        "caption": caption,
        "tags": tags.split(),
        "orientation": orientation,
    }


def track(track_id: str, mood: str, *, seconds: float = 120.0) -> dict[str, Any]:
    beats = [round(0.5 * i, 3) for i in range(int(seconds * 2))]
    return {
        "id": track_id,
        "duration_s": seconds,
        "bpm": 120,
        "beats_s": beats,
        "downbeats_s": beats[::4],
        "mood": mood,
    }


WEDDING = [
    clip("w1", "the barn venue from the drone", "venue drone"),
    clip("w2", "groom reading his vows, close-up", "vows closeup groom"),
    clip("w3", "bride reading her vows", "vows bride"),
    clip("w4", "exchanging the rings, hands only", "rings closeup"),
    clip("w5", "first kiss as husband and wife", "kiss"),
    clip("w6", "toast by the maid of honour", "toast speech"),
    clip("w7", "cutting the cake", "cake"),
    clip("w8", "first dance, slow motion", "dance slowmo"),
    clip("w9", "guests dancing on the lawn", "dance guests party"),
    clip("w10", "couple walking at sunset", "couple sunset"),
    clip("w11", "the living room of the lodge", "livingroom"),
    clip("w12", "tip-off style confetti toss", "confetti tipoff"),
]
SURF = [
    clip("s1", "surfer drops into a wave", "surfer wave", orientation="portrait"),
    clip("s2", "waves on the reef from the drone", "wave drone ocean", orientation="portrait"),
    clip("s3", "fish tacos at the beach shack", "food beach", orientation="portrait"),
    clip("s4", "sunset over the ocean", "sunset ocean", orientation="portrait"),
    clip("s5", "waxing the board in the car park", "board prep", orientation="portrait"),
    clip("s6", "camper van on the coast road", "van road", orientation="portrait"),
    clip("s7", "the mountains behind the bay", "mountain", orientation="portrait"),
    clip("s8", "wipeout, spray everywhere", "wipeout closeup surfer"),
]
ONE_TRACK = [track("m1", "upbeat")]
TWO_TRACKS = [track("m-slow", "romantic"), track("m-fast", "upbeat")]
