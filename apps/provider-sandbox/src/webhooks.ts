import { signMetaPayload } from "@gw/signer";
import { displayPhoneNumber } from "./ids.ts";
import { sleep, type SandboxState, type WebhookRecord } from "./state.ts";

/** Meta gives the gateway this long per webhook attempt; the sandbox does not retry. */
const WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookValue {
  messaging_product: "whatsapp";
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: { profile: { name: string }; wa_id: string }[];
  messages?: Record<string, unknown>[];
  statuses?: Record<string, unknown>[];
}

export interface WebhookPayload {
  object: "whatsapp_business_account";
  entry: { id: string; changes: { field: "messages"; value: WebhookValue }[] }[];
}

/** Meta's webhook envelope; `messages`, `contacts` and `statuses` appear only when non-empty. */
export function webhookPayload(
  state: SandboxState,
  phoneNumberId: string,
  parts: {
    wabaId?: string;
    contacts?: WebhookValue["contacts"];
    messages?: WebhookValue["messages"];
    statuses?: WebhookValue["statuses"];
  },
): WebhookPayload {
  const value: WebhookValue = {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: displayPhoneNumber(phoneNumberId), phone_number_id: phoneNumberId },
  };
  if (parts.contacts?.length) value.contacts = parts.contacts;
  if (parts.messages?.length) value.messages = parts.messages;
  if (parts.statuses?.length) value.statuses = parts.statuses;
  return {
    object: "whatsapp_business_account",
    entry: [{ id: parts.wabaId ?? state.wabaId, changes: [{ field: "messages", value }] }],
  };
}

/**
 * POSTs a payload signed with X-Hub-Signature-256 to the configured webhook. Never throws: failures are
 * logged and recorded, and the answer is the gateway's HTTP status or null.
 */
export async function postWebhook(
  state: SandboxState,
  kind: WebhookRecord["kind"],
  payload: WebhookPayload,
): Promise<number | null> {
  const url = state.config.webhookUrl;
  if (!url) return null;
  const raw = JSON.stringify(payload);
  const signature = signMetaPayload(state.appSecret, raw);
  const record: WebhookRecord = {
    url,
    kind,
    payload,
    raw,
    signature,
    status: null,
    error: null,
    at: new Date().toISOString(),
  };
  state.webhooks.push(record);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": signature,
        "user-agent": "facebookexternalua",
      },
      body: raw,
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(WEBHOOK_TIMEOUT_MS), state.lifecycle.signal]),
    });
    // Drain the answer so the keep-alive socket is reused.
    await response.arrayBuffer();
    record.status = response.status;
    if (response.status < 200 || response.status > 299) {
      state.logger.warn("sandbox webhook refused", { url, kind, status: response.status });
    }
    return response.status;
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
    if (!state.closed) state.logger.warn("sandbox webhook failed", { url, kind, error: record.error });
    return null;
  }
}

/** The errors[] entry of a `failed` status for an undeliverable message. */
export function undeliverableError(): Record<string, unknown> {
  return {
    code: 131026,
    title: "Message undeliverable",
    message: "Message undeliverable",
    error_data: { details: "Message Undeliverable." },
    href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
  };
}

export interface AcceptedSend {
  phoneNumberId: string;
  wamid: string;
  waId: string;
  /** Meta's pricing category: `service` for free-form messages, else the template's category in lower case. */
  category: string;
}

function autoStatus(
  state: SandboxState,
  send: AcceptedSend,
  status: "sent" | "delivered" | "read" | "failed",
): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    id: send.wamid,
    status,
    timestamp: String(Math.floor(state.now() / 1000)),
    recipient_id: send.waId,
  };
  if (status === "sent" || status === "delivered") {
    const service = send.category === "service";
    entry.pricing = {
      billable: !service,
      pricing_model: "PMP",
      type: service ? "free_customer_service" : "regular",
      category: send.category,
    };
  }
  if (status === "failed") entry.errors = [undeliverableError()];
  return entry;
}

/**
 * After an accepted send: `sent`, `delivered`, `read` (or `sent`, `failed` for failAfterSend recipients) at the
 * configured delays. Each status is one webhook and waits for the previous POST to finish, so one message's
 * statuses reach the gateway in order. A reset or shutdown stops the sequence.
 */
export function startStatusSequence(state: SandboxState, send: AcceptedSend): void {
  if (!state.config.autoStatuses || !state.config.webhookUrl) return;
  const generation = state.generation;
  const delays = state.config.statusDelaysMs;
  const steps: ["sent" | "delivered" | "read" | "failed", number][] = state.config.failAfterSend.includes(send.waId)
    ? [
        ["sent", delays.sent],
        ["failed", delays.delivered],
      ]
    : [
        ["sent", delays.sent],
        ["delivered", delays.delivered],
        ["read", delays.read],
      ];
  void (async () => {
    let elapsed = 0;
    for (const [status, at] of steps) {
      if (!(await sleep(state, at - elapsed))) return;
      elapsed = Math.max(elapsed, at);
      if (state.generation !== generation || state.closed) return;
      await postWebhook(
        state,
        "statuses",
        webhookPayload(state, send.phoneNumberId, { statuses: [autoStatus(state, send, status)] }),
      );
    }
  })();
}
