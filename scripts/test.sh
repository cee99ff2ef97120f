#!/usr/bin/env bash
# `npm test`: install what is missing, run the static checks (scripts/check.sh), build the apps' bundles (the
# processes tests spawn run them, as the image does), start PostgreSQL and Redis, migrate a template database once
# and copy the run's test database from it, run jest (its projects are the tiers of jest.config.ts).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
bootstrap

# Static checks first: a formatting, dependency or type failure stops the run before the stack starts. ESLint, the
# longest (about 80 s alone), runs beside them and then beside the stack's start and the tests' first minute, on the
# core the others leave idle; if it fails, the tests are stopped and the run fails with its report.
# GW_SKIP_CHECKS=1 skips them (quick local runs of a subset: `GW_SKIP_CHECKS=1 npm test -- apps/api`).
# ESLint and jest run as background jobs, each in its own process group (`set -m`), so that stopping one stops what
# it started; whatever this script leaves by (a failure, Ctrl-C), the groups still running are stopped.
set -m
lint_pid="" jest_pid="" started=""
stop_group() { if [ -n "$1" ]; then kill -TERM -- "-$1" 2>/dev/null || true; fi; }
cleanup() {
  stop_group "$lint_pid"
  stop_group "$jest_pid"
  # Stop only what this run started, so a developer's running `npm start` stack is left alone.
  if [ -n "$started" ]; then GW_STOP_ONLY="$started" bash scripts/stack.sh down; fi
}
trap cleanup EXIT

if [ "${GW_SKIP_CHECKS:-}" = 1 ]; then
  log "verificações estáticas puladas (GW_SKIP_CHECKS=1)"
else
  bash scripts/check.sh lint &
  lint_pid=$!
  bash scripts/check.sh first-lane || exit 1
fi

# The panel's browser tests drive Debian's Chromium (Playwright cannot download its own browsers here).
CHROMIUM_PATH="$(ensure_chromium)"; export CHROMIUM_PATH
# The alert rules are checked and unit-tested with Debian's promtool (packages/testkit/test/observability.rules.test.ts).
PROMTOOL_PATH="$(ensure_promtool)"; export PROMTOOL_PATH

# The webhook receivers of docs/receivers run under Debian's php-cli, python3 and golang, installed when missing.
ensure_receiver_runtimes

started=$(bash scripts/stack.sh up)

# Built once per run from the current sources; jest's globalSetup sees GW_BUNDLES_BUILT and does not build again.
node scripts/build.mjs
export GW_BUNDLES_BUILT=1

eval "$(bash scripts/stack.sh env | sed 's/^/export /')"
TEST_DB="${GW_TEST_DB:-gateway_test}"
# Migrated once: the run's database and every isolatedDatabase() of the tests are copies of it (CREATE DATABASE …
# TEMPLATE, a file copy), not migrated again from scratch.
TEMPLATE_DB="${TEST_DB}_template"
bash scripts/stack.sh recreate-db "$TEMPLATE_DB"
DATABASE_URL="${DATABASE_URL%/*}/$TEMPLATE_DB" node dist/migrate/main.mjs >/dev/null
bash scripts/stack.sh recreate-db "$TEST_DB" "$TEMPLATE_DB"
export DATABASE_URL="${DATABASE_URL%/*}/$TEST_DB" GW_TEMPLATE_DATABASE="$TEMPLATE_DB"
log "migrações aplicadas em $TEMPLATE_DB, copiado para $TEST_DB"

# jest itself, not through pnpm, so that a TERM reaches it.
NODE_OPTIONS="--disable-warning=ExperimentalWarning ${NODE_OPTIONS:-}" \
  "$ROOT/node_modules/.bin/jest" "$@" &
jest_pid=$!
if [ -n "$lint_pid" ]; then
  # Whichever ends first: a failed lint stops the tests at once (jest's workers leave when it does).
  if ! wait "$lint_pid"; then
    lint_pid=""
    stop_group "$jest_pid"
    wait "$jest_pid" 2>/dev/null || true
    jest_pid=""
    die "verificação estática falhou: lint (ESLint); os testes foram interrompidos"
  fi
  lint_pid=""
fi
status=0
wait "$jest_pid" || status=$?
jest_pid=""
exit "$status"
