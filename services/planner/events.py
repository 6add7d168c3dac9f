"""``POST /v1/plan`` answered as NDJSON: each branch's draft and rounds as they end, then the
plan (or the error that ended it).

A request is checked before the stream opens, so bad input still gets its 4xx / 503 status.
Once the stream is open, a failure arrives as its last line,
``{"event": "error", "status": 503, "error": {...}}``: the envelope and the status the plain
request would have answered. A client that hangs up does not stop the plan: it runs to the
end and is stored with its records, as an unstreamed one would be.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import AsyncIterator
from typing import Any

import orjson
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool

from clients.verifier import VerifierClient
from services.common.errors import RefineryError
from services.planner import service

NDJSON = "application/x-ndjson"

_log = logging.getLogger("refinery.errors")
_END = None


async def plan_events(
    prepared: service.PreparedPlan, *, verifier: VerifierClient, engine: Engine
) -> AsyncIterator[bytes]:
    """NDJSON lines for ``prepared``'s plan: draft and round events, then plan or error.

    The plan runs on its own thread, which outlives the response if the client hangs up.
    """
    events: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()

    def work() -> None:
        try:
            plan = service.execute(prepared, verifier=verifier, engine=engine, on_event=events.put)
            events.put({"event": "plan", "plan": plan.model_dump(mode="json", by_alias=True)})
        except RefineryError as error:
            events.put({"event": "error", "status": error.status_code, **error.envelope()})
        except Exception:
            _log.exception("planning failed while streaming")
            internal = {"code": "internal_error", "message": "internal error", "param": None}
            events.put({"event": "error", "status": 500, "error": internal})
        finally:
            events.put(_END)

    threading.Thread(target=work, name="plan-stream", daemon=True).start()
    while (event := await run_in_threadpool(events.get)) is not _END:
        yield orjson.dumps(event) + b"\n"
