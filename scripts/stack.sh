#!/usr/bin/env bash
# Local PostgreSQL and Redis on loopback ports, data under .data/ (git-ignored).
#   scripts/stack.sh up|down|status|env
# Installs Debian's postgresql and redis-server when missing. Safe to run twice.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_PORT="${GW_PG_PORT:-55432}"
REDIS_PORT="${GW_REDIS_PORT:-56379}"
DATA="${GW_DATA_DIR:-$ROOT/.data}"
PG_DATA="$DATA/postgres"
PG_RUN="$DATA/postgres-run"
REDIS_DATA="$DATA/redis"

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$dir" ] && [ -x "$dir/pg_ctl" ] && echo "$dir"
}

ensure_packages() {
  local missing=()
  [ -n "$(pg_bin || true)" ] || missing+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
  [ -n "$(pg_bin || true)" ] || die "PostgreSQL não encontrado após a instalação"
}

# Run a PostgreSQL binary as the owner of the data folder (initdb refuses to run as root).
pg_run() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_ready() { "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" >/dev/null 2>&1; }
redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

pg_up() {
  local bin; bin=$(pg_bin)
  mkdir -p "$DATA"
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    log "initdb $PG_DATA"
    mkdir -p "$PG_DATA" "$PG_RUN"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PG_DATA" "$PG_RUN"; fi
    chmod 700 "$PG_DATA"
    pg_run "$bin/initdb" -D "$PG_DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  mkdir -p "$PG_RUN"; if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PG_RUN"; fi
  if pg_ready; then return; fi
  log "iniciando PostgreSQL em 127.0.0.1:$PG_PORT"
  pg_run "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_RUN -c max_connections=200 -c fsync=${GW_PG_FSYNC:-on}" start >/dev/null
  for _ in $(seq 1 60); do pg_ready && return; sleep 0.5; done
  die "PostgreSQL não respondeu; veja $PG_DATA/server.log"
}

redis_up() {
  mkdir -p "$REDIS_DATA"
  if redis_ready; then return; fi
  log "iniciando Redis em 127.0.0.1:$REDIS_PORT"
  # BullMQ needs noeviction (an evicted job key is a lost job) and AOF so queued work survives a restart.
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$REDIS_DATA" \
    --appendonly yes --appendfsync everysec --maxmemory-policy noeviction \
    --save '' --daemonize yes --pidfile "$REDIS_DATA/redis.pid" --logfile "$REDIS_DATA/redis.log"
  for _ in $(seq 1 60); do redis_ready && return; sleep 0.25; done
  die "Redis não respondeu; veja $REDIS_DATA/redis.log"
}

ensure_database() {
  local db=$1
  local psql="$(pg_bin)/psql -h 127.0.0.1 -p $PG_PORT -U postgres -v ON_ERROR_STOP=1 -qtA"
  if [ "$($psql -d postgres -c "select 1 from pg_database where datname='$db'")" != 1 ]; then
    $psql -d postgres -c "create database \"$db\"" >/dev/null
  fi
}

recreate_database() {
  local db=$1
  local psql="$(pg_bin)/psql -h 127.0.0.1 -p $PG_PORT -U postgres -v ON_ERROR_STOP=1 -qtA"
  $psql -d postgres -c "drop database if exists \"$db\" with (force)" >/dev/null
  $psql -d postgres -c "create database \"$db\"" >/dev/null
}

down() {
  local only="${GW_STOP_ONLY:-postgres redis}"
  if [[ " $only " == *" postgres "* ]] && [ -f "$PG_DATA/postmaster.pid" ] && [ -n "$(pg_bin || true)" ]; then
    log "parando PostgreSQL"; pg_run "$(pg_bin)/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [[ " $only " == *" redis "* ]] && redis_ready; then log "parando Redis"; redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true; fi
}

case "${1:-status}" in
  up)
    ensure_packages
    # Tell the caller which services this call started, so it can stop only those.
    started=""
    pg_ready || started="$started postgres"
    redis_ready 2>/dev/null || started="$started redis"
    pg_up; redis_up
    ensure_database gateway
    echo "${started# }"
    ;;
  down) down ;;
  recreate-db) recreate_database "${2:?nome do banco}" ;;
  status)
    if [ -n "$(pg_bin || true)" ] && pg_ready; then echo "postgres: up (127.0.0.1:$PG_PORT)"; else echo "postgres: down"; fi
    if command -v redis-cli >/dev/null && redis_ready; then echo "redis: up (127.0.0.1:$REDIS_PORT)"; else echo "redis: down"; fi
    ;;
  env)
    echo "DATABASE_URL=postgresql://postgres@127.0.0.1:$PG_PORT/gateway"
    echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
    ;;
  *) die "uso: scripts/stack.sh up|down|status|env|recreate-db NOME" ;;
esac
