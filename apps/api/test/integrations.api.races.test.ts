// Issue 29, item 3: integrations over the API when requests race. Two creations of the same URL: one is created and
// shows its secret, the other is refused (`url_taken`), never a 500 and never the first one's secret. A PATCH whose
// integration is deleted while it waits for the row: 404, as after the delete, never a 500.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

describe("integrations over the API under races", () => {
  let gateway: TestGateway;
  let owner: TestAccount;

  const api = () => request(gateway.app);
  const create = (url: string) =>
    api()
      .post("/public/v1/integrations")
      .set(owner.auth)
      .send({ url, events: ["message.status"], active: false });

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    owner = await createTestAccount(gateway.db);
  });

  afterAll(async () => {
    await gateway.close();
  });

  it("creates one integration from concurrent creations of the same URL and refuses the others with url_taken", async () => {
    for (let round = 0; round < 5; round++) {
      const url = `https://corrida-${randomUUID()}.example.com.br/webhooks`;
      const answers = await Promise.all(Array.from({ length: 6 }, () => create(url)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect({ round, statuses }).toEqual({ round, statuses: [201, 422, 422, 422, 422, 422] });
      const created = answers.find((answer) => answer.status === 201)?.body as { data: { signing_secret: string } };
      for (const refused of answers.filter((answer) => answer.status === 422)) {
        expect(refused.body).toMatchObject({ detail: [{ loc: ["body", "url"], ctx: { reason: "url_taken" } }] });
        expect(JSON.stringify(refused.body)).not.toContain(created.data.signing_secret);
      }
      expect(await gateway.db.integration.count({ where: { accountId: owner.accountId, url } })).toBe(1);
    }
  });

  it("answers 404, not a 500, to a PATCH whose integration is deleted while the PATCH waits for its row", async () => {
    const created = await create(`https://apagada-${randomUUID()}.example.com.br/webhooks`);
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;

    let patch: Promise<request.Response> | undefined;
    // A delete holds the row (uncommitted) while the PATCH reads it and then waits on it; the delete commits.
    await gateway.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`DELETE FROM integrations WHERE id = ${id}::uuid`;
        const started = api()
          .patch(`/public/v1/integrations/${id}`)
          .set(owner.auth)
          .send({ events: ["message.received"] });
        patch = started.then((answer) => answer);
        await eventually(
          async () => {
            const [waiting] = await gateway.db.$queryRaw<{ count: bigint }[]>`
            SELECT count(*) AS count FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query ILIKE '%integrations%'`;
            return Number(waiting?.count) > 0;
          },
          { what: "the PATCH waiting on the deleted row" },
        );
      },
      { timeout: 30_000 },
    );
    const answer = await patch!;
    expect({ status: answer.status, code: (answer.body as { error?: { code: string } }).error?.code }).toEqual({
      status: 404,
      code: "not_found",
    });
  });
  it("keeps a URL changed while a PATCH of only the events waits for the row: a PATCH writes only the fields it was given", async () => {
    const created = await create(`https://antiga-${randomUUID()}.example.com.br/webhooks`);
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    const moved = `https://nova-${randomUUID()}.example.com.br/webhooks`;

    let patch: Promise<request.Response> | undefined;
    // Another edit (the panel's, another PATCH) has moved the URL and not committed yet when this PATCH reads.
    await gateway.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`UPDATE integrations SET url = ${moved} WHERE id = ${id}::uuid`;
        patch = api()
          .patch(`/public/v1/integrations/${id}`)
          .set(owner.auth)
          .send({ events: ["message.received"] })
          .then((answer) => answer);
        await eventually(
          async () => {
            const [waiting] = await gateway.db.$queryRaw<{ count: bigint }[]>`
              SELECT count(*) AS count FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query ILIKE '%integrations%'`;
            return Number(waiting?.count) > 0;
          },
          { what: "the PATCH waiting on the row being edited" },
        );
      },
      { timeout: 30_000 },
    );
    const answer = await patch!;
    expect(answer.status).toBe(200);
    const row = await gateway.db.integration.findUniqueOrThrow({ where: { id }, select: { url: true, events: true } });
    expect(row).toEqual({ url: moved, events: ["message.received"] });
  });
});
