import { describe, expect, it } from "@jest/globals";
import { parseWebhookEvent, WebhookPayloadError, type MessageReceivedEvent } from "../src/index.ts";
import { receivedEvent } from "./support/deliver.ts";

// message.received on payload version 2 (issue 27): the receiver types and accepts the new members, checks the type
// of each one present (never its unknown sub-keys), and still accepts a version-1 body, which has none of them.

/** A version-2 list reply, every member present as the gateway writes them. */
function versionTwo(): MessageReceivedEvent {
  const base = receivedEvent("3101");
  return {
    ...base,
    data: {
      ...base.data,
      type: "interactive",
      text: "Segunda via do boleto",
      interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto", description: null },
      button: null,
      location: null,
      contacts: null,
      reaction: null,
      referral: null,
      forwarded: false,
      frequently_forwarded: false,
      media_sha256: null,
      media_voice: null,
    },
  };
}

function refusal(data: Record<string, unknown>): string {
  try {
    parseWebhookEvent(JSON.stringify({ ...versionTwo(), data: { ...versionTwo().data, ...data } }));
  } catch (error) {
    if (error instanceof WebhookPayloadError) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("parseWebhookEvent accepted the body");
}

describe("parseWebhookEvent: message.received on payload version 2", () => {
  it("types the option tapped, so a menu bot can switch on its id", () => {
    const event = parseWebhookEvent(JSON.stringify(versionTwo()));
    if (event.event !== "message.received") throw new Error("evento errado");
    const option: string | undefined = event.data.interactive?.id;
    expect(option).toBe("opcao-7");
  });

  it("accepts every member filled in, with sub-keys a later release may add", () => {
    const body = versionTwo();
    const event = parseWebhookEvent(
      JSON.stringify({
        ...body,
        data: {
          ...body.data,
          type: "unsupported",
          button: { payload: "ATENDENTE", text: "Falar" },
          location: { latitude: -23.5, longitude: -46.6, name: null, address: null, url: null, extra: 1 },
          contacts: [{ formatted_name: "João", phones: [], emails: [], urls: [], addresses: [], organization: null }],
          reaction: { message_id: "wamid.x", emoji: null },
          referral: { source_type: "ad", ctwa_clid: "ARA1" },
          forwarded: true,
          frequently_forwarded: true,
          media_sha256: "a".repeat(64),
          media_voice: true,
        },
      }),
    );
    expect(event.data).toMatchObject({ reaction: { message_id: "wamid.x", emoji: null }, media_voice: true });
    // The same body with one member of the wrong type is refused: the members present are checked.
    expect(refusal({ ...event.data, location: { latitude: "-23.5", longitude: -46.6 } })).toContain(
      "data.location.latitude",
    );
  });

  it("still accepts a version-1 body, without any of the members, and refuses one with a malformed member", () => {
    const event = parseWebhookEvent(JSON.stringify(receivedEvent()));
    expect(event.data).not.toHaveProperty("interactive");
    expect(() =>
      parseWebhookEvent(JSON.stringify({ ...receivedEvent(), data: { ...receivedEvent().data, forwarded: "sim" } })),
    ).toThrow(WebhookPayloadError);
  });

  it.each([
    ["interactive that is not an object", { interactive: "opcao-7" }, "data.interactive"],
    [
      "an option without id",
      { interactive: { type: "list_reply", title: "x", description: null } },
      "data.interactive.id",
    ],
    [
      "a latitude given as text",
      { location: { latitude: "-23.5", longitude: 1, name: null, address: null, url: null } },
      "data.location.latitude",
    ],
    ["a reaction without message_id", { reaction: { emoji: "👍" } }, "data.reaction.message_id"],
    ["contacts that are not a list", { contacts: { formatted_name: "João" } }, "data.contacts"],
    ["a forwarded flag that is not a boolean", { forwarded: "sim" }, "data.forwarded"],
    ["a checksum that is not a string", { media_sha256: 5 }, "data.media_sha256"],
    ["a voice flag that is not a boolean", { media_voice: "true" }, "data.media_voice"],
  ])("refuses %s as invalid_payload naming the field", (_name, data, field) => {
    const message = refusal(data);
    expect(message).toMatch(/^invalid_payload: /);
    expect(message).toContain(field);
  });
});
