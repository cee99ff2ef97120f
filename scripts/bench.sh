#!/usr/bin/env bash
# `pnpm bench [stage ...] [--history]`: one benchmark per pipeline stage (bench/<stage>.bench.ts), each against its own
# freshly created and migrated `gateway_bench` database. No argument runs `pipeline`. See bench/README.md.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

STAGES=(pipeline send ingest dispatch backlog campaign)
# Flags: --history seeds a large history first (BENCH_HISTORY=1; the pipeline stage reads it).
stages=()
for arg in "$@"; do
  case "$arg" in
    --history) export BENCH_HISTORY=1 ;;
    --*) die "opção desconhecida: $arg (use: --history)" ;;
    *) stages+=("$arg") ;;
  esac
done
set -- "${stages[@]}"
[ $# -gt 0 ] || set -- pipeline
for stage in "$@"; do
  [[ " ${STAGES[*]} " == *" $stage "* ]] && [ -f "bench/$stage.bench.ts" ] || die "estágio desconhecido: $stage (use: ${STAGES[*]})"
done

bootstrap
started=$(bash scripts/stack.sh up)
trap '[ -n "$started" ] && GW_STOP_ONLY="$started" bash scripts/stack.sh down' EXIT
eval "$(bash scripts/stack.sh env | sed 's/^/export /')"
export DATABASE_URL="${DATABASE_URL%/*}/gateway_bench"

status=0
for stage in "$@"; do
  log "bench $stage: recriando e migrando o banco gateway_bench"
  bash scripts/stack.sh recreate-db gateway_bench
  pnpm exec tsx packages/db/src/migrate-cli.ts >/dev/null
  pnpm exec tsx "bench/$stage.bench.ts" || status=$?
done
exit "$status"
