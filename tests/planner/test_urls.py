"""Media URLs in exports: absolute ``file://`` URLs under the media root, or a mapped base."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.media_errors import MediaOutsideRoot
from services.planner.config import PlannerSettings
from services.planner.export import BadMediaUrlBase, media_url
from services.planner.export.urls import url_base


def test_relative_and_file_uris_become_absolute_file_urls(tmp_path: Path) -> None:
    root = tmp_path / "media root"
    assert media_url("clips/c 01.mp4", root) == (root / "clips/c 01.mp4").as_uri()
    assert media_url("clips/c 01.mp4", root).endswith("/media%20root/clips/c%2001.mp4")
    inside = (root / "a.wav").as_uri()
    assert media_url(inside, root) == inside


def test_a_base_keeps_the_path_relative_to_the_root(tmp_path: Path) -> None:
    url = media_url("clips/c 01.mp4", tmp_path, base="smb://nas/reel/")
    assert url == "smb://nas/reel/clips/c%2001.mp4"
    assert media_url("a.mp4", tmp_path, base="/Volumes/Reel") == "file:///Volumes/Reel/a.mp4"
    assert media_url("a.mp4", tmp_path, base="D:\\Reel") == "file:///D:/Reel/a.mp4"


def test_remote_urls_pass_and_escapes_are_refused(tmp_path: Path) -> None:
    assert media_url("https://cdn.example/c.mp4", tmp_path) == "https://cdn.example/c.mp4"
    with pytest.raises(MediaOutsideRoot) as caught:
        media_url("../c.mp4", tmp_path, param="clips[0].uri")
    assert caught.value.param == "clips[0].uri"
    with pytest.raises(MediaOutsideRoot):
        media_url("/etc/passwd", tmp_path)


@pytest.mark.parametrize("base", ["relative/dir", "", "smb:", "nas:reel"])
def test_a_base_must_be_absolute(base: str) -> None:
    with pytest.raises(BadMediaUrlBase) as caught:
        url_base(base)
    assert caught.value.param == "media_url_base" and caught.value.status_code == 422
    with pytest.raises(ValueError, match="absolute"):
        PlannerSettings(media_url_base=base or "x")


def test_the_setting_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINERY_MEDIA_URL_BASE", "/Volumes/Reel")
    assert PlannerSettings().media_url_base == "/Volumes/Reel"
