#!/usr/bin/env bash
# `pnpm check`: formatting, dependencies, types and lint. Two lanes run side by side, one per core: Prettier, knip
# and tsc in that order (cheapest first), and ESLint (the longest). A lane stops at its first failure, with a line
# naming it; the script fails once both lanes are done if either failed. GW_CHECKS_SERIAL=1 runs the four one after
# the other.
#
# `npm test` (scripts/test.sh) runs the lanes itself: the first before anything starts, ESLint beside the stack's
# start and the tests' first minute (`check.sh first-lane`, `check.sh lint`).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

run_check() {
  local script=$1 what=$2 started=$SECONDS
  pnpm run "$script" || die "verificação estática falhou: $what (pnpm $script); corrija antes dos testes"
  log "$what ok em $((SECONDS - started)) s"
}

first_lane() {
  run_check format:check "formatação (Prettier)"
  run_check deps "dependências (knip)"
  run_check typecheck "tipos (tsc)"
}

case "${1:-}" in
  first-lane) first_lane; exit 0 ;;
  lint) run_check lint "lint (ESLint)"; exit 0 ;;
  "") ;;
  *) die "uso: scripts/check.sh [first-lane|lint]" ;;
esac

if [ "${GW_CHECKS_SERIAL:-}" = 1 ]; then
  first_lane
  run_check lint "lint (ESLint)"
  exit 0
fi

(first_lane) &
first=$!
(run_check lint "lint (ESLint)") &
second=$!
failed=0
wait "$first" || failed=1
wait "$second" || failed=1
[ "$failed" = 0 ] || die "verificação estática falhou (veja acima)"
