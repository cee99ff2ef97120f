// Helpers of the campaign worker's tests (not a test file itself).
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { buildApiDeps, closeApiDeps, createApp, loadApiConfig } from "@gw/api";
import { addBusinessNumber, createAccountDirectory } from "@gw/core/accounts";
import { createCampaign, startCampaign, type CampaignDetail } from "@gw/core/campaigns";
import { ACCESS_TOKEN, APP_SECRET, type CampaignStack } from "@gw/test-stack";
import { silentLogger, testActor } from "@gw/testkit";
import { loadCampaignWorkerConfig, type CampaignWorkerConfig } from "../src/config.ts";

export const WABA_ID = "102290129340398";

/** The campaign stack (@gw/test-stack's startCampaignStack) the helpers below work on. */
export type Stack = CampaignStack;

/** A business number of the stack's account with the given messaging rate. */
export async function addNumber(stack: Stack, ratePerSecond: number): Promise<string> {
  const phoneNumberId = `1${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  await addBusinessNumber(
    { db: stack.db },
    { actor: testActor, accountId: stack.accountId, phoneNumberId, wabaId: WABA_ID, displayNumber: "+55 11 4000-0000" },
  );
  await stack.db.businessNumber.update({ where: { phoneNumberId }, data: { messagingRatePerSecond: ratePerSecond } });
  return phoneNumberId;
}

/** A recipient row of the sandbox's pedido_confirmado (a header variable and three body variables). */
export interface Row {
  to: string;
  variables: string[];
  header_text: string;
  client_ref: string;
}

/** `count` distinct valid mobile numbers, each with the variables of the sandbox's pedido_confirmado. */
export function recipients(count: number, offset = 0): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    to: `55119${String(60_000_000 + offset + i)}`,
    variables: ["Cliente", String(offset + i), "2"],
    header_text: String(offset + i),
    client_ref: `ref-${offset + i}`,
  }));
}

/** A campaign of pedido_confirmado from `phoneNumberId`, started (running); its id. */
export async function startedCampaign(stack: Stack, phoneNumberId: string, rows: readonly Row[]): Promise<string> {
  return (await startedCampaignDetail(stack, phoneNumberId, rows)).id;
}

/** As startedCampaign, with what creating it answered (its accepted and rejected rows). */
export async function startedCampaignDetail(
  stack: Stack,
  phoneNumberId: string,
  rows: readonly Row[],
): Promise<CampaignDetail> {
  const who = { accountId: stack.accountId, actor: { id: "test", origin: "api" as const } };
  const campaign = await createCampaign(
    { db: stack.db, directory: createAccountDirectory(stack.db), templates: stack.templates },
    {
      ...who,
      name: "Campanha de teste",
      template: "pedido_confirmado",
      language: "pt_BR",
      phoneNumberId,
      recipients: { kind: "list", rows },
    },
  );
  await startCampaign(
    { db: stack.db, logger: silentLogger },
    { ...who, campaignId: campaign.id, acceptedRecipients: campaign.accepted_recipients },
  );
  return campaign;
}

/** The worker's environment for this stack: fast sweeps and short bounds (each can be overridden). */
export function workerSettings(stack: Stack, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: stack.databaseUrl,
    DATABASE_POOL_SIZE: "10",
    REDIS_URL: stack.redisUrl,
    REDIS_KEY_PREFIX: stack.prefix,
    META_BASE_URL: stack.sandboxUrl,
    META_ACCESS_TOKEN: ACCESS_TOKEN,
    META_TIMEOUT_MS: "2000",
    CAMPAIGN_WORKER_HOST: "127.0.0.1",
    CAMPAIGN_WORKER_PORT: "0",
    CAMPAIGN_SWEEP_INTERVAL_MS: "300",
    CAMPAIGN_TICK_BUDGET_MS: "3000",
    CAMPAIGN_TURN_MAX_WAIT_MS: "2000",
    CAMPAIGN_REDRIVE_AFTER_MS: "9000",
    CAMPAIGN_LOCK_DURATION_MS: "3000",
    CAMPAIGN_STALLED_INTERVAL_MS: "1000",
    THROUGHPUT_COOLDOWN_MS: "1000",
    THROUGHPUT_PAIR_SPACING_MS: "1500",
    LOG_LEVEL: "warn",
    ...overrides,
  };
}

export function workerConfig(stack: Stack, overrides: Record<string, string> = {}): CampaignWorkerConfig {
  return loadCampaignWorkerConfig(workerSettings(stack, overrides));
}

export interface SandboxSend {
  phone_number_id: string;
  wamid: string;
  /** The request's phone; null for a send addressed by `recipient` (a BSUID). */
  to: string | null;
  recipient: string | null;
  at: string;
}

/** Whom a send addressed: its phone, or its BSUID when it went by `recipient`. */
export function addressee(send: SandboxSend): string {
  return send.to ?? send.recipient ?? "";
}

/** What the sandbox accepted (its /_sandbox/sent), over HTTP as any client would read it. */
export async function sandboxSends(stack: Stack, phoneNumberId?: string): Promise<SandboxSend[]> {
  const sent = (await (await fetch(`${stack.sandboxUrl}/_sandbox/sent`)).json()) as SandboxSend[];
  return phoneNumberId ? sent.filter((s) => s.phone_number_id === phoneNumberId) : sent;
}

export interface SandboxRequest {
  method: string;
  path: string;
  status: number | null;
  at: string;
}

export async function sandboxRequests(stack: Stack, phoneNumberId: string): Promise<SandboxRequest[]> {
  const requests = (await (await fetch(`${stack.sandboxUrl}/_sandbox/requests`)).json()) as SandboxRequest[];
  return requests.filter((r) => r.method === "POST" && r.path.includes(`/${phoneNumberId}/messages`));
}

/**
 * The most sends the provider saw in any PACING_WINDOW_MS, and what a number's rate allows there. The turns are spaced
 * exactly by the number's GCRA; their arrival at the sandbox adds the event loop's and the socket's jitter, which is a
 * time (a few hundred ms on a loaded machine: 23 in one second at 20/s was seen with three jest workers), not a share
 * of the rate. Over three seconds 10 % covers 300 ms of it, while a pacing fault (two processes each at the rate, a
 * burst after a flush) still shows as about twice the allowance.
 */
export const PACING_WINDOW_MS = 3_000;

export function pacing(times: readonly number[], ratePerSecond: number): { busiest: number; allowed: number } {
  return {
    busiest: busiestWindow(times, PACING_WINDOW_MS),
    allowed: Math.ceil(((ratePerSecond * PACING_WINDOW_MS) / 1_000) * 1.1),
  };
}

/** The most sends inside any window of `windowMs` (sliding, half-open, as the sandbox's own rate limit counts). */
function busiestWindow(times: readonly number[], windowMs = 1_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

export async function recipientStatuses(stack: Stack, campaignId: string): Promise<Record<string, number>> {
  const { rows } = await stack.db.sql.query<{ status: string; count: number }>(
    `SELECT status, count(*)::int AS count FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`,
    [campaignId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.count]));
}

/** The recipients not `sent`, with why: an assertion on it says what went wrong when it fails. */
export async function unsentRecipients(
  stack: Stack,
  campaignId: string,
): Promise<{ status: string; error_code: string | null; attempts: number }[]> {
  const { rows } = await stack.db.sql.query<{ status: string; error_code: string | null; attempts: number }>(
    `SELECT status, error_code, attempts FROM campaign_recipients WHERE campaign_id = $1 AND status <> 'sent' ORDER BY id`,
    [campaignId],
  );
  return rows;
}

export async function campaignStatus(stack: Stack, campaignId: string): Promise<string | undefined> {
  const { rows } = await stack.db.sql.query<{ status: string }>(`SELECT status FROM campaigns WHERE id = $1`, [
    campaignId,
  ]);
  return rows[0]?.status;
}

/** POSTs `body` to the sandbox's control endpoint `/_sandbox/{path}` (config, faults). */
export function sandboxControl(stack: Stack, path: string, body: unknown): Promise<Response> {
  return fetch(`${stack.sandboxUrl}/_sandbox/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * An API in this process on the stack, where the sandbox posts Meta's statuses (a send no worker recorded is
 * recorded from them). `close` stops it.
 */
export async function startStatusApi(stack: Stack): Promise<{ close(): Promise<void> }> {
  const api = buildApiDeps(
    loadApiConfig({
      DATABASE_URL: stack.databaseUrl,
      DATABASE_POOL_SIZE: "4",
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.prefix,
      META_BASE_URL: stack.sandboxUrl,
      META_ACCESS_TOKEN: ACCESS_TOKEN,
      META_APP_SECRET: APP_SECRET,
      META_VERIFY_TOKEN: "test-verify-token",
    }),
    silentLogger,
  );
  const app = createApp(api);
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  await sandboxControl(stack, "config", {
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/provider/meta/webhook`,
  });
  return {
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await closeApiDeps(api);
    },
  };
}
