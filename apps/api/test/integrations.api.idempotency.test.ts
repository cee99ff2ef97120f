// Issue 35, item 2: POST /public/v1/integrations takes an Idempotency-Key, as the sends do. A client that lost the 201
// repeats with the key and gets the same answer, its signing secret included, for the key's lifetime; without the key
// it gets `url_taken`. Another body with the key is `idempotency_conflict`; a repeat while the first call runs is
// `idempotency_in_flight` with Retry-After. The key's row never holds the secret in clear.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { revealIntegrationSecret } from "@gw/core/accounts";
import { eventually, testActor, testSecretBox } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { buildOpenApiDocument } from "../src/openapi.ts";

interface Created {
  data: { id: string; url: string; signing_secret: string; created_at: string };
}

describe("POST /public/v1/integrations with an Idempotency-Key", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  const url = (name: string) => `https://${name}-${randomUUID()}.example.com.br/webhooks`;
  const create = (body: Record<string, unknown>, key?: string) => {
    const req = request(gateway.app).post("/public/v1/integrations").set(account.auth);
    return (key === undefined ? req : req.set("Idempotency-Key", key)).send(body);
  };
  const keyRow = (key: string) =>
    gateway.db.idempotencyKey.findUnique({ where: { accountId_key: { accountId: account.accountId, key } } });

  it("answers a repeat with the same key and body with the first 201, secret included, and creates one integration", async () => {
    const key = randomUUID();
    const body = { url: url("repetida"), events: ["message.status"] };
    const first = await create(body, key);
    expect(first.status).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();

    const again = await create(body, key);
    expect(again.status).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await gateway.db.integration.count({ where: { accountId: account.accountId, url: body.url } })).toBe(1);
    expect(
      await gateway.db.auditEntry.count({
        where: {
          accountId: account.accountId,
          action: "api.integration.saved",
          target: `integration:${(first.body as Created).data.id}`,
        },
      }),
    ).toBe(1);

    // The key's row keeps the answer with the secret sealed, never in clear.
    const row = await keyRow(key);
    expect(row?.state).toBe("completed");
    const stored = JSON.stringify(row?.outcome);
    expect(stored).toContain((first.body as Created).data.id);
    expect(stored).not.toContain((first.body as Created).data.signing_secret);
    expect(stored).not.toContain((first.body as Created).data.signing_secret.replace(/^whsec_/, ""));
  });

  it("refuses the key with another body (idempotency_conflict), and a send's key on a creation", async () => {
    const key = randomUUID();
    const first = await create({ url: url("conflito"), events: ["message.status"] }, key);
    expect(first.status).toBe(201);
    const other = await create({ url: url("outra"), events: ["message.status"] }, key);
    expect({ status: other.status, code: (other.body as { error: { code: string } }).error.code }).toEqual({
      status: 409,
      code: "idempotency_conflict",
    });
    expect(JSON.stringify(other.body)).not.toContain((first.body as Created).data.signing_secret);

    const sendKey = randomUUID();
    const send = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set("Idempotency-Key", sendKey)
      .send({ to: "11987654321", template: "hello_world", language: "en_US" });
    expect(send.status).toBe(200);
    const reused = await create({ url: url("chave-de-envio"), events: ["message.status"] }, sendKey);
    expect({ status: reused.status, code: (reused.body as { error: { code: string } }).error.code }).toEqual({
      status: 409,
      code: "idempotency_conflict",
    });
  });

  it("takes payload_version into the key's request as the creation reads it: absent is 2, so 2 replays and 1 conflicts", async () => {
    const key = randomUUID();
    const body = { url: url("versao"), events: ["message.received"] };
    const first = await create(body, key);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ data: { payload_version: 2 } });

    const same = await create({ ...body, payload_version: 2 }, key);
    expect(same.status).toBe(201);
    expect(same.headers["idempotent-replayed"]).toBe("true");
    expect(same.body).toEqual(first.body);

    const other = await create({ ...body, payload_version: 1 }, key);
    expect({ status: other.status, code: (other.body as { error: { code: string } }).error.code }).toEqual({
      status: 409,
      code: "idempotency_conflict",
    });
    expect(await gateway.db.integration.count({ where: { accountId: account.accountId, url: body.url } })).toBe(1);
  });

  it("frees the key when the creation is refused, so the corrected repeat with it creates", async () => {
    const existing = await create({ url: url("existente"), events: ["message.status"] });
    expect(existing.status).toBe(201);
    const key = randomUUID();
    const taken = await create({ url: (existing.body as Created).data.url, events: ["message.status"] }, key);
    expect(taken.status).toBe(422);
    expect(taken.body).toMatchObject({ detail: [{ loc: ["body", "url"], ctx: { reason: "url_taken" } }] });
    expect(await keyRow(key)).toBeNull();
    const body = { url: url("corrigida"), events: ["message.status"] };
    const corrected = await create(body, key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers["idempotent-replayed"]).toBeUndefined();
    // From then on the key answers with that creation.
    const again = await create(body, key);
    expect(again.status).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect((again.body as Created).data.id).toBe((corrected.body as Created).data.id);
  });

  it("a client that lost the 201 gets it again with the key, secret included; without the key, url_taken", async () => {
    const key = randomUUID();
    const body = { url: url("perdida"), events: ["message.status", "message.received"] };
    // The account is held by another transaction: the creation waits in its transaction, the client gives up.
    const aborted = new AbortController();
    let lost: Promise<unknown> | undefined;
    await gateway.db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${account.accountId}::uuid FOR NO KEY UPDATE`;
        lost = fetch(`${gateway.apiUrl}/public/v1/integrations`, {
          method: "POST",
          headers: { ...account.auth, "Content-Type": "application/json", "Idempotency-Key": key },
          body: JSON.stringify(body),
          signal: aborted.signal,
        }).catch((error: unknown) => error);
        await eventually(
          async () => {
            const [waiting] = await gateway.db.$queryRaw<{ count: bigint }[]>`
              SELECT count(*) AS count FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query ILIKE '%FROM accounts%FOR NO KEY UPDATE%'`;
            return Number(waiting?.count) > 0;
          },
          { what: "the creation waiting for the account" },
        );
        // While it waits: the same key again is in flight, with the time to wait.
        const meanwhile = await create(body, key);
        expect({ status: meanwhile.status, code: (meanwhile.body as { error: { code: string } }).error.code }).toEqual({
          status: 409,
          code: "idempotency_in_flight",
        });
        expect(Number(meanwhile.headers["retry-after"])).toBeGreaterThanOrEqual(1);
        aborted.abort();
        expect(await lost).toMatchObject({ name: "AbortError" });
      },
      { timeout: 30_000 },
    );
    // The server finished the creation the client no longer waited for.
    const row = await eventually(
      async () =>
        (await gateway.db.integration.findFirst({ where: { accountId: account.accountId, url: body.url } })) ??
        undefined,
      { what: "the integration the lost request created" },
    );
    await eventually(async () => ((await keyRow(key))?.state === "completed" ? true : undefined), {
      what: "the key settled",
    });

    const repeat = await create(body, key);
    expect(repeat.status).toBe(201);
    expect(repeat.headers["idempotent-replayed"]).toBe("true");
    const data = (repeat.body as Created).data;
    expect(data.id).toBe(row.id);
    expect(data.signing_secret).toMatch(/^whsec_|^[A-Za-z0-9_-]{20,}/);
    // The secret shown is the one stored for the integration (the one deliveries are signed with).
    const revealed = await revealIntegrationSecret(
      { db: gateway.db, secrets: testSecretBox() },
      { accountId: account.accountId, integrationId: row.id, actor: testActor },
    );
    expect(revealed?.signing_secret).toBe(data.signing_secret);

    const withoutKey = await create(body);
    expect(withoutKey.status).toBe(422);
    expect(withoutKey.body).toMatchObject({ detail: [{ loc: ["body", "url"], ctx: { reason: "url_taken" } }] });
    expect(JSON.stringify(withoutKey.body)).not.toContain(data.signing_secret);
  });

  it("shows the secret again only within the key's lifetime: an expired key is not replayed", async () => {
    const key = randomUUID();
    const body = { url: url("expirada"), events: ["message.status"] };
    const first = await create(body, key);
    expect(first.status).toBe(201);
    await gateway.db.idempotencyKey.update({
      where: { accountId_key: { accountId: account.accountId, key } },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    const late = await create(body, key);
    expect(late.status).toBe(422);
    expect(late.body).toMatchObject({ detail: [{ loc: ["body", "url"], ctx: { reason: "url_taken" } }] });
    expect(JSON.stringify(late.body)).not.toContain((first.body as Created).data.signing_secret);
    // The expired row, sealed secret and all, is gone; the refused creation left no new one.
    expect(await keyRow(key)).toBeNull();
  });

  it("documents the header, the replay header and the 409s on the operation", () => {
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>
      >;
    };
    const operation = document.paths["/public/v1/integrations"]?.post;
    expect(operation?.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "Idempotency-Key", in: "header" })]),
    );
    expect(JSON.stringify(operation?.responses["201"])).toContain("Idempotent-Replayed");
    expect(JSON.stringify(operation?.responses["409"])).toContain("idempotency_in_flight");
    expect(JSON.stringify(operation?.responses["422"])).toContain("integration_limit_reached");
  });
});
