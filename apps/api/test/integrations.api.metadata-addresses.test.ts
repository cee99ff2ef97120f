// Issue 35, item 4: an API started for development (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, as npm start does) accepts
// http:// and loopback receivers but still refuses link-local and cloud metadata addresses, whatever form the URL
// gives them: 422 at body.url with reason address_refused, for a creation and for an edit, and nothing stored.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

interface Refusal {
  detail?: { loc: unknown[]; msg: string; ctx?: { reason?: string } }[];
}

describe("integrations over the API with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", () => {
  let gateway: TestGateway;
  let owner: TestAccount;

  const api = () => request(gateway.app);

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", API_RATE_LIMIT_POINTS: "10000" },
    });
    owner = await createTestAccount(gateway.db);
  });

  afterAll(async () => {
    await gateway.close();
  });

  const metadataUrls = [
    "https://169.254.169.254/latest/meta-data",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://169.254.170.2/v2/credentials",
    "http://[fd00:ec2::254]/latest/meta-data",
    "http://100.100.100.200/latest/meta-data",
    "http://168.63.129.16/machine?comp=goalstate",
    "http://[::ffff:169.254.169.254]/latest/meta-data",
    "http://[::ffff:a9fe:a9fe]/latest/meta-data",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data",
    "http://[fe80::1]/webhooks",
  ];

  const expectAddressRefused = (url: string, answer: request.Response) => {
    const detail = (answer.body as Refusal).detail?.[0];
    expect({ url, status: answer.status, loc: detail?.loc, reason: detail?.ctx?.reason }).toEqual({
      url,
      status: 422,
      loc: ["body", "url"],
      reason: "address_refused",
    });
    expect(detail?.msg).toMatch(/^A URL da integração .+ nem em desenvolvimento/);
  };

  it("refuses a creation at a metadata or link-local address, and accepts the developer's loopback receiver", async () => {
    for (const url of metadataUrls) {
      expectAddressRefused(
        url,
        await api()
          .post("/public/v1/integrations")
          .set(owner.auth)
          .send({ url, events: ["message.status"] }),
      );
    }
    expect(await gateway.db.integration.count({ where: { accountId: owner.accountId } })).toBe(0);

    const loopback = await api()
      .post("/public/v1/integrations")
      .set(owner.auth)
      .send({ url: "http://127.0.0.1:8099/webhooks", events: ["message.status"] });
    expect(loopback.status).toBe(201);
  });

  it("refuses an edit to a metadata address and leaves the integration as it was", async () => {
    const created = await api()
      .post("/public/v1/integrations")
      .set(owner.auth)
      .send({ url: "http://192.168.0.10:8099/webhooks", events: ["message.status"] });
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    for (const url of metadataUrls) {
      expectAddressRefused(url, await api().patch(`/public/v1/integrations/${id}`).set(owner.auth).send({ url }));
    }
    const row = await gateway.db.integration.findUniqueOrThrow({ where: { id } });
    expect(row.url).toBe("http://192.168.0.10:8099/webhooks");
  });
});
