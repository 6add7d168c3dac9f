"""Error mapping: status and envelope → the client error tree."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from clients import errors as E


def _response(status: int, body: Any = None, *, text: str | None = None) -> httpx.Response:
    request = httpx.Request("POST", "http://verifier.test/v1/apply")
    if text is not None:
        return httpx.Response(status, text=text, request=request)
    return httpx.Response(status, json=body, request=request)


def _envelope(code: str, message: str = "m", param: str | None = None, **extra: Any) -> dict:
    return {"error": {"code": code, "message": message, "param": param, **extra}}


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, E.BadRequestError),
        (401, E.AuthenticationError),
        (403, E.PermissionDeniedError),
        (404, E.NotFoundError),
        (409, E.ConflictError),
        (413, E.PayloadTooLargeError),
        (422, E.UnprocessableEntityError),
        (429, E.RateLimitError),
        (500, E.ServerError),
        (502, E.ServerError),
        (503, E.UnavailableError),
        (418, E.APIError),
    ],
)
def test_status_picks_the_class(status: int, cls: type[E.APIError]) -> None:
    error = E.error_from_response(_response(status, _envelope("x")))
    assert type(error) is cls
    assert error.status_code == status


def test_envelope_fields_are_carried() -> None:
    body = _envelope(
        "invalid_request",
        "timeline.shots[0].in_s: too small",
        "timeline.shots[0].in_s",
        details=[{"param": "p"}],
    )
    response = _response(422, body)
    error = E.error_from_response(response)
    assert (error.code, error.param) == ("invalid_request", "timeline.shots[0].in_s")
    assert error.message == "timeline.shots[0].in_s: too small"
    assert error.body == body
    assert error.response is response and error.request is response.request
    assert str(error) == (
        "422 invalid_request: timeline.shots[0].in_s: too small (param timeline.shots[0].in_s)"
    )


def test_patch_rejected_carries_op_index_and_reason() -> None:
    body = _envelope(
        "patch_rejected",
        "op 2: shot 9 is outside 0–3",
        "patch.ops[2].shot",
        op_index=2,
        reason="shot_out_of_range",
    )
    error = E.error_from_response(_response(422, body))
    assert isinstance(error, E.PatchRejectedError)
    assert isinstance(error, E.UnprocessableEntityError)
    assert (error.op_index, error.reason, error.param) == (
        2,
        "shot_out_of_range",
        "patch.ops[2].shot",
    )


def test_patch_rejected_only_for_422() -> None:
    error = E.error_from_response(_response(400, _envelope("patch_rejected")))
    assert not isinstance(error, E.PatchRejectedError)


def test_non_envelope_bodies_keep_a_message() -> None:
    detail = E.error_from_response(_response(404, {"detail": "Not Found"}))
    assert (detail.message, detail.code, detail.param) == ("Not Found", None, None)
    html = E.error_from_response(_response(502, text="<html>bad gateway</html>"))
    assert isinstance(html, E.ServerError)
    assert html.message == "<html>bad gateway</html>"
    assert html.body == "<html>bad gateway</html>"
    empty = E.error_from_response(_response(500, text=""))
    assert empty.message == "Internal Server Error"


def test_tree_roots() -> None:
    request = httpx.Request("GET", "http://x.test/")
    timeout = E.APITimeoutError(request)
    assert isinstance(timeout, E.APIConnectionError)
    assert isinstance(timeout, E.RefineryClientError)
    assert timeout.request is request
    assert issubclass(E.UnavailableError, E.ServerError)
    assert issubclass(E.APIError, E.RefineryClientError)
