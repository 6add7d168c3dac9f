#!/usr/bin/env bash
# GPU smoke test: bf16 LoRA SFT of the CPU-scale student for 20 steps on CUDA, then that
# checkpoint proposing on CUDA in one planner round. Ends with one verdict line
# ("GPU SMOKE PASS ..." / "... FAIL: ..."). About a minute on one GPU, well under 8.
# Without CUDA it runs on the CPU (slowly; it says so); --require-cuda exits 2 there instead.
# Run from the repository root with the trainer and planner extras installed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="${PWD}${PYTHONPATH:+:$PYTHONPATH}"
export TOKENIZERS_PARALLELISM=false
exec timeout "${GPU_SMOKE_TIMEOUT_S:-1800}" python -m benchmarks gpu-smoke "$@"
