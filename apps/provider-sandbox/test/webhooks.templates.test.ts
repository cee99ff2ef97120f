import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { verifyMetaSignature } from "@gw/signer";
import { FIXTURE_TEMPLATES, type RunningSandbox, type WebhookRecord } from "../src/index.ts";
import { APP_SECRET, control, getJson, sendMessage, start, startReceiver, template, TOKEN } from "./helpers.ts";

const WABA = "102290129340398";

interface TemplateHook {
  object: string;
  entry: { id: string; time: number; changes: { field: string; value: Record<string, unknown> }[] }[];
}

describe("template webhooks emitted through the control API", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    // Exact POSTs are counted.
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, accessToken: TOKEN, autoStatuses: false });
  });
  afterEach(() => {
    sandbox.sandbox.reset({ config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  function hookBody(index = 0): TemplateHook {
    return receiver.received[index]?.body as unknown as TemplateHook;
  }

  it("posts a signed message_template_status_update with Meta's field names and rejects the catalogue entry", async () => {
    const answer = await control<{ webhook_status: number; template: { status: string } }>(
      sandbox.url,
      "/templates/status",
      { name: "pedido_confirmado", language: "pt_BR", event: "REJECTED", reason: "INCORRECT_CATEGORY" },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ webhook_status: 200, template: { status: "REJECTED" } });
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0];
    expect(hook && verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    const fixture = FIXTURE_TEMPLATES.find((t) => t.name === "pedido_confirmado" && t.language === "pt_BR");
    expect(hookBody()).toEqual({
      object: "whatsapp_business_account",
      entry: [
        {
          id: WABA,
          time: expect.any(Number),
          changes: [
            {
              field: "message_template_status_update",
              value: {
                event: "REJECTED",
                message_template_id: Number(fixture?.id),
                message_template_name: "pedido_confirmado",
                message_template_language: "pt_BR",
                reason: "INCORRECT_CATEGORY",
                message_template_category: fixture?.category,
              },
            },
          ],
        },
      ],
    });

    // The listing and sends see the new status: a rejected template is refused like a missing one (132001).
    const listed = await getJson(`${sandbox.url}/v23.0/${WABA}/message_templates?name=pedido_confirmado`, TOKEN);
    expect(listed.body.data?.find((t) => t.language === "pt_BR")).toMatchObject({
      status: "REJECTED",
      rejected_reason: "INCORRECT_CATEGORY",
    });
    const refused = await sendMessage(sandbox.url, template("5511987654321", "pedido_confirmado"), { token: TOKEN });
    expect(refused.body.error?.code).toBe(132001);
  });

  it("pauses with Meta's other_info, disables with disable_info, and approves again with reason NONE", async () => {
    await control(sandbox.url, "/templates/status", { name: "hello_world", event: "PAUSED" });
    await control(sandbox.url, "/templates/status", {
      name: "hello_world",
      event: "DISABLED",
      disable_date: 1767225600,
    });
    const approved = await control<{ template: { status: string } }>(sandbox.url, "/templates/status", {
      name: "hello_world",
      event: "APPROVED",
      waba_id: "200000000000001",
    });
    expect(approved.body.template.status).toBe("APPROVED");
    const values = receiver.received.map((_, i) => hookBody(i).entry[0]?.changes[0]?.value);
    expect(values[0]).toMatchObject({
      event: "PAUSED",
      reason: "NONE",
      other_info: { title: "FIRST_PAUSE", description: expect.any(String) },
    });
    expect(values[1]).toMatchObject({ event: "DISABLED", disable_info: { disable_date: 1767225600 } });
    expect(values[2]).toMatchObject({ event: "APPROVED", reason: "NONE" });
    expect(values[2]).not.toHaveProperty("other_info");
    expect(hookBody(2).entry[0]?.id).toBe("200000000000001");
  });

  it("posts message_template_quality_update with the previous score from the catalogue and stores the new one", async () => {
    const answer = await control<{ template: { quality_score: { score: string } } }>(
      sandbox.url,
      "/templates/quality",
      { name: "hello_world", new_quality_score: "RED" },
    );
    expect(answer.body.template.quality_score.score).toBe("RED");
    const change = hookBody().entry[0]?.changes[0];
    expect(change?.field).toBe("message_template_quality_update");
    expect(change?.value).toEqual({
      previous_quality_score: "GREEN",
      new_quality_score: "RED",
      message_template_id: expect.any(Number),
      message_template_name: "hello_world",
      message_template_language: "en_US",
    });
    await control(sandbox.url, "/templates/quality", { name: "hello_world", new_quality_score: "YELLOW" });
    expect(hookBody(1).entry[0]?.changes[0]?.value).toMatchObject({
      previous_quality_score: "RED",
      new_quality_score: "YELLOW",
    });
    // The fixtures themselves are untouched: a reset with config restores GREEN.
    expect(FIXTURE_TEMPLATES.find((t) => t.name === "hello_world")?.quality_score.score).toBe("GREEN");
  });

  it("refuses templates outside the catalogue and ambiguous names, in Portuguese, posting nothing", async () => {
    const unknown = await control<{ error: { message: string } }>(sandbox.url, "/templates/status", {
      name: "nao_existe",
      event: "APPROVED",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/não está no catálogo/);
    const ambiguous = await control<{ error: { message: string } }>(sandbox.url, "/templates/status", {
      name: "pedido_confirmado",
      event: "APPROVED",
    });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error.message).toMatch(/informe language/);
    const badEvent = await control(sandbox.url, "/templates/status", { name: "hello_world", event: "SHINY" });
    expect(badEvent.status).toBe(400);
    expect(receiver.received).toHaveLength(0);
    const posted = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
    expect(posted).toHaveLength(0);
  });

  it("records template webhooks as kind templates, and a deleted template leaves the catalogue", async () => {
    const answer = await control<{ template: { status: string } }>(sandbox.url, "/templates/status", {
      name: "hello_world",
      event: "DELETED",
    });
    expect(answer.body.template.status).toBe("DELETED");
    expect(hookBody().entry[0]?.changes[0]?.value).toMatchObject({ event: "DELETED", reason: null });
    const posted = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
    expect(posted.map((w) => w.kind)).toEqual(["templates"]);
    const listed = await getJson(`${sandbox.url}/v23.0/${WABA}/message_templates?name=hello_world`, TOKEN);
    expect(listed.body.data).toEqual([]);
  });
});
