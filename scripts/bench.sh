#!/usr/bin/env bash
# `npm run bench`: the pipeline benchmark (bench/pipeline.bench.ts) against its own fresh database.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
bootstrap

started=$(bash scripts/stack.sh up)
trap '[ -n "$started" ] && GW_STOP_ONLY="$started" bash scripts/stack.sh down' EXIT
eval "$(bash scripts/stack.sh env | sed 's/^/export /')"
bash scripts/stack.sh recreate-db gateway_bench
export DATABASE_URL="${DATABASE_URL%/*}/gateway_bench"
pnpm exec tsx packages/db/src/migrate-cli.ts >/dev/null
pnpm exec tsx bench/pipeline.bench.ts
