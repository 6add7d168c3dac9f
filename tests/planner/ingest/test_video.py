from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol.media import ffmpeg_binary
from protocol.media_errors import MediaOutsideRoot
from protocol.verifier import TaskIn
from protocol.verifier.task import ClipIn
from services.planner.ingest.video import analyze_video, measure_video


def test_a_file_becomes_one_clip_per_shot_in_task_form(media: Path):
    result = analyze_video(media / "cuts.mp4", media_root=media)
    clips = result.clips
    assert [c["start_s"] for c in clips] == [0.0, 2.0, 4.0]
    assert [c["duration_s"] for c in clips] == [2.0, 2.0, 2.0]
    assert {c["uri"] for c in clips} == {"cuts.mp4"}
    for clip in clips:
        assert re.fullmatch(r"v[0-9a-f]{8}-\d{2}", clip["id"])
        ClipIn.model_validate(clip)
    task = TaskIn.model_validate(
        {"id": "t", "fps": 30, "brief": {"text": "a reel"}, "clips": clips}
    ).to_task()
    assert [c.start for c in task.clips.values()] == [0, 60, 120]
    assert [c.caption_source for c in task.clips.values()] == ["filename"] * 3


def test_ids_follow_the_bytes_not_the_name(media: Path, tmp_path: Path):
    copy = tmp_path / "renamed.mp4"
    shutil.copy(media / "cuts.mp4", copy)
    first = analyze_video(media / "cuts.mp4", media_root=media)
    again = analyze_video(copy, media_root=tmp_path)
    assert [c["id"] for c in first.clips] == [c["id"] for c in again.clips]
    assert len({c["id"] for c in first.clips}) == 3
    other = analyze_video(media / "dissolve.mp4", media_root=media)
    assert not {c["id"] for c in other.clips} & {c["id"] for c in first.clips}


def test_split_shots_false_keeps_the_file_whole(media: Path):
    result = analyze_video(media / "cuts.mp4", media_root=media, split_shots=False)
    assert len(result.clips) == 1
    assert result.clips[0]["start_s"] == 0.0
    assert result.clips[0]["duration_s"] == pytest.approx(6.0)


def test_uri_is_relative_to_the_media_root(media: Path):
    result = analyze_video(Path("trip/mixed.mp4"), media_root=media)
    assert {c["uri"] for c in result.clips} == {"trip/mixed.mp4"}


def test_a_path_outside_the_root_is_refused(media: Path, tmp_path: Path):
    with pytest.raises(MediaOutsideRoot):
        analyze_video(media / ".." / "elsewhere.mp4", media_root=media)


def test_portrait_and_tags_reach_the_clips(media: Path):
    assert analyze_video(media / "portrait.mp4", media_root=media).clips[0]["orientation"] == (
        "portrait"
    )
    night = analyze_video(media / "night.mp4", media_root=media, captions="none")
    assert night.clips[0]["tags"] == ["dark"]
    assert night.clips[0]["caption_source"] == "manual"
    assert night.clips[0]["caption"] == ""


def test_skimming_finds_the_same_shots_and_tags(media: Path, tmp_path: Path):
    """The mixed file (a cut, a dissolve, a cut; still spans in its bars and teal shots)
    with a keyframe every 10 frames, measured with and without skimming."""
    path = tmp_path / "mixed-gop10.mp4"
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
            "-i", str(media / "trip" / "mixed.mp4"), "-c:v", "libx264", "-g", "10",
            "-pix_fmt", "yuv420p", str(path)]  # fmt: skip
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    whole, skimmed = measure_video(path, skim=False), measure_video(path)
    assert skimmed.frames == whole.frames == 210
    starts = [s["start_frame"] for s in skimmed.shots]
    assert starts == [s["start_frame"] for s in whole.shots] and len(starts) == 4
    assert [s["tags"] for s in skimmed.shots] == [s["tags"] for s in whole.shots]
    assert all(s["samples"] > 0 for s in skimmed.shots)
