"""Detectors pass over frames the decoder skipped (handed out again as the same array)
without losing their place."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from scenedetect import FrameTimecode
from scenedetect.detectors import ContentDetector

from services.planner.ingest.decode import RepeatWatch
from services.planner.ingest.pixels import PixelSampler
from services.planner.ingest.shots import DissolveDetector, cut_detector

FPS = 30.0


def _feed(detectors: list, frames: list[np.ndarray], skipped: set[int]) -> SimpleNamespace:
    """Hand ``frames`` to ``detectors`` as the capture would: a skipped frame arrives as the
    frame before it, the same array. Returns the cuts the detectors reported."""
    shown, cuts = frames[0], []
    for n, frame in enumerate(frames):
        shown = shown if n in skipped else frame
        for detector in detectors:
            cuts += detector.process_frame(FrameTimecode(n, fps=FPS), shown)
    for detector in detectors:
        cuts += detector.post_process(FrameTimecode(len(frames), fps=FPS))
    return SimpleNamespace(cuts=[c.frame_num for c in cuts])


def _picture(seed: int) -> np.ndarray:
    """Big blocks of colour with fine texture: survives any thumbnail, moves measurably."""
    rng = np.random.default_rng(seed)
    blocks = np.kron(rng.integers(0, 256, (9, 16, 3)), np.ones((20, 20, 1)))
    return np.clip(blocks + rng.normal(0, 12, blocks.shape), 0, 255).astype(np.uint8)


def _dissolve(start: int, length: int, frames: int) -> list[np.ndarray]:
    a, b = _picture(1).astype(np.float32), _picture(2).astype(np.float32)
    share = np.clip((np.arange(frames) - start) / length, 0, 1)
    return [((1 - s) * a + s * b).astype(np.uint8) for s in share]


def test_a_dissolve_with_skipped_frames_cuts_where_the_full_decode_does():
    frames = _dissolve(40, 24, 110)  # middle: frame 52
    full = DissolveDetector(FPS)
    _feed([full], frames, set())
    sparse = DissolveDetector(FPS)
    _feed([sparse], frames, {n for n in range(1, 110) if n % 3 == 1})
    assert [c.frame for c in full.cuts] == [52]
    ((frame, kind),) = [(c.frame, c.kind) for c in sparse.cuts]
    assert kind == "dissolve" and abs(frame - 52) <= 1  # skipped frames are blends of their
    # neighbours: the plateau's middle moves at most one frame


def test_equal_pixels_in_a_new_array_are_a_frame_of_their_own():
    watch = RepeatWatch()
    still = _picture(4)
    assert [watch(f) for f in (still, still.copy(), still, still)] == [False, False, False, True]


def test_a_hard_cut_is_found_on_its_frame_between_skipped_frames():
    frames = [_picture(1)] * 30 + [_picture(2)] * 30
    # every frame jitters a little, so scores are not all zero
    frames = [
        np.clip(f.astype(int) + (n % 2), 0, 255).astype(np.uint8) for n, f in enumerate(frames)
    ]
    detector = cut_detector(FPS)
    found = _feed([detector], frames, {n for n in range(1, 60) if n % 3 == 2})
    assert found.cuts == [30]


def test_a_skipped_frame_is_never_half_of_a_motion_sample():
    frames = [np.roll(_picture(3), 2 * n, axis=1) for n in range(60)]  # a steady pan
    skipped = {n for n in range(1, 60) if n % 3 == 1}
    sampler = PixelSampler(FPS)
    _feed([sampler], frames, skipped)
    assert len(sampler.samples) >= 10  # about six a second still
    for sample in sampler.samples:
        assert sample.frame not in skipped and sample.frame + 1 not in skipped
        assert abs(sample.dx - 2.0) < 0.2 and abs(sample.dy) < 0.2  # the pan, not a stall


def _batched(detectors: list, frames: list[np.ndarray], skipped: set[int], size: int) -> None:
    """Hand the decoded ``frames`` to ``detectors`` in batches of ``size``, as
    :class:`FrameBatches` does: skipped frames are absent, their numbers missing."""
    kept = [n for n in range(len(frames)) if n not in skipped]
    for at in range(0, len(kept), size):
        numbers = np.array(kept[at : at + size])
        batch = np.stack([frames[n] for n in numbers])
        for detector in detectors:
            detector.process_batch(numbers, batch)


def test_batches_find_what_frame_by_frame_finds():
    frames = _dissolve(40, 24, 110) + [_picture(5)] * 40 + [np.roll(_picture(5), 3, 1)] * 30
    frames = [
        np.clip(f.astype(int) + (n % 3), 0, 255).astype(np.uint8) for n, f in enumerate(frames)
    ]
    skipped = {n for n in range(1, len(frames)) if n % 4 == 1}
    single = [cut_detector(FPS), DissolveDetector(FPS), PixelSampler(FPS)]
    found = _feed(single, frames, skipped)
    batched = [cut_detector(FPS), DissolveDetector(FPS), PixelSampler(FPS)]
    _batched(batched, frames, skipped, size=9)
    batched[0].post_process(len(frames))
    batched[1].post_process(FrameTimecode(len(frames), fps=FPS))
    assert batched[0].cuts == found.cuts == [110]
    assert batched[1].cuts == single[1].cuts and single[1].cuts[0].frame == 52
    for h in single[1].halves:
        expected, got = np.array(single[1]._curves[h]), np.array(batched[1]._curves[h])
        assert expected.shape == got.shape and np.allclose(expected, got, atol=1e-4)
    assert batched[2].samples == single[2].samples and len(single[2].samples) >= 20


def test_batch_scores_are_content_detectors_scores():
    frames = [_picture(n) for n in range(6)]
    reference = ContentDetector()
    expected = [reference._calculate_frame_score(FrameTimecode(n, fps=FPS), f)
                for n, f in enumerate(frames)]  # fmt: skip
    detector = cut_detector(FPS)
    got = detector._batch_scores(np.stack(frames[:4])) + detector._batch_scores(
        np.stack(frames[4:])
    )
    assert np.allclose(got, expected, rtol=1e-9) and got[0] == 0.0
