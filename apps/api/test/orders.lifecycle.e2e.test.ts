import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Dispatcher } from "@gw/dispatcher";
import type { MessageReceivedEvent, OrderUpdatedEvent } from "@gw/receiver";
import { eventually } from "@gw/testkit";
import {
  contactWrites,
  createTestAccount,
  seedIntegration,
  startTestDispatcher,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { startReceiver } from "./support/receiver.ts";

// Issue 28, black box (design-28 §9): Pix orders through the API, the provider sandbox (Meta's order_details and
// order_status with their checks, each reference's card), the dispatcher and two verifying receivers of one account:
// `plain` (message.status and message.received, payload version 1) and `orders` (order.updated and message.received,
// payload version 2). Every order is created by a real `pix_order` send, every status by POST .../status.

jest.setTimeout(120_000);

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

interface SandboxSent {
  phone_number_id: string;
  to: string | null;
  type: string;
  body: Json & {
    to?: string;
    recipient?: string;
    interactive?: { type?: string; body?: { text?: string }; action?: { name?: string; parameters?: Json } };
    template?: { components?: { type: string; sub_type?: string; parameters?: { action?: Json }[] }[] };
  };
}

interface SandboxOrder {
  reference_id: string;
  card: { order_status: string; payment_status: string };
  history: { type: string; order_status: string; payment_status: string | null }[];
}

let gateway: TestGateway;
let dispatcher: Dispatcher;
let account: TestAccount;
let other: TestAccount;
let plain: Awaited<ReturnType<typeof startReceiver>>;
let orders: Awaited<ReturnType<typeof startReceiver>>;
const secrets = { plain: "", orders: "" };

let contactCounter = 0;
/** A new customer per case, so each case's window is its own. */
const nextContact = () => `55119876528${String(++contactCounter).padStart(2, "0")}`;
const reference = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

async function call(
  path: string,
  init: { method?: string; body?: unknown; key?: string; idempotencyKey?: string; as?: TestAccount } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${(init.as ?? account).apiKey}` };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.idempotencyKey) headers["idempotency-key"] = init.idempotencyKey;
  const response = await fetch(`${gateway.apiUrl}/public/v1${path}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? (JSON.parse(text) as Json) : {} };
}

function pixOrder(referenceId: string, extra: Json = {}): Json {
  return {
    reference_id: referenceId,
    pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
    merchant_name: "Loja Exemplo",
    key: "39580525000189",
    items: [{ name: "Bolo", amount: 5000 }],
    ...extra,
  };
}

function sendPix(to: string, referenceId: string, options: { key?: string; extra?: Json; as?: TestAccount } = {}) {
  return call("/messages", {
    method: "POST",
    body: {
      to,
      template: "cobranca_pix",
      variables: ["Maria", "12345"],
      pix_order: pixOrder(referenceId, options.extra),
    },
    ...(options.key ? { idempotencyKey: options.key } : {}),
    ...(options.as ? { as: options.as } : {}),
  });
}

function updateStatus(referenceId: string, body: Json, options: { key?: string; as?: TestAccount } = {}) {
  return call(`/orders/${encodeURIComponent(referenceId)}/status`, {
    method: "POST",
    body,
    idempotencyKey: options.key ?? randomUUID(),
    ...(options.as ? { as: options.as } : {}),
  });
}

const getOrder = (referenceId: string, as?: TestAccount) =>
  call(`/orders/${encodeURIComponent(referenceId)}`, as ? { as } : {});

/** The Graph message POSTs the sandbox received from the account's number (answered or refused). */
async function messagePosts(): Promise<number> {
  const response = await fetch(`${gateway.sandbox.url}/_sandbox/requests?limit=100000`);
  const requests = (await response.json()) as { method: string; path: string }[];
  return requests.filter((r) => r.method === "POST" && r.path.endsWith(`/${account.phoneNumberId}/messages`)).length;
}

async function sentOrderStatuses(referenceId: string): Promise<SandboxSent[]> {
  const response = await fetch(`${gateway.sandbox.url}/_sandbox/sent?limit=100000`);
  const sent = (await response.json()) as SandboxSent[];
  return sent.filter(
    (s) =>
      s.body.interactive?.type === "order_status" &&
      s.body.interactive.action?.parameters?.reference_id === referenceId,
  );
}

async function sentPix(referenceId: string): Promise<SandboxSent[]> {
  const response = await fetch(`${gateway.sandbox.url}/_sandbox/sent?limit=100000`);
  const sent = (await response.json()) as SandboxSent[];
  return sent.filter((s) =>
    (s.body.template?.components ?? []).some(
      (c) => (c.parameters?.[0]?.action?.order_details as Json | undefined)?.reference_id === referenceId,
    ),
  );
}

async function sandboxOrder(referenceId: string): Promise<SandboxOrder | undefined> {
  const response = await fetch(
    `${gateway.sandbox.url}/_sandbox/orders?reference_id=${encodeURIComponent(referenceId)}&phone_number_id=${account.phoneNumberId}`,
  );
  return ((await response.json()) as { orders: SandboxOrder[] }).orders[0];
}

async function fault(rule: Json): Promise<void> {
  const response = await fetch(`${gateway.sandbox.url}/_sandbox/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ count: 1, route: "messages", ...rule }),
  });
  expect(response.status).toBe(200);
}

/** The fault rules not yet used up: each case leaves none behind. */
async function faultsLeft(): Promise<unknown[]> {
  const response = await fetch(`${gateway.sandbox.url}/_sandbox/faults`);
  return ((await response.json()) as { faults: unknown[] }).faults;
}

/** The customer writes: their 24-hour window opens (an order_status is a free-form message). */
async function customerWrites(from: string): Promise<void> {
  const answer = await contactWrites(gateway, {
    phone_number_id: account.phoneNumberId,
    from,
    type: "text",
    text: "Paguei",
  });
  expect(answer.webhook_status).toBe(200);
}

/** An order sent to a customer who wrote, by a real Pix send; its reference. */
async function openOrder(name: string): Promise<{ referenceId: string; to: string; messageId: string }> {
  const to = nextContact();
  await customerWrites(to);
  const referenceId = reference(name);
  const sent = await sendPix(to, referenceId);
  expect(sent.status).toBe(200);
  return { referenceId, to, messageId: String((sent.body.data as Json).message_id) };
}

const orderUpdates = (referenceId: string) =>
  orders.received
    .map((r) => r.event)
    .filter((e): e is OrderUpdatedEvent => e.event === "order.updated" && e.data.reference_id === referenceId);

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "100000" } });
  plain = await startReceiver(() => secrets.plain);
  orders = await startReceiver(() => secrets.orders);
  account = await createTestAccount(gateway.db, {
    integrationUrl: plain.url,
    events: ["message.status", "message.received"],
  });
  secrets.plain = account.signingSecret ?? "";
  const subscribed = await seedIntegration(gateway.db, {
    accountId: account.accountId,
    url: orders.url,
    events: ["order.updated", "message.received"],
    payloadVersion: 2,
  });
  secrets.orders = subscribed.secret;
  other = await createTestAccount(gateway.db);
  dispatcher = await startTestDispatcher(gateway);
});

afterAll(async () => {
  await dispatcher.stop();
  await plain.close();
  await orders.close();
  await gateway.close();
});

describe("Pix orders through the API (issue 28)", () => {
  it("1: a Pix send records the order: pending/pending, its order_details first in history, listed", async () => {
    const to = nextContact();
    const referenceId = reference("pedido-novo");
    const sent = await sendPix(to, referenceId);
    expect(sent.status).toBe(200);
    const messageId = (sent.body.data as Json).message_id;

    const got = await getOrder(referenceId);
    expect(got.status).toBe(200);
    const order = got.body.data as Json;
    expect(order).toMatchObject({
      reference_id: referenceId,
      phone_number_id: account.phoneNumberId,
      to,
      order_status: "pending",
      payment_status: "pending",
      currency: "BRL",
      template: "cobranca_pix",
      items: [{ name: "Bolo", amount: 5000, quantity: 1, retailer_id: null }],
      payment_methods: ["pix"],
      message_id: messageId,
    });
    expect(order.history).toEqual([
      expect.objectContaining({
        kind: "order_details",
        message_id: messageId,
        order_status: "pending",
        payment_status: "pending",
        origin: "api",
      }),
    ]);

    const listed = await call("/orders?status=pending&limit=200");
    expect(listed.status).toBe(200);
    const references = ((listed.body.data as Json).orders as Json[]).map((o) => o.reference_id);
    expect(references).toContain(referenceId);
    expect((listed.body.data as Json).orders as Json[]).not.toContainEqual(
      expect.objectContaining({ history: expect.anything() }),
    );
    const processing = await call("/orders?status=processing&limit=200");
    expect(((processing.body.data as Json).orders as Json[]).map((o) => o.reference_id)).not.toContain(referenceId);
  });

  it("2: a second order with a reference already used gets 409 order_reference_taken and nothing reaches the sandbox", async () => {
    const to = nextContact();
    const referenceId = reference("pedido-repetido");
    expect((await sendPix(to, referenceId, { key: randomUUID() })).status).toBe(200);
    const before = await messagePosts();
    for (const key of [randomUUID(), undefined]) {
      const again = await sendPix(nextContact(), referenceId, key ? { key } : {});
      expect(again.status).toBe(409);
      expect((again.body.error as Json).code).toBe("order_reference_taken");
      expect(String((again.body.error as Json).message)).toMatch(/^Já existe um pedido com esta reference_id/);
    }
    expect(await messagePosts()).toBe(before);
    expect(await sentPix(referenceId)).toHaveLength(1);
  });

  it("3: processing with payment captured sends order_status with the reference to the order's customer; the card shows it", async () => {
    const { referenceId, to } = await openOrder("pedido-pago");
    const answer = await updateStatus(referenceId, {
      order_status: "processing",
      payment_status: "captured",
      payment_timestamp: 1780001000,
      description: "Separando os itens",
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      reference_id: referenceId,
      message_id: expect.any(String),
      order_status: "processing",
      payment_status: "captured",
      to,
      phone_number_id: account.phoneNumberId,
    });
    const [sent, ...more] = await sentOrderStatuses(referenceId);
    expect(more).toEqual([]);
    expect(sent?.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to,
      type: "interactive",
      interactive: {
        type: "order_status",
        body: { text: `Pagamento confirmado! Seu pedido ${referenceId} está em preparação.` },
        action: {
          name: "review_order",
          parameters: {
            reference_id: referenceId,
            order: { status: "processing", description: "Separando os itens" },
            payment: { status: "captured", timestamp: 1780001000 },
          },
        },
      },
    });
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "processing", payment_status: "captured" });
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "processing",
      payment_status: "captured",
      payment_timestamp: 1780001000,
      description: "Separando os itens",
    });
  });

  it("4: canceled after captured is 422 order_cancel_refused before Meta; the order is unchanged", async () => {
    const { referenceId } = await openOrder("pedido-cancelar");
    expect((await updateStatus(referenceId, { order_status: "processing", payment_status: "captured" })).status).toBe(
      200,
    );
    const before = await messagePosts();
    const refused = await updateStatus(referenceId, { order_status: "canceled" });
    expect(refused.status).toBe(422);
    expect((refused.body.error as Json).code).toBe("order_cancel_refused");
    const withFailed = await updateStatus(referenceId, { order_status: "canceled", payment_status: "failed" });
    expect(withFailed.status).toBe(422);
    expect((withFailed.body.error as Json).code).toBe("order_transition_invalid");
    expect(await messagePosts()).toBe(before);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "processing",
      payment_status: "captured",
    });
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "processing", payment_status: "captured" });
  });

  it("5 and 6: nothing follows completed (422, nothing sent); GET shows the history with each message's outcome", async () => {
    const { referenceId, messageId } = await openOrder("pedido-concluido");
    const processing = await updateStatus(referenceId, { order_status: "processing", payment_status: "captured" });
    const completed = await updateStatus(referenceId, { order_status: "completed" });
    expect([processing.status, completed.status]).toEqual([200, 200]);
    const before = await messagePosts();
    for (const next of ["processing", "partially_shipped", "shipped", "completed", "canceled"]) {
      const refused = await updateStatus(referenceId, {
        order_status: next,
        ...(next === "canceled" ? { payment_status: "failed" } : {}),
      });
      expect({ next, status: refused.status, code: (refused.body.error as Json).code }).toEqual({
        next,
        status: 422,
        code: "order_transition_invalid",
      });
    }
    expect(await messagePosts()).toBe(before);

    const history = await eventually(
      async () => {
        const got = (await getOrder(referenceId)).body.data as Json;
        const entries = got.history as Json[];
        return entries.every((e) => e.message_status === "delivered" || e.message_status === "read")
          ? entries
          : undefined;
      },
      { what: "every message of the order delivered or read" },
    );
    expect(history.map((e) => [e.kind, e.order_status, e.payment_status, e.message_id])).toEqual([
      ["order_details", "pending", "pending", messageId],
      ["order_status", "processing", "captured", (processing.body.data as Json).message_id],
      ["order_status", "completed", null, (completed.body.data as Json).message_id],
    ]);
    expect(history.map((e) => e.error)).toEqual([null, null, null]);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "completed",
      payment_status: "captured",
    });
  });

  it("7: order.updated arrives signed at the subscribed integration only: status_sent, then message_status", async () => {
    const { referenceId, to } = await openOrder("pedido-evento");
    const answer = await updateStatus(referenceId, { order_status: "shipped", description: "Enviado pelos Correios" });
    expect(answer.status).toBe(200);
    const messageId = (answer.body.data as Json).message_id;
    const events = await eventually(
      () => {
        const got = orderUpdates(referenceId);
        const statuses = got.filter(
          (e) => e.data.trigger === "message_status" && e.data.message.message_id === messageId,
        );
        return got.some((e) => e.data.trigger === "status_sent") &&
          statuses.some((e) => e.data.message.message_status === "delivered")
          ? got
          : undefined;
      },
      { what: "order.updated status_sent and a delivered message_status" },
    );
    const first = events.find((e) => e.data.trigger === "status_sent");
    expect(first?.data).toEqual({
      reference_id: referenceId,
      phone_number_id: account.phoneNumberId,
      to,
      order_status: "shipped",
      payment_status: "pending",
      payment_timestamp: null,
      description: "Enviado pelos Correios",
      trigger: "status_sent",
      updated_at: expect.any(String),
      message: {
        message_id: messageId,
        kind: "order_status",
        order_status: "shipped",
        payment_status: null,
        message_status: null,
        error: null,
      },
    });
    // Never on creation: every event of the order follows the status send.
    expect(events.filter((e) => e.data.trigger === "status_sent")).toHaveLength(1);
    const delivered = orders.received.find(
      (r) =>
        r.event.event === "order.updated" &&
        r.event.data.trigger === "message_status" &&
        r.event.data.message.message_id === messageId,
    );
    expect(delivered?.headers["x-pt-event"]).toBe("order.updated");
    expect(orders.rejected).toBe(0);
    // The integration that did not choose the event gets none (its message.status of the same message arrives).
    await eventually(() =>
      plain.received.some((r) => r.event.event === "message.status" && r.event.data.message_id === messageId),
    );
    expect(plain.received.filter((r) => (r.event.event as string) === "order.updated")).toEqual([]);
  });

  it("8: the same key twice sends once and answers the same bytes; a same-key Pix repeat replays, not 409", async () => {
    const { referenceId } = await openOrder("pedido-chave");
    const key = randomUUID();
    const body = { order_status: "processing", payment_status: "captured" };
    const first = await updateStatus(referenceId, body, { key });
    const second = await updateStatus(referenceId, body, { key });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.text).toBe(first.text);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await sentOrderStatuses(referenceId)).toHaveLength(1);
    // Another body with the key is a conflict, not a second status.
    const conflict = await updateStatus(referenceId, { order_status: "shipped" }, { key });
    expect(conflict.status).toBe(409);
    expect((conflict.body.error as Json).code).toBe("idempotency_conflict");

    const to = nextContact();
    const pixReference = reference("pedido-pix-chave");
    const pixKey = randomUUID();
    const pixFirst = await sendPix(to, pixReference, { key: pixKey });
    const pixAgain = await sendPix(to, pixReference, { key: pixKey });
    expect([pixFirst.status, pixAgain.status]).toEqual([200, 200]);
    expect(pixAgain.text).toBe(pixFirst.text);
    expect(pixAgain.headers.get("idempotent-replayed")).toBe("true");
    expect(await sentPix(pixReference)).toHaveLength(1);
  });

  it("9: a customer known only by a BSUID: the Pix send and the status update both reach Meta in `recipient`, never `to`; the card changes", async () => {
    const username = `cliente.${randomUUID().slice(0, 8)}`;
    const created = await fetch(`${gateway.sandbox.url}/_sandbox/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, name: "Fernanda", phone: null }),
    });
    expect(created.status).toBe(200);
    const { user_id: bsuid } = (await created.json()) as { user_id: string };
    const inbound = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      username,
      type: "text",
      text: "Quero pagar por Pix",
    });
    expect(inbound.webhook_status).toBe(200);

    const referenceId = reference("pedido-bsuid");
    const sent = await sendPix(bsuid, referenceId);
    expect(sent.status).toBe(200);
    const [pix, ...morePix] = await sentPix(referenceId);
    expect(morePix).toEqual([]);
    expect(pix?.body).toMatchObject({ recipient: bsuid, recipient_type: "individual", type: "template" });
    expect(pix?.body).not.toHaveProperty("to");
    expect((await getOrder(referenceId)).body.data).toMatchObject({ to: bsuid, order_status: "pending" });
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "pending", payment_status: "pending" });

    const answer = await updateStatus(referenceId, { order_status: "processing", payment_status: "captured" });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ reference_id: referenceId, to: bsuid, order_status: "processing" });
    const [status, ...moreStatuses] = await sentOrderStatuses(referenceId);
    expect(moreStatuses).toEqual([]);
    expect(status?.body).toMatchObject({
      recipient: bsuid,
      recipient_type: "individual",
      type: "interactive",
      interactive: { type: "order_status", action: { parameters: { reference_id: referenceId } } },
    });
    expect(status?.body).not.toHaveProperty("to");
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "processing", payment_status: "captured" });
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      to: bsuid,
      order_status: "processing",
      payment_status: "captured",
    });
  });

  it("10: races: of two Pix sends of one reference one is 200 and one 409; of two status updates one is 200 and one 409 order_update_in_flight", async () => {
    // Two Pix sends, one reference, different keys: the first is held at Meta (answered late, processed at once).
    const to = nextContact();
    const pixReference = reference("pedido-corrida-pix");
    await fault({ mode: "slow", delay_ms: 1500, deliver: true });
    const first = sendPix(to, pixReference, { key: randomUUID() });
    await eventually(async () => (await sentPix(pixReference)).length === 1, { what: "the first Pix send at Meta" });
    const second = await sendPix(to, pixReference, { key: randomUUID() });
    expect(second.status).toBe(409);
    expect((second.body.error as Json).code).toBe("order_reference_taken");
    expect((await first).status).toBe(200);
    expect(await sentPix(pixReference)).toHaveLength(1);

    // Two status updates of one order: the first is held at Meta while the second arrives.
    const { referenceId } = await openOrder("pedido-corrida");
    await fault({ mode: "slow", delay_ms: 1500, deliver: true });
    const held = updateStatus(referenceId, { order_status: "processing", payment_status: "captured" });
    await eventually(async () => (await sentOrderStatuses(referenceId)).length === 1, {
      what: "the first status at Meta",
    });
    const racing = await updateStatus(referenceId, { order_status: "shipped" });
    expect(racing.status).toBe(409);
    expect((racing.body.error as Json).code).toBe("order_update_in_flight");
    expect(Number(racing.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await held).status).toBe(200);
    expect(await sentOrderStatuses(referenceId)).toHaveLength(1);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "processing",
      payment_status: "captured",
    });
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "processing", payment_status: "captured" });
    expect(await faultsLeft()).toEqual([]);
    // Nothing is left claimed: the next status goes out.
    expect((await updateStatus(referenceId, { order_status: "shipped" })).status).toBe(200);
  });

  it("11: with the customer's window closed the status is 422 outside_24h_window; nothing sent, the order unchanged", async () => {
    const to = nextContact();
    const referenceId = reference("pedido-sem-janela");
    expect((await sendPix(to, referenceId)).status).toBe(200);
    const before = await messagePosts();
    const refused = await updateStatus(referenceId, { order_status: "processing", payment_status: "captured" });
    expect(refused.status).toBe(422);
    expect((refused.body.error as Json).code).toBe("outside_24h_window");
    // The refusal names the way out: the order-status template (issue 37).
    expect((refused.body.error as Json).message).toMatch(/template/);
    expect(await messagePosts()).toBe(before);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "pending",
      payment_status: "pending",
    });
    expect(await sentOrderStatuses(referenceId)).toEqual([]);
  });

  it("12: Meta refusing the status with 2046 is 422 order_transition_invalid; the order is unchanged and the key is released", async () => {
    const { referenceId } = await openOrder("pedido-recusado");
    const key = randomUUID();
    const body = { order_status: "processing", payment_status: "captured" };
    await fault({ mode: "error", code: 2046, details: "order_status: invalid transition" });
    const refused = await updateStatus(referenceId, body, { key });
    expect(refused.status).toBe(422);
    expect((refused.body.error as Json).code).toBe("order_transition_invalid");
    expect(await faultsLeft()).toEqual([]);
    expect(await sentOrderStatuses(referenceId)).toEqual([]);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "pending",
      payment_status: "pending",
    });
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "pending", payment_status: "pending" });

    // The refusal is not kept under the key: the same key and body now send.
    const again = await updateStatus(referenceId, body, { key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await sentOrderStatuses(referenceId)).toHaveLength(1);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "processing",
      payment_status: "captured",
    });
  });

  it("13: payment_link and boleto follow the Pix entry; a bad uri or digitable_line is 422 at its loc, nothing sent", async () => {
    const to = nextContact();
    const referenceId = reference("pedido-metodos");
    const link = { uri: "https://pagamento.example.com.br/p/123" };
    const boleto = { digitable_line: "34191790010104351004791020150008291070026000" + "123" };
    const sent = await sendPix(to, referenceId, { extra: { payment_link: link, boleto } });
    expect(sent.status).toBe(200);
    const [graph] = await sentPix(referenceId);
    const details = graph?.body.template?.components
      ?.map((c) => c.parameters?.[0]?.action?.order_details as Json | undefined)
      .find(Boolean);
    expect((details?.payment_settings as Json[]).map((s) => s.type)).toEqual([
      "pix_dynamic_code",
      "payment_link",
      "boleto",
    ]);
    expect((details?.payment_settings as Json[]).slice(1)).toEqual([
      { type: "payment_link", payment_link: link },
      { type: "boleto", boleto },
    ]);
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      payment_methods: ["pix", "payment_link", "boleto"],
    });

    const before = await messagePosts();
    for (const [extra, loc] of [
      [{ payment_link: { uri: "http://pagamento.example.com.br/p/1" } }, ["body", "pix_order", "payment_link", "uri"]],
      [{ boleto: { digitable_line: "1234" } }, ["body", "pix_order", "boleto", "digitable_line"]],
    ] as const) {
      const refused = await sendPix(nextContact(), reference("pedido-invalido"), { extra });
      expect(refused.status).toBe(422);
      expect((refused.body.detail as Json[]).map((d) => d.loc)).toContainEqual(loc);
    }
    expect(await messagePosts()).toBe(before);
  });

  it("14: the one-click card answer is message.received type interactive; its payment_method member on version 2 only", async () => {
    const { referenceId, to } = await openOrder("pedido-cartao");
    const response = await fetch(`${gateway.sandbox.url}/_sandbox/payment-method`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: account.phoneNumberId,
        from: to,
        reference_id: referenceId,
        last_four_digits: "1234",
        credential_id: "cred_abc",
        payment_timestamp: 1780002000,
      }),
    });
    expect(response.status).toBe(200);
    const { id } = (await response.json()) as { id: string };
    const find = (receiver: typeof plain) =>
      receiver.received.find((r) => r.event.event === "message.received" && r.event.data.message_id === id)?.event as
        MessageReceivedEvent | undefined;
    const { one, two } = await eventually(() => {
      const [first, second] = [find(plain), find(orders)];
      return first && second ? { one: first.data, two: second.data } : undefined;
    });
    expect(one.type).toBe("interactive");
    expect(one).not.toHaveProperty("payment_method");
    expect(one).not.toHaveProperty("interactive");
    expect(two.type).toBe("interactive");
    expect(two.interactive).toBeNull();
    expect(two.payment_method).toEqual({
      payment_method: "offsite_card_pay",
      reference_id: referenceId,
      payment_timestamp: 1780002000,
      last_four_digits: "1234",
      credential_id: "cred_abc",
    });
    // The answer changes no order: the business charges the credential, then sends the status.
    expect((await getOrder(referenceId)).body.data).toMatchObject({
      order_status: "pending",
      payment_status: "pending",
    });
  });

  it("15: another account's reference is 404 not_found for GET and for POST status, and nothing is sent", async () => {
    const { referenceId } = await openOrder("pedido-alheio");
    const before = await messagePosts();
    const read = await getOrder(referenceId, other);
    expect(read.status).toBe(404);
    expect(read.body.error).toEqual({ code: "not_found", message: `O pedido ${referenceId} não existe nesta conta.` });
    const moved = await updateStatus(referenceId, { order_status: "processing" }, { as: other });
    expect(moved.status).toBe(404);
    expect((moved.body.error as Json).code).toBe("not_found");
    expect((await getOrder("nao-existe-nunca")).status).toBe(404);
    expect(await messagePosts()).toBe(before);
  });
});

describe("an order followed after the window closed: Meta's order-status template (issue 37)", () => {
  const TEMPLATE = { name: "status_do_pedido", language: "pt_BR", variables: ["Maria"] };

  /** The order-status templates the sandbox received for the reference. */
  async function sentStatusTemplates(referenceId: string): Promise<SandboxSent[]> {
    const response = await fetch(`${gateway.sandbox.url}/_sandbox/sent?limit=100000`);
    const sent = (await response.json()) as SandboxSent[];
    return sent.filter((s) =>
      (s.body.template?.components ?? []).some(
        (c) =>
          c.type === "order_status" &&
          ((c.parameters?.[0] as Json | undefined)?.order_status as Json | undefined)?.reference_id === referenceId,
      ),
    );
  }

  it("the customer paid in the bank app and never wrote: processing, then completed, by the template; history, card and order.updated follow", async () => {
    const to = nextContact();
    const referenceId = reference("pedido-sem-conversa");
    expect((await sendPix(to, referenceId)).status).toBe(200);

    const key = randomUUID();
    const body = { order_status: "processing", description: "Pagamento confirmado", template: TEMPLATE };
    const processing = await updateStatus(referenceId, body, { key });
    expect(processing.status).toBe(200);
    expect(processing.body.data).toMatchObject({
      reference_id: referenceId,
      order_status: "processing",
      payment_status: "pending",
    });
    // The same key and body answer the same, sending nothing more.
    const replay = await updateStatus(referenceId, body, { key });
    expect(replay.text).toBe(processing.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const completed = await updateStatus(referenceId, { order_status: "completed", template: TEMPLATE });
    expect(completed.status).toBe(200);

    // Meta got two templates carrying the order's status with Meta's spelling, the body's variable filled.
    const sent = await sentStatusTemplates(referenceId);
    expect(sent).toHaveLength(2);
    const template = sent[0]?.body.template as Json;
    expect(template).toMatchObject({ name: "status_do_pedido", language: { code: "pt_BR" } });
    expect(template.components).toEqual([
      { type: "body", parameters: [{ type: "text", text: "Maria" }] },
      {
        type: "order_status",
        parameters: [
          {
            type: "order_status",
            order_status: {
              reference_id: referenceId,
              order: { status: "processing", description: "Pagamento confirmado" },
            },
          },
        ],
      },
    ]);
    expect(await sentOrderStatuses(referenceId)).toEqual([]);
    expect((await sandboxOrder(referenceId))?.card).toEqual({ order_status: "completed", payment_status: "pending" });

    const order = (await getOrder(referenceId)).body.data as Json;
    expect(order).toMatchObject({ order_status: "completed", payment_status: "pending" });
    expect((order.history as Json[]).map((h) => [h.kind, h.order_status, h.form, h.template])).toEqual([
      ["order_details", "pending", "template", "cobranca_pix"],
      ["order_status", "processing", "template", "status_do_pedido"],
      ["order_status", "completed", "template", "status_do_pedido"],
    ]);
    // order.updated follows the order (and each of its messages' statuses): the order's statuses in their order.
    const updates = await eventually(() => {
      const seen = orderUpdates(referenceId);
      return seen.some((e) => e.data.order_status === "completed") ? seen : undefined;
    });
    expect([...new Set(updates.map((e) => e.data.order_status))]).toEqual(["pending", "processing", "completed"]);
  });

  it("inside the window the template is allowed too, and the interactive form's history says interactive", async () => {
    const { referenceId } = await openOrder("pedido-com-janela");
    expect((await updateStatus(referenceId, { order_status: "processing" })).status).toBe(200);
    expect((await updateStatus(referenceId, { order_status: "shipped", template: TEMPLATE })).status).toBe(200);
    const order = (await getOrder(referenceId)).body.data as Json;
    expect((order.history as Json[]).slice(1).map((h) => [h.form, h.template])).toEqual([
      ["interactive", null],
      ["template", "status_do_pedido"],
    ]);
  });

  it("refused before Meta: another sub-category's template, an unknown template, a payment or text with the template, a transition out of completed", async () => {
    const to = nextContact();
    const referenceId = reference("pedido-modelo-errado");
    expect((await sendPix(to, referenceId)).status).toBe(200);
    const before = await messagePosts();

    const custom = await updateStatus(referenceId, {
      order_status: "processing",
      template: { name: "pedido_confirmado", variables: ["Maria", "12345", "3"] },
    });
    expect(custom.status).toBe(422);
    expect(custom.body.error).toMatchObject({ code: "invalid_template" });
    expect((custom.body.error as Json).message).toMatch(/ORDER_STATUS/);

    const unknown = await updateStatus(referenceId, { order_status: "processing", template: { name: "nao_existe" } });
    expect(unknown.status).toBe(422);
    expect((unknown.body.error as Json).code).toBe("template_not_found");

    for (const field of ["payment_status", "text"] as const) {
      const extra = field === "payment_status" ? { payment_status: "captured" } : { text: "Pago" };
      const refused = await updateStatus(referenceId, { order_status: "processing", template: TEMPLATE, ...extra });
      expect(refused.status).toBe(422);
      expect((refused.body.detail as Json[]).map((d) => d.loc)).toContainEqual(["body", field]);
    }
    expect(await messagePosts()).toBe(before);

    expect((await updateStatus(referenceId, { order_status: "completed", template: TEMPLATE })).status).toBe(200);
    const after = await messagePosts();
    const past = await updateStatus(referenceId, { order_status: "shipped", template: TEMPLATE });
    expect(past.status).toBe(422);
    expect((past.body.error as Json).code).toBe("order_transition_invalid");
    expect(await messagePosts()).toBe(after);
  });

  it("the catalogue shows sub_category, and a plain send of an order-status template is refused before Meta", async () => {
    const catalogue = await call("/templates?status=ALL");
    expect(catalogue.status).toBe(200);
    const items = (catalogue.body.data as Json).templates as Json[];
    expect(items.find((t) => t.name === "status_do_pedido")).toMatchObject({
      category: "UTILITY",
      sub_category: "ORDER_STATUS",
    });
    for (const item of items) expect(item).toHaveProperty("sub_category");

    const to = nextContact();
    await customerWrites(to);
    const before = await messagePosts();
    const plainSend = await call("/messages", {
      method: "POST",
      body: { to, template: "status_do_pedido", variables: ["Maria"] },
    });
    expect(plainSend.status).toBe(422);
    expect(plainSend.body.error).toMatchObject({ code: "invalid_template" });
    expect((plainSend.body.error as Json).message).toMatch(/orders\/\{reference_id\}\/status/);
    expect(await messagePosts()).toBe(before);
  });
});
