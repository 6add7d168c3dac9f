"""What can propose edits: the built-in search, an OpenAI-compatible LLM, local checkpoints."""
