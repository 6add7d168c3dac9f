"""Pure dataset builders: planner records, synth examples and episodes → TRL rows + stats."""

from services.trainer.datasets.evo_pairs import build_evo_pairs
from services.trainer.datasets.records import DatasetError, RepairRecord, TaskBook
from services.trainer.datasets.repair_sft import build_repair_sft
from services.trainer.datasets.tool_sft import build_tool_sft
from services.trainer.datasets.trajectories import build_trajectories, stored_messages

__all__ = [
    "DatasetError",
    "RepairRecord",
    "TaskBook",
    "build_evo_pairs",
    "build_repair_sft",
    "build_tool_sft",
    "build_trajectories",
    "stored_messages",
]
