"""The bridge to BFCL (bfcl-eval): its data, its AST checker, exports to its format, and an
evaluation of any OpenAI-compatible endpoint on its AST categories."""
