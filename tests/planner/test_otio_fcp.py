"""The .otio read by an editing app: converted with OTIO's official FCP 7 XML adapter, every
media path is an absolute URL to the real file and every range matches the plan in frames."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urlsplit

import opentimelineio as otio
import pytest

from services.planner.export import otio_json
from services.verifier.task import Task
from services.verifier.timeline import Timeline, TransitionType
from tests.planner.export_factories import small_task, three_shots

CUT, DISSOLVE, WIPE, FADE = (
    TransitionType.CUT,
    TransitionType.DISSOLVE,
    TransitionType.WIPE,
    TransitionType.FADE_BLACK,
)
PATTERNS = [
    [(CUT, 0), (DISSOLVE, 10), (WIPE, 7)],
    [(FADE, 10), (CUT, 0), (WIPE, 7)],
    [(CUT, 0), (CUT, 0), (CUT, 0)],
]


def _fcp(task: Task, timeline: Timeline, **media: object) -> ET.Element:
    read = otio.adapters.read_from_string(otio_json(task, timeline, **media), "otio_json")
    return ET.fromstring(otio.adapters.write_to_string(read, "fcp_xml"))


def _media(task: Task, root: Path) -> None:
    for item in [*task.clips.values(), *task.tracks.values()]:
        (root / item.uri).parent.mkdir(parents=True, exist_ok=True)
        (root / item.uri).write_bytes(b"")


def _handles(timeline: Timeline, i: int) -> tuple[int, int]:
    """Media the shot lends its neighbours' transitions: (before its in, after its out)."""
    own = timeline.shots[i].transition_in
    head = 0 if own.type is CUT or i == 0 else own.before_cut
    nxt = timeline.shots[i + 1].transition_in if i + 1 < len(timeline.shots) else None
    tail = nxt.after_cut if nxt is not None and nxt.type is not CUT else 0
    return head, tail


def _frames(item: ET.Element, tag: str) -> int:
    return int(item.findtext(tag))


def _placed(track: ET.Element) -> list[tuple[ET.Element, int, int]]:
    """Each clipitem with its record start/end; -1 means "where the adjacent transition
    starts/ends" in FCP 7 XML."""
    items = list(track)
    out = []
    for k, item in enumerate(items):
        if item.tag != "clipitem":
            continue
        start, end = _frames(item, "start"), _frames(item, "end")
        if start == -1:
            start = _frames(items[k - 1], "start")
        if end == -1:
            end = _frames(items[k + 1], "end")
        out.append((item, start, end))
    return out


@pytest.mark.parametrize("fps", [30, 25])
@pytest.mark.parametrize("pattern", PATTERNS, ids=["dissolve-wipe", "fade-in", "cuts"])
def test_every_path_and_range_matches_the_plan(tmp_path: Path, fps: int, pattern: list) -> None:
    task = small_task(fps)
    timeline = three_shots(task, pattern)
    root = tmp_path / "media root"
    _media(task, root)
    xml = _fcp(task, timeline, media_root=root)
    video, audio = xml.find(".//video/track"), xml.find(".//audio/track")

    placed = _placed(video)
    assert len(placed) == len(timeline.shots)
    record = 0
    for i, ((item, start, end), shot) in enumerate(zip(placed, timeline.shots, strict=True)):
        url = item.findtext("file/pathurl")
        assert url.startswith("file:///")
        path = Path(unquote(urlsplit(url).path))
        assert path == (root / task.clips[shot.clip_id].uri).resolve() and path.is_file()
        head, tail = _handles(timeline, i)
        assert (_frames(item, "in"), _frames(item, "out")) == (
            shot.source.start - head,
            shot.source.end + tail,
        )
        assert (start, end) == (record - head, record + shot.length + tail)
        record += shot.length

    cuts = [0, *timeline.cut_positions()]
    transitions = [item for item in video if item.tag == "transitionitem"]
    expected = [
        (cuts[i] - (0 if i == 0 else s.transition_in.before_cut),
         cuts[i] + (s.transition_in.duration if i == 0 else s.transition_in.after_cut))
        for i, s in enumerate(timeline.shots)
        if s.transition_in.type is not CUT
    ]  # fmt: skip
    assert [(_frames(t, "start"), _frames(t, "end")) for t in transitions] == expected

    ((music, start, end),) = _placed(audio)
    track, placement = task.tracks["m1"], timeline.music
    assert Path(unquote(urlsplit(music.findtext("file/pathurl")).path)) == (root / track.uri)
    assert (start, end) == (0, timeline.length)
    assert (_frames(music, "in"), _frames(music, "out")) == (
        placement.offset,
        placement.offset + timeline.length,
    )
    beats = [_frames(m, "in") for m in music.findall("marker") if m.findtext("name") == "beat"]
    window = range(placement.offset, placement.offset + timeline.length)
    assert beats == [b for b in track.beats if b in window]


@pytest.mark.parametrize(
    ("base", "prefix"),
    [
        ("/Volumes/Projects/reel", "file:///Volumes/Projects/reel/"),
        ("Z:\\reel", "file:///Z:/reel/"),
        ("smb://nas/reel/", "smb://nas/reel/"),
    ],
)
def test_a_media_url_base_names_the_media_as_editors_see_it(
    tmp_path: Path, base: str, prefix: str
) -> None:
    task = small_task(30)
    timeline = three_shots(task, PATTERNS[0])
    xml = _fcp(task, timeline, media_root=tmp_path, media_url_base=base)
    urls = [item.text for item in xml.iter("pathurl")]
    expected = [prefix + task.clips[s.clip_id].uri for s in timeline.shots]
    assert urls == [*expected, prefix + task.tracks["m1"].uri]
