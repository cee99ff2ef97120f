#!/usr/bin/env bash
# docker/compose.yaml, the one-machine recipe, run once by `pnpm test:deploy`: Debian's docker-compose over podman's
# Docker API, on the host network (deploy/podman/compose.host.yaml merged over it), then scripts/deploy/compose-check.ts (readiness of
# every service, an account made with the CLI, a message sent and its statuses back). Everything it started is
# removed at the end, failed or not.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$ROOT"
command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
export CONTAINERS_CONF="${CONTAINERS_CONF:-$ROOT/deploy/podman/containers.conf}"
export IMAGE_TAG="${IMAGE_TAG:-local}"
# The dispatcher and the panel refuse to start without a key ring (docker/compose.yaml); one per run.
SECRETS_KEYS="${SECRETS_KEYS:-smoke:$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')}"
export SECRETS_KEYS
# docker/compose.yaml takes Meta's app secret from the environment, with no default (the API and the sandbox share it).
META_APP_SECRET="${META_APP_SECRET:-$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("hex"))')}"
export META_APP_SECRET
base="${GW_COMPOSE_PORT_BASE:-28000}"
export GW_COMPOSE_PG_PORT=$((base + 432)) GW_COMPOSE_REDIS_PORT=$((base + 379)) GW_COMPOSE_SANDBOX_PORT=$((base + 90))
export GW_COMPOSE_API_PORT=$((base + 80)) GW_COMPOSE_API_INTERNAL_PORT=$((base + 82)) GW_COMPOSE_DISPATCHER_PORT=$((base + 81))
export GW_COMPOSE_PANEL_PORT=$((base + 83)) GW_COMPOSE_CAMPAIGN_WORKER_PORT=$((base + 84))

work="$ROOT/.data/compose-run"
rm -rf "$work" && mkdir -p "$work"
socket="$work/podman.sock"
podman system service --time=0 "unix://$socket" >"$work/podman-service.log" 2>&1 &
service_pid=$!
export DOCKER_HOST="unix://$socket"
# docker/compose.yaml with this machine's changes (deploy/podman/compose.host.yaml; see scripts/deploy/compose-render.ts).
pnpm exec tsx scripts/deploy/compose-render.ts "$work/compose.yaml"
compose() { docker-compose --no-ansi -p gw-compose-smoke -f "$work/compose.yaml" "$@"; }
cleanup() {
  compose logs --no-color >"$work/compose.log" 2>&1 || true
  compose down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1 || true
  podman network rm gw-compose-smoke_default >/dev/null 2>&1 || true
  kill "$service_pid" 2>/dev/null || true
  wait "$service_pid" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 50); do [ -S "$socket" ] && break; sleep 0.2; done
[ -S "$socket" ] || die "a API Docker do podman não abriu $socket"

started=$SECONDS
log "compose: postgres e redis"
compose up -d --no-build postgres redis >/dev/null 2>&1
node -e '
  const net = require("node:net");
  const ports = process.argv.slice(1).map(Number), end = Date.now() + 60_000;
  const up = (port) => new Promise((ok) => { const s = net.connect(port, "127.0.0.1", () => { s.end(); ok(true); }); s.on("error", () => ok(false)); });
  (async () => { for (const port of ports) { while (!(await up(port))) { if (Date.now() > end) process.exit(1); await new Promise((r) => setTimeout(r, 250)); } } })();
' "$GW_COMPOSE_PG_PORT" "$GW_COMPOSE_REDIS_PORT" || die "compose: PostgreSQL ou Redis não abriu a porta em 60 s"
log "compose: migrate, sandbox, api, dispatcher, panel, campaign-worker"
compose up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; die "compose up falhou"; }
pnpm exec tsx scripts/deploy/compose-check.ts
log "compose: ok em $((SECONDS - started)) s"
