# Shared helpers for the set-up scripts. Sourced, not run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PNPM_VERSION="$(node -p 'require(process.argv[1]).packageManager.split("@")[1]' "$ROOT/package.json")"
log() { printf '\033[36m[gateway]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31m[gateway] %s\033[0m\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "precisa de root ou sudo para: $*"; fi
}

APT_UPDATED=0
# A fresh cloud VM often runs unattended upgrades at first boot, holding dpkg's lock for minutes: apt-get waits for
# it (up to APT_LOCK_TIMEOUT seconds) instead of failing at once, and says why it waits.
APT_LOCK_TIMEOUT="${APT_LOCK_TIMEOUT:-900}"
APT_LOCK_FILES="${APT_LOCK_FILES:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock}"

# Prints "<command>, pid <pid>" of a process holding one of apt's locks, from /proc/locks (no extra tool needed).
apt_lock_holder() {
  local file inode pid
  [ -r /proc/locks ] || return 1
  for file in $APT_LOCK_FILES; do
    [ -e "$file" ] || continue
    inode="$(stat -c %i "$file")"
    # Lines are "1: POSIX ADVISORY WRITE <pid> <maj:min:inode> …", or "1: -> POSIX …" for a waiter.
    pid="$(awk -v inode="$inode" '$2 != "->" { n = split($6, id, ":"); if (id[n] == inode) { print $5; exit } }' /proc/locks)"
    if [ -n "$pid" ]; then
      printf '%s, pid %s' "$(cat "/proc/$pid/comm" 2>/dev/null || echo '?')" "$pid"
      return 0
    fi
  done
  return 1
}

apt_get() {
  local holder
  if holder="$(apt_lock_holder)"; then
    log "outro processo usa o apt agora ($holder); numa VM recém-criada costumam ser as atualizações automáticas do primeiro boot. Esperando até $APT_LOCK_TIMEOUT s que ele termine (APT_LOCK_TIMEOUT)…"
  fi
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=$APT_LOCK_TIMEOUT" "$@"; then
    if holder="$(apt_lock_holder)"; then
      die "o apt continua ocupado por outro processo ($holder) depois de $APT_LOCK_TIMEOUT s; espere ele terminar e rode o comando de novo"
    fi
    return 1
  fi
}

apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "apt-get não encontrado; instale manualmente: $*"
  if [ "$APT_UPDATED" = 0 ]; then log "apt-get update"; apt_get update -qq; APT_UPDATED=1; fi
  log "apt-get install $*"
  # policy-rc.d 101 keeps Debian from starting the system-wide services; we run our own instances.
  local policy=/usr/sbin/policy-rc.d created=0
  if [ ! -e "$policy" ]; then as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod +x $policy"; created=1; fi
  apt_get install -y -qq --no-install-recommends "$@" >/dev/null
  if [ "$created" = 1 ]; then as_root rm -f "$policy"; fi
}

ensure_pnpm() {
  if [ -x "$ROOT/.tools/bin/pnpm" ]; then export PATH="$ROOT/.tools/bin:$PATH"; fi
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then return; fi
  log "instalando pnpm@$PNPM_VERSION"
  if [ "$(id -u)" = 0 ]; then npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null 2>&1 || true; fi
  if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
    npm install --silent --prefix "$ROOT/.tools" -g "pnpm@$PNPM_VERSION" >/dev/null
    export PATH="$ROOT/.tools/bin:$PATH"
  fi
  [ "$(pnpm --version)" = "$PNPM_VERSION" ] || die "pnpm@$PNPM_VERSION não pôde ser instalado"
}

# Debian's Chromium for the panel's browser tests (Playwright cannot download its own browsers here).
# Prints the executable's path.
ensure_chromium() {
  # Debian's chromium-headless-shell (Chromium's "old headless" build, what Playwright itself runs headless): the
  # full browser in its new headless mode spent five times the CPU per page (docs/performance.md, "The suite").
  local bin
  for bin in "${CHROMIUM_PATH:-}" /usr/bin/chromium-headless-shell; do
    if [ -n "$bin" ] && [ -x "$bin" ]; then echo "$bin"; return; fi
  done
  apt_install chromium-headless-shell fonts-dejavu-core
  [ -x /usr/bin/chromium-headless-shell ] || die "chromium-headless-shell não pôde ser instalado"
  echo /usr/bin/chromium-headless-shell
}

# Debian's PHP, Python and Go for the webhook receivers of docs/webhooks.md (docs/receivers/), which the suite runs
# against real signed deliveries (apps/api/test/webhooks.receiver-snippets.e2e.test.ts). Installs only what is missing.
ensure_receiver_runtimes() {
  local missing=()
  command -v php >/dev/null 2>&1 || missing+=(php-cli)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  command -v go >/dev/null 2>&1 || missing+=(golang-go)
  if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
  command -v php >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 && command -v go >/dev/null 2>&1 ||
    die "php, python3 e go (receptores de docs/receivers) não puderam ser instalados"
}

# promtool (Debian's `prometheus` package) for the alert rules' tests (deploy/observability). Prints its path.
ensure_promtool() {
  local bin
  for bin in "${PROMTOOL_PATH:-}" /usr/bin/promtool; do
    if [ -n "$bin" ] && [ -x "$bin" ]; then echo "$bin"; return; fi
  done
  if command -v promtool >/dev/null 2>&1; then command -v promtool; return; fi
  apt_install prometheus
  [ -x /usr/bin/promtool ] || die "promtool não pôde ser instalado"
  echo /usr/bin/promtool
}

# Install dependencies and generate the Prisma client when they are missing or stale.
bootstrap() {
  ensure_pnpm
  local stamp="$ROOT/node_modules/.gateway-install-stamp"
  if [ ! -f "$stamp" ] || [ "$ROOT/pnpm-lock.yaml" -nt "$stamp" ]; then
    log "pnpm install"
    (cd "$ROOT" && CI=true pnpm install --frozen-lockfile --prefer-offline --reporter default >&2)
    touch "$stamp"
  fi
  local client="$ROOT/packages/db/src/generated/client.ts"
  if [ ! -f "$client" ] || [ "$ROOT/prisma/schema.prisma" -nt "$client" ]; then
    log "prisma generate"
    (cd "$ROOT" && PRISMA_SCHEMA_ENGINE_BINARY=/bin/false PRISMA_HIDE_UPDATE_MESSAGE=1 \
      packages/db/node_modules/.bin/prisma generate --schema prisma/schema.prisma >/dev/null)
  fi
}
