"""The handler of the crash test, and a script that runs it in a worker process.

``python crashy_worker.py --url URL --lease-s 1`` serves the ``rows`` kind until
killed. The handler is the documented idempotent pattern: one result row per step,
keyed ``(job_id, seq)`` under a unique constraint, and the next ``seq`` checkpointed
in ``progress`` by the heartbeat, so a resumed attempt continues where the last
stored checkpoint left off and rewrites at most one row harmlessly.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from services.common.db import create_tables, insert_ignore, make_engine
from services.common.jobs import JobQueue
from services.common.worker import JobContext, Worker

KIND = "rows"


class ResultRow(SQLModel, table=True):
    __tablename__ = "test_result_rows"
    __table_args__ = (UniqueConstraint("job_id", "seq", name="uq_test_result_rows_job_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    job_id: str = Field(max_length=32)
    seq: int
    attempt: int


def write_rows(ctx: JobContext) -> dict[str, Any]:
    """Write rows ``0..n-1`` one at a time; only the first attempt dawdles."""
    total = ctx.payload["n"]
    delay = ctx.payload.get("delay_s", 0.0) if ctx.job.attempts == 1 else 0.0
    start = ctx.progress.get("next_seq", 0)
    for seq in range(start, total):
        with ctx.queue.engine.begin() as conn:
            row = {"job_id": ctx.job.id, "seq": seq, "attempt": ctx.job.attempts}
            insert_ignore(conn, ResultRow.__table__, [row], ["job_id", "seq"])  # type: ignore[arg-type]
        ctx.heartbeat(progress={"next_seq": seq + 1})
        time.sleep(delay)
    return {"rows": total, "resumed_from": start}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--lease-s", type=float, default=1.0)
    args = parser.parse_args(argv)
    engine = make_engine(args.url)
    create_tables(engine)
    worker = Worker(JobQueue(engine), {KIND: write_rows}, lease_s=args.lease_s, poll_s=0.05)
    print("ready", flush=True)
    worker.run_forever(threading.Event())  # until SIGKILL


if __name__ == "__main__":
    main(sys.argv[1:])
