// Issue 34: a send's Idempotency-Key is reserved in the statement that reads the recipient's contact key, so the
// fingerprint over the request with that key is taken in SQL (messages/reserve.ts). It must be the very hash the
// gateway took in JavaScript before (keys reserved by the previous release are compared with it during a rolling
// update), for every kind of contact key and every request.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { testEnv } from "@gw/testkit";
import { fingerprint, fingerprintOf, fingerprintParts, type FingerprintSource } from "../src/idempotency/index.ts";

let db: Db;

beforeAll(() => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
});

afterAll(async () => {
  await db.$disconnect();
});

/** The statement's expression (RESERVE_SEND's `fingerprint`), for one contact key. */
async function inSql(source: FingerprintSource, contactKey: string): Promise<string> {
  const parts = fingerprintParts(source);
  if ("whole" in parts) return parts.whole;
  const { rows } = await db.sql.query<{ value: string }>(
    `SELECT encode(sha256(convert_to($1 || to_json($2::text)::text || $3, 'UTF8')), 'hex') AS value`,
    [parts.before, contactKey, parts.after],
  );
  return rows[0]?.value ?? "";
}

const requests: Record<string, unknown>[] = [
  { to: "+55 11 98888-0000", text: "Olá, Maria! Seu pedido saiu." },
  { template: "pedido_confirmado", language: "pt_BR", variables: ["Zoë", 'ação "citada" \\ barra', "3"], to: "x" },
  { interactive: { type: "list", body: "Escolha", rows: [{ id: "1", title: "Pão 🍞" }] }, to: "x", client_ref: null },
  { a: 1, to: "x", z: { nested: [true, false, null] }, "chave com espaço": "\u0001\u001f" },
];
const contactKeys = [
  "5511988880000",
  "BR.A1b2C3d4E5f6",
  "US.parent.0aZ",
  "contact:0f8fad5b-d9cb-469f-a165-70867728950e",
  "retired:5511988880000",
];

describe("a send's fingerprint taken in SQL", () => {
  it("is the hash JavaScript takes, for every request and every kind of contact key", async () => {
    for (const request of requests)
      for (const key of contactKeys) {
        const source = { request, recipientField: "to" };
        expect({ request, key, hash: await inSql(source, key) }).toEqual({
          request,
          key,
          hash: fingerprintOf(source, key),
        });
        expect(fingerprintOf(source, key)).toBe(fingerprint({ ...request, to: key }));
      }
  });

  it("of a request that does not name its recipient is the request's own, whatever the key", async () => {
    const source = { request: { op: "order.status", reference_id: "pedido-1", order_status: "shipped" } };
    expect(await inSql(source, "5511988880000")).toBe(fingerprint(source.request));
  });
});
