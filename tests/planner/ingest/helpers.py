"""Reading a compiled brief in tests: entries by kind, the words each came from."""

from __future__ import annotations

from typing import Any

from services.planner.ingest.brief.compiler import CompiledBrief, compile_rules
from tests.planner.ingest.pools import ONE_TRACK, WEDDING


def compiled(
    text: str,
    clips: list[dict[str, Any]] | None = None,
    music: list[dict[str, Any]] | None = None,
    **options: Any,
) -> CompiledBrief:
    return compile_rules(text, clips or WEDDING, ONE_TRACK if music is None else music, **options)


def stated(result: CompiledBrief, kind: str) -> list[dict[str, Any]]:
    """The ``kind`` entries the brief's words stated (defaults left out)."""
    from_words = {p["constraint_id"] for p in result.provenance if p["source"] == "brief"}
    return [e for e in result.ledger if e["kind"] == kind and e["id"] in from_words]


def words_of(result: CompiledBrief, entry: dict[str, Any]) -> list[str]:
    return [p["text"] for p in result.provenance if p["constraint_id"] == entry["id"]]


def unparsed(result: CompiledBrief) -> list[str]:
    return [u["text"] for u in result.unparsed]
