#!/usr/bin/env bash
# One bounded load measurement on this machine (run it under the heavy lock):
#   flock /tmp/shelfwise-heavy.lock scripts/load_run.sh
# Brings the native topology up (`make up`) in its own database with the models behind the paced
# fake model server, seeds LOAD_STORES stores, drives LOAD_OWNERS owners' REST turns, shoppers, MCP
# clients and a /healthz probe for LOAD_S seconds (scripts/load.py), then brings it down.
# REAL_MODELS=1: the bundled model in one turns worker instead (turns per minute per worker).
set -uo pipefail
cd "$(dirname "$0")/.."
# This worktree's own database and Redis db (HELPERS.md: sw_load, db 11), never the lead's.
export UP_DB=${UP_DB:-sw_load} UP_PORT=${UP_PORT:-8017} UP_VHOST=${UP_VHOST:-shelfwise_load} UP_REDIS_DB=${UP_REDIS_DB:-11}
export WEB_WORKERS=${WEB_WORKERS:-2} TURN_CONCURRENCY=${TURN_CONCURRENCY:-8}
# The load's owners send their next turn the moment the last is answered, faster than a person: the
# per-owner limit (30 turns a minute) would answer 429 and measure the limit, not the load.
export API_TURNS_RATE=${API_TURNS_RATE:-600/min}
FAKE_PORT=${FAKE_PORT:-8093}
mkdir -p var/up
if [[ -z ${REAL_MODELS:-} ]]; then
  # The fake model server stands for a model host of its own: niced like the workers, so it takes
  # the cores only as a separate machine would (not from the web process).
  nice -n "${WORKER_NICE:-10}" .venv/bin/python scripts/fake_model_server.py --port "$FAKE_PORT" --latency-ms "${FAKE_LATENCY_MS:-1100}" \
    --jitter-ms "${FAKE_JITTER_MS:-400}" > var/up/fake_model.log 2>&1 &
  fake_pid=$!
  for role in ROUTER GUARD GENERAL; do
    export "SHELFWISE_${role}_BACKEND=openai" "SHELFWISE_${role}_URL=http://127.0.0.1:$FAKE_PORT/v1" "SHELFWISE_${role}_MODEL=fake"
  done
fi
cleanup() { scripts/up.sh down; [[ -n ${fake_pid:-} ]] && kill "$fake_pid" 2>/dev/null; }
trap cleanup EXIT
scripts/up.sh up || exit 1
( set -a; . var/up/env; set +a; .venv/bin/python scripts/load.py seed --stores "${LOAD_STORES:-200}" --out var/up/load_stores.json ) || exit 1
echo "before: $(uptime)" > var/up/load_uptime.txt
.venv/bin/python scripts/cpu_share.py snap var/up/cpu_before.json
.venv/bin/python scripts/load.py run --url "http://127.0.0.1:$UP_PORT" --stores var/up/load_stores.json \
  --owners "${LOAD_OWNERS:-20}" --shoppers "${LOAD_SHOPPERS:-8}" --mcp "${LOAD_MCP:-4}" --ws-owners "${LOAD_WS_OWNERS:-4}" --think-s "${LOAD_THINK_S:-0}" --duration "${LOAD_S:-90}" \
  --pg-dsn "postgresql://postgres@127.0.0.1:5432/$UP_DB" --out var/up/load_result.json | tee var/up/load_table.md
echo "after: $(uptime)" >> var/up/load_uptime.txt
client_cpu=$(.venv/bin/python -c "import json; print(json.load(open('var/up/load_result.json')).get('client_cpu_s', 0))")
.venv/bin/python scripts/cpu_share.py snap var/up/cpu_after.json "load client=$client_cpu"
# Where the cores went during the run, by kind of process ("everything else" is not the system under test).
.venv/bin/python scripts/cpu_share.py diff var/up/cpu_before.json var/up/cpu_after.json | tee var/up/load_cpu.json
# The worker's side: turn jobs of this run (queue wait, run time, done per minute inside the window).
since=$(.venv/bin/python -c "import json; print(json.load(open('var/up/load_result.json'))['started'])")
until=$(.venv/bin/python -c "import json,datetime as d; r=json.load(open('var/up/load_result.json')); print((d.datetime.fromisoformat(r['started'])+d.timedelta(seconds=r['elapsed_s'])).isoformat())")
( set -a; . var/up/env; set +a; .venv/bin/python scripts/load.py jobs --since "$since" --until "$until" ) | tee var/up/load_jobs.json
cat var/up/load_uptime.txt
