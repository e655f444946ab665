#!/usr/bin/env bash
# Set up Lyra on a fresh Debian/Ubuntu machine: system packages (when missing),
# a virtual environment in .venv and the project with the given extras.
#   scripts/setup.sh          runtime only
#   scripts/setup.sh dev      runtime + test tools
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v tor >/dev/null 2>&1 || need+=(tor)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else SUDO=none; fi
  if [ "$SUDO" = none ]; then
    echo "setup: please install: ${need[*]} (apt-get install -y ${need[*]})" >&2
  else
    echo "setup: installing ${need[*]} with apt" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=".venv/.lyra-installed-${extras:-base}"
tree="$(find actors jobs pipelines storage mcp_bridge config -type f \( -name '*.py' \
  -o -name '*.yaml' -o -name '*.j2' -o -name py.typed -o -path '*/stance-minilm/*' \) \
  | LC_ALL=C sort | sha256sum)"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install -q -U pip
  # torch is pulled in by the packaged embedding model; pinning it first keeps pip on the
  # CPU build where one is provided locally (a bare `torch` resolves to a multi-GB CUDA build).
  .venv/bin/python -m pip install -q "torch==2.13.0"
  # A strict editable install: setuptools links the folders' files into a lyra/ tree
  # under build/, which mypy and import-linter can read (a lenient one maps them with an
  # import hook they cannot follow; docs/decisions/0014-layout.md).
  spec="."
  [ -n "$extras" ] && spec=".[$extras]"
  # setuptools' banner about editable installs (an "InformationOnly" warning, not about
  # this project's configuration) is left out.
  PYTHONWARNINGS="ignore:Editable installation" \
    .venv/bin/python -m pip install -q -e "$spec" --config-settings editable_mode=strict
  echo "$want" > "$stamp"
  echo "$tree" > .venv/.lyra-tree
fi
# The link tree has one link per file: a module added or removed since (a pull, a new
# file of yours) needs the tree rebuilt, without touching the dependencies.
if [ "$(cat .venv/.lyra-tree 2>/dev/null)" != "$tree" ]; then
  PYTHONWARNINGS="ignore:Editable installation" \
    .venv/bin/python -m pip install -q --no-deps -e . --config-settings editable_mode=strict
  echo "$tree" > .venv/.lyra-tree
fi
# Bytecode for Lyra's own modules: every Ray worker imports them as it starts, and
# with PYTHONDONTWRITEBYTECODE set (or a read-only checkout) each would compile them
# again, about 0.25 s of CPU per worker (docs/decisions/0013-standby-workers.md).
# Workers import them through the link tree, so that is where the bytecode must be.
.venv/bin/python -m compileall -q -j 0 build/__editable__.lyra_research-*/lyra >/dev/null
# The packaged embedder's ONNX export, made once for this installation: every LYRA_HOME
# reads it, so a new one starts without exporting (decision 0067). Where it cannot be
# written, each LYRA_HOME exports its own copy on first use.
.venv/bin/lyra models prepare || echo "setup: each LYRA_HOME will export the embedder" \
  "on first use" >&2
# Models (issue 12, decision 0015): Lyra runs on its packaged offline models; the
# researcher's choices (a DeBERTa-v3 NLI cross-encoder, bge-m3, a reranker) are one
# command away. Setup pulls them only when asked, since that reaches the Hugging Face
# hub (or HF_ENDPOINT); offline it says so and goes on with the packaged models.
if [ "${LYRA_PULL_MODELS:-0}" = 1 ]; then
  rc=0
  .venv/bin/lyra models pull all || rc=$?
  if [ "$rc" = 0 ]; then
    echo "setup: models pulled; the InferenceActor uses them from its next start" >&2
  elif [ "$rc" = 3 ]; then
    echo "setup: offline: no model pulled; Lyra uses its packaged offline models" \
      "(retry with: .venv/bin/lyra models pull all)" >&2
  else
    echo "setup: model pull failed (exit $rc, see above); Lyra uses its packaged" \
      "offline models" >&2
  fi
else
  echo "setup: models: packaged offline defaults; for stronger ones run" \
    ".venv/bin/lyra models pull all (or LYRA_PULL_MODELS=1 scripts/setup.sh)" >&2
fi
