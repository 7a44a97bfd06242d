#!/usr/bin/env bash
# `make up-check`: bring the native topology up with the models behind a fake OpenAI-compatible
# server (scripts/fake_model_server.py, paced like the bundled model), run the scripted owner
# session against it, and bring everything down again, whatever happened. Exit status: the session's.
# REAL_MODELS=1 keeps the bundled models in the turns worker instead (slow on a small CPU).
set -uo pipefail
cd "$(dirname "$0")/.."
FAKE_PORT=${FAKE_PORT:-8091}
mkdir -p var/up
if [[ -z ${REAL_MODELS:-} ]]; then
  .venv/bin/python scripts/fake_model_server.py --port "$FAKE_PORT" --latency-ms "${FAKE_LATENCY_MS:-900}" \
    > var/up/fake_model.log 2>&1 &
  fake_pid=$!
  for role in ROUTER GUARD GENERAL; do
    export "SHELFWISE_${role}_BACKEND=openai" "SHELFWISE_${role}_URL=http://127.0.0.1:$FAKE_PORT/v1" "SHELFWISE_${role}_MODEL=fake"
  done
fi
cleanup() { scripts/up.sh down; [[ -n ${fake_pid:-} ]] && kill "$fake_pid" 2>/dev/null; }
trap cleanup EXIT
scripts/up.sh up || exit 1
.venv/bin/python scripts/up_session.py --url "http://${UP_HOST:-127.0.0.1}:${UP_PORT:-8014}"
