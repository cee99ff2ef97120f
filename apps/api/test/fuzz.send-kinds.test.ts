import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { isErrorCode } from "@gw/errors";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// Property-based fuzzing of the send kinds of issue 27 (interactive, media, reaction, location) on POST
// /public/v1/messages, against the real API, PostgreSQL, Redis and the provider sandbox. Bodies are near-valid
// (sizes around each of Meta's limits, ids of this account, of another account and unknown, wrong types) and
// arbitrary JSON in place of any member. Properties: never a 5xx; every refusal is the envelope with a registered
// code or HTTPValidationError located in the body; a body the gateway refuses (422/400) reached neither the
// sandbox nor the messages table; a body the gateway sends, the sandbox (Meta's stand-in) accepts — no limit is
// left to Meta. FUZZ_SCALE scales the cases as in fuzz.endpoints.test.ts (unset: 0.5).

const SCALE = Number(process.env.FUZZ_SCALE ?? 0.5);
const KIND_CASES = Math.max(20, Math.round(600 * SCALE));

type Json = Record<string, unknown>;

let gateway: TestGateway;
let account: TestAccount;
let other: TestAccount;
const OPEN = "5511987655101";
const CLOSED = "5511987655102";
let inbound = "";
const ids = { image: "", document: "", otherAccount: "" };

async function uploaded(owner: TestAccount, type: string, mimeType: string, id: string): Promise<string> {
  await contactWrites(gateway, {
    phone_number_id: owner.phoneNumberId,
    from: "5511987655199",
    type,
    media: { id, mime_type: mimeType },
  });
  await gateway.db.sql.query({
    text: `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, filename, expires_at)
      VALUES ($1::uuid, $2, $3, 'uploaded', $4, $5, 'arquivo.pdf', now() + interval '30 days')
      ON CONFLICT (account_id, media_id) DO UPDATE SET origin = 'uploaded'`,
    values: [owner.accountId, owner.phoneNumberId, id, type, mimeType],
  });
  return id;
}

/** Accepted plus refused sends the sandbox took for the account's number. */
async function sandboxSends(): Promise<{ total: number; refused: Record<string, number> }> {
  const res = await fetch(`${gateway.sandbox.url}/_sandbox/sent/stats?phone_number_id=${account.phoneNumberId}`);
  const { numbers } = (await res.json()) as { numbers: { sent: number; refused: Record<string, number> }[] };
  const refused: Record<string, number> = {};
  let total = 0;
  for (const n of numbers) {
    total += n.sent;
    for (const [code, count] of Object.entries(n.refused)) {
      total += count;
      refused[code] = (refused[code] ?? 0) + count;
    }
  }
  return { total, refused };
}

async function storedMessages(): Promise<number> {
  const { rows } = await gateway.db.sql.query<{ n: string }>({
    text: "SELECT count(*) AS n FROM messages WHERE account_id = $1::uuid",
    values: [account.accountId],
  });
  return Number(rows[0]?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries: near each limit, plus anything at all

/** A text of a length around `limit` (code points), sometimes with emoji, sometimes empty. */
const textNear = (limit: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: Math.min(limit, 12) }) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: limit }).map((n) => "a".repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: limit, max: limit + 2 }).map((n) => "👍".repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: limit + 1, max: limit + 2 }).map((n) => "a".repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "\u0000") },
  );

const anything = fc.anything({ maxDepth: 2, maxKeys: 3 });
const orAnything = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 19, arbitrary: arb }, { weight: 1, arbitrary: anything });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });

// Read when a case is generated (the fixtures are made in beforeAll, after the arbitraries are built).
const fixture = (read: () => string) => fc.constant(null).map(read);
const mediaId = () =>
  fc.oneof(
    fixture(() => ids.image),
    fixture(() => ids.document),
    fixture(() => ids.otherAccount),
    fc.constantFrom("123456789", "bad id!", ""),
  );
const link = fc.constantFrom(
  "https://exemplo.com.br/a.jpg",
  "http://x.invalid/a.pdf",
  "ftp://exemplo.com.br/a",
  "https://",
  "nada",
);

const headerArb = fc.oneof(
  fc.record({ type: fc.constant("text"), text: textNear(60) }),
  fc.record(
    {
      type: fc.constantFrom("image", "video", "document", "audio"),
      media_id: optional(mediaId()),
      link: optional(link),
      filename: optional(textNear(200)),
    },
    { requiredKeys: ["type"] },
  ),
);

const buttonArb = fc.record({ id: textNear(256), title: textNear(20) });
const rowArb = fc.record(
  { id: textNear(200), title: textNear(24), description: optional(textNear(72)) },
  { requiredKeys: ["id", "title"] },
);

const interactiveArb = fc.oneof(
  fc.record(
    {
      type: fc.constant("button"),
      header: optional(headerArb),
      body: textNear(1024),
      footer: optional(textNear(60)),
      buttons: fc.array(orAnything(buttonArb), { maxLength: 4 }),
    },
    { requiredKeys: ["type", "body", "buttons"] },
  ),
  fc.record(
    {
      type: fc.constant("list"),
      header: optional(headerArb),
      body: textNear(4096),
      footer: optional(textNear(60)),
      button: textNear(20),
      sections: fc.array(
        fc.record(
          { title: textNear(24), rows: fc.array(rowArb, { minLength: 0, maxLength: 6 }) },
          { requiredKeys: ["rows"] },
        ),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: ["type", "body", "button", "sections"] },
  ),
  fc.record(
    {
      type: fc.constant("cta_url"),
      header: optional(headerArb),
      body: textNear(1024),
      display_text: textNear(20),
      url: link,
    },
    { requiredKeys: ["type", "body", "display_text", "url"] },
  ),
  fc.record(
    { type: fc.constant("location_request"), body: textNear(1024), footer: optional(textNear(60)) },
    { requiredKeys: ["type", "body"] },
  ),
  fc.record({ type: fc.string({ maxLength: 8 }), body: fc.string() }),
);

const mediaArb = fc.record(
  {
    type: fc.constantFrom("image", "video", "audio", "document", "sticker", "gif"),
    media_id: optional(mediaId()),
    link: optional(link),
    caption: optional(textNear(1024)),
    filename: optional(fc.oneof(textNear(200), fc.constantFrom("a/b.pdf", "nota\u0001.pdf"))),
    voice: optional(fc.boolean()),
  },
  { requiredKeys: ["type"] },
);

const reactionArb = fc.record({
  message_id: fc.oneof(
    fixture(() => inbound),
    fc.constantFrom("wamid.NAOEXISTE", ""),
    fc.string({ maxLength: 4 }),
  ),
  emoji: fc.constantFrom("👍", "", "👍👍", "ok", "🇧🇷", "1️⃣", "❤️", "👨‍👩‍👧"),
});

const coordinate = (limit: number) =>
  fc.oneof(fc.double({ min: -limit - 1, max: limit + 1, noNaN: true }), fc.constantFrom(limit, -limit, "10.5", null));
const locationArb = fc.record(
  {
    latitude: coordinate(90),
    longitude: coordinate(180),
    name: optional(textNear(256)),
    address: optional(textNear(1024)),
  },
  { requiredKeys: ["latitude", "longitude"] },
);

/** A send of one (sometimes two) of the new kinds, sometimes quoting, to an open or closed window. */
const sendArb = () =>
  fc
    .record(
      {
        to: fc.constantFrom(OPEN, OPEN, OPEN, CLOSED),
        interactive: orAnything(interactiveArb),
        media: orAnything(mediaArb),
        reaction: orAnything(reactionArb),
        location: orAnything(locationArb),
        reply_to_message_id: fc.oneof(
          fixture(() => inbound),
          fc.constant("wamid.X"),
        ),
      },
      { requiredKeys: ["to"] },
    )
    .filter((body) => ["interactive", "media", "reaction", "location"].some((k) => k in body))
    // Mostly one kind per request: keep the first kind given, most of the time.
    .chain((body) =>
      fc.boolean().map((keepAll) => {
        if (keepAll) return body;
        const [first] = ["interactive", "media", "reaction", "location"].filter((k) => k in body);
        const single: Json = { to: body.to };
        if (first) single[first] = (body as Json)[first];
        if ("reply_to_message_id" in body) single.reply_to_message_id = body.reply_to_message_id;
        return single;
      }),
    );

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "1000000" } });
  account = await createTestAccount(gateway.db);
  other = await createTestAccount(gateway.db);
  inbound = (
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: OPEN, type: "text", text: "oi" })
  ).id;
  ids.image = await uploaded(account, "image", "image/jpeg", `91${Date.now()}`);
  ids.document = await uploaded(account, "document", "application/pdf", `92${Date.now()}`);
  ids.otherAccount = await uploaded(other, "image", "image/jpeg", `93${Date.now()}`);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
});

describe("fuzzing the send kinds", () => {
  it(`never a 5xx; refusals reach neither Meta nor the messages table; what is sent, Meta accepts (${KIND_CASES} cases)`, async () => {
    const histogram: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(sendArb(), async (body) => {
        const before = await sandboxSends();
        const storedBefore = await storedMessages();
        const res = await fetch(`${gateway.apiUrl}/public/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", ...account.auth },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as Json;
        const after = await sandboxSends();
        const key = `${res.status}${"detail" in json ? " validation" : json.error ? ` ${String((json.error as Json).code)}` : ""}`;
        histogram[key] = (histogram[key] ?? 0) + 1;
        expect(res.status).toBeLessThan(500);
        // Nothing the gateway sends is refused by the sandbox: every limit is the gateway's to check.
        expect(after.refused).toEqual(before.refused);
        if (res.status === 200) {
          expect((json.data as Json).type).toMatch(/^(interactive|media|reaction|location)$/);
          return;
        }
        expect([400, 422]).toContain(res.status);
        if ("detail" in json) {
          const detail = json.detail as { loc: unknown[] }[];
          expect(detail.length).toBeGreaterThan(0);
          for (const item of detail) expect(item.loc[0]).toBe("body");
        } else expect(isErrorCode(String((json.error as Json | undefined)?.code))).toBe(true);
        expect(after.total).toBe(before.total);
        expect(await storedMessages()).toBe(storedBefore);
      }),
      { numRuns: KIND_CASES },
    );
    console.log(`fuzz send kinds: ${KIND_CASES} cases ${JSON.stringify(histogram)}`);
  }, 120_000);
});
