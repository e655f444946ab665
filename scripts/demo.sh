#!/usr/bin/env bash
# First command of the README: set up, then research the demo question offline over
# examples/corpus and print the claim table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export RAY_ADDRESS="${RAY_ADDRESS:-}"
exec .venv/bin/lyra research --corpus examples/corpus \
  "${1:-Does moderate coffee consumption affect cardiovascular health?}"
