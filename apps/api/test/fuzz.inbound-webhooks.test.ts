import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import request from "supertest";
import { signMetaPayload } from "@gw/signer";
import {
  APP_SECRET,
  createTestAccount,
  seedIntegration,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { MESSAGE_RECEIVED_V1_KEYS as VERSION_1_KEYS, MESSAGE_RECEIVED_V2_NONE } from "@gw/testkit";
import { inboundItem } from "./support/meta-inbound-arbitrary.ts";

// Property-based fuzzing of Meta's inbound webhook with the members read since issue 27 (location, contact cards,
// reaction, ad referral, forwarded flags, the media's checksum and flags), well-formed and malformed, signed, through
// the listening API (real PostgreSQL and Redis). Every item is well-formed where the gateway read it before, so: never
// a 5xx; never a quarantine (a malformed new member is dropped, not the message); every item stored once; the
// version-2 message.received body has every member of version 2, validates against the schema the gateway publishes
// and extends the version-1 body,
// which has exactly the contract's members. FUZZ_SCALE multiplies the 300 cases of a full run (fuzz.endpoints.test.ts
// reads it the same way); unset, 0.5.

const SCALE = Number(process.env.FUZZ_SCALE ?? 0.5);
const CASES = Math.max(1, Math.round(300 * SCALE));
/** What version 2 appends, every one on every body. */
// Every member of issue 27, then the customer's phone as the gateway knows it, the standby flag (issue 37) and the
// conversation's handler (issue 39).
const VERSION_2_MEMBERS = [...Object.keys(MESSAGE_RECEIVED_V2_NONE), "contact_phone", "standby", "handler"];

let gateway: TestGateway;
let account: TestAccount;
let versionTwo: string;
let validateReceived: ValidateFunction;
let lastDeliveryId = 0n;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "1000000" } });
  // No dispatcher: the deliveries wait in the outbox, where the test reads the bodies the integrations would get.
  account = await createTestAccount(gateway.db, {
    integrationUrl: "http://127.0.0.1:9/v1",
    events: ["message.received"],
  });
  versionTwo = (
    await seedIntegration(gateway.db, {
      accountId: account.accountId,
      url: "http://127.0.0.1:9/v2",
      events: ["message.received"],
      payloadVersion: 2,
    })
  ).integrationId;
  const catalogue = await request(gateway.app).get("/public/v1/event-types").set(account.auth);
  const schema = (catalogue.body.data.event_types as { name: string; schema: object }[]).find(
    (type) => type.name === "message.received",
  )?.schema;
  if (!schema) throw new Error("o catálogo não trouxe message.received");
  validateReceived = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
}, 60_000);

afterAll(async () => {
  await gateway.close();
});

function payload(items: Record<string, unknown>[], from: string): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: account.wabaId,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "551140000000", phone_number_id: account.phoneNumberId },
              contacts: [{ wa_id: from, profile: { name: "Fuzz" } }],
              messages: items,
            },
          },
        ],
      },
    ],
  });
}

/** What is wrong with what the gateway made of `items` (undefined: nothing). */
async function problemWith(items: Record<string, unknown>[]): Promise<string | undefined> {
  const wamids = items.map((item) => String(item.id));
  const stored = await gateway.db.inboundMessage.count({ where: { wamid: { in: wamids } } });
  if (stored !== items.length) return `${stored} of ${items.length} messages stored`;
  // Only the deliveries made since the previous case (ids grow), not a scan of every body.
  const deliveries = await gateway.db.delivery.findMany({
    where: { accountId: account.accountId, event: "message.received", id: { gt: lastDeliveryId } },
  });
  lastDeliveryId = deliveries.reduce((max, d) => (d.id > max ? d.id : max), lastDeliveryId);
  if (deliveries.length !== 2 * items.length) return `${deliveries.length} deliveries for ${items.length} messages`;
  for (const wamid of wamids) {
    const bodies = deliveries.filter(
      (d) => (JSON.parse(d.body) as { data: { message_id: string } }).data.message_id === wamid,
    );
    const two = bodies.find((d) => d.integrationId === versionTwo);
    const one = bodies.find((d) => d.integrationId !== versionTwo);
    if (!one || !two) return `${wamid}: a version is missing`;
    const dataOne = (JSON.parse(one.body) as { data: object }).data;
    const dataTwo = (JSON.parse(two.body) as { data: object }).data;
    if (JSON.stringify(Object.keys(dataOne)) !== JSON.stringify(VERSION_1_KEYS))
      return `${wamid}: version 1 has ${Object.keys(dataOne).join(",")}`;
    const added = Object.keys(dataTwo).slice(VERSION_1_KEYS.length);
    if (JSON.stringify(added) !== JSON.stringify(VERSION_2_MEMBERS))
      return `${wamid}: version 2 adds ${added.join(",")}`;
    if (!JSON.stringify(dataTwo).startsWith(JSON.stringify(dataOne).slice(0, -1)))
      return `${wamid}: version 2 does not extend version 1`;
    if (!validateReceived(JSON.parse(two.body)))
      return `${wamid}: version 2 off the schema: ${JSON.stringify(validateReceived.errors)}\n${two.body.slice(0, 2000)}`;
  }
  return undefined;
}

describe("fuzzing Meta's inbound webhook with the members of issue 27", () => {
  it(`${CASES} signed payloads: no 5xx, no quarantine, every message stored and its bodies on the schema`, async () => {
    const statuses = new Map<number, number>();
    let contacts = 0;
    const cases = fc.integer({ min: 1, max: 3 }).chain((count) => {
      const from = `5511977${String(++contacts % 100_000).padStart(6, "0")}`;
      return fc.tuple(fc.constant(from), fc.array(inboundItem(from), { minLength: count, maxLength: count }));
    });
    await fc.assert(
      fc.asyncProperty(cases, async ([from, items]) => {
        const body = payload(items, from);
        const answer = await request(gateway.app)
          .post("/provider/meta/webhook")
          .set("Content-Type", "application/json")
          .set("X-Hub-Signature-256", signMetaPayload(APP_SECRET, Buffer.from(body)))
          .send(body);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        // Past the webhook's 64 KiB: refused whole, as any such payload.
        if (Buffer.byteLength(body) > 65_536) return expect(answer.status).toBe(413);
        expect({ status: answer.status, body: answer.body as unknown }).toMatchObject({
          status: 200,
          body: { received: true, messages: items.length, quarantined: 0 },
        });
        const problem = await problemWith(items);
        if (problem !== undefined) throw new Error(problem);
      }),
      { numRuns: CASES },
    );
    console.log(`inbound webhook fuzz: ${CASES} cases, ${[...statuses].map(([s, n]) => `${s}×${n}`).join(" ")}`);
    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
  }, 120_000);
});
