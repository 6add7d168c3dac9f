"""An untrained tiny Qwen2 checkpoint built as the trainer builds its students (no downloads)."""

from benchmarks.parse_bench import build, corpus

__all__ = ["build", "corpus"]
