"""Synth: ToolLoop tool-use data synthesis (ground truth → query → calls, each verified)."""
