#!/usr/bin/env bash
# `npm test`: install what is missing, run the static checks (scripts/check.sh), start PostgreSQL and Redis,
# migrate a fresh test database, run jest.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
bootstrap

# Static checks first: a formatting, dependency, type or lint failure stops the run before the stack starts.
# GW_SKIP_CHECKS=1 skips them (quick local runs of a subset: `GW_SKIP_CHECKS=1 npm test -- apps/api`).
if [ "${GW_SKIP_CHECKS:-}" = 1 ]; then
  log "verificações estáticas puladas (GW_SKIP_CHECKS=1)"
else
  bash scripts/check.sh
fi

# The panel's browser tests drive Debian's Chromium (Playwright cannot download its own browsers here).
CHROMIUM_PATH="$(ensure_chromium)"; export CHROMIUM_PATH

started=$(bash scripts/stack.sh up)
stop_started() {
  # Stop only what this run started, so a developer's running `npm start` stack is left alone.
  if [ -n "$started" ]; then GW_STOP_ONLY="$started" bash scripts/stack.sh down; fi
}
trap stop_started EXIT

eval "$(bash scripts/stack.sh env | sed 's/^/export /')"
TEST_DB="${GW_TEST_DB:-gateway_test}"
bash scripts/stack.sh recreate-db "$TEST_DB"
export DATABASE_URL="${DATABASE_URL%/*}/$TEST_DB"
pnpm exec tsx packages/db/src/migrate-cli.ts >/dev/null
log "migrações aplicadas em $TEST_DB"

NODE_OPTIONS="--experimental-vm-modules --disable-warning=ExperimentalWarning ${NODE_OPTIONS:-}" \
  pnpm exec jest "$@"
