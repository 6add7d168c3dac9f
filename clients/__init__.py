"""Typed httpx clients for the Refinery services, and the ``refinery`` CLI (:mod:`clients.cli`).

::

    from clients import VerifierClient, PatchRejectedError

    with VerifierClient("http://127.0.0.1:8101") as verifier:
        report = verifier.verify(task, timeline)
"""

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
