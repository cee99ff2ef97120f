import { describe, expect, it } from "@jest/globals";
import { readMetaWebhook } from "../src/index.ts";

// Conversation Routing (meta-late-2026 §5): the messages of a conversation another app owns (Meta's Business AI agent,
// say) come on the `standby` field, in the shape of `messages`. An app that ignored it would silently lose them.

function change(field: string) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field,
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: "106540352242922" },
              contacts: [{ profile: { name: "Ana" }, wa_id: "5511966670001" }],
              messages: [
                {
                  from: "5511966670001",
                  id: `wamid.${field}`,
                  timestamp: "1780001000",
                  type: "text",
                  text: { body: "Oi" },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

describe("the standby field", () => {
  it("reads its messages as the customer's, marked standby; the messages field's are not", () => {
    const standby = readMetaWebhook(change("standby"));
    expect(standby.ignoredChanges).toBe(0);
    expect(standby.inbound).toHaveLength(1);
    expect(standby.inbound[0]?.messages[0]).toMatchObject({
      standby: true,
      message: { id: "wamid.standby", text: { body: "Oi" } },
      sender: { phone: "5511966670001", name: "Ana" },
    });
    const messages = readMetaWebhook(change("messages"));
    expect(messages.inbound[0]?.messages[0]?.standby).toBeUndefined();
  });
});
