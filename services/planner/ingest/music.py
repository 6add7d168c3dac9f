"""One music file → a Task.1 MusicTrack: tempo, beats, downbeats and a mood word.

Audio is decoded mono at :data:`SAMPLE_RATE` (soundfile for WAV/FLAC/OGG/MP3, the ffmpeg
binary for anything else, e.g. M4A/AAC). Beats come from librosa's dynamic-programming
tracker on the onset-strength envelope; downbeats assume 4/4 and pick, among the four
phases of the beat grid, the one whose beats carry the most low-frequency accent
(kick/bass onsets) and harmonic change. See ``docs/ingest.md`` ("Music") for the method,
its assumptions and the mood rule.
"""

from __future__ import annotations

import itertools
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from protocol.media import ffmpeg_binary
from protocol.media_errors import FfmpegUnavailable
from services.planner.ingest import kernels
from services.planner.ingest.errors import MediaUnreadable, NotMedia

__all__ = [
    "BEATS_PER_BAR",
    "HOP",
    "SAMPLE_RATE",
    "MusicAnalysis",
    "analyze_music",
    "downbeat_phase",
    "load_audio",
    "mood_of",
]

SAMPLE_RATE = 22_050
HOP = 256
"""Onset-envelope hop: 256 samples ≈ 11.6 ms at 22,050 Hz."""
BEATS_PER_BAR = 4
MAX_BPM = 200.0
KICK_PULSE = 0.8
"""Double the tracked tempo when the kick/bass falls as hard halfway between beats as on
them (ratio within 0.8–1.25) and the doubled tempo stays under :data:`MAX_BPM`."""
TIGHTNESS = 300.0
"""How strictly the dynamic programme keeps to the estimated tempo (librosa's default is
100): produced music holds its tempo, and a tighter grid does not follow syncopated or
swung off-beat hits."""
ONSET_LAG_S = 0.02
"""The flux envelope peaks about 20 ms after a percussive attack (the one-frame difference
and the 93 ms window's centring); beat times are moved back by this much."""
MIN_SECONDS = 1.0
"""Shorter audio gets no beat grid (empty lists), only a duration."""
SILENCE_RMS = 1e-4
_DEFAULT_BPM = 120.0
_NATIVE_SUFFIXES = {".wav", ".wave", ".flac", ".ogg", ".oga", ".aif", ".aiff", ".mp3"}


@dataclass(frozen=True, slots=True)
class MusicAnalysis:
    """What :func:`analyze_music` measured, before it is shaped into wire fields."""

    duration_s: float
    bpm: float
    beats_s: list[float]
    downbeats_s: list[float]
    mood: str
    rms_db: float

    def as_track(self, *, track_id: str, uri: str) -> dict[str, Any]:
        return {
            "id": track_id,
            "uri": uri,
            "duration_s": self.duration_s,
            "bpm": self.bpm,
            "beats_s": self.beats_s,
            "downbeats_s": self.downbeats_s,
            "mood": self.mood,
        }


def load_audio(path: Path, *, sr: int = SAMPLE_RATE, timeout_s: float = 120.0) -> np.ndarray:
    """Mono float32 samples at ``sr``: soundfile when it reads the format, else ffmpeg."""
    path = Path(path)
    if not path.is_file():
        raise MediaUnreadable(f"no audio file at {path}")
    if path.suffix.lower() in _NATIVE_SUFFIXES:
        samples = _read_soundfile(path, sr)
        if samples is not None:
            return samples
    return _read_ffmpeg(path, sr, timeout_s)


def _read_soundfile(path: Path, sr: int) -> np.ndarray | None:
    import soundfile

    librosa = kernels.librosa()

    try:
        data, native = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, soundfile.LibsndfileError):
        return None
    mono = data.mean(axis=1)
    if native != sr and mono.size:
        mono = librosa.resample(mono, orig_sr=native, target_sr=sr, res_type="soxr_hq")
    return np.ascontiguousarray(mono, dtype=np.float32)


def _read_ffmpeg(path: Path, sr: int, timeout_s: float) -> np.ndarray:
    try:
        binary = ffmpeg_binary()
    except FfmpegUnavailable:
        raise MediaUnreadable(
            f"{path.name}: this format needs ffmpeg, which is not installed (WAV works without)"
        ) from None
    argv = [binary, "-hide_banner", "-nostdin", "-loglevel", "error", "-i", str(path),
            "-vn", "-ac", "1", "-ar", str(sr), "-f", "f32le", "-"]  # fmt: skip
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise MediaUnreadable(f"decoding {path.name} ran past {timeout_s} s") from None
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise NotMedia(f"{path.name} holds no audio ffmpeg can read: {tail[0]}")
    return np.frombuffer(done.stdout, dtype="<f4").copy()


def analyze_music(path: Path, *, track_id: str, uri: str) -> dict[str, Any]:
    """MusicTrackIn wire fields (``id``, ``uri``, ``duration_s``, ``bpm``, ``beats_s``,
    ``downbeats_s``, ``mood``) for the audio file at ``path``.

    Raises :class:`NotMedia` when the file holds no audio samples at all. Silence or audio
    shorter than :data:`MIN_SECONDS` gives empty beat lists, the default 120 BPM and the
    mood ``"silent"``.
    """
    samples = load_audio(path)
    return measure_music(samples, sr=SAMPLE_RATE).as_track(track_id=track_id, uri=uri)


def measure_music(samples: np.ndarray, *, sr: int = SAMPLE_RATE) -> MusicAnalysis:
    """Tempo, beats, downbeats and mood of mono ``samples`` at ``sr``."""
    librosa = kernels.librosa()

    if samples.size == 0:
        raise NotMedia("the file decodes to no audio samples")
    duration = round(samples.size / sr, 6)
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    rms_db = round(20 * np.log10(max(rms, 1e-10)), 2)
    if duration < MIN_SECONDS or rms < SILENCE_RMS:
        return MusicAnalysis(duration, _DEFAULT_BPM, [], [], "silent", rms_db)
    spectrum = np.abs(librosa.stft(samples, n_fft=2048, hop_length=HOP))
    mel = librosa.feature.melspectrogram(S=spectrum**2, sr=sr, n_mels=64, fmax=8000)
    envelope = librosa.onset.onset_strength(S=librosa.power_to_db(mel), sr=sr, hop_length=HOP)
    low = _low_flux(mel, sr)
    bpm, frames = _track(envelope, sr)
    if bpm * 2 <= MAX_BPM and _kick_pulse_between(frames, low) >= KICK_PULSE:
        bpm, frames = _track(envelope, sr, bpm=2 * bpm)
    frames = _trim_weak(frames, envelope)
    beats = np.maximum(librosa.frames_to_time(frames, sr=sr, hop_length=HOP) - ONSET_LAG_S, 0.0)
    accent = _beat_accent(spectrum, low, sr, frames)
    phase = downbeat_phase(accent)
    downbeats = beats[phase::BEATS_PER_BAR] if beats.size else beats
    onset_rate = _onset_rate(envelope, sr, duration)
    return MusicAnalysis(
        duration_s=duration,
        bpm=round(bpm, 2),
        beats_s=[round(float(t), 3) for t in beats],
        downbeats_s=[round(float(t), 3) for t in downbeats],
        mood=mood_of(bpm=bpm, rms_db=rms_db, onset_rate=onset_rate),
        rms_db=rms_db,
    )


def _track(envelope: np.ndarray, sr: int, bpm: float | None = None) -> tuple[float, np.ndarray]:
    librosa = kernels.librosa()

    tempo, frames = librosa.beat.beat_track(
        onset_envelope=envelope,
        sr=sr,
        hop_length=HOP,
        units="frames",
        trim=False,
        tightness=TIGHTNESS,
        bpm=bpm,
    )
    return float(np.atleast_1d(tempo)[0]) or _DEFAULT_BPM, frames


def _low_flux(mel: np.ndarray, sr: int) -> np.ndarray:
    """Positive spectral flux of the mel bands under 150 Hz (kick drum, bass)."""
    librosa = kernels.librosa()

    freqs = librosa.mel_frequencies(n_mels=mel.shape[0], fmax=8000)
    low = np.log1p(mel[freqs < 150.0] * 10.0)
    return np.maximum(np.diff(low, axis=1, prepend=low[:, :1]), 0.0).sum(axis=0)


def _peaks_near(values: np.ndarray, frames: np.ndarray, seconds: float = 0.05) -> np.ndarray:
    width = max(1, round(seconds * SAMPLE_RATE / HOP))
    return np.array([values[max(0, f - width) : f + width + 1].max(initial=0.0) for f in frames])


def _kick_pulse_between(frames: np.ndarray, low: np.ndarray) -> float:
    """How evenly the kick/bass pulse runs at twice the tracked tempo: the smaller of
    (median low-band flux halfway between beats) / (median on the beats) and its inverse,
    in [0, 1]; 1 when the half-beats hit as hard as the beats."""
    if frames.size < 8:
        return 0.0
    on = float(np.median(_peaks_near(low, frames[:-1])))
    between = float(np.median(_peaks_near(low, (frames[:-1] + frames[1:]) // 2)))
    if on <= 0 or between <= 0:
        return 0.0
    return min(on / between, between / on)


def _trim_weak(frames: np.ndarray, envelope: np.ndarray, floor: float = 0.25) -> np.ndarray:
    """Drop leading and trailing beats with no onset near them (an intro pad, a fade-out).

    A beat is strong when the strongest onset within ±50 ms reaches ``floor`` × the median
    of that figure over all beats; the grid runs from the first to the last pair of
    consecutive strong beats. Beats between them are kept (rests, breaks)."""
    if frames.size < 2:
        return frames
    strength = _peaks_near(envelope, frames)
    strong = strength >= floor * float(np.median(strength))
    pairs = np.flatnonzero(strong[:-1] & strong[1:])
    if pairs.size == 0:
        return frames[:0]
    return frames[pairs[0] : pairs[-1] + 2]


def _beat_accent(spectrum: np.ndarray, low: np.ndarray, sr: int, frames: np.ndarray):
    """Per beat: low-band (< 150 Hz: kick, bass) spectral flux within ±50 ms of the beat,
    plus the harmonic change at the beat (cosine distance between the mean chroma of the
    beat interval before and the one after it), each divided by its median over beats."""
    librosa = kernels.librosa()

    if frames.size == 0:
        return np.zeros(0)
    bump = _peaks_near(low, frames)
    chroma = librosa.feature.chroma_stft(S=spectrum**2, sr=sr)
    edges = np.concatenate([[0], frames, [chroma.shape[1]]])
    spans = [
        chroma[:, a:b].mean(axis=1) if b > a else np.zeros(12) for a, b in itertools.pairwise(edges)
    ]
    unit = [v / (np.linalg.norm(v) or 1.0) for v in spans]
    change = np.array([1.0 - float(unit[i] @ unit[i + 1]) for i in range(frames.size)])
    return _by_median(bump) + _by_median(change)


def _by_median(values: np.ndarray) -> np.ndarray:
    scale = float(np.median(values)) or float(values.mean()) or 1.0
    return np.minimum(values / scale, 4.0)


def downbeat_phase(accent: np.ndarray, beats_per_bar: int = BEATS_PER_BAR) -> int:
    """The bar phase (0 … ``beats_per_bar`` − 1) whose beats carry the most accent.

    Accents are normalised by their median so one loud hit does not decide; the mean
    of each phase's normalised accents is compared and ties go to the earliest phase.
    """
    if accent.size < beats_per_bar:
        return 0
    normalised = _by_median(accent)
    scores = [normalised[p::beats_per_bar].mean() for p in range(beats_per_bar)]
    return int(np.argmax(scores))


def _onset_rate(envelope: np.ndarray, sr: int, duration: float) -> float:
    librosa = kernels.librosa()

    peaks = librosa.onset.onset_detect(onset_envelope=envelope, sr=sr, hop_length=HOP)
    return len(peaks) / duration if duration else 0.0


def mood_of(*, bpm: float, rms_db: float, onset_rate: float) -> str:
    """A mood word from tempo, loudness (RMS dBFS) and onset density (onsets per second).

    - ``energetic``: ≥ 128 BPM and loud (≥ −20 dBFS) or dense (≥ 4 onsets/s);
    - ``upbeat``: ≥ 100 BPM otherwise;
    - ``dramatic``: < 100 BPM but loud (≥ −16 dBFS) or dense (≥ 3 onsets/s);
    - ``calm``: < 100 BPM, quieter and sparser.
    """
    if bpm >= 128 and (rms_db >= -20 or onset_rate >= 4):
        return "energetic"
    if bpm >= 100:
        return "upbeat"
    if rms_db >= -16 or onset_rate >= 3:
        return "dramatic"
    return "calm"
