"""Parse rate of ``hf:`` checkpoints under constrained decoding, on EditBench tasks.

An untrained Qwen2 built as the trainer builds its students (``tiny`` / ``tiny:student``:
a byte-level BPE trained on the tasks' own prompts) drafts each task (``model_draft``) and
proposes repairs of the heuristic cut and of its own cut; every answer is read as the
planner reads it. The counts are the proposers' own (``HFProposer.report()``), the same the
plan answer carries in ``branches[i].stats``; ``applied`` and ``rejected`` say how many parsed
patches the verifier applies, and why it rejects the rest (``--no-relations``: the schema
alone, without :mod:`~services.planner.proposers.relations`).

``python -m benchmarks parse --tasks 8 --size tiny --json out.json``
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import typer

from benchmarks.cpu_threads import DEFAULT_THREADS, torch_threads
from benchmarks.editbench import generate
from protocol.verifier import TaskIn
from protocol.verifier.timeline import timeline_payload
from services.planner.proposers.drafting import render_draft_messages
from services.planner.proposers.hf import HFProposer, clear_cache
from services.planner.proposers.prompting import patch_text, render_messages
from services.planner.proposers.simple_draft import simple_draft
from services.verifier.errors import PatchRejected
from services.verifier.patches import apply_patch
from services.verifier.score import Verifier
from services.verifier.task import Task


def corpus(tasks: list[Task]) -> list[str]:
    """Prompts and answer-shaped texts of ``tasks``: what a run's rows would hold."""
    from services.verifier import patches as P

    texts: list[str] = []
    for task in tasks:
        timeline = simple_draft(task)
        report = Verifier(task).verify(timeline)
        texts += [m["content"] for m in render_messages(task, timeline, report)]
        texts += [m["content"] for m in render_draft_messages(task)]
        texts.append(patch_text([P.Remove(0)], task.fps))
        texts.append(json.dumps(timeline_payload(timeline), separators=(",", ":")))
    return texts


def build(folder: Path, tasks: list[Task], *, size: str = "tiny", seed: int = 0) -> str:
    """An untrained checkpoint with a tokenizer trained on ``tasks``' texts, saved at
    ``folder``."""
    from services.trainer.models import build_tiny, save_checkpoint

    model, tokenizer = build_tiny(corpus(tasks), seed=seed, size=size)
    return str(save_checkpoint(model, tokenizer, folder).resolve())


def _sft_pairs(tasks: list[Task]) -> list[tuple[list[dict[str, str]], str]]:
    """(messages, target) pairs: the search teacher's first cut and its repairs of it."""
    from services.planner.proposers.search import SearchProposer

    teacher = SearchProposer(relevance_backend="tfidf")
    pairs = []
    for task in tasks:
        cut = teacher.draft(task, seed=0)
        payload = timeline_payload(cut)
        for shot in payload["shots"]:
            shot.pop("transition_in", None)  # the cut-only draft schema
        pairs.append((render_draft_messages(task), json.dumps(payload, separators=(",", ":"))))
        report = Verifier(task).verify(cut)
        for proposal in teacher.propose(task, cut, report, n=4, seed=0):
            target = patch_text(proposal.ops, task.fps)
            pairs.append((render_messages(task, cut, report), target))
    return pairs


def brief_sft(path: str, tasks: list[Task], *, steps: int, seed: int) -> None:
    """A few AdamW steps of answer-only SFT on :func:`_sft_pairs` (one pair a step), saved
    in place: enough to see whether training moves the parse rate, not a trainer run."""
    import torch
    from transformers import AutoModelForCausalLM

    from services.common.tokenizer_files import load_tokenizer_files
    from services.planner.proposers.hf import prompt_text

    tokenizer = load_tokenizer_files(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    pairs = _sft_pairs(tasks)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
    torch.manual_seed(seed)
    model.train()
    for step in range(steps):
        messages, target = pairs[step % len(pairs)]
        prompt = tokenizer(prompt_text(tokenizer, messages), add_special_tokens=False)
        answer = tokenizer(target + tokenizer.eos_token, add_special_tokens=False)
        ids = torch.tensor([prompt["input_ids"] + answer["input_ids"]])
        labels = ids.clone()
        labels[0, : len(prompt["input_ids"])] = -100
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    model.eval()
    model.save_pretrained(path)


def measure(
    tasks: list[Task],
    path: str,
    *,
    candidates: int,
    drafts: int,
    seed: int,
    relations: bool = True,
) -> dict[str, Any]:
    """Draft and repair every task with the checkpoint at ``path``; the parse counts, and
    how many parsed patches apply (the verifier's reasons for the rest)."""
    proposer = HFProposer(path, device="cpu", relations=relations)
    rejected: Counter[str] = Counter()
    applied = 0
    for index, task in enumerate(tasks):
        verifier = Verifier(task)
        own = proposer.model_draft(task, seed=seed + index, n=drafts)
        for timeline in (simple_draft(task, seed=0), own):
            if timeline is None or not timeline.shots:
                continue
            report = verifier.verify(timeline)
            for proposal in proposer.propose(
                task, timeline, report, n=candidates, seed=seed + index
            ):
                try:
                    apply_patch(task, timeline, proposal.ops)
                    applied += 1
                except PatchRejected as error:
                    rejected[error.reason] += 1
        typer.echo(f"task {index + 1}/{len(tasks)}: {proposer.report()}", err=True)
    counts = proposer.report()
    answers, parsed = counts["answers"], counts["parsed"]
    drafted, draft_parsed = counts["draft_answers"], counts["draft_parsed"]
    return {
        **counts,
        "parse_rate": round(parsed / answers, 4) if answers else None,
        "draft_parse_rate": round(draft_parsed / drafted, 4) if drafted else None,
        "applied": applied,
        "rejected": dict(rejected.most_common()),
        "errors": proposer.stats.errors[-3:],
    }


def cli(
    tasks: int = typer.Option(8, help="EditBench tasks (seed 0)."),
    size: str = typer.Option("tiny", help="Local base size: tiny, small or student."),
    candidates: int = typer.Option(8, help="Repair answers per state."),
    drafts: int = typer.Option(4, help="Draft answers per task."),
    seed: int = 0,
    relations: bool = typer.Option(True, help="Mask the relations a schema cannot hold."),
    sft_steps: int = typer.Option(0, help="Brief SFT steps on the search teacher first."),
    threads: int = typer.Option(DEFAULT_THREADS, help="torch threads (0: torch's default)."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the figures here."),
) -> None:
    """Measure the parse rate of an untrained checkpoint under constrained decoding."""
    chosen = [TaskIn.model_validate(r["task"]).to_task() for r in generate(tasks, seed=0)]
    with tempfile.TemporaryDirectory() as scratch, torch_threads(threads) as used:
        started, cpu = time.monotonic(), time.process_time()
        path = build(Path(scratch) / "untrained", chosen, size=size, seed=seed)
        if sft_steps:
            brief_sft(path, chosen, steps=sft_steps, seed=seed)
        figures = measure(
            chosen, path, candidates=candidates, drafts=drafts, seed=seed, relations=relations
        )
        clear_cache(path)
    figures.update(
        size=size,
        tasks=tasks,
        relations=relations,
        sft_steps=sft_steps,
        torch_threads=used,
        seconds=round(time.monotonic() - started, 1),
        cpu_seconds=round(time.process_time() - cpu, 1),
    )
    text = json.dumps(figures, indent=2)
    typer.echo(text)
    if json_out is not None:
        json_out.write_text(text + "\n")


if __name__ == "__main__":
    typer.run(cli)
