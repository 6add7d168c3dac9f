"""Captions: sidecar formats, the file name, and a vision model behind a fake endpoint."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.common.openai_chat import ChatEndpoint
from services.planner.ingest.brief.compiler import compile_rules
from services.planner.ingest.captions import (
    SidecarEntry,
    VisionCaptioner,
    filename_caption,
    load_sidecar,
    sidecar_caption,
)
from services.planner.ingest.errors import CaptionerFailed, SidecarInvalid
from services.planner.ingest.video import analyze_video
from tests.planner.fake_openai import serve
from tests.planner.ingest.fake_vlm import FakeVision


@pytest.fixture
def folder(media: Path, tmp_path: Path) -> Path:
    """A private media root holding a copy of the three-shot file."""
    shutil.copy(media / "cuts.mp4", tmp_path / "surf_sunset-02.mp4")
    return tmp_path


@pytest.fixture(scope="module")
def fake_vlm() -> Iterator[tuple[FakeVision, str]]:
    fake = FakeVision()
    with serve(fake.app) as url:
        yield fake, url


@pytest.fixture
def vlm(fake_vlm) -> Iterator[VisionCaptioner]:
    fake, url = fake_vlm
    fake.reset()
    fake.mode = "valid"
    with VisionCaptioner(ChatEndpoint(url, "fake-vlm", max_retries=0)) as captioner:
        yield captioner


def test_file_name_words():
    found = filename_caption(Path("clips/Surf_sunset-02 (wide).MP4"))
    assert (found.text, found.tags, found.source) == (
        "surf sunset wide",
        ("surf", "sunset", "wide"),
        "filename",
    )


def test_a_run_together_file_name_names_its_clip_in_a_brief(folder: Path):
    (folder / "surf_sunset-02.mp4").rename(folder / "bigbuckbunny.mp4")
    clips = analyze_video(folder / "bigbuckbunny.mp4", media_root=folder).clips
    assert {c["caption"] for c in clips} == {"big buck bunny"}
    compiled = compile_rules("8 seconds, end on the bunny.", clips, [])
    last = [e for e in compiled.ledger if e["kind"] == "order" and "last" in e]
    assert last and last[0]["last"] == {"tags": ["bunny"]}
    assert compiled.unparsed == []


def test_auto_without_sidecar_or_model_uses_the_file_name(folder: Path):
    clips = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder).clips
    assert {c["caption"] for c in clips} == {"surf sunset"}
    assert {c["caption_source"] for c in clips} == {"filename"}
    assert all({"surf", "sunset"} <= set(c["tags"]) for c in clips)


def test_a_folder_json_with_time_ranges_captions_each_shot(folder: Path):
    (folder / "captions.json").write_text(json.dumps({
        "surf_sunset-02.mp4": [
            {"start_s": 0, "end_s": 2.1, "caption": "paddling out", "tags": ["ocean", "wide"]},
            {"start_s": 2.1, "end_s": 4, "caption": "the wave", "tags": "surf;action"},
            {"caption": "the trip", "tags": ["surf"]},
        ]
    }))  # fmt: skip
    clips = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder).clips
    assert [c["caption"] for c in clips] == ["paddling out", "the wave", "the trip"]
    assert clips[1]["tags"][:2] == ["surf", "action"]
    assert {c["caption_source"] for c in clips} == {"sidecar"}


def test_a_folder_csv(folder: Path):
    (folder / "captions.csv").write_text(
        "file,start_s,end_s,caption,tags\n"
        "surf_sunset-02.mp4,,,board on the beach,beach|surf\n"
        "other.mp4,,,not this one,x\n"
    )
    clips = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder).clips
    assert {c["caption"] for c in clips} == {"board on the beach"}
    assert clips[0]["tags"][:2] == ["beach", "surf"]


def test_a_json_beside_the_file_wins_over_the_folder(folder: Path):
    (folder / "captions.json").write_text(json.dumps({"surf_sunset-02.mp4": "folder"}))
    beside = folder / "surf_sunset-02.mp4.json"
    beside.write_text(json.dumps({"caption": "beside", "tags": ["close"]}))
    clips = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder).clips
    assert {c["caption"] for c in clips} == {"beside"}


def test_forced_sidecar_without_one_leaves_shots_uncaptioned(folder: Path):
    result = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, captions="sidecar")
    assert {(c["caption"], c["caption_source"]) for c in result.clips} == {("", "manual")}


def test_a_malformed_sidecar_is_a_typed_error(folder: Path):
    (folder / "captions.json").write_text("{not json")
    with pytest.raises(SidecarInvalid, match=r"captions\.json"):
        load_sidecar(folder / "surf_sunset-02.mp4")
    (folder / "captions.json").write_text(
        json.dumps({"surf_sunset-02.mp4": [{"start_s": 3, "end_s": 1}]})
    )
    with pytest.raises(SidecarInvalid, match="end_s"):
        load_sidecar(folder / "surf_sunset-02.mp4")


def test_sidecar_picks_the_most_overlapping_range():
    entries = [SidecarEntry("a", (), 0.0, 3.0), SidecarEntry("b", (), 3.0, 9.0)]
    assert sidecar_caption(entries, 2.0, 5.0).text == "b"
    assert sidecar_caption(entries, 0.0, 2.0).text == "a"
    assert sidecar_caption(entries, 10.0, 12.0) is None


def test_the_vision_model_sees_keyframes_and_captions_each_shot(folder: Path, vlm, fake_vlm):
    fake, _ = fake_vlm
    result = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, vlm=vlm)
    assert [c["caption_source"] for c in result.clips] == ["llm"] * 3
    assert len(fake.requests) == 3 and fake.images_seen == 9  # three keyframes a shot
    body = fake.requests[0]
    assert body["model"] == "fake-vlm"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["caption", "tags"]
    for clip in result.clips:
        assert clip["caption"].startswith("a bright frame, mostly")
        assert "bright" in clip["tags"]


def test_a_sidecar_still_wins_over_the_model_under_auto(folder: Path, vlm, fake_vlm):
    (folder / "captions.json").write_text(json.dumps({"surf_sunset-02.mp4": "from the DAM"}))
    result = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, vlm=vlm)
    assert {c["caption_source"] for c in result.clips} == {"sidecar"}
    assert fake_vlm[0].requests == []


def test_a_failing_model_falls_back_under_auto_and_fails_when_forced(folder, vlm, fake_vlm):
    fake_vlm[0].mode = "garbage"
    result = analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, vlm=vlm)
    assert {c["caption_source"] for c in result.clips} == {"filename"}
    assert {w["code"] for w in result.warnings} == {"captioner_failed"}
    with pytest.raises(CaptionerFailed, match="caption, tags"):
        analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, vlm=vlm, captions="llm")
    fake_vlm[0].mode = "error"
    with pytest.raises(CaptionerFailed, match="500"):
        analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, vlm=vlm, captions="llm")


def test_forcing_llm_without_a_model_is_an_error(folder: Path):
    with pytest.raises(CaptionerFailed, match="REFINERY_VLM_MODEL"):
        analyze_video(folder / "surf_sunset-02.mp4", media_root=folder, captions="llm")
