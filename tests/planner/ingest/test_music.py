"""Music analysis on tracks synthesised here with numpy, at known tempi and bar phases."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from protocol.media import FFMPEG_ENV, ffmpeg_binary
from protocol.verifier.task import MusicTrackIn
from services.planner.ingest.errors import MediaUnreadable, NotMedia
from services.planner.ingest.music import analyze_music, downbeat_phase, load_audio, mood_of

SR = 44_100


def _kick(sr: int) -> np.ndarray:
    t = np.arange(int(0.18 * sr)) / sr
    return np.sin(2 * np.pi * 120 * t * np.exp(-6 * t)) * np.exp(-22 * t)


def _tick(sr: int, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(int(0.04 * sr)) / sr
    return rng.standard_normal(t.size) * np.exp(-120 * t) * 0.4


def groove(bpm: float, seconds: float, *, first: float, bar_offset: int = 0) -> tuple:
    """Kick on each bar's first beat, ticks on the others, from ``first`` s; a bass note
    changing every bar. The bar starts ``bar_offset`` beats after ``first``."""
    rng = np.random.default_rng(round(bpm))
    y = np.zeros(int(seconds * SR))
    beat = 60.0 / bpm
    beats = np.arange(first, seconds - 0.3, beat)
    for i, b in enumerate(beats):
        start = int(b * SR)
        hit = _kick(SR) if (i - bar_offset) % 4 == 0 else _tick(SR, rng)
        y[start : start + hit.size] += hit[: y.size - start]
    t = np.arange(y.size) / SR
    bar = ((t - first) / beat - bar_offset) // 4
    y += 0.08 * np.sin(2 * np.pi * np.where(bar % 2 == 0, 55.0, 73.4) * t) * (t >= first)
    downbeats = beats[bar_offset::4]
    return 0.6 * y, beats, downbeats


def _matches(found: list[float], truth: np.ndarray, window: float = 0.07) -> int:
    return sum(bool(np.any(np.abs(truth - f) <= window)) for f in found)


@pytest.fixture(scope="module")
def tracks(tmp_path_factory) -> dict[str, tuple[Path, float, np.ndarray, np.ndarray]]:
    root = tmp_path_factory.mktemp("music")
    made = {}
    for name, bpm, first, offset in (("slow", 84.0, 0.6, 1), ("fast", 146.0, 1.2, 0)):
        y, beats, downbeats = groove(bpm, 16.0, first=first, bar_offset=offset)
        path = root / f"{name}.wav"
        soundfile.write(path, y.astype(np.float32), SR)
        made[name] = (path, bpm, beats, downbeats)
    m4a = root / "fast.m4a"
    subprocess.run(
        [ffmpeg_binary(), "-hide_banner", "-loglevel", "error", "-y", "-i", str(made["fast"][0]),
         "-c:a", "aac", "-b:a", "128k", str(m4a)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    made["m4a"] = (m4a, *made["fast"][1:])
    return made


@pytest.mark.parametrize("name", ["slow", "fast", "m4a"])
def test_tempo_beats_and_downbeats_are_found(tracks, name: str) -> None:
    path, bpm, beats, downbeats = tracks[name]
    track = analyze_music(path, track_id="m01", uri=f"music/{path.name}")
    assert track["id"] == "m01" and track["uri"] == f"music/{path.name}"
    assert abs(track["bpm"] - bpm) / bpm <= 0.04
    assert abs(track["duration_s"] - 16.0) < 0.05
    assert _matches(track["beats_s"], beats) >= 0.9 * len(beats)
    assert len(track["beats_s"]) <= len(beats) + 1
    assert _matches(track["downbeats_s"], downbeats) >= 0.8 * len(downbeats)
    first = track["beats_s"].index(track["downbeats_s"][0])
    assert first < 4 and track["downbeats_s"] == track["beats_s"][first::4]
    assert track["mood"] in ("calm", "upbeat", "energetic", "dramatic")
    MusicTrackIn.model_validate(track)


def test_the_intro_before_the_groove_gets_no_beats(tracks) -> None:
    path, _, beats, _ = tracks["fast"]
    track = analyze_music(path, track_id="m", uri="x")
    assert track["beats_s"][0] >= beats[0] - 0.07


def test_a_kick_on_every_beat_sets_a_fast_tempo(tmp_path: Path) -> None:
    """At 172 BPM the autocorrelation prefers half the tempo (the snare's period); a kick
    as strong halfway between those beats as on them doubles it."""
    rng = np.random.default_rng(3)
    y = np.zeros(16 * SR)
    beat = 60.0 / 172
    beats = np.arange(0.3, 15.7, beat)
    for i, b in enumerate(beats):
        for at, hit in ((b, _kick(SR)), (b, 3 * _tick(SR, rng) * (i % 2)),
                        (b + beat / 2, 0.5 * _tick(SR, rng))):  # fmt: skip
            start = int(at * SR)
            y[start : start + hit.size] += hit[: y.size - start]
    soundfile.write(tmp_path / "fast.wav", (0.5 * y).astype(np.float32), SR)
    track = analyze_music(tmp_path / "fast.wav", track_id="m", uri="fast.wav")
    assert abs(track["bpm"] - 172) / 172 <= 0.04
    assert _matches(track["beats_s"], beats) >= 0.9 * len(beats)


def test_wav_decodes_without_ffmpeg_and_m4a_then_says_why(tracks, monkeypatch) -> None:
    monkeypatch.delenv(FFMPEG_ENV, raising=False)
    media = sys.modules[ffmpeg_binary.__module__]
    monkeypatch.setattr(media, "_bundled_ffmpeg", lambda: None)  # no wheel
    samples = load_audio(tracks["slow"][0])
    assert samples.dtype == np.float32 and abs(samples.size / 22_050 - 16.0) < 0.01
    with pytest.raises(MediaUnreadable, match="needs ffmpeg"):
        load_audio(tracks["m4a"][0])


def test_silence_and_very_short_audio_give_empty_grids(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "quiet.wav", np.zeros(SR * 3, dtype=np.float32), SR)
    soundfile.write(tmp_path / "blip.wav", _kick(SR).astype(np.float32)[: SR // 4], SR)
    for name, seconds in (("quiet.wav", 3.0), ("blip.wav", 0.18)):
        track = analyze_music(tmp_path / name, track_id="m", uri=name)
        assert track["beats_s"] == [] and track["downbeats_s"] == []
        assert track["mood"] == "silent" and track["bpm"] > 0
        assert abs(track["duration_s"] - seconds) < 0.01
        MusicTrackIn.model_validate(track)


def test_files_without_audio_are_typed_errors(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "empty.wav", np.zeros(0, dtype=np.float32), SR)
    (tmp_path / "notes.mp3").write_text("not audio at all")
    with pytest.raises(NotMedia):
        analyze_music(tmp_path / "empty.wav", track_id="m", uri="empty.wav")
    with pytest.raises(NotMedia) as caught:
        analyze_music(tmp_path / "notes.mp3", track_id="m", uri="notes.mp3")
    assert caught.value.code == "not_media"
    with pytest.raises(MediaUnreadable):
        analyze_music(tmp_path / "missing.wav", track_id="m", uri="missing.wav")


def test_downbeat_phase_follows_the_accented_beat() -> None:
    accent = np.tile([1.0, 1.1, 3.0, 1.0], 8)
    assert downbeat_phase(accent) == 2
    accent[2] = 80.0  # one loud hit elsewhere cannot move the bar
    accent[4] = 200.0
    assert downbeat_phase(accent) == 2
    assert downbeat_phase(np.array([5.0, 1.0])) == 0


def test_the_mood_rule() -> None:
    assert mood_of(bpm=150, rms_db=-12, onset_rate=6) == "energetic"
    assert mood_of(bpm=150, rms_db=-30, onset_rate=2) == "upbeat"
    assert mood_of(bpm=110, rms_db=-10, onset_rate=8) == "upbeat"
    assert mood_of(bpm=80, rms_db=-12, onset_rate=1) == "dramatic"
    assert mood_of(bpm=72, rms_db=-28, onset_rate=1.5) == "calm"
