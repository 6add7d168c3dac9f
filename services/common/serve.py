"""``python -m services.common.serve APP [uvicorn options]``: uvicorn with metrics that add
up across ``--workers``.

Before uvicorn starts its workers this sets ``PROMETHEUS_MULTIPROC_DIR`` (kept when given,
else a fresh temporary folder) and empties it, so every worker process writes its
counters there and any worker's ``/metrics`` reports the sum (see
:mod:`services.common.metrics`). Each worker drops its live gauge files when it exits.
The options are uvicorn's own::

    python -m services.common.serve services.verifier.app:app --port 8101 --workers 2
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_metrics_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """The multiprocess folder, created and emptied of a previous run's files."""
    given = environ.get(MULTIPROC_ENV)
    path = Path(given) if given else Path(tempfile.mkdtemp(prefix="refinery-metrics-"))
    if path.exists():
        for entry in path.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    path.mkdir(parents=True, exist_ok=True)
    environ[MULTIPROC_ENV] = str(path)
    return path


def main(argv: list[str] | None = None) -> None:
    """Prepare the metrics folder, then run uvicorn's command line with ``argv``; a
    temporary folder made here is removed when uvicorn exits."""
    made = not os.environ.get(MULTIPROC_ENV)
    path = prepare_metrics_dir()
    import uvicorn  # after the environment is set: workers inherit it

    sys.argv = ["uvicorn", *(sys.argv[1:] if argv is None else argv)]
    try:
        uvicorn.main()
    finally:
        if made:
            shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    main()
