import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { readMetaWebhook } from "../src/index.ts";
import { control } from "./helpers.ts";

const PHONE_NUMBER_ID = "106540352242922";
let sandbox: RunningSandbox;
let server: Server;
const bodies: string[] = [];

beforeAll(async () => {
  // The sandbox posts its user_preferences webhooks here; the test reads what it got, as the gateway's route would.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  sandbox = await startSandbox({
    appSecret: "app-secret",
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    webhookRetries: false,
    autoStatuses: false,
    logger: createLogger({ service: "provider-sandbox", silent: true }),
  });
});

afterAll(async () => {
  await sandbox.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(async () => {
  bodies.length = 0;
  await control(sandbox.url, "reset", { config: true });
});

function lastBody(): unknown {
  return JSON.parse(bodies.at(-1) ?? "null") as unknown;
}

describe("readMetaWebhook: user_preferences", () => {
  it("reads a stop and a resume posted by the sandbox: business number, contact, value and time", async () => {
    await control(sandbox.url, "user-preferences", {
      phone_number_id: PHONE_NUMBER_ID,
      wa_id: "5511988887777",
      value: "stop",
      timestamp: 1739321024,
    });
    const items = readMetaWebhook(lastBody());
    expect(items).toMatchObject({ statuses: [], inbound: [], templateNotices: [], quarantined: [], ignoredChanges: 0 });
    expect(items.userPreferences).toEqual([
      {
        phoneNumberId: PHONE_NUMBER_ID,
        time: new Date(1739321024 * 1000),
        value: {
          wa_id: "5511988887777",
          // Since 2026 the user's BSUID comes with every preference (the sandbox derives one per phone).
          user_id: expect.stringMatching(/^BR\.\d+$/),
          detail: "User requested to stop marketing messages",
          category: "marketing_messages",
          value: "stop",
          timestamp: 1739321024,
        },
      },
    ]);

    await control(sandbox.url, "user-preferences", {
      phone_number_id: PHONE_NUMBER_ID,
      wa_id: "5511988887777",
      value: "resume",
    });
    const [resume] = readMetaWebhook(lastBody()).userPreferences;
    expect(resume?.value.value).toBe("resume");
    expect(resume?.time).toEqual(expect.any(Date));
  });

  it("quarantines malformed items and a change without metadata, keeping the good ones in order", () => {
    const item = (waId: string, value: string) => ({
      wa_id: waId,
      detail: "User requested to stop marketing messages",
      category: "marketing_messages",
      value,
      timestamp: 1767225600,
    });
    const change = (value: unknown) => ({ field: "user_preferences", value });
    const items = readMetaWebhook({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          changes: [
            change({
              messaging_product: "whatsapp",
              metadata: { phone_number_id: PHONE_NUMBER_ID },
              user_preferences: [
                item("5511900000001", "stop"),
                { ...item("5511900000002", "stop"), wa_id: 5511900000002 },
                { ...item("5511900000003", "resume"), timestamp: "1767225601" },
                { category: "marketing_messages", value: "stop" },
              ],
            }),
            change({ messaging_product: "whatsapp", user_preferences: [item("5511900000004", "stop")] }),
            change({ metadata: { phone_number_id: PHONE_NUMBER_ID }, user_preferences: "stop" }),
            change("stop"),
            // Nothing to read: no items, so its missing metadata does not matter.
            change({ messaging_product: "whatsapp" }),
          ],
        },
      ],
    });
    expect(items.userPreferences.map((p) => [p.phoneNumberId, p.value.wa_id, p.value.value, p.time])).toEqual([
      [PHONE_NUMBER_ID, "5511900000001", "stop", new Date(1767225600 * 1000)],
      [PHONE_NUMBER_ID, "5511900000003", "resume", new Date(1767225601 * 1000)],
    ]);
    expect(items.quarantined.map((q) => q.path)).toEqual([
      "entry[0].changes[0].value.user_preferences[1]",
      "entry[0].changes[0].value.user_preferences[3]",
      "entry[0].changes[1].value.metadata",
      "entry[0].changes[2].value.user_preferences",
      "entry[0].changes[3].value",
    ]);
    expect(items.quarantined[1]?.reason).toContain("wa_id");
    expect(items.ignoredChanges).toBe(0);
  });
});
