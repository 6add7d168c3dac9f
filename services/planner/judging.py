"""One round's candidates judged by the verifier in as many ``verify:batch`` calls as its
work cap needs.

The verifier refuses a batch whose timeline shots × (patches + ops) passes
``REFINERY_MAX_SHOT_WORK``, or that carries more than ``REFINERY_MAX_BATCH_PATCHES``
patches. The planner shares both settings, so it packs a round into calls that fit rather
than lose the round to a 422. A patch that alone passes the cap is rejected here, with
the error the verifier would give, and never sent.

A patch that is not valid Patch.1 (say, a model's ``fit_duration`` whose target rounds to
0 frames) would make the verifier refuse its whole call, so it is checked here first and
rejected alone (``invalid_patch``, naming its field), never sent.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Any

from pydantic import ValidationError

from clients.verifier import VerifierClient
from protocol.verifier.patch import PatchIn
from protocol.verifier.requests import BatchResponse, PatchResult
from services.common.app import format_loc
from services.verifier.limits import Limits


def invalid(index: int, patch: dict[str, Any]) -> PatchResult | None:
    """The rejection of a patch that is not valid Patch.1 (the first error, by field), or
    None for a valid one."""
    try:
        PatchIn.model_validate(patch)
    except ValidationError as error:
        first = error.errors()[0]
        param = format_loc(("patches", index, *first.get("loc", ())))
        return PatchResult(
            ok=False,
            error={
                "code": "invalid_patch",
                "message": f"{param}: {first.get('msg', 'invalid')}; the patch was not sent",
                "param": param,
            },
        )
    return None


def pack(
    shots: int, patches: Sequence[dict[str, Any]], caps: Limits, skip: Set[int] = frozenset()
) -> list[list[int]]:
    """Indexes of ``patches`` grouped into calls within ``caps``, in order; a patch whose
    index is in ``skip`` (never read: it may not be Patch.1), or that alone passes the work
    cap, is in no group."""
    groups: list[list[int]] = []
    group: list[int] = []
    steps = 0
    for index, patch in enumerate(patches):
        if index in skip:
            continue
        cost = 1 + len(patch["ops"])
        if shots * cost > caps.work:
            continue
        if group and (shots * (steps + cost) > caps.work or len(group) >= caps.patches):
            groups.append(group)
            group, steps = [], 0
        group.append(index)
        steps += cost
    if group:
        groups.append(group)
    return groups


def _too_large(index: int, shots: int, ops: int, caps: Limits) -> PatchResult:
    return PatchResult(
        ok=False,
        error={
            "code": "limit_exceeded",
            "message": f"{shots} shots × {1 + ops} steps passes the verifier's "
            f"REFINERY_MAX_SHOT_WORK ({caps.work}); the patch was not sent",
            "param": f"patches[{index}].ops",
        },
    )


def judge(
    verifier: VerifierClient,
    task_wire: dict[str, Any],
    state: dict[str, Any],
    patches: list[dict[str, Any]],
    caps: Limits,
    *,
    timeout: float | None,
) -> BatchResponse:
    """Every patch's result, in order, as one batch answer would give them."""
    shots = len(state["shots"])
    results: list[PatchResult | None] = [invalid(i, p) for i, p in enumerate(patches)]
    skip = {i for i, result in enumerate(results) if result is not None}
    answer: BatchResponse | None = None
    for group in pack(shots, patches, caps, skip):
        chunk = [patches[i] for i in group]
        answer = verifier.verify_batch(task_wire, state, chunk, timeout=timeout)
        for index, result in zip(group, answer.results, strict=True):
            results[index] = result
    if answer is None:  # nothing could be sent: still judge the cut itself
        base = verifier.verify(task_wire, state, timeout=timeout)
        answer = BatchResponse(base=base, results=[])
    filled = [
        result if result is not None else _too_large(i, shots, len(patches[i]["ops"]), caps)
        for i, result in enumerate(results)
    ]
    return BatchResponse(base=answer.base, results=filled)
