#!/usr/bin/env bash
# Second command of the README: set up with the test tools, lint, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
.venv/bin/ruff check .
# The import layers (pyproject.toml [tool.importlinter], docs/architecture.md).
.venv/bin/lint-imports --no-cache
# Types, strict, over every lyra package (pyproject.toml [tool.mypy]).
.venv/bin/python -m mypy
# Tests start their own local Ray on loopback; token auth is for reachable clusters.
export RAY_AUTH_MODE="${RAY_AUTH_MODE:-disabled}"
# DuckDB's nanobind bindings list "leaked" objects at interpreter exit (connections
# still referenced then); the note is harmless and would bury pytest's summary line.
set -o pipefail
# The slowest 15 phases are listed at the end: the suite should stay under about 25
# minutes on 2 cores (24.4 on 2026-11-30), and this says where its time goes.
.venv/bin/python -m pytest -q -p no:cacheprovider --durations=15 "$@" 2>&1 \
  | sed -u -e '/nanobind/d' -e '/^ - leaked /d' -e '/^ - \.\.\. skipped remainder/d'

