// What the panel reads of messages.content and inbound_messages.details (issue 27): the shapes the send service and
// the inbound statement write, and anything else a jsonb column may hold (a row of another release, a hand edit)
// read as "nothing to show" — never a page that fails.
import { describe, expect, it } from "@jest/globals";
import { inboundDetailsOf, outboundContentOf } from "../src/conversations/content.ts";

describe("conversations: outbound content as the panel shows it", () => {
  it("reads each kind of send summary", () => {
    expect(
      outboundContentOf({
        kind: "interactive",
        type: "list",
        button: "Menu",
        sections: [{ title: "A", rows: [{ id: "opcao-7", title: "Segunda via do boleto", description: null }] }],
      }),
    ).toEqual({
      kind: "interactive",
      type: "list",
      button: "Menu",
      sections: [{ title: "A", rows: [{ id: "opcao-7", title: "Segunda via do boleto", description: null }] }],
    });
    expect(outboundContentOf({ kind: "reaction", message_id: "wamid.1", emoji: "" })).toEqual({
      kind: "reaction",
      message_id: "wamid.1",
      emoji: "",
    });
    expect(outboundContentOf({ kind: "location", latitude: "-23.5", longitude: -46.6, name: null })).toEqual({
      kind: "location",
      latitude: -23.5,
      longitude: -46.6,
      name: null,
      address: null,
    });
  });

  it.each([
    ["null (a text or template send)", null],
    ["an array", [{ kind: "media" }]],
    ["an unknown kind", { kind: "poll" }],
    ["an unknown interactive type", { kind: "interactive", type: "flow" }],
    ["media without a type", { kind: "media", media_id: "1" }],
    ["a location out of range", { kind: "location", latitude: 91, longitude: 0 }],
    ["a location without numbers", { kind: "location", latitude: "norte", longitude: null }],
  ])("reads %s as nothing to show", (_what, value) => {
    expect(outboundContentOf(value)).toBeNull();
  });

  it("drops the buttons and rows it cannot name, keeps the rest", () => {
    expect(
      outboundContentOf({
        kind: "interactive",
        type: "button",
        buttons: [{ id: "sim", title: "Sim" }, { id: 5, title: "Não" }, "x", { title: "Talvez" }],
      }),
    ).toEqual({ kind: "interactive", type: "button", header_type: null, buttons: [{ id: "sim", title: "Sim" }] });
  });
});

describe("conversations: inbound details as the panel shows them", () => {
  it("reads the option tapped, a removed reaction, contact cards and the forwarded flags", () => {
    expect(
      inboundDetailsOf({
        interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto", description: null },
        button: null,
        location: null,
        contacts: [{ formatted_name: null, first_name: "Bia", last_name: "Lima", phones: [{ wa_id: "5511" }, {}] }],
        reaction: { message_id: "wamid.1", emoji: null },
        referral: null,
        forwarded: false,
        frequently_forwarded: true,
      }),
    ).toEqual({
      interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto", description: null },
      button: null,
      location: null,
      contacts: [{ name: "Bia Lima", phones: ["5511"] }],
      reaction: { message_id: "wamid.1", emoji: null },
      referral: null,
      forwarded: true,
      frequently_forwarded: true,
    });
  });

  it("reads no details, and malformed members, as nothing to show", () => {
    expect(inboundDetailsOf(null)).toBeNull();
    expect(inboundDetailsOf("texto")).toBeNull();
    expect(
      inboundDetailsOf({
        interactive: { type: "button_reply" },
        location: { latitude: 100, longitude: 0 },
        contacts: {},
      }),
    ).toMatchObject({ interactive: null, location: null, contacts: [] });
  });
});
