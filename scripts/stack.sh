#!/usr/bin/env bash
# Local PostgreSQL and Redis on loopback ports, data under .data/ (git-ignored).
#   scripts/stack.sh up|down|status|env|where
# As root, PostgreSQL runs as `postgres`; when that user cannot reach .data/ (a clone under /root, mode 700), the
# cluster lives in /var/lib/gateway-dev/<hash of .data's path>/ instead (see pg_locate). `where` prints its folder.
# Installs Debian's postgresql and redis-server when missing. Safe to run twice.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_PORT="${GW_PG_PORT:-55432}"
REDIS_PORT="${GW_REDIS_PORT:-56379}"
DATA="${GW_DATA_DIR:-$ROOT/.data}"
PG_DATA="$DATA/postgres"
PG_RUN="$DATA/postgres-run"
REDIS_DATA="$DATA/redis"
PG_OUTSIDE_BASE=/var/lib/gateway-dev
PG_OUTSIDE=""

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

# Run a PostgreSQL binary as the owner of the data folder (initdb refuses to run as root). From / when the
# cluster is out of the checkout, whose folder `postgres` cannot enter (initdb and pg_ctl would warn about it).
pg_run() {
  if [ "$(id -u)" != 0 ]; then "$@"
  elif [ -n "$PG_OUTSIDE" ]; then (cd / && runuser -u postgres -- "$@")
  else runuser -u postgres -- "$@"; fi
}

# Whether `postgres` can traverse every folder down to $1 (or down to its deepest existing ancestor).
pg_reaches() {
  local dir=$1
  while [ ! -e "$dir" ] && [ "$dir" != / ]; do dir=$(dirname "$dir"); done
  runuser -u postgres -- test -x "$dir" 2>/dev/null
}

# Where the cluster lives. Only as root, where the server runs as `postgres`: if that user cannot traverse $DATA,
# the data and socket folders go to $PG_OUTSIDE_BASE/<first 16 hex digits of sha256 of $DATA's real path>/, one
# per checkout, kept between runs. Once that folder holds a cluster it stays this checkout's cluster, so `down`
# finds the server it started even if $DATA's permissions change later. As a normal user nothing moves.
pg_locate() {
  [ "$(id -u)" = 0 ] && id -u postgres >/dev/null 2>&1 || return 0
  local real
  real=$(realpath -m -- "$DATA")
  PG_OUTSIDE="$PG_OUTSIDE_BASE/$(printf '%s' "$real" | sha256sum | cut -c1-16)"
  if [ -f "$PG_OUTSIDE/postgres/PG_VERSION" ] || ! pg_reaches "$DATA"; then
    PG_DATA="$PG_OUTSIDE/postgres"
    PG_RUN="$PG_OUTSIDE/postgres-run"
  else
    PG_OUTSIDE=""
  fi
}

# Create the out-of-tree folder (root-owned, 755, with a note naming the checkout) and check postgres reaches it.
pg_prepare_outside() {
  [ -n "$PG_OUTSIDE" ] || return 0
  local why="o usuário postgres, que roda o PostgreSQL, não consegue entrar em $DATA (uma pasta do caminho não lhe dá permissão de travessia, como /root em modo 700)"
  local todo="Para resolver: clone o repositório numa pasta que o postgres alcance (ex.: /srv ou /home), libere a travessia das pastas do caminho (chmod o+x) ou aponte GW_DATA_DIR para uma pasta acessível."
  install -d -m 755 "$PG_OUTSIDE_BASE" "$PG_OUTSIDE" 2>/dev/null ||
    die "$why, e não foi possível criar $PG_OUTSIDE, onde o cluster ficaria. $todo"
  pg_reaches "$PG_OUTSIDE" || die "$why, nem em $PG_OUTSIDE, onde o cluster ficaria. $todo"
  [ -f "$PG_OUTSIDE/checkout" ] || printf '%s\n' "$(realpath -m -- "$DATA")" >"$PG_OUTSIDE/checkout"
}

pg_ready() { "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" >/dev/null 2>&1; }
redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

pg_up() {
  local bin; bin=$(pg_bin)
  mkdir -p "$DATA"
  pg_locate
  pg_prepare_outside
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    if [ -n "$PG_OUTSIDE" ]; then
      log "o usuário postgres não tem acesso a $DATA; o cluster PostgreSQL deste checkout fica em $PG_OUTSIDE"
    fi
    log "initdb $PG_DATA"
    mkdir -p "$PG_DATA" "$PG_RUN"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PG_DATA" "$PG_RUN"; fi
    chmod 700 "$PG_DATA"
    pg_run "$bin/initdb" -D "$PG_DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  mkdir -p "$PG_RUN"; if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PG_RUN"; fi
  if pg_ready; then return; fi
  log "iniciando PostgreSQL em 127.0.0.1:$PG_PORT${PG_OUTSIDE:+ (dados em $PG_DATA)}"
  # pg_stat_statements (part of Debian's server package) lets `pnpm bench` count rows and buffers per statement,
  # those inside functions too (track=all).
  local preload=""
  [ -f "$(dirname "$bin")/lib/pg_stat_statements.so" ] && preload="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
  pg_run "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_RUN -c max_connections=200 -c fsync=${GW_PG_FSYNC:-on} $preload" start >/dev/null
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

# recreate-db NAME [TEMPLATE]: an empty database, or a copy of TEMPLATE (which nobody may be connected to).
recreate_database() {
  local db=$1 template=${2:-}
  local psql="$(pg_bin)/psql -h 127.0.0.1 -p $PG_PORT -U postgres -v ON_ERROR_STOP=1 -qtA"
  $psql -d postgres -c "drop database if exists \"$db\" with (force)" >/dev/null
  if [ -n "$template" ]; then $psql -d postgres -c "create database \"$db\" template \"$template\"" >/dev/null
  else $psql -d postgres -c "create database \"$db\"" >/dev/null; fi
}

down() {
  local only="${GW_STOP_ONLY:-postgres redis}"
  pg_locate
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
  recreate-db) recreate_database "${2:?nome do banco}" "${3:-}" ;;
  status)
    if [ -n "$(pg_bin || true)" ] && pg_ready; then echo "postgres: up (127.0.0.1:$PG_PORT)"; else echo "postgres: down"; fi
    if command -v redis-cli >/dev/null && redis_ready; then echo "redis: up (127.0.0.1:$REDIS_PORT)"; else echo "redis: down"; fi
    ;;
  env)
    echo "DATABASE_URL=postgresql://postgres@127.0.0.1:$PG_PORT/gateway"
    echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
    ;;
  where) pg_locate; echo "$PG_DATA" ;;
  *) die "uso: scripts/stack.sh up|down|status|env|where|recreate-db NOME [MODELO]" ;;
esac
