"""The HTTP ceiling: a bare FastAPI endpoint that parses the verify body and returns it."""

from __future__ import annotations

from fastapi import FastAPI, Response

from protocol.verifier import VerifyRequest

app = FastAPI()


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/v1/echo")
async def echo(request: VerifyRequest) -> Response:
    return Response(request.model_dump_json(by_alias=True), media_type="application/json")
