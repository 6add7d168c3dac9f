"""Training runs through ``accelerate launch``: one process per device, DDP between them.

A train job that asks for ``launcher: accelerate`` does not train inside the trainer's
worker thread: :func:`launched_runner` returns a runner (same shape as the in-process ones)
that writes the run's spec (kind, base, hyper-parameters, rows) under the model folder and
starts::

    python -m accelerate.commands.launch [--config_file configs/accelerate/ddp.yaml]
        --num_processes N [--cpu | --mixed_precision bf16] -m services.trainer.launch --spec …

Each process runs this module's :func:`main`, i.e. the ordinary runner; the trainer (TRL's
``Trainer`` and its ``Accelerator``) picks the distributed setup up from the environment
``accelerate`` prepares. Only the main process reports: one ``REFINERY_PROGRESS {json}``
line per optimisation step on stdout (read back into the job's progress, heartbeat and
cancellation) and ``metrics.json`` at the end; only it writes checkpoints. A cancelled job
stops the whole process group; its periodic checkpoints stay on disk.

The same command runs on a cluster node by hand (see docs/trainer.md).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from services.trainer.configs import Hyper
from services.trainer.runners.common import Progress, is_main_process

__all__ = [
    "ACCELERATE_CONFIGS",
    "LaunchFailed",
    "is_main_process",
    "launch_command",
    "launched_runner",
    "main",
]

PROGRESS_PREFIX = "REFINERY_PROGRESS "
ACCELERATE_CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "accelerate"
"""The shipped ``accelerate`` configs (``ddp.yaml``, ``fsdp.yaml``)."""


class LaunchFailed(RuntimeError):
    """The launched processes exited non-zero; the message carries the end of their log."""


def launch_command(
    spec: Path, *, num_processes: int, device: str, config: str | None = None
) -> list[str]:
    """The ``accelerate launch`` command line that trains ``spec`` on ``num_processes``
    processes: ``--cpu`` on the CPU, bf16 mixed precision (and ``--multi_gpu`` past one
    process) on CUDA; ``config`` names a file under :data:`ACCELERATE_CONFIGS` or a path."""
    command = [sys.executable, "-m", "accelerate.commands.launch"]
    if config:
        path = Path(config) if "/" in config else ACCELERATE_CONFIGS / f"{config}.yaml"
        command += ["--config_file", str(path)]
    command += ["--num_processes", str(num_processes), "--num_machines", "1"]
    command += ["--dynamo_backend", "no"]
    if device == "cpu":
        command += ["--cpu", "--mixed_precision", "no"]
    else:
        command += ["--mixed_precision", "bf16"]
        if num_processes > 1 and not config:
            command.append("--multi_gpu")
    return [*command, "-m", "services.trainer.launch", "--spec", str(spec)]


def launched_runner(
    kind: str, *, num_processes: int, device: str, config: str | None = None
) -> Callable[..., Mapping[str, Any]]:
    """A runner (``(rows, base, hyper, out_dir, *, callback) -> metrics``) that trains in
    ``accelerate launch``-ed processes."""

    def run(
        rows: Sequence[Mapping[str, Any]],
        base: str,
        hyper: Hyper,
        out_dir: str | Path,
        *,
        callback: Callable[[Progress], bool | None] | None = None,
    ) -> Mapping[str, Any]:
        out = Path(out_dir)
        spec = _write_spec(kind, rows, base, hyper, out)
        command = launch_command(spec, num_processes=num_processes, device=device, config=config)
        return _supervise(command, out, callback)

    return run


def _write_spec(
    kind: str, rows: Sequence[Mapping[str, Any]], base: str, hyper: Hyper, out: Path
) -> Path:
    folder = out / ".launch"
    folder.mkdir(parents=True, exist_ok=True)
    rows_path = folder / "rows.jsonl"
    with rows_path.open("w") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    spec = {
        "kind": kind,
        "base": base,
        "hyper": _hyper_json(hyper),
        "rows": str(rows_path),
        "out_dir": str(out),
    }
    path = folder / "spec.json"
    path.write_text(json.dumps(spec, indent=1))
    return path


def _hyper_json(hyper: Hyper) -> dict[str, Any]:
    data = asdict(hyper)
    if data.get("lora") is not None:
        data["lora"] = {**data["lora"], "target_modules": list(data["lora"]["target_modules"])}
    return data


def _supervise(
    command: list[str], out: Path, callback: Callable[[Progress], bool | None] | None
) -> Mapping[str, Any]:
    """Run ``command``, feeding its progress lines to ``callback``; stop the process group
    when the callback says so. The metrics the main process wrote, or :class:`LaunchFailed`."""
    log_path = out / ".launch" / "log.txt"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}
    tail: list[str] = []
    with (
        log_path.open("w") as log,
        subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        ) as process,
    ):
        assert process.stdout is not None
        for line in process.stdout:
            log.write(line)
            if not line.startswith(PROGRESS_PREFIX):
                tail = [*tail[-40:], line.rstrip()]
                continue
            progress = Progress(**json.loads(line[len(PROGRESS_PREFIX) :]))
            if callback is not None and callback(progress) is False:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait()
                return {"cancelled": True, "steps": progress.step}
        code = process.wait()
    if code != 0:
        raise LaunchFailed(f"accelerate launch exited {code}: " + " | ".join(tail[-8:]))
    return json.loads((out / ".launch" / "metrics.json").read_text())


def _report(progress: Progress) -> bool:
    print(PROGRESS_PREFIX + json.dumps(asdict(progress)), flush=True)
    return True


def main(argv: Sequence[str] | None = None) -> None:
    """One launched process: train the spec with the ordinary runner."""
    from services.trainer.configs import hyper_from_dict
    from services.trainer.runner_kinds import HYPER_KIND, runner_for

    parser = argparse.ArgumentParser(prog="python -m services.trainer.launch")
    parser.add_argument("--spec", required=True, type=Path)
    args = parser.parse_args(argv)
    spec = json.loads(args.spec.read_text())
    rows = [json.loads(line) for line in Path(spec["rows"]).read_text().splitlines() if line]
    hyper = hyper_from_dict(HYPER_KIND[spec["kind"]], spec["hyper"])
    main_process = is_main_process()
    runner = runner_for(spec["kind"])
    metrics = runner(
        rows, spec["base"], hyper, spec["out_dir"], callback=_report if main_process else None
    )
    if main_process:
        target = Path(spec["out_dir"]) / ".launch" / "metrics.json"
        target.write_text(json.dumps(dict(metrics), default=str))


if __name__ == "__main__":
    main()
