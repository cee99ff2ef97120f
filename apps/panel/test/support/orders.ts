// Orders for the panel's tests (Pedidos, Conversas' order badge, axe), written as the accepted Pix send writes them:
// an open order, its order_details message in history, and the messages row of that send.
import type { Db } from "@gw/db";

/**
 * The orders tables of design-28 §1, only when the test database has none (before @gw/core/orders' migration is
 * merged, `20261204000000_orders`; after it, the migration's tables are used as they are).
 */
export async function ensureOrderTables(db: Db): Promise<void> {
  await db.sql.query(`
    CREATE TABLE IF NOT EXISTS orders (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      reference_id text NOT NULL, state text NOT NULL, phone_number_id text NOT NULL, recipient text NOT NULL,
      template_name text NOT NULL, language text NOT NULL, goods_type text NOT NULL, items jsonb NOT NULL,
      subtotal bigint NOT NULL, tax bigint NOT NULL, total_amount bigint NOT NULL, payment_settings jsonb NOT NULL,
      client_ref text, message_wamid text,
      order_status text NOT NULL DEFAULT 'pending', payment_status text NOT NULL DEFAULT 'pending',
      payment_timestamp bigint, description text,
      claim_owner uuid, claim_request_id text, provider_called_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(), opened_at timestamptz(3),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX IF NOT EXISTS orders_account_reference_key ON orders (account_id, reference_id);
    CREATE TABLE IF NOT EXISTS order_messages (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      kind text NOT NULL, state text NOT NULL, wamid text, order_status text NOT NULL, payment_status text,
      payment_timestamp bigint, description text, body_text text NOT NULL, actor text NOT NULL, request_id text,
      claim_owner uuid, provider_called_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(), accepted_at timestamptz(3),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX IF NOT EXISTS order_messages_wamid_key ON order_messages (wamid);
    CREATE UNIQUE INDEX IF NOT EXISTS order_messages_one_claim ON order_messages (order_id) WHERE state = 'claimed';
  `);
}

export interface SeededOrder {
  referenceId: string;
  /** The order_details message (messages.wamid). */
  wamid: string;
}

/**
 * An open order sent to `to` from the tenant's number: two items (2 × R$ 25,00 and 1 × R$ 10,50), tax R$ 1,00,
 * total R$ 61,50, Pix and boleto offered. `status` rows after the order_details (each an accepted order_status with
 * its message's status) move the order to the last one's pair.
 */
export async function seedOrder(
  db: Db,
  input: {
    accountId: string;
    phoneNumberId: string;
    to: string;
    contactKey?: string | null;
    referenceId: string;
    detailsStatus?: string;
    statuses?: {
      orderStatus: string;
      paymentStatus: string | null;
      description?: string;
      messageStatus: string;
      error?: { code: number; reason: string };
      actor?: string;
    }[];
  },
): Promise<SeededOrder> {
  const wamid = `wamid.order.${input.accountId}.${input.referenceId}`;
  await db.message.create({
    data: {
      accountId: input.accountId,
      phoneNumberId: input.phoneNumberId,
      to: input.to,
      contactKey: input.contactKey ?? null,
      wamid,
      kind: "template",
      templateName: "pedido_pix",
      status: input.detailsStatus ?? "read",
    },
  });
  const statuses = input.statuses ?? [];
  const last = statuses.at(-1);
  const payment = [...statuses].reverse().find((s) => s.paymentStatus !== null)?.paymentStatus ?? "pending";
  const {
    rows: [order],
  } = await db.sql.query<{ id: string }>(
    `INSERT INTO orders (account_id, reference_id, state, phone_number_id, recipient, template_name, language,
       goods_type, items, subtotal, tax, total_amount, payment_settings, client_ref, message_wamid, order_status,
       payment_status, description, opened_at)
     VALUES ($1::uuid, $2, 'open', $3, $4, 'pedido_pix', 'pt_BR', 'physical-goods', $5::jsonb, 6050, 100, 6150,
       $6::jsonb, 'loja-77', $7, $8, $9, $10, now())
     RETURNING id`,
    [
      input.accountId,
      input.referenceId,
      input.phoneNumberId,
      input.to,
      JSON.stringify([
        { name: "Pão de queijo (kg)", amount: 2500, quantity: 2, retailer_id: "PQ-1" },
        { name: "Café <especial>", amount: 1050, quantity: 1, retailer_id: null },
      ]),
      JSON.stringify([
        {
          type: "pix_dynamic_code",
          pix_dynamic_code: { code: "000201", merchant_name: "Padaria", key: "k", key_type: "EVP" },
        },
        { type: "boleto", boleto: { digitable_line: "1".repeat(47) } },
      ]),
      wamid,
      last?.orderStatus ?? "pending",
      payment,
      last?.description ?? null,
    ],
  );
  if (!order) throw new Error("order not inserted");
  await db.sql.query(
    `INSERT INTO order_messages (order_id, kind, state, wamid, order_status, payment_status, body_text, actor, accepted_at)
     VALUES ($1, 'order_details', 'accepted', $2, 'pending', 'pending', 'Seu pedido', 'api_key:test', now())`,
    [order.id, wamid],
  );
  for (const [index, status] of statuses.entries()) {
    const statusWamid = `${wamid}.status.${index}`;
    await db.message.create({
      data: {
        accountId: input.accountId,
        phoneNumberId: input.phoneNumberId,
        to: input.to,
        contactKey: input.contactKey ?? null,
        wamid: statusWamid,
        kind: "order_status",
        status: status.messageStatus,
        ...(status.error ? { errorCode: status.error.code, errorReason: status.error.reason } : {}),
      },
    });
    await db.sql.query(
      `INSERT INTO order_messages (order_id, kind, state, wamid, order_status, payment_status, description, body_text,
         actor, accepted_at)
       VALUES ($1, 'order_status', 'accepted', $2, $3, $4, $5, 'Seu pedido mudou', $6, now())`,
      [
        order.id,
        statusWamid,
        status.orderStatus,
        status.paymentStatus,
        status.description ?? null,
        status.actor ?? "api_key:test",
      ],
    );
  }
  return { referenceId: input.referenceId, wamid };
}

/**
 * Opens `referenceId` at the provider sandbox as the accepted order_details would (an interactive order_details from
 * the tenant's number to `to`), so the sandbox, which checks order_status against the references it saw, takes the
 * statuses the panel sends for a seeded order. Needs the customer's window open.
 */
export async function openAtSandbox(
  sandboxUrl: string,
  input: { phoneNumberId: string; to: string; referenceId: string; accessToken: string },
): Promise<void> {
  const response = await fetch(`${sandboxUrl}/v23.0/${input.phoneNumberId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${input.accessToken}` },
    body: JSON.stringify({
      messaging_product: "whatsapp",
      to: input.to,
      type: "interactive",
      interactive: {
        type: "order_details",
        body: { text: "Seu pedido" },
        action: {
          name: "review_and_pay",
          parameters: {
            reference_id: input.referenceId,
            type: "physical-goods",
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
            total_amount: { value: 6150, offset: 100 },
            order: {
              status: "pending",
              tax: { value: 100, offset: 100 },
              items: [
                { retailer_id: "PQ-1", name: "Pão de queijo (kg)", amount: { value: 2500, offset: 100 }, quantity: 2 },
                { retailer_id: "CF-1", name: "Café", amount: { value: 1050, offset: 100 }, quantity: 1 },
              ],
              subtotal: { value: 6050, offset: 100 },
            },
          },
        },
      },
    }),
  });
  if (response.status !== 200) throw new Error(`sandbox order_details ${response.status}: ${await response.text()}`);
}
