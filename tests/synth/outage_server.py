"""The synth service, its template generator slowed down, for the database outage tests.

``python -m tests.synth.outage_server --port P`` serves with the ``REFINERY_*`` settings
of its environment; every stage-3 answer takes ``--delay-s`` more, so a job is still running
when the test stops the database under it.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import uvicorn

from services.synth.app import build_app
from services.synth.config import SynthSettings
from services.synth.generators.template import TemplateGenerator


class Slow(TemplateGenerator):
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def calls(self, query: str, tools: Any, **kwargs: Any) -> Any:
        time.sleep(self.delay_s)
        return super().calls(query, tools, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay-s", type=float, default=0.02)
    args = parser.parse_args()
    app = build_app(SynthSettings(), generators=lambda _name: Slow(args.delay_s))
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
