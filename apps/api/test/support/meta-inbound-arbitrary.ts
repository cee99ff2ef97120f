// fast-check arbitraries of Meta's inbound message items with the members the gateway reads since issue 27
// (location, contact cards, reaction, ad referral, forwarded flags, the media's checksum, voice and animated flags,
// url), well-formed and malformed. The item's other fields — sender, id, timestamp, type and the media's id and
// MIME type — are always well-formed: an item built here is never quarantined, whatever its new members hold (a
// malformed member is dropped, not the message). Used by the inbound-webhook fuzz file and meant for the Meta-webhook
// property of fuzz.endpoints.test.ts.
import fc from "fast-check";

/** Strings that have broken parsers: NUL, lone surrogates, emoji sequences, long runs, control characters. */
const oddString = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\udfff",
      "👍",
      "👍🏽",
      "👨‍👩‍👧",
      "🇧🇷",
      "❤️",
      "\u202e",
      "São Paulo",
      "null",
      "<script>",
      "'; DROP TABLE x; --",
    ),
  },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  // Past the parser's caps (names 256, addresses 1,024 and urls 2,048 code points).
  { weight: 1, arbitrary: fc.nat({ max: 1_100 }).map((n) => "🍞".repeat(n)) },
  { weight: 1, arbitrary: fc.nat({ max: 2_100 }).map((n) => "x".repeat(n)) },
);

/** Anything a malformed member could be. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: oddString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, [], {}, [null], { a: null }) },
);

/** A string most of the time, otherwise anything. */
const maybeString = fc.oneof({ weight: 4, arbitrary: oddString }, { weight: 1, arbitrary: junk });

const coordinate = (limit: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.double({ min: -limit, max: limit, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(limit, -limit, limit + 1e-9, -limit - 1, 1e308, -0) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.double({ min: -limit, max: limit, noNaN: true }).map(String),
        fc.constantFrom("-23.561414", " 12.5 ", "+1", "1e2", "0x10", "abc", "", "-", "12.", "123456.1"),
      ),
    },
    { weight: 1, arbitrary: junk },
  );

const location = fc.record(
  {
    latitude: coordinate(90),
    longitude: coordinate(180),
    name: maybeString,
    address: maybeString,
    url: maybeString,
  },
  { requiredKeys: [] },
);

const labelled = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) =>
  fc.record({ ...shape, type: maybeString }, { requiredKeys: [] });

const contactCard = fc.record(
  {
    name: fc.oneof(
      fc.record({ formatted_name: maybeString, first_name: maybeString, last_name: maybeString }, { requiredKeys: [] }),
      junk,
    ),
    birthday: maybeString,
    phones: fc.oneof(fc.array(fc.oneof(labelled({ phone: maybeString, wa_id: maybeString }), junk)), junk),
    emails: fc.oneof(fc.array(labelled({ email: maybeString }), { maxLength: 3 }), junk),
    urls: fc.oneof(fc.array(labelled({ url: maybeString }), { maxLength: 3 }), junk),
    addresses: fc.oneof(
      fc.array(
        labelled({
          street: maybeString,
          city: maybeString,
          state: maybeString,
          zip: maybeString,
          country: maybeString,
          country_code: maybeString,
        }),
        { maxLength: 2 },
      ),
      junk,
    ),
    org: fc.oneof(
      fc.record({ company: maybeString, department: maybeString, title: maybeString }, { requiredKeys: [] }),
      junk,
    ),
  },
  { requiredKeys: [] },
);

const contacts = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: contactCard }, { weight: 1, arbitrary: junk }), {
      maxLength: 4,
    }),
  },
  // Past Meta's 257 cards: the gateway keeps the first 257.
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 260 }, (_, i) => ({ name: { formatted_name: `c${i}` } }))) },
  { weight: 1, arbitrary: junk },
);

const reaction = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        message_id: fc.oneof(fc.constantFrom("wamid.enviada", "wamid.\u0000", "x".repeat(600), ""), oddString),
        emoji: fc.oneof(fc.constantFrom("👍", "", "❤️", "🇧🇷"), oddString, junk),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: junk },
);

const referral = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        source_url: maybeString,
        source_id: maybeString,
        source_type: fc.oneof(fc.constantFrom("ad", "post"), maybeString),
        body: maybeString,
        headline: maybeString,
        media_type: fc.oneof(fc.constantFrom("image", "video"), maybeString),
        image_url: maybeString,
        video_url: maybeString,
        thumbnail_url: maybeString,
        ctwa_clid: maybeString,
        welcome_message: fc.oneof(fc.record({ text: maybeString }, { requiredKeys: [] }), junk),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: junk },
);

const flag = fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: junk });

/** Meta's checksums: base64 (its examples), hex, and what is neither. */
const checksum = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("base64")),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("hex")),
  fc.uint8Array({ minLength: 0, maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString("base64")),
  junk,
);

const MEDIA_TYPES = ["image", "audio", "video", "document", "sticker"] as const;
const TYPES = [...MEDIA_TYPES, "text", "location", "contacts", "reaction", "button", "interactive", "order"] as const;

/** The members of issue 27 an item may carry (each present or not), whatever its type. */
const newMembers = fc.record({ location, contacts, reaction, referral }, { requiredKeys: [] });

let sequence = 0;

/**
 * One inbound item from `from`: well-formed where the gateway read it before issue 27, anything in the members it
 * reads since. `id` is unique per call (a wamid is stored once).
 */
export function inboundItem(from: string): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      type: fc.constantFrom(...TYPES),
      members: newMembers,
      media: fc.record(
        {
          mime_type: fc.constantFrom("image/jpeg", "audio/ogg; codecs=opus", "application/pdf", "image/webp"),
          caption: fc.string({ maxLength: 20 }),
          filename: fc.string({ maxLength: 20 }),
          sha256: checksum,
          voice: flag,
          animated: flag,
          url: maybeString,
        },
        { requiredKeys: ["mime_type"] },
      ),
      context: fc.option(
        fc.record(
          { id: fc.constantFrom("wamid.citada"), forwarded: flag, frequently_forwarded: flag },
          { requiredKeys: [] },
        ),
        { nil: undefined },
      ),
      text: fc.string({ maxLength: 20 }),
      reply: fc.record({ id: fc.stringMatching(/^[a-z0-9-]{1,20}$/), title: oddString, description: oddString }),
      listReply: fc.boolean(),
    })
    .map(({ type, members, media, context, text, reply, listReply }) => {
      const item: Record<string, unknown> = {
        from,
        id: `wamid.fuzz.${Date.now().toString(36)}.${++sequence}`,
        timestamp: String(Math.floor(Date.now() / 1000) - 60),
        type,
        ...members,
      };
      if (context !== undefined) item.context = context;
      if ((MEDIA_TYPES as readonly string[]).includes(type))
        item[type] = { id: String(1_000_000_000 + sequence), ...media };
      if (type === "text") item.text = { body: text };
      if (type === "button") item.button = { text, payload: reply.title };
      if (type === "interactive")
        item.interactive = listReply
          ? { type: "list_reply", list_reply: reply }
          : { type: "button_reply", button_reply: { id: reply.id, title: reply.title } };
      return item;
    });
}
