// The API's two CSV exports (the delivery log, a campaign's recipients) end when their client goes away mid-file:
// the export's pages stop being read and the handler finishes (`sendCsv`: `pipeline` ends the source, and says so in
// the log). Waiting for `drain` on a response whose socket is gone waited for ever: every such download stayed
// pending, with its generator, for the life of the process.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestGateway } from "@gw/test-stack";

jest.setTimeout(90_000);

const DAY = 86_400_000;
let gateway: TestGateway;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logger = createLogger({ service: "api-test", level: "info" });
  for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
  logger.on("data", (info: Record<string, unknown>) => logLines.push(info));
  gateway = await startTestGateway({ logger });
});

afterAll(async () => {
  await gateway.close();
});

/**
 * GETs `path` and destroys the connection as soon as the first bytes of the file arrive (a browser tab closed, a
 * script killed); resolves with the status and what had arrived.
 */
function leaveMidFile(path: string, auth: Record<string, string>): Promise<{ status: number; received: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gateway.apiUrl}${path}`, { headers: auth, agent: false });
    req.on("response", (res) => {
      res.once("data", (chunk: Buffer) => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, received: chunk.toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const stopped = (download: string) =>
  logLines.filter(
    (line) => line.message === "csv download stopped: the client went away" && line.download === download,
  );

describe("an API export whose client leaves mid-file ends", () => {
  it("the delivery log: 20 000 deliveries, the client leaves after the first bytes, the export stops", async () => {
    const account = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/hook" });
    const integration = await gateway.db.integration.findFirstOrThrow({ where: { accountId: account.accountId } });
    const since = new Date(Date.now() - 2 * DAY);
    await gateway.db.sql.query(
      `INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, occurred_at, created_at, updated_at)
       SELECT $1::uuid, $2::uuid, 'message.status', 'delivered', '{"event":"message.status","data":{"message_id":"wamid.x"}}',
         1, $3::timestamptz + g * interval '1 second', $3::timestamptz + g * interval '1 second', now()
       FROM generate_series(1, 20000) AS g`,
      [account.accountId, integration.id, since],
    );
    const query = new URLSearchParams({ since: since.toISOString(), until: new Date().toISOString() });
    const before = stopped("deliveries").length;
    const left = await leaveMidFile(`/public/v1/deliveries/export?${query.toString()}`, account.auth);
    expect(left.status).toBe(200);
    expect(left.received.startsWith('"delivery_id","event"')).toBe(true);
    await eventually(() => stopped("deliveries").length > before, { what: "the export ended after the client left" });
  });

  it("a campaign's recipients: 30 000 of them, the client leaves after the first bytes, the export stops", async () => {
    const account = await createTestAccount(gateway.db);
    const campaign = await gateway.db.campaign.create({
      data: {
        accountId: account.accountId,
        name: "Grande",
        phoneNumberId: account.phoneNumberId,
        templateName: "pedido_confirmado",
        templateLanguage: "pt_BR",
        status: "draft",
        createdBy: "test",
      },
    });
    await gateway.db.sql.query(
      `INSERT INTO campaign_recipients (campaign_id, row_number, contact, client_ref, status)
       SELECT $1::uuid, g, '55119' || lpad(g::text, 8, '0'), 'cliente-' || g, 'queued' FROM generate_series(1, 30000) AS g`,
      [campaign.id],
    );
    const before = stopped("campaign").length;
    const left = await leaveMidFile(`/public/v1/campaigns/${campaign.id}/recipients/export`, account.auth);
    expect(left.status).toBe(200);
    expect(left.received.startsWith('"row","to"')).toBe(true);
    await eventually(
      () => stopped("campaign").some((line) => line.campaignId === campaign.id) && stopped("campaign").length > before,
      { what: "the export ended after the client left" },
    );
  });
});
