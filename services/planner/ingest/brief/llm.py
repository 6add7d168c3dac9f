"""The ``llm`` brief compiler: a chat model proposes the ledger; the checks here decide.

One ``POST /chat/completions`` with ``response_format`` json_schema (the answer's schema
below, whose ledger items are Task.1's own constraint schema). The answer is then checked:
every ledger entry must validate as a Task.1 constraint and point, through its provenance,
at words the brief really holds (``text == brief[start:end]``). An entry that fails either
check, and every span that does not hold its quoted text, is dropped and reported in
``rejected``. Unparsed spans are checked the same way. Pure but for the endpoint.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from protocol.verifier.task import ConstraintUnion
from services.common.openai_chat import ChatEndpoint, ChatEndpointOwner
from services.planner.ingest.brief.compiler import CompiledBrief

__all__ = ["LLMBriefCompiler", "answer_schema"]

_CONSTRAINT: TypeAdapter[Any] = TypeAdapter(ConstraintUnion)

SYSTEM = """You turn a video editor's one-sentence brief into a constraint ledger (Task.1).
Answer with JSON only: {"ledger": [...], "provenance": [...], "unparsed": [...]}.
Ledger kinds: duration{min_s,max_s,target_s}, shot_length{min_s,max_s},
must_include{tags|clip_ids,min_count}, must_exclude{tags|clip_ids}, no_reuse{max_uses},
order{first|last|before+after: {tags|clip_ids}}, transitions{allowed,max_count,
min_duration_s,max_duration_s}, music{track_id}, beat_alignment{tolerance_s,min_fraction},
end_on_downbeat{tolerance_s}, orientation{value}, max_consecutive_tag{tag,max_run},
coverage{topics,min_fraction}. Every entry has "id" (L1, L2, …), "kind" and "hard".
Use only the pool's tags, clip ids and track ids. For every entry give provenance
{"constraint_id","start","end","text"}: the brief's characters start..end (0-based, end
exclusive) and exactly those characters as text. List words that state nothing you can
express as unparsed {"start","end","text"}."""


@cache
def answer_schema() -> dict[str, Any]:
    """The JSON schema the endpoint must answer with (its ledger items are Task.1's)."""
    item = _CONSTRAINT.json_schema()
    span = {
        "type": "object",
        "properties": {
            "start": {"type": "integer", "minimum": 0},
            "end": {"type": "integer", "minimum": 0},
            "text": {"type": "string"},
        },
        "required": ["start", "end", "text"],
    }
    provenance = {
        "type": "object",
        "properties": {"constraint_id": {"type": "string"}, **span["properties"]},
        "required": ["constraint_id", "start", "end", "text"],
    }
    defs = item.pop("$defs", {})
    return {
        "type": "object",
        "properties": {
            "ledger": {"type": "array", "items": item},
            "provenance": {"type": "array", "items": provenance},
            "unparsed": {"type": "array", "items": span},
        },
        "required": ["ledger", "provenance"],
        "$defs": defs,
    }


class LLMBriefCompiler(ChatEndpointOwner):
    """Compile briefs with a chat model; ``endpoint`` is a ready :class:`ChatEndpoint`."""

    def __init__(self, endpoint: ChatEndpoint, *, max_tokens: int = 1500) -> None:
        self.endpoint = endpoint
        self.max_tokens = max_tokens

    def request_body(
        self, text: str, clips: Sequence[dict[str, Any]], music: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        return {
            "model": self.endpoint.model,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": prompt(text, clips, music)},
            ],
            "n": 1,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "BriefLedger", "schema": answer_schema(), "strict": False},
            },
        }

    def compile(
        self, text: str, clips: Sequence[dict[str, Any]], music: Sequence[dict[str, Any]]
    ) -> CompiledBrief:
        """Ask once and check the answer (raises the endpoint's errors; a bad answer is an
        empty ledger with the reason in ``rejected``)."""
        response = self.endpoint.post(self.request_body(text, clips, music))
        try:
            content = response.json()["choices"][0]["message"]["content"]
            answer = json.loads(content)
            if not isinstance(answer, dict):
                raise TypeError("the answer is not a JSON object")
        except (ValueError, KeyError, IndexError, TypeError) as error:
            result = CompiledBrief([], [], [], [])
            result.rejected = [{"item": {}, "reason": f"unreadable answer: {error}"}]
            return result
        return check_answer(text, answer)


def prompt(text: str, clips: Sequence[dict[str, Any]], music: Sequence[dict[str, Any]]) -> str:
    lines = [f"Brief: {json.dumps(text)}", "", "Clips (id | caption | tags | orientation):"]
    for clip in clips:
        tags = ", ".join(clip.get("tags", []))
        orientation = clip.get("orientation", "landscape")
        lines.append(f"{clip['id']} | {clip.get('caption', '')} | {tags} | {orientation}")
    lines.append("")
    lines.append("Music (id | mood | bpm):")
    for track in music:
        lines.append(f"{track['id']} | {track.get('mood', '')} | {track.get('bpm', '')}")
    return "\n".join(lines)


def check_answer(text: str, answer: dict[str, Any]) -> CompiledBrief:
    """Keep what validates and points at the brief's own words; report the rest."""
    rejected: list[dict[str, Any]] = []
    spans: dict[str, list[dict[str, Any]]] = {}
    for row in _list(answer.get("provenance")):
        reason = _span_problem(text, row)
        if reason is None and not isinstance(row.get("constraint_id"), str):
            reason = "provenance without a constraint_id"
        if reason is not None:
            rejected.append({"item": row, "reason": reason})
            continue
        spans.setdefault(row["constraint_id"], []).append(row)
    ledger, provenance, seen = [], [], set()
    for entry in _list(answer.get("ledger")):
        try:
            constraint = _CONSTRAINT.validate_python(entry)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            rejected.append(
                {"item": entry, "reason": f"not a Task.1 constraint: {where}: {first['msg']}"}
            )
            continue
        if constraint.id in seen:
            rejected.append({"item": entry, "reason": f"id {constraint.id!r} is repeated"})
            continue
        if constraint.id not in spans:
            reason = "no provenance that holds the brief's own words"
            rejected.append({"item": entry, "reason": reason})
            continue
        seen.add(constraint.id)
        ledger.append(constraint.model_dump(mode="json", exclude_none=True))
        for row in spans[constraint.id]:
            provenance.append({**_clean(row), "constraint_id": constraint.id, "source": "brief"})
    unparsed = []
    for row in _list(answer.get("unparsed")):
        reason = _span_problem(text, row)
        if reason is not None:
            rejected.append({"item": row, "reason": reason})
        else:
            unparsed.append(_clean(row))
    result = CompiledBrief(ledger, provenance, unparsed, [])
    result.rejected = rejected
    return result


def _list(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    return {"start": row["start"], "end": row["end"], "text": row["text"]}


def _span_problem(text: str, row: dict[str, Any]) -> str | None:
    start, end, quoted = row.get("start"), row.get("end"), row.get("text")
    if not (isinstance(start, int) and isinstance(end, int) and isinstance(quoted, str)):
        return "a span needs integer start and end and its text"
    if not 0 <= start < end <= len(text):
        return f"span {start}–{end} lies outside the brief ({len(text)} characters)"
    if text[start:end] != quoted:
        return f"characters {start}–{end} are {text[start:end]!r}, not {quoted!r}"
    return None
