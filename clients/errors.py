"""The client error tree, patterned after httpx / openai-python ``_exceptions.py``.

::

    RefineryClientError
    ├── APIConnectionError          transport failed; no response (carries ``request``)
    │   └── APITimeoutError
    ├── APIResponseValidationError  a 2xx body that does not parse as the expected model
    └── APIError                    the server answered with an error envelope
        ├── BadRequestError             400
        ├── AuthenticationError         401
        ├── PermissionDeniedError       403
        ├── NotFoundError               404
        ├── ConflictError               409
        ├── PayloadTooLargeError        413
        ├── UnprocessableEntityError    422
        │   └── PatchRejectedError      422 with code ``patch_rejected``
        ├── RateLimitError              429
        └── ServerError                 5xx
            └── UnavailableError        503
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "NotFoundError",
    "PatchRejectedError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RefineryClientError",
    "ServerError",
    "UnavailableError",
    "UnprocessableEntityError",
    "error_from_response",
]


class RefineryClientError(Exception):
    """Base of every error a Refinery client raises."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class APIConnectionError(RefineryClientError):
    """The request never got a response (refused, reset, DNS, …)."""

    def __init__(self, request: httpx.Request, message: str | None = None) -> None:
        super().__init__(message or f"could not reach {request.url}")
        self.request = request


class APITimeoutError(APIConnectionError):
    """The request timed out (connect, read, write or pool)."""

    def __init__(self, request: httpx.Request, message: str | None = None) -> None:
        super().__init__(request, message or f"request to {request.url} timed out")


class APIResponseValidationError(RefineryClientError):
    """A successful response whose body is not the model the client expected."""

    def __init__(self, response: httpx.Response, message: str) -> None:
        super().__init__(message)
        self.response = response
        self.request = response.request
        self.status_code = response.status_code


class APIError(RefineryClientError):
    """An error envelope ``{"error": {"code", "message", "param", ...}}`` from a service."""

    def __init__(
        self,
        message: str,
        *,
        response: httpx.Response,
        body: Any,
        code: str | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.response = response
        self.request = response.request
        self.status_code = response.status_code
        self.body = body
        self.code = code
        self.param = param

    def __str__(self) -> str:
        where = f" (param {self.param})" if self.param else ""
        code = f" {self.code}" if self.code else ""
        return f"{self.status_code}{code}: {self.message}{where}"


class BadRequestError(APIError):
    """400."""


class AuthenticationError(APIError):
    """401: missing or wrong ``Authorization: Bearer`` key."""


class PermissionDeniedError(APIError):
    """403."""


class NotFoundError(APIError):
    """404."""


class ConflictError(APIError):
    """409."""


class PayloadTooLargeError(APIError):
    """413: the request body is over the service's limit."""


class UnprocessableEntityError(APIError):
    """422: the request is well-formed JSON but invalid; ``param`` names the field."""


class PatchRejectedError(UnprocessableEntityError):
    """422 ``patch_rejected``: op ``op_index`` could not apply, for ``reason``."""

    def __init__(
        self, message: str, *, op_index: int | None, reason: str | None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.op_index = op_index
        self.reason = reason


class RateLimitError(APIError):
    """429."""


class ServerError(APIError):
    """5xx."""


class UnavailableError(ServerError):
    """503: the service (or something it needs) is not ready; retried by the clients."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: UnavailableError,
}


def error_from_response(response: httpx.Response) -> APIError:
    """The :class:`APIError` subclass for an error response, fields read from its envelope."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = str(error.get("message") or response.reason_phrase)
        code, param = error.get("code"), error.get("param")
    else:  # not one of ours (a proxy, a bare framework error): keep what there is
        detail = body.get("detail") if isinstance(body, dict) else body
        message = str(detail or response.reason_phrase or "error")
        code, param = None, None
    status = response.status_code
    kwargs: dict[str, Any] = {"response": response, "body": body, "code": code, "param": param}
    if status == 422 and code == "patch_rejected" and isinstance(error, dict):
        return PatchRejectedError(
            message, op_index=error.get("op_index"), reason=error.get("reason"), **kwargs
        )
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return cls(message, **kwargs)
