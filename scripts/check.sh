#!/usr/bin/env bash
# `pnpm check`, and `npm test` before it starts the stack: formatting, dependencies, types and lint, in that order
# (cheapest first). The first check that fails stops the run with a line naming it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

run_check() {
  local script=$1 what=$2 started=$SECONDS
  pnpm run "$script" || die "verificação estática falhou: $what (pnpm $script); corrija antes dos testes"
  log "$what ok em $((SECONDS - started)) s"
}

run_check format:check "formatação (Prettier)"
run_check deps "dependências (knip)"
run_check typecheck "tipos (tsc)"
run_check lint "lint (ESLint)"
