import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyMetaSignature } from "@gw/signer";
import { silentLogger } from "@gw/testkit";
import {
  startSandbox,
  type PendingRedelivery,
  type RunningSandbox,
  type SandboxOptions,
  type SandboxTemplate,
  type WebhookPayload,
} from "../src/index.ts";

export const APP_SECRET = "sandbox-app-secret";
export const TOKEN = "sandbox-token-123";
export const PHONE_ID = "106540352242922";

export function start(options: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  return startSandbox({ appSecret: APP_SECRET, logger: silentLogger, ...options });
}

export interface Answer<T = GraphBody> {
  status: number;
  body: T;
}

export interface MetaErrorBody {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
  error_data?: { messaging_product: string; details: string };
  fbtrace_id: string;
}

/** Every Graph answer the sandbox gives, as one loose shape. */
export interface GraphBody {
  messaging_product?: string;
  /** `wa_id` for a send addressed to a phone, `user_id` for one addressed by BSUID alone. */
  contacts?: { input: string; wa_id?: string; user_id?: string }[];
  messages?: { id: string; message_status?: string }[];
  /** Mark-as-read and typing indicators. */
  success?: boolean;
  error?: MetaErrorBody;
  data?: (Partial<SandboxTemplate> & { id: string })[];
  paging?: { cursors: { before: string; after: string }; next?: string; previous?: string };
}

export interface StatusEntry {
  id: string;
  status: string;
  timestamp: string;
  recipient_id: string;
  errors?: { code: number; title: string; message: string; error_data: { details: string } }[];
  pricing?: { billable: boolean; pricing_model: string; type: string; category: string };
  recipient_user_id?: string;
  recipient_parent_user_id?: string;
  [extra: string]: unknown;
}

/** POST /{version}/{phone}/messages (or `/marketing_messages`, the Marketing Messages API) as the gateway would. */
export async function sendMessage(
  base: string,
  body: unknown,
  options: { phoneId?: string; token?: string; endpoint?: "messages" | "marketing_messages" } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${base}/v23.0/${options.phoneId ?? PHONE_ID}/${options.endpoint ?? "messages"}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as GraphBody };
}

export async function getJson(url: string, token?: string): Promise<Answer> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: (await response.json()) as GraphBody };
}

export async function control<T = Record<string, unknown>>(
  base: string,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const response = await fetch(`${base}/_sandbox${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export function text(to: string, body: string): Record<string, unknown> {
  return { messaging_product: "whatsapp", recipient_type: "individual", to, type: "text", text: { body } };
}

export function template(
  to: string,
  name: string,
  components: unknown[] = [],
  language = "pt_BR",
): Record<string, unknown> {
  return {
    messaging_product: "whatsapp",
    to,
    type: "template",
    template: { name, language: { code: language }, components },
  };
}

export const bodyParams = (...values: string[]) => ({
  type: "body",
  parameters: values.map((v) => ({ type: "text", text: v })),
});

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: WebhookPayload;
  /** performance.now() when the body had arrived. */
  at: number;
  /** The sandbox's side of the connection, to see keep-alive reuse. */
  remotePort: number | undefined;
  /** What the receiver answered. */
  status: number;
}

/**
 * A real loopback HTTP server standing in for the gateway's provider webhook. `status` is the answer to every POST,
 * or a function of the POST's 1-based number (e.g. 503 twice, then 200).
 */
export async function startReceiver(status: number | ((nth: number) => number) = 200): Promise<{
  url: string;
  received: ReceivedWebhook[];
  waitFor(predicate: (all: ReceivedWebhook[]) => boolean): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const answer = typeof status === "number" ? status : status(received.length + 1);
      received.push({
        headers: req.headers,
        raw,
        body: JSON.parse(raw.toString("utf8")) as WebhookPayload,
        at: performance.now(),
        remotePort: req.socket.remotePort,
        status: answer,
      });
      res.writeHead(answer, { "content-type": "application/json" }).end("{}");
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/provider/meta/webhook`,
    received,
    // Bounded by jest's test timeout: no timing is asserted.
    async waitFor(predicate) {
      while (!predicate(received)) await new Promise<void>((resolve) => waiters.push(resolve));
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The `value` of a webhook's first change. */
export function valueOf(
  hook: ReceivedWebhook | undefined,
): WebhookPayload["entry"][number]["changes"][number]["value"] | undefined {
  return hook?.body.entry[0]?.changes[0]?.value;
}

/** The field of a webhook's first change (`messages`, `standby`, `messaging_handovers`, `user_id_update`...). */
export function fieldOf(hook: ReceivedWebhook | undefined): string | undefined {
  return hook?.body.entry[0]?.changes[0]?.field;
}

/** The webhooks whose first change is of this field. */
export function hooksOf(hooks: ReceivedWebhook[], field: string): ReceivedWebhook[] {
  return hooks.filter((hook) => fieldOf(hook) === field);
}

/** Whether the webhook carries Meta's signature (X-Hub-Signature-256) of its raw bytes with the app secret. */
export function signedByMeta(hook: ReceivedWebhook | undefined): boolean {
  return verifyMetaSignature(APP_SECRET, hook?.raw ?? Buffer.alloc(0), String(hook?.headers["x-hub-signature-256"]));
}

/** The status webhooks of one message, in the order received. */
export function statusHooksOf(hooks: ReceivedWebhook[], wamid: string): ReceivedWebhook[] {
  return hooks.filter((hook) => (valueOf(hook)?.statuses ?? []).some((s) => s.id === wamid));
}

/** `statuses` of every webhook received, flattened. */
export function statusesOf(hooks: ReceivedWebhook[]): StatusEntry[] {
  return hooks.flatMap((h) => (h.body.entry[0]?.changes[0]?.value.statuses ?? []) as StatusEntry[]);
}

/** A valid Pix order for the order-details template and interactive message. */
export function pixOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    reference_id: "pedido-123",
    type: "digital-goods",
    payment_type: "br",
    payment_settings: [
      {
        type: "pix_dynamic_code",
        pix_dynamic_code: {
          code: "00020101021226700014br.gov.bcb.pix2548pix.example.com/qr/v2/cobv/123",
          merchant_name: "Loja Exemplo",
          key: "39580525000189",
          key_type: "CNPJ",
        },
      },
    ],
    currency: "BRL",
    total_amount: { value: 10500, offset: 100 },
    order: {
      status: "pending",
      tax: { value: 500, offset: 100 },
      items: [{ retailer_id: "sku-1", name: "Camiseta", amount: { value: 5000, offset: 100 }, quantity: 2 }],
      subtotal: { value: 10000, offset: 100 },
    },
    ...overrides,
  };
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /_sandbox/webhooks/pending. */
export async function pendingOf(base: string): Promise<PendingRedelivery[]> {
  return (await control<{ pending: PendingRedelivery[] }>(base, "/webhooks/pending")).body.pending;
}

/** A webhook endpoint that takes requests and never answers (until closed). */
export async function startSilentReceiver(): Promise<{
  url: string;
  /** Requests received. */
  hits: number;
  /** Connections the client closed. */
  disconnects: number;
  close(): Promise<void>;
}> {
  let hits = 0;
  let disconnects = 0;
  const server = createServer(() => {
    hits += 1;
  });
  server.on("connection", (socket) => socket.on("close", () => (disconnects += 1)));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/provider/meta/webhook`,
    get hits() {
      return hits;
    },
    get disconnects() {
      return disconnects;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
