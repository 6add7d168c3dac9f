"""EditBench: determinism, shape, planted solutions, provable infeasibility, the examples."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from benchmarks import editbench
from benchmarks.editbench import INFEASIBLE_REASONS, KINDS, dumps, generate, generate_row
from protocol.verifier import TaskIn, TimelineIn
from services.verifier import ledger as L
from services.verifier.pool import Selector
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import to_frames

N = 200
ROOT = Path(__file__).resolve().parents[2]
ORIENTATION = {"9:16": "portrait", "16:9": "landscape", "1:1": "square"}
DEFECT_TAGS = {"shaky", "blurry", "watermark", "overexposed"}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return list(generate(N, seed=0))


@pytest.fixture(scope="module")
def parsed(rows) -> list[tuple[dict, Task, object]]:
    out = []
    for row in rows:
        task = TaskIn.model_validate(row["task"]).to_task()
        out.append((row, task, TimelineIn.model_validate(row["planted"]).to_timeline(task)))
    return out


# --------------------------------------------------------------------------- determinism


def test_same_seed_gives_identical_bytes_and_another_seed_differs():
    first = "".join(dumps(r) + "\n" for r in generate(25, seed=3))
    again = "".join(dumps(r) + "\n" for r in generate(25, seed=3))
    other = "".join(dumps(r) + "\n" for r in generate(25, seed=4))
    assert first == again
    assert first != other


def test_row_i_does_not_depend_on_n(rows):
    assert list(generate(7, seed=0)) == rows[:7]
    assert generate_row(0, 123) == rows[123]


# --------------------------------------------------------------------------- shape


def test_rows_have_the_editbench_shape(rows):
    for row in rows:
        assert set(row) == {"schema", "task", "planted", "feasible", "infeasible_reason", "kinds"}
        assert row["schema"] == "EditBench.1"
        assert row["task"]["schema"] == "Task.1" and row["planted"]["schema"] == "Timeline.1"
        present = {c["kind"] for c in row["task"]["ledger"]}
        assert row["kinds"] == [k for k in KINDS if k in present]
        assert (row["infeasible_reason"] is None) == row["feasible"]
        assert row["planted"]["fps"] == row["task"]["fps"] in (24, 25, 30)
        json.loads(dumps(row))  # round-trips as one JSON line


def test_pool_and_ledger_sizes(rows):
    for row in rows:
        task = row["task"]
        assert 15 <= len(task["clips"]) <= 80
        assert 5 <= len(task["ledger"]) <= 14
        assert len(task["clips"]) > len(row["planted"]["shots"])  # more media than needed
        for clip in task["clips"]:
            assert 2.0 <= clip["duration_s"] <= 20.0
            assert 0.3 <= clip["quality"] <= 1.0
        for c in task["ledger"]:
            assert c["hard"] or c["weight"] > 0


def test_music_is_on_an_exact_beat_grid(rows):
    for row in rows:
        fps = row["task"]["fps"]
        beat_tracks = [m for m in row["task"]["music"] if m["beats_s"]]
        assert 1 <= len(beat_tracks) <= 3
        for track in beat_tracks:
            assert 80 <= track["bpm"] <= 160 and 60 <= track["duration_s"] <= 240
            frames = [to_frames(b, fps) for b in track["beats_s"]]
            period = 60 * fps / track["bpm"]
            assert period == int(period)  # every beat on a frame
            assert all(b - a == period for a, b in itertools.pairwise(frames))
            assert frames[0] < period  # a small offset before the first beat
            assert track["downbeats_s"] == track["beats_s"][::4]


def test_every_kind_appears(rows):
    seen = Counter(kind for row in rows for kind in row["kinds"])
    assert set(seen) == set(KINDS)
    assert min(seen.values()) >= N // 5
    hardness = {(c["kind"], c["hard"]) for row in rows for c in row["task"]["ledger"]}
    assert all((kind, True) in hardness and (kind, False) in hardness for kind in KINDS)


def test_rows_validate_against_the_wire_models(parsed):
    assert len(parsed) == N  # the fixture validated every task and timeline


def test_briefs_state_length_and_aspect(rows):
    for row in rows:
        brief = row["task"]["brief"]
        duration = next(c for c in row["task"]["ledger"] if c["kind"] == "duration")
        length = duration.get("target_s")
        expected = (
            f"{round(length)}-second"
            if length is not None
            else (f"{duration['min_s']}–{duration['max_s']} s")
        )
        assert expected in brief["text"] and f"({brief['aspect']})" in brief["text"]


# --------------------------------------------------------------------------- planted timelines


def test_planted_timelines_of_feasible_tasks_meet_every_constraint(parsed):
    feasible = 0
    for row, task, timeline in parsed:
        report = Verifier(task).verify(timeline)
        assert report.executable, (row["task"]["id"], report.errors)
        if row["feasible"]:
            feasible += 1
            assert report.feasible
            assert all(c.satisfied for c in report.constraints), [
                (c.id, c.message) for c in report.constraints if not c.satisfied
            ]
            assert report.components.S == 1.0
        else:
            assert not report.feasible
    assert feasible > N * 0.8


def test_planted_cuts_land_on_beats_and_the_end_on_a_downbeat(parsed):
    for row, task, timeline in parsed:
        track = task.tracks[timeline.music.track_id]
        offset = timeline.music.offset
        assert {c + offset for c in timeline.cut_positions()} <= set(track.beats)
        assert timeline.length + offset in track.downbeats
        for shot in row["planted"]["shots"]:  # wire times are exact frames
            for value in (shot["in_s"], shot["out_s"]):
                assert abs(value * task.fps - round(value * task.fps)) < 1e-4


def test_planted_uses_distinct_clips_of_the_briefs_orientation(parsed):
    for _row, task, timeline in parsed:
        ids = [shot.clip_id for shot in timeline.shots]
        assert len(ids) == len(set(ids))
        want = ORIENTATION[task.brief.aspect]
        assert all(task.clips[i].orientation == want for i in ids)
        assert not any(task.clips[i].tags & DEFECT_TAGS for i in ids)


def test_pools_hold_decoys_of_the_planted_subjects(rows):
    """The planted edit is not the obvious draft: attractive look-alikes are wrong in some way."""
    for row in rows:
        planted = {shot["clip_id"] for shot in row["planted"]["shots"]}
        clips = row["task"]["clips"]
        subjects = {c["tags"][0] for c in clips if c["id"] in planted}  # tags open on the subject
        want = ORIENTATION[row["task"]["brief"]["aspect"]]
        twins = [c for c in clips if c["id"] not in planted and c["tags"][0] in subjects]
        assert any(c["orientation"] != want and c["quality"] >= 0.75 for c in twins)
        assert any(set(c["tags"]) & DEFECT_TAGS and c["quality"] >= 0.75 for c in twins)


# --------------------------------------------------------------------------- infeasibility


def _hard(task: Task, cls: type) -> list:
    return [c for c in task.ledger if c.hard and isinstance(c, cls)]


def _match(task: Task, selector: Selector) -> set[str]:
    return {c.id for c in task.clips.values() if selector.matches(c)}


def _missing_tag(task: Task) -> bool:
    return any(not _match(task, c.selector) for c in _hard(task, L.MustInclude))


def _too_little_media(task: Task) -> bool:
    if not _hard(task, L.NoReuse):
        return False
    values = {c.value for c in _hard(task, L.OrientationRule)}
    excluded = set().union(*(_match(task, c.selector) for c in _hard(task, L.MustExclude)))
    media = sum(
        c.duration
        for c in task.clips.values()
        if c.id not in excluded and (not values or values == {c.orientation})
    )
    return any(media < d.min for d in _hard(task, L.Duration))


def _orientation_conflict(task: Task) -> bool:
    for rule in _hard(task, L.OrientationRule):
        for include in _hard(task, L.MustInclude):
            matched = _match(task, include.selector)
            if matched and all(task.clips[i].orientation != rule.value for i in matched):
                return True
    return False


def _single_bookend(task: Task) -> bool:
    if not any(c.max_uses == 1 for c in _hard(task, L.NoReuse)):
        return False
    for order in _hard(task, L.Order):
        if order.first is None or order.last is None:
            continue
        first, last = _match(task, order.first), _match(task, order.last)
        if len(first) == 1 and first == last:
            (only,) = first
            if any(task.clips[only].duration < d.min for d in _hard(task, L.Duration)):
                return True
    return False


def _no_beats(task: Task) -> bool:
    beatless = any(not task.tracks[m.track_id].beats for m in _hard(task, L.Music))
    aligned = any(c.min_fraction > 0 for c in _hard(task, L.BeatAlignment))
    needs_cut = any(
        s.max < d.min for s in _hard(task, L.ShotLength) for d in _hard(task, L.Duration)
    )
    return beatless and aligned and needs_cut


def _include_excluded(task: Task) -> bool:
    return any(
        _match(task, i.selector) and _match(task, i.selector) <= _match(task, e.selector)
        for i in _hard(task, L.MustInclude)
        for e in _hard(task, L.MustExclude)
    )


def _music_too_short(task: Task) -> bool:
    return any(
        task.tracks[m.track_id].duration < d.min
        for m in _hard(task, L.Music)
        for d in _hard(task, L.Duration)
    )


PROOFS = {
    "missing_tag": _missing_tag,
    "too_little_media": _too_little_media,
    "orientation_conflict": _orientation_conflict,
    "single_bookend": _single_bookend,
    "no_beats": _no_beats,
    "include_excluded": _include_excluded,
    "music_too_short": _music_too_short,
}


def test_about_a_tenth_of_tasks_are_infeasible_for_every_reason(rows):
    reasons = Counter(r["infeasible_reason"].split(":")[0] for r in rows if not r["feasible"])
    assert 0.05 * N <= sum(reasons.values()) <= 0.18 * N
    assert set(reasons) == set(INFEASIBLE_REASONS) == set(PROOFS)


def test_each_infeasible_reason_is_provable_from_the_task_alone(parsed):
    for row, task, planted in parsed:
        if row["feasible"]:
            # a feasible task has a witness, so no proof of impossibility may fire
            assert not any(proof(task) for proof in PROOFS.values()), row["task"]["id"]
            continue
        code, _, text = row["infeasible_reason"].partition(": ")
        assert PROOFS[code](task), row["infeasible_reason"]
        named = set(re.findall(r"\bL\d+\b", text))
        assert named <= {c.id for c in task.ledger} and text
        # the planted timeline stays in the row and breaks a constraint the reason names
        report = Verifier(task).verify(planted)
        assert named & {c.id for c in report.unmet_hard}, row["infeasible_reason"]


# --------------------------------------------------------------------------- command line


def test_cli_writes_rows_and_a_summary(tmp_path):
    app = typer.Typer()
    app.command()(editbench.cli)
    app.command("noop")(lambda: None)  # with two commands typer keeps subcommand parsing
    out = tmp_path / "sub" / "tasks.jsonl"
    result = CliRunner().invoke(app, ["cli", "--n", "12", "--seed", "0", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == [dumps(generate_row(0, i)) for i in range(12)]
    summary = " ".join(result.output.split())
    assert "wrote 12 tasks" in summary and "13/13 kinds covered" in summary


# --------------------------------------------------------------------------- examples


def _example(name: str):
    folder = ROOT / "examples" / name
    task_json = json.loads((folder / "task.json").read_text())
    task = TaskIn.model_validate(task_json).to_task()
    timeline = TimelineIn.model_validate(json.loads((folder / "timeline.json").read_text()))
    return task_json, Verifier(task).verify(timeline.to_timeline(task))


@pytest.mark.parametrize("name", ["surf-reel", "city-night", "cooking-short"])
def test_examples_are_small_and_executable(name):
    task_json, report = _example(name)
    assert 10 <= len(task_json["clips"]) <= 15
    assert all(c["uri"] == f"media/{name}/{c['id']}.mp4" for c in task_json["clips"])
    assert report.executable and not report.errors


def test_surf_reel_meets_everything():
    _, report = _example("surf-reel")
    assert report.feasible and all(c.satisfied for c in report.constraints)


def test_city_night_breaks_two_hard_rules_and_one_soft_one():
    _, report = _example("city-night")
    unmet = {c.id: c for c in report.constraints if not c.satisfied}
    assert not report.feasible and set(unmet) == {"L1", "L4", "L9"}
    assert "add ≥ 2.0 s" in unmet["L1"].message
    assert "blurry" in unmet["L4"].message and "snap_to_beats" in unmet["L9"].message


def test_cooking_short_is_feasible_but_misses_two_wishes():
    _, report = _example("cooking-short")
    unmet = {c.id: c for c in report.constraints if not c.satisfied}
    assert report.feasible and set(unmet) == {"L11", "L12"}
    assert not any(c.hard for c in unmet.values()) and report.components.S < 1
    assert "dough, herbs" in unmet["L12"].message


def test_the_small_tier_fits_the_exact_solver_and_stays_feasible() -> None:
    from benchmarks.editbench_small import small_tier
    from protocol.verifier import TaskIn, TimelineIn
    from services.verifier.score import Verifier

    rows = list(small_tier(5, seed=3))
    assert len(rows) == 5
    for row in rows:
        assert len(row["task"]["clips"]) <= 12 and len(row["planted"]["shots"]) <= 10
        task = TaskIn.model_validate(row["task"]).to_task()
        planted = TimelineIn.model_validate(row["planted"]).to_timeline(task)
        assert Verifier(task).verify(planted).feasible
