// Issue 35, item 1: integrations per account are capped (MAX_INTEGRATIONS_PER_ACCOUNT): one inbound message fans out
// to one delivery per integration inside the webhook's transaction. Beyond the cap a creation is 422
// `integration_limit_reached`; concurrent creations cannot pass it together; editing an existing one still works.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

const CAP = 3;

describe("integrations per account", () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "10000", MAX_INTEGRATIONS_PER_ACCOUNT: String(CAP) },
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const create = (account: TestAccount, name = "limite") =>
    request(gateway.app)
      .post("/public/v1/integrations")
      .set(account.auth)
      .send({ url: `https://${name}-${randomUUID()}.example.com.br/webhooks`, events: ["message.status"] });
  const count = (account: TestAccount) => gateway.db.integration.count({ where: { accountId: account.accountId } });

  it("refuses a creation beyond the cap with 422 integration_limit_reached in Portuguese, and still edits and deletes", async () => {
    const account = await createTestAccount(gateway.db);
    const created: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const answer = await create(account);
      expect(answer.status).toBe(201);
      created.push((answer.body as { data: { id: string } }).data.id);
    }
    const beyond = await create(account);
    expect(beyond.status).toBe(422);
    expect(beyond.body).toEqual({
      success: false,
      error: { code: "integration_limit_reached", message: expect.stringContaining(String(CAP)) },
    });
    expect((beyond.body as { error: { message: string } }).error.message).toMatch(/^[A-ZÀ-Ú].*[.!?]$/u);
    expect(await count(account)).toBe(CAP);

    // At the cap, an existing integration is still edited; one deleted makes room for one more.
    const [first] = created;
    const edited = await request(gateway.app)
      .patch(`/public/v1/integrations/${first}`)
      .set(account.auth)
      .send({ url: `https://editada-${randomUUID()}.example.com.br/webhooks` });
    expect(edited.status).toBe(200);
    expect((await request(gateway.app).delete(`/public/v1/integrations/${first}`).set(account.auth)).status).toBe(200);
    expect((await create(account)).status).toBe(201);
    expect((await create(account)).status).toBe(422);

    // Another account has its own cap.
    expect((await create(await createTestAccount(gateway.db))).status).toBe(201);
  });

  it("lets exactly one of concurrent creations take the last place", async () => {
    for (let round = 0; round < 3; round++) {
      const account = await createTestAccount(gateway.db);
      for (let i = 0; i < CAP - 1; i++) expect((await create(account)).status).toBe(201);
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(account, `corrida${i}`)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect({ round, statuses }).toEqual({ round, statuses: [201, 422, 422, 422, 422, 422] });
      for (const refused of answers.filter((answer) => answer.status === 422))
        expect((refused.body as { error: { code: string } }).error.code).toBe("integration_limit_reached");
      expect(await count(account)).toBe(CAP);
    }
  });
});
