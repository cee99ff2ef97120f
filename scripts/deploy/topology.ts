// The topology run (`pnpm test:deploy`, through scripts/test-deploy.sh): the production manifests played by podman on
// this machine (scripts/deploy/manifests.ts says what changes for it), then what a new user does, and the failures the
// platform team plans for. Prints a report and exits non-zero on any failure. Only loopback addresses are used;
// every pod it starts is removed at the end, failed or not.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { createSqlPool, type SqlPool } from "@gw/db";
import {
  APPS,
  emptyDirVolumes,
  loadManifests,
  localApps,
  localConfig,
  localFakes,
  localInfrastructure,
  localMigration,
  localPorts,
  replicaName,
  toYaml,
  type App,
  type LocalTopology,
  type Manifest,
} from "./manifests.ts";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const WORK = process.env.GW_DEPLOY_WORK_DIR ?? join(ROOT, ".data/deploy-run");
const TAG = process.env.IMAGE_TAG ?? "local";
// Below the kernel's ephemeral range (32768+), so no outgoing connection can hold a port a pod must bind.
const PORTS = localPorts(Number(process.env.GW_DEPLOY_PORT_BASE ?? 27000));
const SERVICE_PORT = PORTS.api(0) - 1; // the stand-in for the API's Service (round-robin over ready pods)
const DEADLINE = Date.now() + Number(process.env.GW_DEPLOY_TIMEOUT_MS ?? 13 * 60_000);
const REPLICAS: Record<App, number> = { api: 2, dispatcher: 2, "campaign-worker": 1, panel: 1 };
const PHONE_NUMBER_ID = "100000000000001";
const WABA_ID = "200000000000001";
const SENTINEL_MASTER = "gateway";
const PASSWORD = "gateway-deploy-run";
// Redis and its Sentinels require passwords, each its own, as in production (docs/deploy.md, "Redis: Sentinel").
const REDIS_PASSWORD = "gateway-deploy-run-redis";
const SENTINEL_PASSWORD = "gateway-deploy-run-sentinel";
const SECRETS = {
  DATABASE_URL: `postgresql://gateway:${PASSWORD}@127.0.0.1:${PORTS.pgbouncer}/gateway`,
  DISPATCHER_DATABASE_URL: `postgresql://gateway:${PASSWORD}@127.0.0.1:${PORTS.pgbouncer}/gateway_dispatcher`,
  DATABASE_DIRECT_URL: `postgresql://gateway:${PASSWORD}@127.0.0.1:${PORTS.postgres}/gateway`,
  REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:6379/0`,
  REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD,
  META_ACCESS_TOKEN: "sandbox-access-token",
  META_APP_SECRET: "sandbox-app-secret",
  META_VERIFY_TOKEN: "sandbox-verify-token",
  OPS_USER: "ops",
  OPS_PASSWORD: "Xq7-deploy-run-board-9vT",
  // Drawn per run: known keys are refused, and the run's database is its own.
  SECRETS_KEYS: `deploy:${randomBytes(32).toString("base64")}`,
};

// ---------------------------------------------------------------------------------------------------------------
// Report

interface Step {
  name: string;
  ok: boolean;
  seconds: number;
  figures: string;
}
const steps: Step[] = [];
const started = Date.now();
const log = (line: string) => process.stderr.write(`\x1b[36m[deploy]\x1b[0m ${line}\n`);

async function step(name: string, work: () => Promise<string>): Promise<void> {
  const t0 = Date.now();
  log(`${name}...`);
  try {
    const figures = await work();
    steps.push({ name, ok: true, seconds: (Date.now() - t0) / 1000, figures });
    log(`ok: ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s) ${figures}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    steps.push({ name, ok: false, seconds: (Date.now() - t0) / 1000, figures: message.split("\n")[0] ?? "" });
    throw new Error(`${name}: ${message}`, { cause: error });
  }
}

function printReport(): boolean {
  const ok = steps.length > 0 && steps.every((s) => s.ok);
  const lines = [
    "",
    `Topology run (podman kube play, images tagged ${TAG}) — ${ok ? "PASS" : "FAIL"} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ...steps.map((s) => `  ${s.ok ? "pass" : "FAIL"}  ${s.name} (${s.seconds.toFixed(1)} s): ${s.figures}`),
    "",
  ];
  process.stdout.write(lines.join("\n"));
  writeFileSync(join(WORK, "report.txt"), lines.join("\n"));
  return ok;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
): Promise<T> {
  const end = Math.min(Date.now() + timeoutMs, DEADLINE);
  let last: unknown;
  while (Date.now() < end) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await sleep(250);
  }
  throw new Error(`tempo esgotado esperando ${what}${last instanceof Error ? ` (${last.message})` : ""}`);
}

async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run("podman", args, { maxBuffer: 64 * 1024 * 1024, env: process.env });
  return stdout;
}

const playedFiles: string[] = [];
const volumes = new Set<string>();
async function play(file: string, documents: Manifest[]): Promise<void> {
  const path = join(WORK, file);
  writeFileSync(path, toYaml(documents));
  playedFiles.push(path);
  for (const volume of emptyDirVolumes(documents.filter((d) => d.kind !== "ConfigMap"))) volumes.add(volume);
  await podman("kube", "play", "--network", "host", path);
}

async function ok(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.arrayBuffer();
  return response.ok;
}

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run("pnpm", ["--silent", "gateway", ...args, "--json"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: SECRETS.DATABASE_URL,
      SECRETS_KEYS: SECRETS.SECRETS_KEYS,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------------------
// The Service stand-in: a TCP round-robin over the API pods whose /readyz answers (kube-proxy + readiness).

function apiService(): Server & { ready: Set<number> } {
  const backends = Array.from({ length: REPLICAS.api }, (_, i) => PORTS.api(i));
  const ready = new Set<number>();
  let next = 0;
  const server = createServer((client: Socket) => {
    const choices = backends.filter((port) => ready.has(port));
    const port = choices[next++ % Math.max(choices.length, 1)];
    if (port === undefined) return client.destroy();
    const upstream = connect(port, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
  }) as Server & { ready: Set<number> };
  server.ready = ready;
  const timer = setInterval(() => {
    for (const port of backends) {
      ok(`http://127.0.0.1:${port}/readyz`).then(
        (up) => (up ? ready.add(port) : ready.delete(port)),
        () => ready.delete(port),
      );
    }
  }, 500);
  server.on("close", () => clearInterval(timer));
  return server;
}

// ---------------------------------------------------------------------------------------------------------------
// The client: what an integrator's code does (same Idempotency-Key on a retry, another pod when one is gone).

interface Sent {
  key: string;
  text: string;
  messageId: string;
  via: number;
}
/** A send whose first request died with its pod after Meta was called: answered 503 send_unconfirmed, never resent. */
const unconfirmed: { key: string; text: string }[] = [];

let apiKey = "";
let sendCounter = 0;
let serviceErrors = 0;

async function send(text: string, ports: number[]): Promise<Sent | null> {
  const key = `deploy-${process.pid}-${++sendCounter}`;
  // A key whose first request died with its pod stays reserved (409) until it goes stale: META_TIMEOUT_MS + 60 s.
  const giveUp = Date.now() + 150_000;
  for (let attempt = 0; Date.now() < giveUp; attempt++) {
    const port = ports[attempt % ports.length] as number;
    let wait = 500;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/public/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ to: "+55 11 98765-4321", text }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = (await response.json()) as { data?: { message_id?: string }; error?: { code?: string } };
      if (response.status === 200 && body.data?.message_id) {
        return { key, text, messageId: body.data.message_id, via: port };
      }
      // The request that reserved this key died after calling Meta: the gateway will not resend it, and says so.
      if (response.status === 503 && body.error?.code === "send_unconfirmed") {
        unconfirmed.push({ key, text });
        return null;
      }
      // 503 (a dependency failing over) or 409 (the same key still reserved by a request that died): again, same key.
      if (response.status !== 503 && response.status !== 409) {
        throw new Error(`envio recusado: HTTP ${response.status} ${JSON.stringify(body.error ?? body)}`);
      }
      if (response.status === 409) wait = 2_000;
      serviceErrors++;
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("envio recusado")) throw error;
      serviceErrors++;
    }
    await sleep(wait);
  }
  throw new Error(`envio ${key} sem resposta 200 em 150 s`);
}

/** `count` sends, `concurrency` at a time, calling `during` once a third of them is done. */
async function load(
  prefix: string,
  count: number,
  ports: () => number[],
  during?: () => Promise<void>,
): Promise<Sent[]> {
  const results: Sent[] = [];
  let issued = 0;
  let done = 0;
  let fired = false;
  const pending: Promise<void>[] = [];
  const worker = async () => {
    while (issued < count) {
      const i = issued++;
      const sent = await send(`${prefix} ${i}`, ports());
      if (sent) results.push(sent);
      done++;
      if (during && !fired && done >= count / 3) {
        fired = true;
        pending.push(during());
      }
      await sleep(100);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  await Promise.all(pending);
  return results;
}

/** gw_webhook_queue_jobs as the API's internal listener exports it (BullMQ read at scrape time). */
async function queueDepth(): Promise<{ waiting: number; delayed: number; active: number }> {
  const text = await (await fetch(`http://127.0.0.1:${PORTS.apiInternal(1)}/metrics`)).text();
  const value = (state: string) =>
    Number(new RegExp(`^gw_webhook_queue_jobs\\{state="${state}"\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
  return { waiting: value("waiting"), delayed: value("delayed"), active: value("active") };
}

interface ReceivedEvent {
  delivery_id: string;
  event: { event: string; data: { message_id?: string; status?: string; campaign_id?: string | null } };
}

function received(): ReceivedEvent[] {
  const file = join(WORK, "receiver/events.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReceivedEvent);
}

/** Waits until every message has sent, delivered and read at the receiver; returns the duplicates seen. */
async function statusesArrive(messageIds: string[], timeoutMs = 120_000): Promise<{ events: number; twice: number }> {
  const want = new Set(messageIds);
  return until(
    `os status de ${messageIds.length} mensagens no receptor`,
    () => {
      const seen = new Map<string, number>();
      for (const { event } of received()) {
        const id = event.data.message_id;
        if (event.event !== "message.status" || !id || !want.has(id)) continue;
        const key = `${id}/${event.data.status}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      const missing = messageIds.filter((id) => ["sent", "delivered", "read"].some((s) => !seen.has(`${id}/${s}`)));
      if (missing.length > 0) return undefined;
      const events = [...seen.values()].reduce((a, b) => a + b, 0);
      return { events, twice: events - seen.size };
    },
    timeoutMs,
  );
}

/** How many times the sandbox (Meta) accepted each text: 1 each, or something was sent twice. */
async function sentToMeta(sends: Sent[]): Promise<{ once: number; twice: string[]; missing: string[] }> {
  const response = await fetch(`http://127.0.0.1:${PORTS.sandbox}/_sandbox/sent`);
  const list = (await response.json()) as { body: { text?: { body?: string } } }[];
  const counts = new Map<string, number>();
  for (const item of list) {
    const text = item.body.text?.body;
    if (text) counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  const twice = sends.filter((s) => (counts.get(s.text) ?? 0) > 1).map((s) => s.text);
  const missing = sends.filter((s) => !counts.has(s.text)).map((s) => s.text);
  return { once: sends.length - twice.length - missing.length, twice, missing };
}

/** Unconfirmed sends went to Meta at most once (the gateway never resends one). */
async function unconfirmedAtMostOnce(): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${PORTS.sandbox}/_sandbox/sent`);
  const list = (await response.json()) as { body: { text?: { body?: string } } }[];
  let reachedMeta = 0;
  for (const { text } of unconfirmed) {
    const count = list.filter((item) => item.body.text?.body === text).length;
    if (count > 1) throw new Error(`envio não confirmado ${text} chegou ${count} vezes à Meta`);
    reachedMeta += count;
  }
  return reachedMeta;
}

function expectDelivered(label: string, sends: Sent[], meta: Awaited<ReturnType<typeof sentToMeta>>): void {
  if (meta.twice.length > 0) throw new Error(`${label}: enviadas duas vezes à Meta: ${meta.twice.join(", ")}`);
  if (meta.missing.length > 0)
    throw new Error(`${label}: respondidas 200 e ausentes na Meta: ${meta.missing.join(", ")}`);
  if (new Set(sends.map((s) => s.messageId)).size !== sends.length) throw new Error(`${label}: message_id repetido`);
}

// ---------------------------------------------------------------------------------------------------------------
// The run

const files = loadManifests();
const topology: LocalTopology = {
  tag: TAG,
  ports: PORTS,
  replicas: REPLICAS,
  secrets: SECRETS,
  receiverDir: join(WORK, "receiver"),
  config: {
    REDIS_SENTINELS: PORTS.sentinels.map((port) => `127.0.0.1:${port}`).join(","),
    REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
    REDIS_KEY_PREFIX: "gw",
    LOG_LEVEL: "warn",
    META_BASE_URL: `http://127.0.0.1:${PORTS.sandbox}`,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    TRUST_PROXY_HOPS: "0",
  },
  env: {
    // Only a NOTIFY can explain a revocation seen sooner than this (the step "revogação").
    api: { API_KEY_CACHE_TTL_MS: "60000", API_RATE_LIMIT_POINTS: "100000" },
    // Shorter timers than production's, so recoveries happen within the run.
    dispatcher: {
      WEBHOOK_TIMEOUT_MS: "5000",
      DISPATCHER_LOCK_DURATION_MS: "8000",
      DISPATCHER_STALLED_INTERVAL_MS: "3000",
      RECONCILE_INTERVAL_MS: "2000",
      RECONCILE_GRACE_MS: "8000",
      WEBHOOK_RETRY_SCHEDULE_MS: "1000,2000,4000,8000,16000,32000",
      DISPATCHER_BREAKER_COOLDOWN_MS: "2000",
    },
    "campaign-worker": {
      CAMPAIGN_SWEEP_INTERVAL_MS: "2000",
      CAMPAIGN_LOCK_DURATION_MS: "10000",
      CAMPAIGN_STALLED_INTERVAL_MS: "3000",
    },
    panel: { PANEL_COOKIE_SECURE: "false", PANEL_PUBLIC_URL: `http://127.0.0.1:${PORTS.panel(0)}` },
  },
};

const podNames = [
  ...localInfrastructure(topology, {}).map((d) => d.metadata.name),
  "provider-sandbox",
  "receiver",
  ...APPS.flatMap((app) => Array.from({ length: REPLICAS[app] }, (_, i) => replicaName(app, i))),
].map((name) => `${name}-pod-0`);

/**
 * What each image may hold outside node_modules (docker/Dockerfile, scripts/build.mjs --stage): its own bundle, and
 * the files its app reads at run time. Anything else (another app's bundle, a TypeScript source, a test,
 * packages/testkit, the provider sandbox) fails the step.
 */
const IMAGE_CONTENTS: Record<string, string[]> = {
  api: ["dist/api/"],
  dispatcher: ["dist/dispatcher/"],
  "campaign-worker": ["dist/campaign-worker/"],
  panel: ["dist/panel/", "apps/panel/src/assets/"],
  migrate: ["dist/migrate/", "prisma/migrations/"],
  "provider-sandbox": ["dist/provider-sandbox/", "apps/provider-sandbox/src/media/samples/"],
  receiver: ["dist/receiver/"],
};
/** Build and test tools: never in a runtime image (their .pnpm folder names start so). */
const DEV_PACKAGES =
  /^(typescript|jest|@jest\+|esbuild|@esbuild\+|eslint|@swc\+|tsx|prettier|knip|prisma|@playwright\+)@?/;

/** /app of an image, read by node inside it: files outside node_modules, the packages under node_modules/.pnpm. */
async function imageContents(target: string): Promise<{ files: string[]; packages: string[]; bytes: number }> {
  const script = `
    const fs = require("node:fs"), path = require("node:path");
    const files = [], packages = new Set(); let bytes = 0;
    const walk = (dir, inModules) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isSymbolicLink()) continue;
        if (entry.isDirectory()) {
          if (path.basename(dir) === ".pnpm") packages.add(entry.name);
          walk(full, inModules || entry.name === "node_modules");
        } else {
          bytes += fs.statSync(full).size;
          if (!inModules) files.push(path.relative("/app", full));
        }
      }
    };
    walk("/app", false);
    process.stdout.write(JSON.stringify({ files, packages: [...packages], bytes }));`;
  const output = await podman(
    "run",
    "--rm",
    "--network",
    "none",
    "--entrypoint",
    "node",
    `localhost/gateway-${target}:${TAG}`,
    "-e",
    script,
  );
  return JSON.parse(output) as { files: string[]; packages: string[]; bytes: number };
}

async function removeEverything(): Promise<void> {
  const present = async () => {
    const existing = (await podman("pod", "ps", "--format", "{{.Name}}")).split("\n");
    return [...podNames, "gateway-migrate"].filter((name) => existing.includes(name));
  };
  // A pod whose container needed a SIGKILL is sometimes left behind by the first `pod rm` (podman 4.3): try again.
  for (let round = 0; round < 3; round++) {
    for (const name of await present()) {
      await podman("pod", "rm", "--force", "--time", "5", name).catch(() => undefined);
    }
  }
  const left = await present();
  if (left.length > 0) throw new Error(`pods que não puderam ser removidos: ${left.join(", ")}`);
  const existingVolumes = (await podman("volume", "ls", "--format", "{{.Name}}")).split("\n");
  const ours = [...volumes].filter((volume) => existingVolumes.includes(volume));
  if (ours.length > 0) await podman("volume", "rm", "--force", ...ours);
}

async function saveLogs(): Promise<void> {
  mkdirSync(join(WORK, "logs"), { recursive: true });
  const names = (await podman("ps", "--all", "--format", "{{.Names}}").catch(() => "")).split("\n").filter(Boolean);
  for (const name of names.filter(
    (n) => podNames.some((pod) => n.startsWith(pod)) || n.startsWith("gateway-migrate"),
  )) {
    const output = await run("podman", ["logs", name], { maxBuffer: 64 * 1024 * 1024 }).catch(() => null);
    if (output) writeFileSync(join(WORK, "logs", `${name}.log`), output.stdout + output.stderr);
  }
}

let service: ReturnType<typeof apiService> | undefined;
const pools: SqlPool[] = [];
const redisClients: Redis[] = [];

async function main(): Promise<void> {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(join(WORK, "receiver"), { recursive: true });
  // The receiver's pod runs as uid 1000 and writes its JSONL file here.
  chmodSync(join(WORK, "receiver"), 0o777);
  // What an earlier, interrupted run may have left.
  for (const volume of emptyDirVolumes([...localApps(files, topology), localMigration(files, topology)])) {
    volumes.add(volume);
  }
  await removeEverything();

  const apiPorts = Array.from({ length: REPLICAS.api }, (_, i) => PORTS.api(i));
  let sentinel: Redis;
  let direct: SqlPool;

  await step("imagens: cada uma só com o bundle do seu app", async () => {
    const figures: string[] = [];
    for (const [target, allowed] of Object.entries(IMAGE_CONTENTS)) {
      const { files, packages, bytes } = await imageContents(target);
      if (!files.includes(`dist/${target}/main.mjs`)) throw new Error(`${target}: sem dist/${target}/main.mjs`);
      const foreign = files.filter((file) => !allowed.some((prefix) => file.startsWith(prefix)));
      if (foreign.length > 0)
        throw new Error(`${target}: ${foreign.length} arquivos de fora do app, como ${foreign.slice(0, 5).join(", ")}`);
      const tools = packages.filter((name) => DEV_PACKAGES.test(name));
      if (tools.length > 0) throw new Error(`${target}: ferramentas de build na imagem: ${tools.join(", ")}`);
      figures.push(`${target} ${Math.round(bytes / 1024 / 1024)} MB (${packages.length} pacotes)`);
    }
    return `${figures.join(", ")}; nenhuma com outro app, fonte .ts, teste, testkit ou ferramenta de build`;
  });

  await step("infraestrutura: PostgreSQL, PgBouncer, Redis primário + réplica, 3 Sentinels", async () => {
    await play(
      "infra.yaml",
      localInfrastructure(topology, { PG_USER: "gateway", PG_PASSWORD: PASSWORD, PG_DATABASE: "gateway" }),
    );
    direct = createSqlPool({ url: SECRETS.DATABASE_DIRECT_URL, max: 2, connectionTimeoutMs: 2_000 });
    pools.push(direct);
    await until("o PostgreSQL", () => direct.query("SELECT 1").then(() => true));
    const pooled = createSqlPool({ url: SECRETS.DATABASE_URL, max: 2, connectionTimeoutMs: 2_000 });
    pools.push(pooled);
    await until("o PgBouncer", () => pooled.query("SELECT 1").then(() => true));
    sentinel = new Redis({
      host: "127.0.0.1",
      port: PORTS.sentinels[0],
      password: SENTINEL_PASSWORD,
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    redisClients.push(sentinel);
    await until("os Sentinels e a réplica", async () => {
      const replicas = (await sentinel.call("SENTINEL", "replicas", SENTINEL_MASTER)) as unknown[];
      const sentinels = (await sentinel.call("SENTINEL", "sentinels", SENTINEL_MASTER)) as unknown[];
      return replicas.length === 1 && sentinels.length === 2;
    });
    // What an open Sentinel would let anyone do (ask for, or change, the primary) is refused without the password.
    for (const port of PORTS.sentinels) {
      const open = new Redis({
        host: "127.0.0.1",
        port,
        lazyConnect: true,
        enableReadyCheck: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      open.on("error", () => undefined);
      const answer = await open.call("SENTINEL", "get-master-addr-by-name", SENTINEL_MASTER).then(
        () => "respondeu",
        (error: Error) => error.message,
      );
      open.disconnect();
      if (!answer.includes("NOAUTH")) throw new Error(`o Sentinel :${port} sem senha: ${answer}`);
    }
    const version = (await pooled.query<{ version: string }>("SELECT version()")).rows[0]?.version ?? "";
    return `PostgreSQL ${version.split(" ")[1] ?? "?"}, PgBouncer :${PORTS.pgbouncer} (transaction), Redis :${PORTS.redisPrimary} → :${PORTS.redisReplica} com senha, Sentinels :${PORTS.sentinels.join(",:")} com senha própria (sem ela: NOAUTH)`;
  });

  await step("migrações: o Job da release, direto no PostgreSQL, uma vez", async () => {
    await play("migrate.yaml", [...localConfig(files, topology), localMigration(files, topology)]);
    const exit = await until(
      "o fim do Job de migração",
      async () => {
        const state = (
          await podman("inspect", "gateway-migrate-migrate", "--format", "{{.State.Status}} {{.State.ExitCode}}")
        ).trim();
        return state.startsWith("exited") ? state.split(" ")[1] : undefined;
      },
      120_000,
    );
    if (exit !== "0")
      throw new Error(`o Job de migração saiu com ${exit}: ${await podman("logs", "gateway-migrate-migrate")}`);
    const { rows } = await direct!.query<{ count: number }>(`SELECT count(*)::int AS count FROM "_prisma_migrations"`);
    await podman("pod", "rm", "--force", "gateway-migrate");
    return `${rows[0]?.count ?? 0} migrações aplicadas`;
  });

  let accountId = "";
  let panelEmail = "";
  let panelPassword = "";
  let keyId = "";
  await step("conta nova pela CLI (pnpm gateway, pelo PgBouncer)", async () => {
    accountId = String((await cli("account", "create", "--name", "Conta da topologia")).id);
    await cli(
      "number",
      "add",
      "--account",
      accountId,
      "--phone-number-id",
      PHONE_NUMBER_ID,
      "--waba-id",
      WABA_ID,
      "--display",
      "+55 11 4000-0001",
    );
    const key = await cli("key", "create", "--account", accountId);
    apiKey = String(key.key);
    keyId = String(key.id);
    const integration = await cli(
      "integration",
      "set",
      "--account",
      accountId,
      "--url",
      `http://127.0.0.1:${PORTS.receiver}/webhooks`,
      "--events",
      "message.status",
    );
    topology.signingSecret = String(integration.signing_secret);
    panelEmail = "dona@topologia.exemplo.com.br";
    const user = await cli("user", "create", "--account", accountId, "--email", panelEmail, "--name", "Dona");
    panelPassword = String(user.password);
    return `conta ${accountId}, número ${PHONE_NUMBER_ID}, chave, integração → receptor :${PORTS.receiver}, usuária do painel`;
  });

  await step("pods: sandbox, receptor, 2 API, 2 dispatchers, worker de campanhas, painel", async () => {
    service = apiService();
    await new Promise<void>((resolve) => service!.listen(SERVICE_PORT, "127.0.0.1", resolve));
    await play(
      "fakes.yaml",
      localFakes(topology, {
        META_APP_SECRET: SECRETS.META_APP_SECRET,
        META_ACCESS_TOKEN: SECRETS.META_ACCESS_TOKEN,
        SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${SERVICE_PORT}/provider/meta/webhook`,
        SANDBOX_WABA_ID: WABA_ID,
        SANDBOX_ENFORCE_WINDOW: "false",
        SANDBOX_WEBHOOK_RETRY_SCALE: "0.01",
      }),
    );
    const t0 = Date.now();
    await play("apps.yaml", [...localConfig(files, topology), ...localApps(files, topology)]);
    const probes = [
      ...apiPorts.map((port) => `http://127.0.0.1:${port}/readyz`),
      ...Array.from({ length: REPLICAS.dispatcher }, (_, i) => `http://127.0.0.1:${PORTS.dispatcher(i)}/readyz`),
      `http://127.0.0.1:${PORTS.campaignWorker(0)}/readyz`,
      `http://127.0.0.1:${PORTS.panel(0)}/healthz`,
      `http://127.0.0.1:${PORTS.receiver}/healthz`,
    ];
    for (const url of probes) await until(url, () => ok(url), 90_000);
    const names = await podman(
      "ps",
      "--filter",
      "name=^(api|dispatcher|campaign-worker|panel)-",
      "--format",
      "{{.Names}}",
    );
    const containers = names.split("\n").filter((n) => n && !n.endsWith("-infra"));
    for (const name of containers) {
      const uid = (await podman("exec", name, "id", "-u")).trim();
      const readOnly = (await podman("inspect", name, "--format", "{{.HostConfig.ReadonlyRootfs}}")).trim();
      if (uid !== "1000" || readOnly !== "true")
        throw new Error(`${name}: uid ${uid}, raiz somente leitura ${readOnly}`);
    }
    return `${probes.length} sondas prontas em ${((Date.now() - t0) / 1000).toFixed(1)} s; ${containers.length} contêineres como uid 1000 com raiz somente leitura`;
  });

  const everything: Sent[] = [];
  await step("o contato escreve primeiro (abre a janela de 24 h), pelo webhook da Meta", async () => {
    const inbound = await fetch(`http://127.0.0.1:${PORTS.sandbox}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: PHONE_NUMBER_ID,
        from: "5511987654321",
        name: "Maria",
        type: "text",
        text: "Oi!",
      }),
    });
    if (!inbound.ok) throw new Error(`sandbox: HTTP ${inbound.status} ${await inbound.text()}`);
    await until("a janela aberta", async () => {
      const response = await fetch(`http://127.0.0.1:${SERVICE_PORT}/public/v1/window/5511987654321`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const body = (await response.json()) as { data?: { open?: boolean } };
      return body.data?.open === true;
    });
    return "mensagem do contato recebida pela API (webhook assinado da Meta) e janela aberta";
  });

  await step("envios pelas duas APIs, status assinados no receptor", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => send(`envio ${i}`, [apiPorts[i % apiPorts.length] as number])),
    );
    const sends = answers.filter((sent): sent is Sent => sent !== null);
    if (sends.length !== 40) throw new Error(`${40 - sends.length} envios sem confirmação com todos os pods no ar`);
    everything.push(...sends);
    const perPod = apiPorts.map((port) => sends.filter((s) => s.via === port).length);
    const arrived = await statusesArrive(sends.map((s) => s.messageId));
    const meta = await sentToMeta(sends);
    expectDelivered("envios", sends, meta);
    return `40 envios 200 (${perPod.join(" + ")} por pod), ${meta.once} aceitos uma vez pela Meta, ${arrived.events} webhooks assinados (sent, delivered, read), ${arrived.twice} repetidos`;
  });

  await step("campanha pequena (30 destinatários, template)", async () => {
    const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const recipients = Array.from({ length: 30 }, (_, i) => ({
      to: `55119${String(70_000_000 + i)}`,
      variables: ["Cliente", String(i), "2"],
      header_text: String(i),
      client_ref: `topologia-${i}`,
    }));
    const created = await fetch(`http://127.0.0.1:${SERVICE_PORT}/public/v1/campaigns`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": `campaign-${process.pid}` },
      body: JSON.stringify({ name: "Topologia", template: "pedido_confirmado", language: "pt_BR", recipients }),
    });
    const campaign = (await created.json()) as { data?: { id: string; accepted_recipients: number } };
    if (created.status !== 201 || !campaign.data)
      throw new Error(`criação: HTTP ${created.status} ${JSON.stringify(campaign)}`);
    const { id, accepted_recipients } = campaign.data;
    const start = await fetch(`http://127.0.0.1:${SERVICE_PORT}/public/v1/campaigns/${id}/start`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": `campaign-start-${process.pid}` },
      body: JSON.stringify({ accepted_recipients }),
    });
    if (!start.ok) throw new Error(`início: HTTP ${start.status} ${await start.text()}`);
    const t0 = Date.now();
    const done = await until(
      "a campanha terminar",
      async () => {
        const response = await fetch(`http://127.0.0.1:${SERVICE_PORT}/public/v1/campaigns/${id}`, { headers });
        const body = (await response.json()) as { data?: { status: string; progress?: Record<string, number> } };
        return body.data?.status === "completed" ? body.data : undefined;
      },
      120_000,
    );
    const events = await until("os status da campanha no receptor", () => {
      const statuses = received().filter((e) => e.event.data.campaign_id === id && e.event.data.status === "read");
      return new Set(statuses.map((e) => e.event.data.message_id)).size >= accepted_recipients
        ? statuses.length
        : undefined;
    });
    return `${accepted_recipients} destinatários, completa em ${((Date.now() - t0) / 1000).toFixed(1)} s, progresso ${JSON.stringify(Object.fromEntries(Object.entries(done.progress ?? {}).filter(([, n]) => n > 0)))}, ${events} status read com campaign_id no receptor`;
  });

  await step("painel: entrar como a usuária criada", async () => {
    const base = `http://127.0.0.1:${PORTS.panel(0)}`;
    const page = await fetch(`${base}/entrar`);
    const html = await page.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    if (!csrf || !cookie) throw new Error("o formulário de entrada não trouxe o token CSRF");
    const signIn = await fetch(`${base}/entrar`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: base },
      body: new URLSearchParams({ email: panelEmail, password: panelPassword, _csrf: csrf }).toString(),
    });
    const session = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    if (signIn.status !== 303 || !session) throw new Error(`entrada: HTTP ${signIn.status} ${await signIn.text()}`);
    const home = await fetch(`${base}/`, { headers: { cookie: session } });
    const body = await home.text();
    if (home.status !== 200 || !body.includes("Sair")) throw new Error(`início do painel: HTTP ${home.status}`);
    return `GET /entrar 200 com token CSRF, POST /entrar 303 com cookie de sessão, GET / 200 com a conta aberta`;
  });

  await step("matar um pod da API e um dispatcher no meio de envios", async () => {
    const killed: string[] = [];
    const errorsBefore = serviceErrors;
    const unconfirmedBefore = unconfirmed.length;
    const sends = await load(
      "queda",
      60,
      () => [SERVICE_PORT],
      async () => {
        await podman("pod", "kill", `${replicaName("api", 0)}-pod-0`);
        await podman("pod", "kill", `${replicaName("dispatcher", 0)}-pod-0`);
        killed.push(replicaName("api", 0), replicaName("dispatcher", 0));
      },
    );
    everything.push(...sends);
    const arrived = await statusesArrive(
      sends.map((s) => s.messageId),
      150_000,
    );
    const meta = await sentToMeta(sends);
    expectDelivered("queda", sends, meta);
    // The Deployment controller's part: the killed pods come back.
    for (const name of killed) await podman("pod", "start", `${name}-pod-0`);
    await until("a API reiniciada", () => ok(`http://127.0.0.1:${PORTS.api(0)}/readyz`), 60_000);
    await until("o dispatcher reiniciado", () => ok(`http://127.0.0.1:${PORTS.dispatcher(0)}/readyz`), 60_000);
    const lost = unconfirmed.length - unconfirmedBefore;
    const reachedMeta = await unconfirmedAtMostOnce();
    return `SIGKILL em ${killed.join(" e ")}; ${sends.length} envios 200${lost > 0 ? ` e ${lost} "send_unconfirmed" (a requisição morreu com o pod depois de chamar a Meta; ${reachedMeta} chegaram a ela, uma vez cada, nenhuma reenviada)` : ", nenhum send_unconfirmed"}; ${serviceErrors - errorsBefore} tentativas repetidas com a mesma chave; ${meta.once} aceitos uma vez pela Meta (0 duas vezes), todos com os 3 status (${arrived.events} webhooks, ${arrived.twice} repetidos, deduplicados pelo receptor); pods de volta`;
  });

  await step("queda do Redis primário: o Sentinel promove a réplica", async () => {
    const before = (await sentinel!.call("SENTINEL", "get-master-addr-by-name", SENTINEL_MASTER)) as string[];
    const unconfirmedBefore = unconfirmed.length;
    let failoverSeconds = 0;
    let paused = false;
    let queuedAtFailover = { waiting: 0, delayed: 0, active: 0 };
    const errorsBefore = serviceErrors;
    const sends = await load(
      "failover",
      60,
      () => [SERVICE_PORT],
      async () => {
        // The integrator stops answering first, so deliveries wait in Redis (retries as delayed jobs, new ones
        // waiting behind the attempts that hang) when the primary goes: those are what a failover could lose.
        await podman("pod", "pause", "receiver-pod-0");
        paused = true;
        queuedAtFailover = await until(
          "entregas na fila do Redis",
          async () => {
            const jobs = await queueDepth();
            return jobs.delayed + jobs.waiting >= 10 ? jobs : undefined;
          },
          30_000,
        );
        const t0 = Date.now();
        await podman("pod", "stop", "--time", "1", "redis-primary-pod-0");
        await until(
          "a promoção da réplica",
          async () => {
            const now = (await sentinel!.call("SENTINEL", "get-master-addr-by-name", SENTINEL_MASTER)) as string[];
            return now[1] === String(PORTS.redisReplica);
          },
          60_000,
        );
        failoverSeconds = (Date.now() - t0) / 1000;
        await podman("pod", "unpause", "receiver-pod-0");
        paused = false;
      },
    ).finally(() => (paused ? podman("pod", "unpause", "receiver-pod-0") : undefined));
    everything.push(...sends);
    if (unconfirmed.length > unconfirmedBefore) {
      throw new Error(`${unconfirmed.length - unconfirmedBefore} envios sem confirmação na queda do Redis`);
    }
    const arrived = await statusesArrive(
      sends.map((s) => s.messageId),
      150_000,
    );
    const meta = await sentToMeta(sends);
    expectDelivered("failover", sends, meta);
    const after = (await sentinel!.call("SENTINEL", "get-master-addr-by-name", SENTINEL_MASTER)) as string[];
    const probes = [
      ...apiPorts.map((port) => `http://127.0.0.1:${port}/readyz`),
      ...Array.from({ length: REPLICAS.dispatcher }, (_, i) => `http://127.0.0.1:${PORTS.dispatcher(i)}/readyz`),
      `http://127.0.0.1:${PORTS.campaignWorker(0)}/readyz`,
    ];
    for (const url of probes) await until(`${url} depois do failover`, () => ok(url), 30_000);
    return `receptor pausado até haver ${queuedAtFailover.waiting + queuedAtFailover.delayed + queuedAtFailover.active} entregas na fila do Redis (${queuedAtFailover.delayed} atrasadas, ${queuedAtFailover.waiting} esperando, ${queuedAtFailover.active} ativas); primário :${before[1]} parado, :${after[1]} promovido em ${failoverSeconds.toFixed(1)} s; ${sends.length} envios 200 (${serviceErrors - errorsBefore} respostas 503/erros repetidas com a mesma chave), ${meta.once} aceitos uma vez, todos com os 3 status (${arrived.events} webhooks); todas as sondas prontas de novo`;
  });

  await step("tudo pelo PgBouncer em modo transação, com prepared statements nomeados", async () => {
    const admin = createSqlPool({
      url: `postgresql://gateway:${PASSWORD}@127.0.0.1:${PORTS.pgbouncer}/pgbouncer`,
      max: 1,
      connectionTimeoutMs: 2_000,
    });
    pools.push(admin);
    // Without parameters pg uses the simple query protocol, the only one the admin console speaks.
    const show = async (what: string) => (await admin.query<Record<string, unknown>>(`SHOW ${what}`)).rows;
    const config = await show("CONFIG");
    const setting = (key: string) => String(config.find((row) => row.key === key)?.value);
    const stats = (await show("STATS")).find((row) => row.database === "gateway") ?? {};
    const pools_ = (await show("POOLS")).find((row) => row.database === "gateway") ?? {};
    const parses = Number(stats.total_client_parse_count ?? 0);
    const serverParses = Number(stats.total_server_parse_count ?? 0);
    const binds = Number(stats.total_bind_count ?? 0);
    if (setting("pool_mode") !== "transaction") throw new Error(`pool_mode ${setting("pool_mode")}`);
    if (!(parses > 0 && binds > parses))
      throw new Error(`sem prepared statements pelo PgBouncer (parse ${parses}, bind ${binds})`);
    // Who holds PostgreSQL connections: PgBouncer's server connections (known by their local ports), and the LISTEN
    // sessions straight to PostgreSQL, one per pod that follows NOTIFY (API, campaign worker), named gateway-listen.
    const pgbouncerPorts = new Set((await show("SERVERS")).map((row) => Number(row.local_port)));
    const { rows: sessions } = await direct!.query<{
      client_port: number;
      application_name: string;
      query: string;
      backend_start: string;
    }>(
      `SELECT client_port, application_name, query, backend_start::text
         FROM pg_stat_activity WHERE datname = 'gateway' AND pid <> pg_backend_pid()`,
    );
    const listening = sessions.filter((row) => /^LISTEN/i.test(row.query));
    const directListen = listening.filter((row) => !pgbouncerPorts.has(row.client_port));
    const pooledListen = listening.length - directListen.length;
    const dispatcherPool = createSqlPool({ url: SECRETS.DISPATCHER_DATABASE_URL, max: 1, connectionTimeoutMs: 2_000 });
    pools.push(dispatcherPool);
    const commit = (await dispatcherPool.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0];
    if (commit?.synchronous_commit !== "off")
      throw new Error("a entrada do dispatcher no PgBouncer não desliga synchronous_commit");
    const expected = REPLICAS.api + REPLICAS["campaign-worker"];
    const named = directListen.filter((row) => row.application_name === "gateway-listen").length;
    if (directListen.length !== expected || named !== expected || pooledListen > 0) {
      const seen = listening.map(
        (row) =>
          `${row.application_name || "?"} :${row.client_port}${pgbouncerPorts.has(row.client_port) ? " (PgBouncer)" : ""} desde ${row.backend_start}`,
      );
      throw new Error(
        `${directListen.length} conexões LISTEN diretas (${named} gateway-listen) e ${pooledListen} pelo PgBouncer, esperado ${expected} diretas (uma por API e por worker de campanhas): ${seen.join("; ")}`,
      );
    }
    return `pool_mode=transaction, max_prepared_statements=${setting("max_prepared_statements")}; ${parses} Parse de clientes → ${serverParses} no servidor, ${binds} Bind; ${Number(pools_.sv_active ?? 0)}+${Number(pools_.sv_idle ?? 0)} conexões de servidor; no PostgreSQL ${sessions.length} sessões, ${directListen.length} delas LISTEN diretas (gateway-listen, uma por API e por worker de campanhas, nenhuma dos pods mortos), 0 LISTEN pelo PgBouncer; entrada do dispatcher com synchronous_commit=off`;
  });

  await step("revogação de chave: NOTIFY pela conexão direta chega às duas APIs", async () => {
    const t0 = Date.now();
    await cli("key", "revoke", "--id", keyId);
    for (const port of apiPorts) {
      await until(
        `a API :${port} recusar a chave revogada`,
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/public/v1/messages`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${apiKey}`,
              "content-type": "application/json",
              "idempotency-key": `revoked-${port}`,
            },
            body: JSON.stringify({ to: "+55 11 98765-4321", text: "revogada" }),
          });
          await response.arrayBuffer();
          return response.status === 401;
        },
        15_000,
      );
    }
    return `401 nas ${apiPorts.length} APIs em ${((Date.now() - t0) / 1000).toFixed(1)} s (cache de chaves de 60 s: só o NOTIFY explica)`;
  });

  await step("nada perdido, nada em dobro (todos os envios do teste)", async () => {
    const meta = await sentToMeta(everything);
    expectDelivered("total", everything, meta);
    const events = received();
    const ours = new Set(everything.map((s) => s.messageId));
    const statuses = events.filter((e) => e.event.data.message_id && ours.has(e.event.data.message_id));
    const distinct = new Set(statuses.map((e) => `${e.event.data.message_id}/${e.event.data.status}`));
    if (distinct.size !== everything.length * 3)
      throw new Error(`${distinct.size} status distintos, esperado ${everything.length * 3}`);
    const { rows } = await direct!.query<{ status: string; count: number }>(
      `SELECT status::text, count(*)::int AS count FROM deliveries GROUP BY status ORDER BY status`,
    );
    const pending = rows.filter((r) => r.status !== "delivered").reduce((a, r) => a + r.count, 0);
    if (pending > 0) throw new Error(`entregas não entregues: ${JSON.stringify(rows)}`);
    return `${everything.length} envios aceitos, cada um uma vez na Meta; ${distinct.size} status distintos no receptor (${statuses.length - distinct.size} repetições deduplicadas); entregas ${JSON.stringify(Object.fromEntries(rows.map((r) => [r.status, r.count])))}`;
  });
}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  log(`FALHOU: ${error instanceof Error ? error.message : String(error)}`);
  appendFileSync(
    join(WORK, "error.txt"),
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
} finally {
  await saveLogs().catch(() => undefined);
  service?.close();
  for (const pool of pools) await pool.end().catch(() => undefined);
  for (const client of redisClients) client.disconnect();
  if (process.env.GW_DEPLOY_KEEP !== "1") {
    for (const file of playedFiles.reverse()) await podman("kube", "down", file).catch(() => undefined);
    await removeEverything().catch(() => undefined);
  }
}
const passed = printReport() && !failed;
process.exit(passed ? 0 : 1);
