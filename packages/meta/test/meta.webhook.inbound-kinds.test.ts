import { createHash } from "node:crypto";
import { describe, expect, it } from "@jest/globals";
import { readMetaWebhook, type MetaInboundItem } from "../src/index.ts";

// The inbound members read since issue 27 (location, contact cards, reaction, ad referral, forwarded flags, the
// media's checksum and voice flag): each shape as Meta sends it, and a malformed one dropped, never the reason the
// message is quarantined (it was forwarded before these members were read).

const PHONE_NUMBER_ID = "106540352242922";

function payload(message: Record<string, unknown>): unknown {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001234", phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: "Maria" }, wa_id: "5511987654321", user_id: "BR.1502576394655843" }],
              messages: [
                {
                  from: "5511987654321",
                  from_user_id: "BR.1502576394655843",
                  id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjRE",
                  timestamp: "1764669600",
                  ...message,
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** The one message read from `message`, and nothing quarantined. */
function read(message: Record<string, unknown>): MetaInboundItem {
  const items = readMetaWebhook(payload(message));
  expect(items.quarantined).toEqual([]);
  const item = items.inbound[0]?.messages[0]?.message;
  if (!item) throw new Error("mensagem não lida");
  return item;
}

const BYTES = Buffer.from("%PDF-1.4 comprovante");
const SHA_HEX = createHash("sha256").update(BYTES).digest("hex");
const SHA_BASE64 = createHash("sha256").update(BYTES).digest("base64");

describe("readMetaWebhook: the inbound kinds of issue 27", () => {
  it("reads a location, its coordinates as numbers (numeric strings too), name, address and url", () => {
    const item = read({
      type: "location",
      location: { latitude: "-23.561414", longitude: -46.655881, name: "Av. Paulista", address: "São Paulo", url: "u" },
    });
    expect(item.location).toEqual({
      latitude: -23.561414,
      longitude: -46.655881,
      name: "Av. Paulista",
      address: "São Paulo",
      url: "u",
    });
  });

  it("reads shared contact cards, keeping the well-formed entries of each list", () => {
    const item = read({
      type: "contacts",
      contacts: [
        {
          name: { formatted_name: "João Silva", first_name: "João", last_name: "Silva" },
          birthday: "1990-05-01",
          phones: [{ phone: "+55 11 99999-0000", wa_id: "5511999990000", type: "CELL" }, 42],
          emails: [{ email: "joao@example.com", type: "WORK" }],
          org: { company: "Padaria" },
        },
      ],
    });
    expect(item.contacts).toEqual([
      {
        name: { formatted_name: "João Silva", first_name: "João", last_name: "Silva" },
        birthday: "1990-05-01",
        phones: [{ phone: "+55 11 99999-0000", wa_id: "5511999990000", type: "CELL" }],
        emails: [{ email: "joao@example.com", type: "WORK" }],
        org: { company: "Padaria" },
      },
    ]);
  });

  it("reads a reaction and its removal (no emoji)", () => {
    expect(read({ type: "reaction", reaction: { message_id: "wamid.SENT", emoji: "❤️" } }).reaction).toEqual({
      message_id: "wamid.SENT",
      emoji: "❤️",
    });
    expect(read({ type: "reaction", reaction: { message_id: "wamid.SENT" } }).reaction).toEqual({
      message_id: "wamid.SENT",
    });
  });

  it("reads an ad referral with its ctwa_clid and welcome message", () => {
    const item = read({
      type: "text",
      text: { body: "Oi" },
      referral: {
        source_url: "https://fb.me/x",
        source_id: "120226305854810726",
        source_type: "ad",
        headline: "Fale conosco",
        ctwa_clid: "ARAkLkA8rmlFeiCktEJQ",
        welcome_message: { text: "Olá!" },
      },
    });
    expect(item.referral).toEqual({
      source_url: "https://fb.me/x",
      source_id: "120226305854810726",
      source_type: "ad",
      headline: "Fale conosco",
      ctwa_clid: "ARAkLkA8rmlFeiCktEJQ",
      welcome_message: { text: "Olá!" },
    });
  });

  it("reads the forwarded flags of context, with or without a quoted id", () => {
    expect(read({ type: "text", text: { body: "x" }, context: { forwarded: true } }).context).toEqual({
      forwarded: true,
    });
    expect(
      read({ type: "text", text: { body: "x" }, context: { id: "wamid.Q", frequently_forwarded: true } }).context,
    ).toEqual({ id: "wamid.Q", frequently_forwarded: true });
  });

  it("reads a media's SHA-256 as lowercase hex, from Meta's base64 or from hex, and the voice flag", () => {
    const audio = read({
      type: "audio",
      audio: { id: "1", mime_type: "audio/ogg; codecs=opus", sha256: SHA_BASE64, voice: true },
    });
    expect(audio.audio).toMatchObject({ sha256: SHA_HEX, voice: true });
    const image = read({ type: "image", image: { id: "2", mime_type: "image/jpeg", sha256: SHA_HEX.toUpperCase() } });
    expect(image.image?.sha256).toBe(SHA_HEX);
  });

  it.each([
    ["a latitude out of range", { type: "location", location: { latitude: 91, longitude: 0 } }, "location"],
    [
      "a coordinate that is not a number",
      { type: "location", location: { latitude: "abc", longitude: 1 } },
      "location",
    ],
    ["contacts that are not a list", { type: "contacts", contacts: "João" }, "contacts"],
    ["a reaction without message_id", { type: "reaction", reaction: { emoji: "👍" } }, "reaction"],
    ["a referral that is not an object", { type: "text", text: { body: "x" }, referral: "ad" }, "referral"],
  ])("drops %s and still reads the message and its other members", (_name, message, member) => {
    const item = read({ ...message, context: { forwarded: true } });
    expect(item.type).toBe(message.type);
    expect(item[member as keyof MetaInboundItem]).toBeUndefined();
    expect(item.context).toEqual({ forwarded: true });
  });

  it.each([
    ["a checksum of the wrong length", "c2hhMjU2"],
    ["a checksum that is not base64 nor hex", "!".repeat(44)],
    ["a non-canonical base64 checksum", `${SHA_BASE64.slice(0, 42)}B=`],
  ])("drops %s, keeping the media's id and type", (_name, sha256) => {
    const url = "https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=3";
    const item = read({ type: "image", image: { id: "3", mime_type: "image/jpeg", sha256, url } });
    expect(item.image).toEqual({ id: "3", mime_type: "image/jpeg", url });
  });

  it("drops a forwarded flag that is not a boolean, keeping the quoted id", () => {
    const item = read({
      type: "text",
      text: { body: "x" },
      context: { id: "wamid.Q", forwarded: "sim", frequently_forwarded: true },
    });
    expect(item.context).toEqual({ id: "wamid.Q", frequently_forwarded: true });
  });

  it("caps long texts by code points, never halving an emoji", () => {
    const name = "🍞".repeat(300);
    const item = read({ type: "location", location: { latitude: 0, longitude: 0, name } });
    expect(item.location?.name).toBe("🍞".repeat(256));
  });
});
