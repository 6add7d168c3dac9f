"""The brief compiler: one sentence of brief → the constraint ledger, with provenance.

:func:`compile_rules` is the embedded, deterministic compiler; :mod:`.llm` asks a chat model
and checks its answer. Both answer a :class:`CompiledBrief`.
"""

from services.planner.ingest.brief.compiler import CompiledBrief, compile_rules

__all__ = ["CompiledBrief", "compile_rules"]
