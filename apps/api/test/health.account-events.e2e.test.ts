// Account and number health through the API (issue 18 §4): Meta's webhooks come from the provider sandbox to the
// API's provider route, and the public send sees their effects at once, though the API trusts a number for a
// minute: a throughput upgrade raises the number's pacing rate, a ban refuses sends before the provider
// (account_disabled) until a reinstatement, and a template's category change is read by the next catalogue lookup.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

const HELLO = { template: "hello_world", language: "en_US" } as const;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    // A number, and a catalogue, are trusted for a minute: sooner means the change was announced.
    env: { API_RATE_LIMIT_POINTS: "10000", NUMBER_CACHE_TTL_MS: "60000", TEMPLATE_CACHE_TTL_SECONDS: "60" },
  });
});

afterAll(async () => {
  await gateway.close();
});

/** A recipient of its own per send (the pair limit is not what these tests look at). */
const recipient = (i: number) => `551198765${String(i).padStart(4, "0")}`;

async function sandbox<T>(path: string, body: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${gateway.sandbox.url}/_sandbox${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A fresh account whose number the sandbox displays as the gateway registered it (+55 11 4000-0000). */
async function account(): Promise<TestAccount> {
  const created = await createTestAccount(gateway.db);
  await sandbox("/numbers", { phone_number_id: created.phoneNumberId, display_phone_number: "+55 11 4000-0000" });
  return created;
}

function send(acc: TestAccount, to: string, key?: string): request.Test {
  const req = request(gateway.app).post("/public/v1/messages").set(acc.auth);
  if (key) req.set("Idempotency-Key", key);
  return req.send({ to, ...HELLO });
}

describe("account and number health, seen by the public API", () => {
  it("a tier upgrade raises the pacing rate: at 1/s a burst is refused, after THROUGHPUT_UPGRADE a burst of 20 all go", async () => {
    const acc = await account();
    await gateway.db.businessNumber.update({
      where: { phoneNumberId: acc.phoneNumberId },
      data: { messagingRatePerSecond: 1 },
    });
    // Three at once at 1/s: the turns are 1.1 s apart and a send waits at most 1 s for its turn, so at least the
    // third is refused (however slow this machine answers the first).
    const paced = await Promise.all([1, 2, 3].map((i) => send(acc, recipient(i))));
    expect(paced.map((res) => res.status)).toContain(200);
    expect(paced.filter((res) => res.status === 429).map((res) => res.body.error.code)).toContain("rate_limited");

    const upgrade = await sandbox<{ webhook_status: number }>("/numbers/quality-update", {
      phone_number_id: acc.phoneNumberId,
      waba_id: acc.wabaId,
      event: "THROUGHPUT_UPGRADE",
    });
    expect(upgrade.webhook_status).toBe(200);
    await eventually(
      async () => (await gateway.deps.directory.resolveNumber(acc.accountId))?.messagingRatePerSecond === 1000,
      { timeoutMs: 3_000, what: "a vazão de 1000/s no diretório da API" },
    );
    // The turns taken at 1/s (at most two, 1.1 s apart) have passed: what follows is paced at the new rate only.
    await new Promise((resolve) => setTimeout(resolve, 2_400));
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => send(acc, recipient(100 + i))));
    expect(burst.map((res) => res.status)).toEqual(Array.from({ length: 20 }, () => 200));
    // At 1/s these would have needed 20 s; at 1,000/s the turns take 22 ms.
    expect(Date.now() - started).toBeLessThan(5_000);
    const number = await gateway.db.businessNumber.findUniqueOrThrow({ where: { phoneNumberId: acc.phoneNumberId } });
    expect(number.messagingRatePerSecond).toBe(1000);
  });

  it("a ban refuses sends at once with account_disabled before the provider; the key is freed and sends again after the reinstatement", async () => {
    const acc = await account();
    // The API resolves (and caches) the number.
    expect((await send(acc, recipient(200))).status).toBe(200);

    const ban = await sandbox<{ webhook_status: number }>("/account-update", {
      waba_id: acc.wabaId,
      event: "DISABLED_UPDATE",
    });
    expect(ban.webhook_status).toBe(200);
    await eventually(async () => (await send(acc, recipient(201))).status === 422, {
      timeoutMs: 3_000,
      what: "o bloqueio na API",
    });
    const before = (await sandboxControl.sent(gateway)).length;
    const refused = await send(acc, recipient(202), "chave-do-bloqueio");
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: "account_disabled",
        message: expect.stringContaining(`Os envios da conta WhatsApp Business ${acc.wabaId} estão bloqueados desde `),
      },
    });
    expect(refused.body.error.message).toContain(`a Meta desativou a conta WhatsApp Business ${acc.wabaId}`);
    expect((await sandboxControl.sent(gateway)).length).toBe(before);

    const reinstate = await sandbox<{ webhook_status: number }>("/account-update", {
      waba_id: acc.wabaId,
      event: "DISABLED_UPDATE",
      ban_info: { waba_ban_state: "REINSTATE", waba_ban_date: "November 20, 2026" },
    });
    expect(reinstate.webhook_status).toBe(200);
    await eventually(async () => (await gateway.deps.directory.resolveNumber(acc.accountId))?.sendingBlock === null, {
      timeoutMs: 3_000,
      what: "o fim do bloqueio na API",
    });
    // The refusal kept nothing of the key: the same key now sends.
    const again = await send(acc, recipient(202), "chave-do-bloqueio");
    expect(again.status).toBe(200);
    expect((await sandboxControl.sent(gateway)).length).toBe(before + 1);
  });

  it("a template's category change is read by the next catalogue lookup, not after the cache's minute", async () => {
    const acc = await account();
    const category = async () => {
      const res = await request(gateway.app).get("/public/v1/templates?status=ALL").set(acc.auth);
      const templates = res.body.data.templates as { name: string; category: string }[];
      return templates.find((t) => t.name === "hello_world")?.category;
    };
    expect(await category()).toBe("UTILITY");
    const changed = await sandbox<{ webhook_status: number }>("/templates/category", {
      waba_id: acc.wabaId,
      name: "hello_world",
      category: "MARKETING",
    });
    expect(changed.webhook_status).toBe(200);
    expect(await category()).toBe("MARKETING");
  });
});
