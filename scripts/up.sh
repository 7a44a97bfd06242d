#!/usr/bin/env bash
# `make up` / `make down` / `make up-status`: the Procfile's topology on this machine's services.
#
#   PostgreSQL  postgres://postgres@127.0.0.1:5432/$UP_DB     (migrations install row-level security)
#   Redis       redis://127.0.0.1:6379/$UP_REDIS_DB            (cache, channel layer, task results stay in PostgreSQL)
#   RabbitMQ    amqp://guest:guest@127.0.0.1:5672/$UP_VHOST    (the Celery broker)
#
# Started with honcho in the background (its pid in var/up/honcho.pid, its log in var/up/honcho.log);
# `up` returns once /healthz answers and every worker answers a ping, each wait bounded.
set -euo pipefail
cd "$(dirname "$0")/.."

UP_HOST=${UP_HOST:-127.0.0.1}
UP_PORT=${UP_PORT:-8014}
UP_DB=${UP_DB:-shelfwise_up}
UP_REDIS_DB=${UP_REDIS_DB:-9}
UP_VHOST=${UP_VHOST:-shelfwise_up}
UP_DIR=var/up
PID_FILE=$UP_DIR/honcho.pid
BIN=.venv/bin

running() { [[ -f $PID_FILE ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

write_env() {
  mkdir -p "$UP_DIR/mail"
  local vhost=$UP_VHOST
  if command -v rabbitmqctl >/dev/null && rabbitmqctl add_vhost "$UP_VHOST" >/dev/null 2>&1 || \
     rabbitmqctl list_vhosts 2>/dev/null | grep -qx "$UP_VHOST"; then
    rabbitmqctl set_permissions -p "$UP_VHOST" guest '.*' '.*' '.*' >/dev/null 2>&1 || true
  else
    vhost=%2F  # no rabbitmqctl here: the default vhost
  fi
  cat > "$UP_DIR/env" <<ENV
DATABASE_URL=${UP_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/$UP_DB}
REDIS_URL=${UP_REDIS_URL:-redis://127.0.0.1:6379/$UP_REDIS_DB}
CELERY_BROKER_URL=${UP_BROKER_URL:-amqp://guest:guest@127.0.0.1:5672/$vhost}
EMAIL_URL=file://$PWD/$UP_DIR/mail
PUBLIC_URL=http://$UP_HOST:$UP_PORT
ALLOWED_HOSTS=127.0.0.1,localhost
# Plain HTTP on this machine: cookies without the Secure flag (a deployment behind TLS keeps the default).
SESSION_COOKIE_SECURE=false
SHELFWISE_WARM_UP=${SHELFWISE_WARM_UP:-1}
SW_HOST=$UP_HOST
SW_PORT=$UP_PORT
WEB_WORKERS=${WEB_WORKERS:-2}
TURN_CONCURRENCY=${TURN_CONCURRENCY:-4}
ENV
  # Anything else the caller exported for the models (SHELFWISE_*_BACKEND/_URL/_MODEL) passes through.
  env | grep -E '^SHELFWISE_(ROUTER|GUARD|GENERAL|NATIVE|SMALL)_|^SHELFWISE_TURN_WAIT_S=|^API_(TURNS|WRITES)_RATE=' >> "$UP_DIR/env" || true
}

wait_for() {  # description, seconds, command...
  local what=$1 limit=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if (( SECONDS >= deadline )); then echo "up: $what did not come up within ${limit}s (see $UP_DIR/honcho.log)" >&2; return 1; fi
    running || { echo "up: the processes stopped (see $UP_DIR/honcho.log)" >&2; return 1; }
    sleep 1
  done
}

up() {
  if running; then echo "up: already running (pid $(cat "$PID_FILE"))"; return 0; fi
  write_env
  set -a; . "$UP_DIR/env"; set +a
  if [[ $DATABASE_URL == postgres://*127.0.0.1* ]]; then
    psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$UP_DB'" | grep -q 1 \
      || createdb -h 127.0.0.1 -U postgres "$UP_DB"
  fi
  $BIN/python manage.py migrate --noinput -v 0
  $BIN/python manage.py collectstatic --noinput -v 0
  $BIN/python manage.py report_schedules --sync
  setsid $BIN/honcho -f Procfile -e "$UP_DIR/env" start > "$UP_DIR/honcho.log" 2>&1 < /dev/null &
  echo $! > "$PID_FILE"
  wait_for "the web process" 90 curl -fsS "http://$UP_HOST:$UP_PORT/healthz"
  for worker in turns jobs bench; do
    wait_for "the $worker worker" 120 $BIN/celery -A shelfwise inspect ping -d "$worker@$(hostname)" --timeout 3
  done
  echo "up: http://$UP_HOST:$UP_PORT (pid $(cat "$PID_FILE"); log $UP_DIR/honcho.log; stop with make down)"
}

down() {
  if ! running; then echo "down: not running"; rm -f "$PID_FILE"; return 0; fi
  local pid; pid=$(cat "$PID_FILE")
  kill -TERM "$pid"  # honcho passes it on to every process it started
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && (( SECONDS < deadline )); do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"; fi
  rm -f "$PID_FILE"
  echo "down: stopped"
}

status() { if running; then echo "running (pid $(cat "$PID_FILE"))"; else echo "not running"; exit 1; fi; }

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) write_env; cat "$UP_DIR/env" ;;
  *) echo "usage: scripts/up.sh up|down|status|env" >&2; exit 2 ;;
esac
