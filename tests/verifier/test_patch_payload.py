"""Domain ops → Patch.1 → domain ops is the identity, for every verb."""

from protocol.verifier.patch import PatchIn, patch_payload
from services.verifier import patches as P
from services.verifier.timeline import FrameRange, Transition, TransitionType

OPS = [
    P.Insert(0, "c1", FrameRange(3, 45)),
    P.Remove(2),
    P.Replace(1, "c2", FrameRange(0, 30)),
    P.Trim(0, FrameRange(1, 2)),
    P.Move(0, 3),
    P.Swap(1, 2),
    P.SetTransition(1, Transition(TransitionType.DISSOLVE, 15)),
    P.SetMusic("m1", 30, None),
    P.SetMusic("m1", 30, 12),
    P.SnapToBeats(3),
    P.FitDuration(900),
]


def test_every_op_round_trips_through_the_wire() -> None:
    for fps in (24, 25, 30):
        payload = patch_payload(OPS, fps)
        assert payload["schema"] == "Patch.1"
        assert PatchIn.model_validate(payload).to_ops(fps) == OPS


def test_wire_names_match_design() -> None:
    payload = patch_payload([P.Move(4, 1), P.SetMusic("m1", 60, None)], 30)
    assert payload["ops"] == [
        {"op": "move", "from": 4, "to": 1},
        {"op": "set_music", "track_id": "m1", "offset_s": 2.0},
    ]
