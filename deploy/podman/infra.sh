#!/bin/sh
# Entrypoint of the infrastructure image made for this machine (scripts/images.sh: Debian trixie's PostgreSQL,
# PgBouncer and Redis, no registry needed). It stands in for the managed PostgreSQL, PgBouncer and Redis
# (primary, replica, Sentinels) that production provides; the gateway's own images never use it.
#   infra.sh postgres|pgbouncer|redis|sentinel
# Every server binds 127.0.0.1 only (the pods share the host's network). Data lives in the container: each run of
# scripts/test-deploy.sh starts from nothing. Servers are exec'd through setpriv (no parent left behind), so each is
# PID 1 and gets podman's SIGTERM itself.
set -eu
role=${1:?uso: infra.sh postgres|pgbouncer|redis|sentinel}

case "$role" in
  postgres)
    : "${PG_PORT:?}" "${PG_USER:?}" "${PG_PASSWORD:?}" "${PG_DATABASE:?}"
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    data=/var/lib/gateway/postgres
    mkdir -p "$data" /run/postgresql && chown postgres:postgres "$data" /run/postgresql
    if [ ! -f "$data/PG_VERSION" ]; then
      pwfile=$(mktemp) && printf '%s\n' "$PG_PASSWORD" >"$pwfile" && chown postgres "$pwfile"
      runuser -u postgres -- "$bin/initdb" -D "$data" -U "$PG_USER" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
      rm -f "$pwfile"
      runuser -u postgres -- "$bin/pg_ctl" -D "$data" -o "-c listen_addresses='' -p $PG_PORT" -w start >/dev/null
      runuser -u postgres -- "$bin/createdb" -h /run/postgresql -p "$PG_PORT" -U "$PG_USER" "$PG_DATABASE"
      runuser -u postgres -- "$bin/pg_ctl" -D "$data" -w stop >/dev/null
    fi
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -D "$data" -c listen_addresses=127.0.0.1 -c port="$PG_PORT" \
      -c max_connections="${PG_MAX_CONNECTIONS:-100}" -c unix_socket_directories=/run/postgresql \
      -c shared_buffers=128MB -c log_min_messages=warning
    ;;

  pgbouncer)
    # Transaction pooling, with protocol-level prepared statements tracked (PgBouncer >= 1.21).
    : "${PGB_PORT:?}" "${PG_PORT:?}" "${PG_USER:?}" "${PG_PASSWORD:?}" "${PG_DATABASE:?}"
    dir=/var/lib/gateway/pgbouncer
    mkdir -p "$dir" && chown postgres:postgres "$dir"
    printf '"%s" "%s"\n' "$PG_USER" "$PG_PASSWORD" >"$dir/userlist.txt"
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
$PG_DATABASE = host=127.0.0.1 port=$PG_PORT dbname=$PG_DATABASE
; The dispatcher's entry: its commits skip the WAL flush (PgBouncer forwards no `-c` startup options).
${PG_DATABASE}_dispatcher = host=127.0.0.1 port=$PG_PORT dbname=$PG_DATABASE connect_query='SET synchronous_commit = off'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
admin_users = $PG_USER
pool_mode = transaction
max_prepared_statements = ${PGB_MAX_PREPARED_STATEMENTS:-200}
default_pool_size = ${PGB_DEFAULT_POOL_SIZE:-40}
max_client_conn = ${PGB_MAX_CLIENT_CONN:-1000}
ignore_startup_parameters = ${PGB_IGNORE_STARTUP_PARAMETERS:-extra_float_digits}
server_reset_query =
log_connections = 0
log_disconnections = 0
INI
    chown postgres:postgres "$dir"/*
    chmod 600 "$dir/userlist.txt"
    exec setpriv --reuid=postgres --regid=postgres --init-groups pgbouncer "$dir/pgbouncer.ini"
    ;;

  redis)
    # BullMQ's requirements: never evict, persist with AOF. REDIS_REPLICA_OF=port makes this one a replica.
    # REDIS_PASSWORD: clients' password, and the one a replica (or a demoted primary) gives its primary.
    : "${REDIS_PORT:?}"
    dir=/var/lib/gateway/redis-$REDIS_PORT
    mkdir -p "$dir" && chown redis:redis "$dir"
    set -- --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$dir" --appendonly yes --maxmemory-policy noeviction \
      --save "" --protected-mode no
    if [ -n "${REDIS_PASSWORD:-}" ]; then set -- "$@" --requirepass "$REDIS_PASSWORD" --masterauth "$REDIS_PASSWORD"; fi
    if [ -n "${REDIS_REPLICA_OF:-}" ]; then set -- "$@" --replicaof 127.0.0.1 "$REDIS_REPLICA_OF"; fi
    exec setpriv --reuid=redis --regid=redis --init-groups redis-server "$@"
    ;;

  sentinel)
    # Sentinel rewrites its configuration file, so it gets a writable one of its own.
    # SENTINEL_PASSWORD: what clients (the gateway's REDIS_SENTINEL_PASSWORD) and the other Sentinels must present
    # (requirepass, sentinel-pass); REDIS_PASSWORD: the monitored Redis servers' password (auth-pass).
    : "${SENTINEL_PORT:?}" "${SENTINEL_MASTER:?}" "${REDIS_PRIMARY_PORT:?}"
    dir=/var/lib/gateway/sentinel-$SENTINEL_PORT
    mkdir -p "$dir"
    cat >"$dir/sentinel.conf" <<CONF
port $SENTINEL_PORT
bind 127.0.0.1
protected-mode no
dir $dir
sentinel resolve-hostnames no
sentinel monitor $SENTINEL_MASTER 127.0.0.1 $REDIS_PRIMARY_PORT ${SENTINEL_QUORUM:-2}
sentinel down-after-milliseconds $SENTINEL_MASTER ${SENTINEL_DOWN_AFTER_MS:-3000}
sentinel failover-timeout $SENTINEL_MASTER ${SENTINEL_FAILOVER_TIMEOUT_MS:-15000}
sentinel parallel-syncs $SENTINEL_MASTER 1
CONF
    if [ -n "${REDIS_PASSWORD:-}" ]; then echo "sentinel auth-pass $SENTINEL_MASTER $REDIS_PASSWORD" >>"$dir/sentinel.conf"; fi
    if [ -n "${SENTINEL_PASSWORD:-}" ]; then
      printf 'requirepass %s\nsentinel sentinel-pass %s\n' "$SENTINEL_PASSWORD" "$SENTINEL_PASSWORD" >>"$dir/sentinel.conf"
    fi
    chmod 600 "$dir/sentinel.conf"
    chown -R redis:redis "$dir"
    exec setpriv --reuid=redis --regid=redis --init-groups redis-sentinel "$dir/sentinel.conf"
    ;;

  *)
    echo "papel desconhecido: $role" >&2
    exit 2
    ;;
esac
