import { describe, expect, it } from "@jest/globals";
import { readMetaWebhook } from "../src/index.ts";

// Identity changes announced as `system` messages (meta-late-2026 §4): since August 2026 both carry the BSUIDs before
// the change (`previous_user_id`, `previous_parent_user_id`); before that, a user_changed_user_id's old BSUID was in
// its text only. The parser reads Meta's members first and keeps the text as the fallback.

const PHONE_NUMBER_ID = "106540352242922";

function webhook(message: Record<string, unknown>) {
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
              metadata: { display_phone_number: "15550001111", phone_number_id: PHONE_NUMBER_ID },
              messages: [{ id: "wamid.sistema-1", timestamp: "1780001000", type: "system", ...message }],
            },
          },
        ],
      },
    ],
  };
}

describe("identity changes in system messages", () => {
  it("user_changed_user_id: previous_user_id and previous_parent_user_id are the old ids, even when the text says none", () => {
    const read = readMetaWebhook(
      webhook({
        from_user_id: "BR.ANTIGO1",
        system: {
          type: "user_changed_user_id",
          body: "User Joana changed her business-scoped user ID",
          user_id: "BR.NOVO1",
          parent_user_id: "BR.ENT.NOVO1",
          previous_user_id: "BR.ANTIGO1",
          previous_parent_user_id: "BR.ENT.ANTIGO1",
        },
      }),
    );
    expect(read.identityChanges).toEqual([
      expect.objectContaining({
        source: "user_changed_user_id",
        previous: { phone: null, bsuid: "BR.ANTIGO1", parentBsuid: "BR.ENT.ANTIGO1" },
        current: { phone: null, bsuid: "BR.NOVO1", parentBsuid: "BR.ENT.NOVO1" },
      }),
    ]);
  });

  it("user_changed_number: the previous ids come with the old phone; without them the old BSUID is unknown", () => {
    const withPrevious = readMetaWebhook(
      webhook({
        from: "5511966650001",
        system: {
          type: "user_changed_number",
          body: "User Caio changed from 5511966650001 to 5511966650002",
          wa_id: "5511966650002",
          user_id: "BR.NOVO2",
          previous_user_id: "BR.ANTIGO2",
        },
      }),
    );
    expect(withPrevious.identityChanges).toEqual([
      expect.objectContaining({
        source: "user_changed_number",
        previous: { phone: "5511966650001", bsuid: "BR.ANTIGO2", parentBsuid: null },
        current: { phone: "5511966650002", bsuid: "BR.NOVO2", parentBsuid: null },
      }),
    ]);
    const before = readMetaWebhook(
      webhook({
        from: "5511966650001",
        system: { type: "user_changed_number", body: "User Caio changed number", wa_id: "5511966650002" },
      }),
    );
    expect(before.identityChanges[0]?.previous).toEqual({ phone: "5511966650001", bsuid: null, parentBsuid: null });
  });

  it("user_changed_user_id before August 2026: the old BSUID from the text", () => {
    const read = readMetaWebhook(
      webhook({
        system: { type: "user_changed_user_id", body: "User Joana changed from BR.VELHO3 to BR.NOVO3" },
      }),
    );
    expect(read.identityChanges[0]).toMatchObject({
      previous: { bsuid: "BR.VELHO3" },
      current: { bsuid: "BR.NOVO3" },
    });
  });
});
