"""Typed httpx clients for the Refinery services, and the ``refinery`` CLI (:mod:`clients.cli`).

::

    from clients import VerifierClient, PatchRejectedError

    with VerifierClient("http://127.0.0.1:8101") as verifier:
        report = verifier.verify(task, timeline)
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clients.errors import (
        APIConnectionError,
        APIError,
        APIResponseValidationError,
        APITimeoutError,
        AuthenticationError,
        BadRequestError,
        ConflictError,
        NotFoundError,
        PatchRejectedError,
        PayloadTooLargeError,
        PermissionDeniedError,
        RateLimitError,
        RefineryClientError,
        ServerError,
        UnavailableError,
        UnprocessableEntityError,
    )
    from clients.planner import AsyncPlannerClient, PlannerClient, RecordsPage
    from clients.synth import AsyncSynthClient, SynthClient
    from clients.trainer import AsyncTrainerClient, TrainerClient
    from clients.verifier import AsyncVerifierClient, VerifierClient

_HOMES = {
    "AsyncPlannerClient": "planner",
    "PlannerClient": "planner",
    "RecordsPage": "planner",
    "AsyncSynthClient": "synth",
    "SynthClient": "synth",
    "AsyncTrainerClient": "trainer",
    "TrainerClient": "trainer",
    "AsyncVerifierClient": "verifier",
    "VerifierClient": "verifier",
}
"""Where each public name lives; the rest are errors (:mod:`clients.errors`)."""


def __getattr__(name: str) -> Any:
    """Import a client on first use, so ``import clients.cli`` (the CLI's start-up) does not
    load every client, httpx and the wire models."""
    if name not in __all__:
        raise AttributeError(f"module 'clients' has no attribute {name!r}")
    value = getattr(import_module(f"clients.{_HOMES.get(name, 'errors')}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APITimeoutError",
    "AsyncPlannerClient",
    "AsyncSynthClient",
    "AsyncTrainerClient",
    "AsyncVerifierClient",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "NotFoundError",
    "PatchRejectedError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PlannerClient",
    "RateLimitError",
    "RecordsPage",
    "RefineryClientError",
    "ServerError",
    "SynthClient",
    "TrainerClient",
    "UnavailableError",
    "UnprocessableEntityError",
    "VerifierClient",
]
