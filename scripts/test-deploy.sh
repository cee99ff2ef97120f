#!/usr/bin/env bash
# `pnpm test:deploy`: the production topology on this machine, from the built images (scripts/images.sh build first).
#   1. deploy/k8s played by `podman kube play` (scripts/deploy/topology.ts): PostgreSQL, PgBouncer (transaction
#      pooling), Redis with a replica and three Sentinels, the sandbox, a receiver, two API pods, two dispatchers, a
#      campaign worker and the panel; then sends, a campaign, the panel's sign-in, an API pod and a dispatcher killed,
#      the Redis primary stopped, PgBouncer's prepared statements and a key revocation checked.
#   2. docker/compose.yaml brought up (Debian's docker-compose over podman's Docker API, host network), smoke-tested
#      and taken down (scripts/deploy/compose-smoke.sh).
# Prints a report (also in .data/deploy-run/report.txt) and exits non-zero on any failure. Loopback only; every pod
# and container it starts is removed at the end, failed or not (GW_DEPLOY_KEEP=1 keeps the kube pods for a look).
# Environment: IMAGE_TAG (local), GW_DEPLOY_PORT_BASE (27000: ports base+80 to base+632), GW_DEPLOY_SKIP_COMPOSE=1.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
started=$SECONDS
export IMAGE_TAG="${IMAGE_TAG:-local}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$ROOT/deploy/podman/containers.conf}"
export GW_DEPLOY_PORT_BASE="${GW_DEPLOY_PORT_BASE:-27000}"

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v catatonit >/dev/null 2>&1 || missing+=(catatonit)
if [ "${GW_DEPLOY_SKIP_COMPOSE:-}" != 1 ] && ! command -v docker-compose >/dev/null 2>&1; then missing+=(docker-compose); fi
if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
bootstrap

for target in api dispatcher campaign-worker panel migrate provider-sandbox receiver infra; do
  podman image exists "localhost/gateway-$target:$IMAGE_TAG" ||
    die "imagem localhost/gateway-$target:$IMAGE_TAG ausente: rode antes scripts/images.sh build"
done

status=0
pnpm exec tsx scripts/deploy/topology.ts || status=1

if [ "${GW_DEPLOY_SKIP_COMPOSE:-}" != 1 ]; then
  bash scripts/deploy/compose-smoke.sh || status=1
fi

log "test:deploy terminou em $((SECONDS - started)) s: $([ "$status" = 0 ] && echo PASSOU || echo FALHOU)"
exit "$status"
