#!/usr/bin/env bash
# `npm start`: install what is missing, start PostgreSQL and Redis, migrate, seed a demo account wired to
# the provider sandbox, then run the API, the dispatcher, the sandbox and a demo webhook receiver.
# Ctrl-C stops everything this script started.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
bootstrap

started=$(bash scripts/stack.sh up)
eval "$(bash scripts/stack.sh env | sed 's/^/export /')"
# Each app runs as the bundle production runs (scripts/build.mjs: esbuild, about a second).
node scripts/build.mjs >/dev/null
node dist/migrate/main.mjs >/dev/null
# The mark that makes this database npm start's: `pnpm gateway` uses .data/secrets-keys (below) only against a
# database that has it, never one it reaches through a tunnel on 127.0.0.1 (apps/cli/src/dev-key-ring.ts).
pnpm exec tsx scripts/mark-development-database.ts
log "migrações aplicadas; banco marcado como de desenvolvimento"

export API_PORT="${API_PORT:-8080}" API_INTERNAL_PORT="${API_INTERNAL_PORT:-8082}" DISPATCHER_PORT="${DISPATCHER_PORT:-8081}" PANEL_PORT="${PANEL_PORT:-8083}" SANDBOX_PORT="${SANDBOX_PORT:-8090}" DEMO_RECEIVER_PORT="${DEMO_RECEIVER_PORT:-8099}"
export META_BASE_URL="${META_BASE_URL:-http://127.0.0.1:$SANDBOX_PORT}"
export META_ACCESS_TOKEN="${META_ACCESS_TOKEN:-sandbox-access-token}"
export META_APP_SECRET="${META_APP_SECRET:-sandbox-app-secret}"
export META_VERIFY_TOKEN="${META_VERIFY_TOKEN:-sandbox-verify-token}"
export SANDBOX_WEBHOOK_URL="${SANDBOX_WEBHOOK_URL:-http://127.0.0.1:$API_PORT/provider/meta/webhook}"
export OPS_USER="${OPS_USER:-ops}"
# The panel on plain http://127.0.0.1: cookies without Secure (production keeps the default, true).
export PANEL_COOKIE_SECURE="${PANEL_COOKIE_SECURE:-false}" PANEL_PUBLIC_URL="${PANEL_PUBLIC_URL:-http://127.0.0.1:$PANEL_PORT}"
# A development stack: the demo receiver is on loopback, so the dispatcher must deliver to loopback/private
# addresses. Production leaves it false (.env.example); `pnpm gateway integration set` reads it too.
export WEBHOOK_ALLOW_PRIVATE_NETWORKS="${WEBHOOK_ALLOW_PRIVATE_NETWORKS:-true}"
# Bull Board's password: a random one kept in .data (the API refuses known defaults such as .env.example's old one).
if [ -z "${OPS_PASSWORD:-}" ]; then
  [ -f .data/ops-password ] || node -e 'process.stdout.write(require("crypto").randomBytes(12).toString("base64url"))' > .data/ops-password
  OPS_PASSWORD=$(cat .data/ops-password); export OPS_PASSWORD
fi

# The key ring that encrypts the signing secrets stored in PostgreSQL (dispatcher, panel, `pnpm gateway`): a random
# one kept in .data, as long-lived as the database beside it (production sets its own; .env.example's is refused).
cli_keys="com a mesma SECRETS_KEYS deste terminal"
if [ -z "${SECRETS_KEYS:-}" ]; then
  cli_keys="usa sozinha as chaves de .data/secrets-keys"
  [ -f .data/secrets-keys ] || (umask 077; node -e 'process.stdout.write("dev:" + require("crypto").randomBytes(32).toString("base64"))' > .data/secrets-keys)
  SECRETS_KEYS=$(cat .data/secrets-keys); export SECRETS_KEYS
fi

# `pnpm gateway` in a second shell finds npm start's key ring by itself (apps/cli/src/dev-key-ring.ts) against the
# database marked above, and defaults to the local stack's one: the banner's command names the database only when it
# is another one.
cli_env=""
[ "$DATABASE_URL" = "postgresql://postgres@127.0.0.1:55432/gateway" ] || cli_env="DATABASE_URL=$(printf %q "$DATABASE_URL") "

# Demo account (created once; its key and signing secret are kept in .data/demo.json).
eval "$(pnpm exec tsx scripts/demo-seed.ts)"

pids=()
cleanup() {
  trap - INT TERM EXIT
  log "encerrando..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$started" ]; then GW_STOP_ONLY="$started" bash scripts/stack.sh down; fi
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

# Each service is one node process (no pnpm/tsx wrapper) in a session of its own: Ctrl-C reaches only this
# script, which then sends each service exactly one SIGTERM (a second signal would make the dispatcher drop
# its in-flight attempts). Output goes through a prefixing sed that ignores Ctrl-C so late logs still print.
run() { # name, command...
  local name=$1; shift
  setsid "$@" > >(trap '' INT; exec sed -u "s/^/[$name] /") 2>&1 &
  pids+=($!)
}
# The sandbox's webhooks name the demo number's WABA in entry[].id, as Meta's would.
run sandbox env SANDBOX_WABA_ID="${SANDBOX_WABA_ID:-200000000000001}" node dist/provider-sandbox/main.mjs
run api node dist/api/main.mjs
run dispatcher node dist/dispatcher/main.mjs
run panel node dist/panel/main.mjs
run campaign-worker env CAMPAIGN_WORKER_PORT="${CAMPAIGN_WORKER_PORT:-8084}" node dist/campaign-worker/main.mjs
run receiver env PORT="$DEMO_RECEIVER_PORT" WEBHOOK_SECRET="$DEMO_SIGNING_SECRET" DATA_FILE="$ROOT/.data/demo-receiver.jsonl" \
  node --import tsx packages/receiver/example/server.ts

ready=""
for _ in $(seq 1 120); do
  if node -e "fetch('http://127.0.0.1:$API_PORT/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null; then ready=1; break; fi
  sleep 0.5
done
[ -n "$ready" ] || die "a API não ficou pronta em 60 s (http://127.0.0.1:$API_PORT/readyz); veja os logs acima"
# Something for the panel to show: a contact's messages and photo, a reply, template notices.
DEMO_PHONE_NUMBER_ID="$DEMO_PHONE_NUMBER_ID" DEMO_API_KEY="$DEMO_API_KEY" pnpm exec tsx scripts/demo-traffic.ts || log "dados de demonstração não criados (veja o erro acima); o gateway segue no ar"

cat >&2 <<INFO

  Gateway pronto.
    API            http://127.0.0.1:$API_PORT   (docs: /docs, OpenAPI: /public/v1/openapi.json)
    Painel web     $PANEL_PUBLIC_URL   (e-mail $DEMO_PANEL_EMAIL, senha $DEMO_PANEL_PASSWORD)
    CLI            num segundo terminal ($cli_keys); as integrações da conta demo
                   (os demais comandos, como account list e key list: pnpm gateway --help):
      cd $(printf %q "$ROOT") && ${cli_env}pnpm gateway integration list --account $DEMO_ACCOUNT_ID
    Dispatcher     http://127.0.0.1:$DISPATCHER_PORT/readyz
    Campanhas      http://127.0.0.1:${CAMPAIGN_WORKER_PORT:-8084}/readyz   (worker de campanhas)
    Sandbox Meta   http://127.0.0.1:$SANDBOX_PORT
    Filas          http://127.0.0.1:$API_INTERNAL_PORT/ops/queues   (usuário $OPS_USER, senha $OPS_PASSWORD)
    Métricas       http://127.0.0.1:$API_INTERNAL_PORT/metrics   (porta interna, só em 127.0.0.1)
    Receptor demo  http://127.0.0.1:$DEMO_RECEIVER_PORT  (imprime os webhooks assinados que recebe)

  API key: $DEMO_API_KEY
  SDK: @pt-gateway/client e @pt-gateway/webhooks ainda não estão no npm; este comando empacota os dois e imprime o
  npm install que os instala no seu projeto (docs/client.md, seção 1):
    cd $(printf %q "$ROOT") && pnpm sdk:pack

  O contato escreve primeiro (abre a janela de 24 h), depois a conta responde com texto livre:
    curl -s -X POST http://127.0.0.1:$SANDBOX_PORT/_sandbox/inbound -H 'Content-Type: application/json' \\
      -d '{"phone_number_id":"$DEMO_PHONE_NUMBER_ID","from":"5511987654321","name":"Maria","type":"text","text":"Oi!"}'
    curl -s -X POST http://127.0.0.1:$API_PORT/public/v1/messages -H "Authorization: Bearer $DEMO_API_KEY" \\
      -H 'Content-Type: application/json' -H "Idempotency-Key: demo-\$(date +%s)" -d '{"to":"+55 11 98765-4321","text":"Olá, Maria!"}'

  Uma cliente que não compartilha o telefone (só username) é respondida pelo BSUID dela:
    curl -s -X POST http://127.0.0.1:$SANDBOX_PORT/_sandbox/inbound -H 'Content-Type: application/json' \\
      -d '{"phone_number_id":"$DEMO_PHONE_NUMBER_ID","username":"fernanda.pao","type":"text","text":"Oi!"}'
    curl -s -X POST http://127.0.0.1:$API_PORT/public/v1/messages -H "Authorization: Bearer $DEMO_API_KEY" \\
      -H 'Content-Type: application/json' -d '{"to":"BR.1502576394655843","text":"Olá, Fernanda!"}'

  Ctrl-C encerra tudo.
INFO

wait -n "${pids[@]}" || true
log "um processo terminou; encerrando os demais"
