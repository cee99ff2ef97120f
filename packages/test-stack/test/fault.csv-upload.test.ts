// CSV uploads made to hurt, against one API process run as the image runs it (docker/Dockerfile: the bundle, with a
// 128 MB V8 old space, so a parse that keeps millions of records kills the pod): a 2 MB file of a million one-digit
// rows, and a single line of 32 million commas (sent without a length, so the API must read it, and with its
// length). Each is refused with the contract's envelope while the API goes on answering /readyz, and nothing is
// created. Then a real file at the limits (100 000 rows with their variables) and a small one still make their
// campaigns in the same process. On the code before the streaming parser, the 2 MB file ended the process
// ("JavaScript heap out of memory"), and so did the real 100 000 rows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { applyMigrations } from "@gw/db";
import { REPO_ROOT, createTempDatabase, freePort, testEnv } from "@gw/testkit";
import {
  bundleOf,
  kill,
  seedAccount,
  startApi,
  startSandboxProcess,
  tail,
  type ProcessAccount,
  type RunningApp,
} from "../src/index.ts";

/**
 * The API as the image runs it (its CMD in docker/Dockerfile): the run's bundle of these sources (which every
 * spawned app runs), with the node flags of the CMD.
 */
function productionApi(): { nodeArgs: string[] } {
  const dockerfile = readFileSync(join(REPO_ROOT, "docker/Dockerfile"), "utf8");
  const cmd = /CMD \["node", (.*), "(dist\/api\/main\.mjs)"\]/.exec(dockerfile);
  if (!cmd?.[1] || cmd[2] !== bundleOf("api")) throw new Error("docker/Dockerfile sem o CMD da API");
  return { nodeArgs: JSON.parse(`[${cmd[1]}]`) as string[] };
}

let database: Awaited<ReturnType<typeof createTempDatabase>> | undefined;
let account: ProcessAccount;
let sandbox: RunningApp;
let api: RunningApp;

async function adminQuery<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
let databaseUrl: string;

beforeAll(async () => {
  const env = testEnv();
  // A database of its own, migrated: a copy of the run's template when there is one.
  const template = process.env.GW_TEMPLATE_DATABASE;
  database = await createTempDatabase(template ? { template } : {});
  databaseUrl = database.url;
  if (!template) await applyMigrations(databaseUrl);
  account = await seedAccount(databaseUrl);
  const port = await freePort();
  sandbox = await startSandboxProcess("sandbox", {
    webhookUrl: `http://127.0.0.1:${port}/provider/meta/webhook`,
    wabaId: account.wabaId,
    env: { SANDBOX_AUTO_STATUSES: "false" },
  });
  api = await startApi(
    "api",
    { databaseUrl, redisUrl: env.redisUrl, redisPrefix: env.redisPrefix },
    { port, metaBaseUrl: sandbox.url, ...productionApi() },
  );
}, 120_000);

afterAll(async () => {
  for (const app of [api, sandbox]) if (app) await kill(app);
  await database?.drop();
});

/**
 * Polls GET /readyz one call after the other while `body` runs: every call must answer (200), and some must fall
 * inside the upload. A call is given 10 s, far above anything but a process that stopped serving.
 */
async function whileProbing<T>(body: () => Promise<T>): Promise<{ result: T; answers: (number | string)[] }> {
  const answers: (number | string)[] = [];
  let running = true;
  const poller = (async () => {
    while (running) {
      try {
        const res = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        answers.push(res.status);
      } catch (error) {
        answers.push(String((error as Error).cause ?? error));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { result: await body(), answers };
  } finally {
    running = false;
    await poller;
  }
}

interface Answer {
  status: number;
  body: unknown;
}

const CREATE = "/public/v1/campaigns?name=Ataque&template=pedido_confirmado&language=pt_BR";

async function uploadCsv(body: Buffer | ReadableStream<Uint8Array>): Promise<Answer> {
  const res = await fetch(`${api.url}${CREATE}`, {
    method: "POST",
    headers: { ...account.auth, "content-type": "text/csv" },
    body,
    // A stream is sent as it is read (chunked): undici needs to be told so.
    ...(body instanceof Buffer ? {} : { duplex: "half" as const }),
  }).catch((error: unknown) => {
    // A connection the API dropped: show why (its last lines say "JavaScript heap out of memory" when the file killed it).
    throw new Error(`o upload falhou (${String((error as Error).cause ?? error)}):\n${tail(api)}`);
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as unknown };
}

/** `total` bytes of `unit` repeated, in pieces of 1 MiB, with no Content-Length (chunked). */
function chunked(head: string, unit: string, total: number): ReadableStream<Uint8Array> {
  const piece = Buffer.from(unit.repeat(1024 * 1024));
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === 0 && head) controller.enqueue(Buffer.from(head));
      if (sent >= total) return controller.close();
      const next = piece.subarray(0, Math.min(piece.length, total - sent));
      sent += next.length;
      controller.enqueue(next);
    },
  });
}

async function campaignCount(): Promise<number> {
  const rows = await adminQuery<{ n: number }>(
    databaseUrl,
    "SELECT count(*)::int AS n FROM campaigns WHERE account_id = $1",
    [account.accountId],
  );
  return rows[0]?.n ?? -1;
}

function expectAlive(): void {
  const { exitCode, signalCode } = api.process.child;
  if (exitCode !== null || signalCode !== null)
    throw new Error(`a API terminou (código ${exitCode}, sinal ${signalCode}):\n${tail(api)}`);
}

/** The refusal of a file as a whole: HTTPValidationError with one item on the body (the contract's 422). */
function fileRefusal(type: string) {
  return {
    detail: [expect.objectContaining({ loc: ["body"], type, msg: expect.stringMatching(/^[A-ZÀ-Ú].*[.!?]$/u) })],
  };
}

describe("hostile CSV uploads against the API under its production V8 flags", () => {
  it("a 2 MB CSV of a million one-digit rows is refused at row 100 001 (422 too_long); readyz answers all along", async () => {
    const csv = Buffer.from("to\n" + "1\n".repeat(1_000_000));
    const { result, answers } = await whileProbing(() => uploadCsv(csv));
    expectAlive();
    expect(result).toEqual({ status: 422, body: fileRefusal("too_long") });
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a !== 200)).toEqual([]);
    expect(await campaignCount()).toBe(0);
  }, 120_000);

  it("a 32 MB line of commas sent without a length is refused at its 65th field (422 csv_invalid), not read to its end", async () => {
    for (const head of ["", "to\n"]) {
      const { result, answers } = await whileProbing(() => uploadCsv(chunked(head, ",", 32 * 1024 * 1024)));
      expectAlive();
      expect({ head, ...result }).toEqual({ head, status: 422, body: fileRefusal("csv_invalid") });
      expect((result.body as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(/mais de 64 campos/);
      expect(answers.filter((a) => a !== 200)).toEqual([]);
    }
    expect(await campaignCount()).toBe(0);
  }, 120_000);

  it("the same 32 MB with its Content-Length is 413 payload_too_large before it is read", async () => {
    const { result, answers } = await whileProbing(() => uploadCsv(Buffer.from("to\n" + ",".repeat(32 * 1024 * 1024))));
    expectAlive();
    expect(result).toEqual({
      status: 413,
      body: { success: false, error: { code: "payload_too_large", message: expect.stringMatching(/20 MiB/) } },
    });
    expect(answers.filter((a) => a !== 200)).toEqual([]);
    expect(await campaignCount()).toBe(0);
  }, 120_000);

  it("a real file at the limits (100 000 rows with their variables, 17.5 MB) is taken whole by the same process", async () => {
    const ref = "pedido-".padEnd(59, "x");
    const rows = Array.from({ length: 100_000 }, (_, i) => {
      const digits = String(60_000_000 + i);
      return `"+55 (11) 9${digits.slice(0, 4)}-${digits.slice(4)}",Maria Aparecida da Conceição Souza,PED-2026-${digits},"R$ 1.234,56",PED-2026-${digits},${ref}${String(i).padStart(5, "0")}`;
    });
    const csv = Buffer.from(
      ["to,variable_1,variable_2,variable_3,header_text,client_ref", ...rows].join("\r\n") + "\r\n",
    );
    const started = Date.now();
    const { result, answers } = await whileProbing(() => uploadCsv(csv));
    console.log(
      `100 000 real rows (${(csv.length / 1e6).toFixed(1)} MB): ${result.status} in ${Date.now() - started} ms; ` +
        `readyz: ${answers.filter((a) => a === 200).length}×200 of ${answers.length}`,
    );
    expectAlive();
    expect(result).toMatchObject({
      status: 201,
      body: { data: { total_rows: 100_000, accepted_recipients: 100_000 } },
    });
    // The process served every probe; while 100 000 rows are inserted, PostgreSQL may miss readyz's 2 s ping (503).
    expect(answers.filter((a) => typeof a !== "number")).toEqual([]);
  }, 300_000);

  it("afterwards the same process still creates a campaign from a real CSV", async () => {
    const csv = "to;variable_1;variable_2;variable_3;header_text;client_ref\r\n5511987650001;Maria;100;3;100;ok-1\r\n";
    const result = await uploadCsv(Buffer.from(csv));
    expect(result).toMatchObject({ status: 201, body: { success: true, data: { accepted_recipients: 1 } } });
    expect(await campaignCount()).toBe(2);
    expectAlive();
  }, 60_000);
});
