import { describe, expect, it } from "@jest/globals";
import { parseWebhookEvent, WebhookPayloadError, type GatewayWebhookEvent } from "../src/index.ts";
import { failedStatusEvent, receivedEvent } from "./support/deliver.ts";

function payloadError(body: string): WebhookPayloadError {
  try {
    parseWebhookEvent(body);
  } catch (error) {
    if (error instanceof WebhookPayloadError) return error;
    throw error;
  }
  throw new Error("parseWebhookEvent accepted the body");
}

/** What an integrator writes: the union narrows on `event`, then on `status`. */
function summary(event: GatewayWebhookEvent): string {
  switch (event.event) {
    case "message.received":
      return `${event.data.from}:${event.data.type}:${event.data.text ?? ""}`;
    case "message.status":
      return event.data.status === "failed"
        ? `failed:${event.data.error.reason}`
        : `${event.data.status}:${event.data.status_rank}`;
    case "account.update":
      return `${event.data.field}:${event.data.event ?? "-"}:${String(event.data.effects.sending_blocked)}`;
    case "order.updated":
      return `${event.data.reference_id}:${event.data.order_status}:${event.data.payment_status}`;
    case "conversation.handover":
      return `${event.data.type}:${event.data.holder}:${event.data.current_role ?? "-"}`;
    case "conversation.updated":
      return `${event.data.change}:${event.data.handler}:${event.data.by}`;
  }
}

/** An account.update as the gateway sends it: Meta banned the WABA, the gateway blocked its sends. */
function accountUpdateEvent() {
  return {
    event: "account.update",
    occurred_at: "2026-11-20T15:00:01.000Z",
    delivery_id: "2302",
    data: {
      account_event_id: "58",
      waba_id: "100000000000001",
      field: "account_update",
      event: "DISABLED_UPDATE",
      phone_number_id: null,
      occurred_at: "2026-11-20T15:00:00.000Z",
      value: { event: "DISABLED_UPDATE", ban_info: { waba_ban_state: "DISABLE" } },
      effects: { sending_blocked: true, paused_campaign_ids: ["c1"], messaging_rate_per_second: null },
    },
  };
}

describe("parseWebhookEvent (spec 2.7, 6.2, 6.3)", () => {
  it("returns the typed events, keeping fields the contract may add later", () => {
    expect(summary(parseWebhookEvent(JSON.stringify(receivedEvent())))).toBe("5511987654321:text:Oi! Tudo bem?");
    expect(summary(parseWebhookEvent(Buffer.from(JSON.stringify(failedStatusEvent()))))).toBe(
      "failed:recipient_unreachable",
    );
    const read = {
      ...failedStatusEvent(),
      data: { ...failedStatusEvent().data, status: "read", status_rank: 4, error: null, extra: 1 },
    };
    const parsed = parseWebhookEvent(JSON.stringify(read));
    expect(summary(parsed)).toBe("read:4");
    expect(parsed.data).toHaveProperty("extra", 1);
  });

  it("reads account.update with Meta's value as sent, and refuses one whose effects break the contract", () => {
    const event = accountUpdateEvent();
    const parsed = parseWebhookEvent(JSON.stringify(event));
    expect(summary(parsed)).toBe("account_update:DISABLED_UPDATE:true");
    // An event Meta adds later, with keys the gateway never saw: still an account.update.
    const unknown = {
      ...event,
      data: { ...event.data, event: "SOMETHING_NEW", value: { event: "SOMETHING_NEW", novo: { a: 1 } } },
    };
    expect(summary(parseWebhookEvent(JSON.stringify(unknown)))).toBe("account_update:SOMETHING_NEW:true");
    const cases: Array<[string, unknown]> = [
      ["value missing", { ...event, data: { ...event.data, value: null } }],
      ["effects missing", { ...event, data: { ...event.data, effects: undefined } }],
      [
        "sending_blocked as text",
        { ...event, data: { ...event.data, effects: { ...event.data.effects, sending_blocked: "sim" } } },
      ],
      [
        "paused ids not strings",
        { ...event, data: { ...event.data, effects: { ...event.data.effects, paused_campaign_ids: [1] } } },
      ],
      [
        "rate not an integer",
        { ...event, data: { ...event.data, effects: { ...event.data.effects, messaging_rate_per_second: 1.5 } } },
      ],
      ["waba_id missing", { ...event, data: { ...event.data, waba_id: undefined } }],
    ];
    for (const [what, body] of cases)
      expect({ what, code: payloadError(JSON.stringify(body)).code }).toEqual({ what, code: "invalid_payload" });
  });

  it("reads conversation.handover (issue 37) and refuses one whose type or holder is not the contract's", () => {
    const event = {
      event: "conversation.handover",
      occurred_at: "2026-12-07T15:00:01.000Z",
      delivery_id: "4201",
      data: {
        type: "control_passed",
        phone_number_id: "100000000000001",
        recipient: "BR.1502576394655843",
        phone: null,
        user_id: "BR.1502576394655843",
        holder: "gateway",
        previous_role: "ai_agent",
        current_role: "escalation_partner",
        metadata: null,
        occurred_at: "2026-12-07T15:00:00.000Z",
      },
    };
    expect(summary(parseWebhookEvent(JSON.stringify(event)))).toBe("control_passed:gateway:escalation_partner");
    const cases: Array<[string, unknown]> = [
      ["unknown type", { ...event, data: { ...event.data, type: "control_released" } }],
      ["unknown holder", { ...event, data: { ...event.data, holder: "ai_agent" } }],
      ["recipient missing", { ...event, data: { ...event.data, recipient: undefined } }],
      ["metadata as a number", { ...event, data: { ...event.data, metadata: 1 } }],
    ];
    for (const [what, body] of cases)
      expect({ what, code: payloadError(JSON.stringify(body)).code }).toEqual({ what, code: "invalid_payload" });
  });

  it("reads conversation.updated (issue 39) and refuses one whose handler or origin is not the contract's", () => {
    const event = {
      event: "conversation.updated",
      occurred_at: "2026-12-07T15:10:00.000Z",
      delivery_id: "4301",
      data: {
        change: "handover",
        phone_number_id: "100000000000001",
        recipient: "5511987654321",
        phone: "5511987654321",
        user_id: null,
        handler: "human",
        note: "quer um atendente",
        status: "open",
        assignee: null,
        by: "api",
        occurred_at: "2026-12-07T15:10:00.000Z",
      },
    };
    expect(summary(parseWebhookEvent(JSON.stringify(event)))).toBe("handover:human:api");
    const cases: Array<[string, unknown]> = [
      ["unknown handler", { ...event, data: { ...event.data, handler: "agent" } }],
      ["unknown origin", { ...event, data: { ...event.data, by: "cli" } }],
      ["unknown status", { ...event, data: { ...event.data, status: "archived" } }],
      ["note as a number", { ...event, data: { ...event.data, note: 1 } }],
    ];
    for (const [what, body] of cases)
      expect({ what, code: payloadError(JSON.stringify(body)).code }).toEqual({ what, code: "invalid_payload" });
  });

  it("throws on invalid JSON and on an unknown event", () => {
    expect(payloadError("{not json").code).toBe("invalid_json");
    expect(payloadError(JSON.stringify({ ...receivedEvent(), event: "message.deleted" })).code).toBe("unknown_event");
    expect(payloadError(JSON.stringify({ ...receivedEvent(), event: undefined })).code).toBe("unknown_event");
  });

  it("refuses bodies that break the documented field types and rules", () => {
    const status = failedStatusEvent();
    const received = receivedEvent();
    const cases: Array<[string, unknown]> = [
      ["failed without error", { ...status, data: { ...status.data, error: null } }],
      ["delivered with an error", { ...status, data: { ...status.data, status: "delivered", status_rank: 3 } }],
      ["rank not matching status", { ...status, data: { ...status.data, status_rank: 2 } }],
      ["unknown status", { ...status, data: { ...status.data, status: "queued" } }],
      [
        "error.code as a string",
        { ...status, data: { ...status.data, error: { ...status.data.error, code: "131026" } } },
      ],
      ["client_ref missing", { ...status, data: { ...status.data, client_ref: undefined } }],
      ["unknown received type", { ...received, data: { ...received.data, type: "reaction" } }],
      ["window_expires_at null", { ...received, data: { ...received.data, window_expires_at: null } }],
      ["delivery_id as a number", { ...received, delivery_id: 101 }],
      ["data missing", { ...received, data: undefined }],
    ];
    for (const [name, body] of cases) {
      expect([name, payloadError(JSON.stringify(body)).code]).toEqual([name, "invalid_payload"]);
    }
  });
});
