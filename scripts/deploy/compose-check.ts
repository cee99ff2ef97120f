// The compose stack's smoke check (scripts/deploy/compose-smoke.sh): every service ready, then what a new user does
// first: an account made with the CLI, the contact writing in, a message sent and its statuses back from "Meta".
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createSqlPool } from "@gw/db";

const run = promisify(execFile);
const port = (name: string) => Number(process.env[`GW_COMPOSE_${name}_PORT`]);
const url = (name: string, path: string) => `http://127.0.0.1:${port(name)}${path}`;
const DATABASE_URL = `postgresql://gateway:gateway@127.0.0.1:${port("PG")}/gateway`;
const log = (line: string) => process.stderr.write(`\x1b[36m[compose]\x1b[0m ${line}\n`);

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`tempo esgotado esperando ${what}`);
}

const answers = async (target: string) => (await fetch(target, { signal: AbortSignal.timeout(2_000) })).ok;

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run("pnpm", ["--silent", "gateway", ...args, "--json"], {
    env: { ...process.env, DATABASE_URL },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const probes = [
  url("API", "/readyz"),
  url("DISPATCHER", "/readyz"),
  url("CAMPAIGN_WORKER", "/readyz"),
  url("PANEL", "/healthz"),
  url("API_INTERNAL", "/metrics"),
];
for (const probe of probes) await until(probe, () => answers(probe));
log(`${probes.length} serviços prontos (migrate terminou antes da API)`);

const account = String((await cli("account", "create", "--name", "Conta compose")).id);
await cli(
  "number",
  "add",
  "--account",
  account,
  "--phone-number-id",
  "100000000000001",
  "--waba-id",
  "200000000000001",
  "--display",
  "+55 11 4000-0001",
);
const key = String((await cli("key", "create", "--account", account)).key);
const inbound = await fetch(url("SANDBOX", "/_sandbox/inbound"), {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    phone_number_id: "100000000000001",
    from: "5511987654321",
    name: "Maria",
    type: "text",
    text: "Oi!",
  }),
});
if (!inbound.ok) throw new Error(`sandbox: HTTP ${inbound.status}`);
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
await until("a janela de 24 h aberta", async () => {
  const response = await fetch(url("API", "/public/v1/window/5511987654321"), { headers });
  return ((await response.json()) as { data?: { open?: boolean } }).data?.open === true;
});
const sent = await fetch(url("API", "/public/v1/messages"), {
  method: "POST",
  headers: { ...headers, "idempotency-key": "compose-smoke-1" },
  body: JSON.stringify({ to: "+55 11 98765-4321", text: "Olá pelo compose" }),
});
const body = (await sent.json()) as { data?: { message_id?: string } };
if (sent.status !== 200 || !body.data?.message_id)
  throw new Error(`envio: HTTP ${sent.status} ${JSON.stringify(body)}`);
const pool = createSqlPool({ url: DATABASE_URL, max: 1, connectionTimeoutMs: 2_000 });
try {
  const status = await until("o status read da mensagem", async () => {
    const { rows } = await pool.query<{ status: string }>("SELECT status FROM messages WHERE wamid = $1", [
      body.data?.message_id,
    ]);
    return rows[0]?.status === "read" ? rows[0].status : undefined;
  });
  log(`conta pela CLI, janela aberta pelo webhook da Meta, envio 200, status ${status} de volta pela API`);
} finally {
  await pool.end();
}
