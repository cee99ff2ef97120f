#!/usr/bin/env bash
# Container images of the gateway (docker/Dockerfile), built with podman.
#   scripts/images.sh build [target ...]   every target (default) or the ones named; tags gateway-<target>:$IMAGE_TAG
#   scripts/images.sh list                 the images this script made
# Targets: api dispatcher campaign-worker panel migrate provider-sandbox receiver, and infra (this machine's
# PostgreSQL, PgBouncer and Redis for scripts/test-deploy.sh; not a production image).
#
# The Dockerfile's default base is the official Node 20 image. When it cannot be pulled (no registry reachable, as
# on our machines), the bases are made from Debian packages instead: mmdebstrap of trixie (Node 20.19) from the
# machine's Debian mirror, imported into podman. They are kept and reused; IMAGES_REBUILD_BASE=1 makes them again.
# Environment: IMAGE_TAG (default local), NODE_IMAGE (runtime base to use), DEBIAN_MIRROR, DEBIAN_SUITE (trixie).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

IMAGE_TAG="${IMAGE_TAG:-local}"
OFFICIAL_NODE_IMAGE=docker.io/library/node:20-bookworm-slim
DEBIAN_SUITE="${DEBIAN_SUITE:-trixie}"
BASE_NODE=localhost/gateway-base-node:$DEBIAN_SUITE
BASE_BUILD=localhost/gateway-base-build:$DEBIAN_SUITE
BASE_INFRA=localhost/gateway-base-infra:$DEBIAN_SUITE
APP_TARGETS=(api dispatcher campaign-worker panel migrate provider-sandbox receiver)
ALL_TARGETS=("${APP_TARGETS[@]}" infra)
CA_BUNDLE="${IMAGES_CA_BUNDLE:-${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}}"
# Podman's settings for this machine (runc, no default rlimits, host network); the system's files are left alone.
export CONTAINERS_CONF="${CONTAINERS_CONF:-$ROOT/deploy/podman/containers.conf}"

ensure_podman() {
  local missing=()
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  # kube play's pods need a pause binary (a "Recommends" of podman, so not always there).
  command -v catatonit >/dev/null 2>&1 || missing+=(catatonit)
  if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
}

# The machine's Debian mirror (first URIs:/deb line of its sources), or deb.debian.org.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local uri
  uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n 1 || true)
  [ -n "$uri" ] || uri=$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n 1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# Make image $1 from Debian packages $2 (comma-separated) unless it exists.
debian_image() {
  local image=$1 packages=$2 tar started
  if [ "${IMAGES_REBUILD_BASE:-}" != 1 ] && podman image exists "$image"; then return; fi
  command -v mmdebstrap >/dev/null 2>&1 || apt_install mmdebstrap
  tar=$(mktemp --suffix=.tar)
  started=$SECONDS
  log "criando $image a partir de pacotes Debian ($DEBIAN_SUITE: $packages)"
  as_root mmdebstrap --quiet --variant=apt --include="$packages" "$DEBIAN_SUITE" "$tar" "$(debian_mirror)" ||
    { rm -f "$tar"; die "mmdebstrap falhou para $image"; }
  # An imported tarball has no image config: PATH is set here (and again by the Dockerfile), no user (the
  # Dockerfile sets one).
  podman import --quiet --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    "$tar" "$image" >/dev/null
  rm -f "$tar"
  log "$image pronta em $((SECONDS - started)) s"
}

# Sets NODE_IMAGE and BUILD_IMAGE: the official image when it is here or can be pulled, else the Debian-made ones.
resolve_bases() {
  if [ -n "${NODE_IMAGE:-}" ]; then BUILD_IMAGE="${BUILD_IMAGE:-$NODE_IMAGE}"; return; fi
  if podman image exists "$OFFICIAL_NODE_IMAGE" ||
    timeout "${IMAGES_PULL_TIMEOUT:-20}" podman pull --quiet "$OFFICIAL_NODE_IMAGE" >/dev/null 2>&1; then
    NODE_IMAGE=$OFFICIAL_NODE_IMAGE BUILD_IMAGE=$OFFICIAL_NODE_IMAGE
    return
  fi
  log "a imagem base padrão ($OFFICIAL_NODE_IMAGE) não pôde ser baixada: nenhum registro acessível."
  log "construindo as bases a partir de pacotes Debian ($DEBIAN_SUITE, $(debian_mirror))"
  debian_image "$BASE_NODE" nodejs,ca-certificates
  debian_image "$BASE_BUILD" nodejs,npm,ca-certificates
  NODE_IMAGE=$BASE_NODE BUILD_IMAGE=$BASE_BUILD
}

build_app() { # target
  local target=$1 started=$SECONDS
  log "podman build --target $target → gateway-$target:$IMAGE_TAG (base $NODE_IMAGE)"
  local secret=()
  # A TLS-inspecting proxy's CA (this machine's case) reaches npm inside the build as a secret, never in a layer.
  if [ -s "$CA_BUNDLE" ]; then secret=(--secret "id=ca-certificates,src=$CA_BUNDLE"); fi
  podman build --quiet --network=host --layers "${secret[@]}" \
    --ignorefile docker/Dockerfile.dockerignore -f docker/Dockerfile \
    --build-arg NODE_IMAGE="$NODE_IMAGE" --build-arg BUILD_IMAGE="$BUILD_IMAGE" \
    --label org.opencontainers.image.revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    --target "$target" -t "localhost/gateway-$target:$IMAGE_TAG" . >/dev/null
  log "gateway-$target:$IMAGE_TAG pronta em $((SECONDS - started)) s"
}

build_infra() {
  local started=$SECONDS
  debian_image "$BASE_INFRA" postgresql,pgbouncer,redis-server,redis-sentinel,ca-certificates
  podman build --quiet --network=host --layers --build-arg INFRA_BASE="$BASE_INFRA" \
    -f deploy/podman/infra.Containerfile -t "localhost/gateway-infra:$IMAGE_TAG" deploy/podman >/dev/null
  log "gateway-infra:$IMAGE_TAG pronta em $((SECONDS - started)) s"
}

cmd_build() {
  local targets=("$@") target started=$SECONDS
  [ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
  for target in "${targets[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $target "* ]] || die "alvo desconhecido: $target (alvos: ${ALL_TARGETS[*]})"
  done
  ensure_podman
  for target in "${targets[@]}"; do
    if [ "$target" = infra ]; then build_infra; continue; fi
    [ -n "${NODE_IMAGE:-}" ] && [ -n "${BUILD_IMAGE:-}" ] || resolve_bases
    build_app "$target"
  done
  log "imagens prontas em $((SECONDS - started)) s: ${targets[*]}"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  list) ensure_podman; podman images --filter reference='localhost/gateway-*' ;;
  *) die "uso: scripts/images.sh build [alvo ...] | list" ;;
esac
