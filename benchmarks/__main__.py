"""``python -m benchmarks <name>``: task generators and measurement harnesses."""

from __future__ import annotations

import typer

from benchmarks import (
    attacks,
    bfcl_bench,
    brief_bench,
    editbench,
    endtoend,
    fuzz,
    gpu_smoke,
    ingest,
    parse_bench,
    planner_bench,
    real_base,
    synth_bench,
    toolloop_bench,
    trainer_bench,
    trainer_bench_select,
    verifier_bench,
)

app = typer.Typer(help="Refinery benchmarks.", no_args_is_help=True, add_completion=False)
app.command("editbench", help="Write EditBench task rows (Task.1 + planted Timeline.1) as JSONL.")(
    editbench.cli
)
app.command("verifier", help="Measure the verifier in process and over HTTP.")(verifier_bench.cli)
app.command("attacks", help="Send hostile requests to the verifier and planner over HTTP.")(
    attacks.cli
)
app.command("fuzz", help="Schemathesis with all checks against the four services.")(fuzz.cli)
app.command("planner", help="Run the planner's closed loop on EditBench tasks.")(planner_bench.cli)
app.command("synth", help="Run the ToolLoop with and without feedback on sampled truths.")(
    synth_bench.cli
)
app.command(
    "trainer", help="Run the learning loop: repair SFT, evo DPO, GUI SFT vs SOLAR vs sparse."
)(trainer_bench.cli)
app.command(
    "trainer-select", help="Train-side figures per student base (nothing held out is built)."
)(trainer_bench_select.cli)
app.command("ingest", help="Shots, tags, beats and downbeats on generated media with known truth.")(
    ingest.cli
)
app.command(
    "endtoend", help="A shoot and a track in, a rendered cut out: the README's path, timed."
)(endtoend.cli)
app.command("parse", help="Parse rate of an untrained checkpoint under constrained decoding.")(
    parse_bench.cli
)
app.command("briefs", help="Compile hand-written briefs into ledgers; score and plan them.")(
    brief_bench.cli
)
app.command(
    "real-base", help="The real base's first and cached load, and float32 vs bf16 forward speed."
)(real_base.cli)

app.command("bfcl", help="A model on BFCL's single-turn categories, judged by bfcl-eval.")(
    bfcl_bench.cli
)
app.command(
    "toolloop", help="Base vs LoRA SFT on ToolLoop, filter and Isolate data, judged on BFCL."
)(toolloop_bench.cli)
app.command(
    "gpu-smoke", help="bf16 LoRA SFT of the student on CUDA, then one planner round with it."
)(gpu_smoke.cli)

if __name__ == "__main__":
    app()
