// Support for the panel services' tests: the provider sandbox posting its signed webhooks to a loopback endpoint
// that checks the signature and hands the raw body to ingestProviderWebhook, as apps/api's provider route does.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { Db } from "@gw/db";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { verifyMetaSignature } from "@gw/signer";
import { silentLogger } from "@gw/testkit";
import { createAccountDirectory } from "../src/accounts/index.ts";
import { ingestProviderWebhook, type IngestDeps, type IngestResult } from "../src/ingest/index.ts";

const APP_SECRET = "panel-services-app-secret";

export interface IngestingSandbox {
  sandbox: RunningSandbox;
  deps: IngestDeps;
  /** What each webhook's ingestion returned, in arrival order. */
  results: IngestResult[];
  close(): Promise<void>;
}

export async function startIngestingSandbox(db: Db, options: { accessToken?: string } = {}): Promise<IngestingSandbox> {
  const deps: IngestDeps = {
    db,
    // No integration of these accounts is subscribed: nothing is queued.
    outbox: { dispatch: () => Promise.resolve() },
    logger: silentLogger,
    directory: createAccountDirectory(db),
  };
  const results: IngestResult[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      if (!verifyMetaSignature(APP_SECRET, raw, req.headers["x-hub-signature-256"] as string | undefined)) {
        res.writeHead(401).end();
        return;
      }
      ingestProviderWebhook(deps, raw.toString("utf8")).then(
        (result) => {
          results.push(result);
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
        },
        () => res.writeHead(503).end(),
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const sandbox = await startSandbox({
    appSecret: APP_SECRET,
    ...(options.accessToken ? { accessToken: options.accessToken } : {}),
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/provider/meta/webhook`,
    // Each control call's webhook is ingested before the call answers; a refusal is a test failure, not a retry.
    webhookRetries: false,
    autoStatuses: false,
    logger: silentLogger,
  });
  return {
    sandbox,
    deps,
    results,
    async close() {
      await sandbox.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Calls the sandbox's control API; throws on anything but 2xx. */
export async function control<T = Record<string, unknown>>(
  sandbox: RunningSandbox,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${sandbox.url}/_sandbox${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`sandbox ${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Digits unique to this run, for ids other test files must not share (WABAs, phone number ids). */
export function uniqueDigits(length: number): string {
  const digits = BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString()
    .padStart(length, "7");
  return `9${digits.slice(-(length - 1))}`;
}

/** An account with business numbers in one WABA and panel users (their password hash is not used here). */
export async function createPanelAccount(
  db: Db,
  options: { numbers: number; users: number },
): Promise<{ accountId: string; wabaId: string; phoneNumberIds: string[]; userIds: string[] }> {
  const account = await db.account.create({ data: { name: `Conta painel ${randomBytes(3).toString("hex")}` } });
  const wabaId = uniqueDigits(15);
  const phoneNumberIds: string[] = [];
  for (let i = 0; i < options.numbers; i++) {
    const phoneNumberId = uniqueDigits(15);
    await db.businessNumber.create({
      data: {
        accountId: account.id,
        phoneNumberId,
        wabaId,
        displayNumber: `+55 11 4000-000${i}`,
        isDefault: i === 0,
      },
    });
    phoneNumberIds.push(phoneNumberId);
  }
  const userIds: string[] = [];
  for (let i = 0; i < options.users; i++) {
    const user = await db.panelUser.create({
      data: {
        accountId: account.id,
        email: `u${i}.${randomBytes(4).toString("hex")}@exemplo.com.br`,
        name: `Usuária ${i}`,
        role: i === 0 ? "owner" : "viewer",
        passwordHash: "not-used",
      },
    });
    userIds.push(user.id);
  }
  return { accountId: account.id, wabaId, phoneNumberIds, userIds };
}
