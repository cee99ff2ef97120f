import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { FIXTURE_TEMPLATES, startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { readMetaWebhook } from "../src/index.ts";
import { control } from "./helpers.ts";

const WABA_ID = "102290129340398";
let sandbox: RunningSandbox;
let server: Server;
const bodies: string[] = [];

beforeAll(async () => {
  // The sandbox posts its template webhooks here; the test reads what it got, as the gateway's route would.
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

describe("readMetaWebhook: template changes", () => {
  it("reads a rejection posted by the sandbox: WABA, time, id as a string, event and reason", async () => {
    const before = Math.floor(Date.now() / 1000);
    await control(sandbox.url, "templates/status", {
      name: "pedido_confirmado",
      language: "pt_BR",
      event: "REJECTED",
      reason: "INVALID_FORMAT",
      rejection_info: { reason: "Variáveis mal formatadas.", recommendation: "Revise as variáveis." },
    });
    const items = readMetaWebhook(lastBody());
    const fixture = FIXTURE_TEMPLATES.find((t) => t.name === "pedido_confirmado" && t.language === "pt_BR");
    expect(items).toMatchObject({ statuses: [], inbound: [], quarantined: [], ignoredChanges: 0 });
    expect(items.templateNotices).toEqual([
      {
        wabaId: WABA_ID,
        time: expect.any(Date),
        field: "message_template_status_update",
        value: {
          event: "REJECTED",
          message_template_id: fixture?.id,
          message_template_name: "pedido_confirmado",
          message_template_language: "pt_BR",
          reason: "INVALID_FORMAT",
          message_template_category: fixture?.category,
          rejection_info: { reason: "Variáveis mal formatadas.", recommendation: "Revise as variáveis." },
        },
      },
    ]);
    expect(items.templateNotices[0]?.time?.getTime()).toBeGreaterThanOrEqual(before * 1000);
  });

  it("reads a quality change posted by the sandbox with both scores", async () => {
    await control(sandbox.url, "templates/quality", { name: "hello_world", new_quality_score: "YELLOW" });
    const [notice] = readMetaWebhook(lastBody()).templateNotices;
    expect(notice).toMatchObject({
      wabaId: WABA_ID,
      field: "message_template_quality_update",
      value: { previous_quality_score: "GREEN", new_quality_score: "YELLOW", message_template_name: "hello_world" },
    });
  });

  it("reads a deletion whose reason is null", async () => {
    await control(sandbox.url, "templates/status", { name: "hello_world", event: "PENDING_DELETION" });
    const [notice] = readMetaWebhook(lastBody()).templateNotices;
    expect(notice?.value).toMatchObject({ event: "PENDING_DELETION", reason: null });
  });

  it("quarantines a malformed template change and an entry without the WABA id, keeping the good ones", () => {
    const good = {
      field: "message_template_status_update",
      value: { event: "APPROVED", message_template_id: 1689556908129832, message_template_name: "ok", reason: "NONE" },
    };
    const items = readMetaWebhook({
      object: "whatsapp_business_account",
      entry: [
        {
          id: WABA_ID,
          time: 1767225600,
          changes: [
            good,
            { field: "message_template_status_update", value: { message_template_name: "sem_evento" } },
            { field: "message_template_quality_update", value: { message_template_name: "x", new_quality_score: 3 } },
            { field: "phone_number_quality_update", value: { event: "UPGRADE" } },
          ],
        },
        { changes: [good] },
      ],
    });
    expect(items.templateNotices).toEqual([
      {
        wabaId: WABA_ID,
        time: new Date(1767225600 * 1000),
        field: "message_template_status_update",
        value: {
          event: "APPROVED",
          message_template_id: "1689556908129832",
          message_template_name: "ok",
          reason: "NONE",
        },
      },
    ]);
    expect(items.quarantined.map((q) => q.path)).toEqual([
      "entry[0].changes[1].value",
      "entry[0].changes[2].value",
      "entry[1].changes[0]",
    ]);
    expect(items.quarantined[0]?.reason).toContain("event");
    // A number's health change is an account event (kept as Meta sent it), not a template notice.
    expect(items.accountEvents).toMatchObject([{ field: "phone_number_quality_update", value: { event: "UPGRADE" } }]);
    expect(items.ignoredChanges).toBe(0);
  });
});
