// Issue 29, item 3: an API started without SECRETS_KEYS (a deployment that has not given it the key ring). The
// operations that seal or open a signing secret (create, update, rotate-secret) answer 503 `service_unavailable`
// with a Portuguese sentence and change nothing; every other integration operation works as before.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

const UNKNOWN = "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5";

describe("integrations over the API without SECRETS_KEYS", () => {
  let gateway: TestGateway;
  let owner: TestAccount;
  let integrationId: string;

  const api = () => request(gateway.app);
  const unavailable = (answer: request.Response) => {
    const body = answer.body as { success?: boolean; error?: { code: string; message: string } };
    expect({ status: answer.status, success: body.success, code: body.error?.code }).toEqual({
      status: 503,
      success: false,
      code: "service_unavailable",
    });
    expect(body.error?.message).toMatch(/SECRETS_KEYS/);
    expect(body.error?.message).toMatch(/integrações/);
  };

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { SECRETS_KEYS: "", API_RATE_LIMIT_POINTS: "10000" } });
    owner = await createTestAccount(gateway.db, { integrationUrl: "https://sem-chaves.example.com.br/webhooks" });
    integrationId = (await gateway.db.integration.findFirstOrThrow({ where: { accountId: owner.accountId } })).id;
  });

  afterAll(async () => {
    await gateway.close();
  });

  it("answers 503 service_unavailable to create, update and rotate-secret, and stores nothing", async () => {
    const before = await gateway.db.integration.findMany({ where: { accountId: owner.accountId } });

    unavailable(
      await api()
        .post("/public/v1/integrations")
        .set(owner.auth)
        .send({ url: "https://nova.example.com.br/webhooks", events: ["message.status"] }),
    );
    unavailable(
      await api()
        .patch(`/public/v1/integrations/${integrationId}`)
        .set(owner.auth)
        .send({ events: ["message.received"], active: false }),
    );
    unavailable(
      await api()
        .post(`/public/v1/integrations/${integrationId}/rotate-secret`)
        .set(owner.auth)
        .send({ overlap_hours: 0 }),
    );

    expect(await gateway.db.integration.findMany({ where: { accountId: owner.accountId } })).toEqual(before);
    const audit = await gateway.db.auditEntry.findMany({
      where: { accountId: owner.accountId, action: { startsWith: "api.integration." } },
    });
    expect(audit).toEqual([]);
  });

  it("still answers 404 for an integration of no account, before asking for the key ring", async () => {
    const answer = await api().patch(`/public/v1/integrations/${UNKNOWN}`).set(owner.auth).send({ active: false });
    expect({ status: answer.status, code: (answer.body as { error: { code: string } }).error.code }).toEqual({
      status: 404,
      code: "not_found",
    });
  });

  it("lists, reads, checks the health of, re-enables and deletes integrations as before", async () => {
    const listed = await api().get("/public/v1/integrations").set(owner.auth);
    expect(listed.status).toBe(200);
    expect((listed.body as { data: { integrations: { id: string }[] } }).data.integrations.map((i) => i.id)).toEqual([
      integrationId,
    ]);

    const got = await api().get(`/public/v1/integrations/${integrationId}`).set(owner.auth);
    expect(got.status).toBe(200);
    expect((got.body as { data: { url: string } }).data.url).toBe("https://sem-chaves.example.com.br/webhooks");

    expect((await api().get(`/public/v1/integrations/${integrationId}/health`).set(owner.auth)).status).toBe(200);
    expect((await api().post(`/public/v1/integrations/${integrationId}/enable`).set(owner.auth)).status).toBe(200);

    const deleted = await api().delete(`/public/v1/integrations/${integrationId}`).set(owner.auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      success: true,
      data: { id: integrationId, deleted: true, deliveries_removed: 0 },
    });
    expect(await gateway.db.integration.findUnique({ where: { id: integrationId } })).toBeNull();
  });
});
