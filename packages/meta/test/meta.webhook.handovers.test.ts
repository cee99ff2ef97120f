import { describe, expect, it } from "@jest/globals";
import { readMetaWebhook } from "../src/index.ts";

// Conversation Routing (meta-late-2026 §5): `messaging_handovers` tells the app a conversation's thread moved:
// `control_passed` to the new holder, `control_taken` to the previous one. The envelope beyond `type` and its object
// is a partner's report (docs/decisions.md): these tests pin the shape the gateway reads and the sandbox sends.

function handover(value: Record<string, unknown>) {
  return {
    object: "whatsapp_business_account",
    entry: [{ id: "102290129340398", changes: [{ field: "messaging_handovers", value }] }],
  };
}

const metadata = { display_phone_number: "15550001111", phone_number_id: "106540352242922" };

describe("the messaging_handovers field", () => {
  it("reads control_passed with the customer, both roles and the metadata the passing app wrote", () => {
    const read = readMetaWebhook(
      handover({
        messaging_product: "whatsapp",
        metadata,
        type: "control_passed",
        timestamp: "1780001000",
        sender: { phone_number: "5511966670001", user_id: "BR.1502576394655843" },
        control_passed: { previous_role: "ai_agent", current_role: "escalation_partner", metadata: "quer um humano" },
      }),
    );
    expect(read.quarantined).toEqual([]);
    expect(read.handovers).toEqual([
      {
        phoneNumberId: "106540352242922",
        type: "control_passed",
        time: new Date(1780001000 * 1000),
        user: { phone: "5511966670001", bsuid: "BR.1502576394655843", parentBsuid: null, username: null, name: null },
        previousRole: "ai_agent",
        currentRole: "escalation_partner",
        metadata: "quer um humano",
      },
    ]);
  });

  it("reads control_taken of a customer whose phone Meta withholds", () => {
    const read = readMetaWebhook(
      handover({
        messaging_product: "whatsapp",
        metadata,
        type: "control_taken",
        timestamp: 1780002000,
        sender: { user_id: "BR.1502576394655843" },
        control_taken: { previous_role: "partner", current_role: "escalation_partner" },
      }),
    );
    expect(read.handovers[0]).toMatchObject({
      type: "control_taken",
      user: { phone: null, bsuid: "BR.1502576394655843" },
      previousRole: "partner",
      currentRole: "escalation_partner",
      metadata: null,
    });
  });

  it("sets aside a notification without its object, without a customer or without its number", () => {
    const base = {
      messaging_product: "whatsapp",
      metadata,
      type: "control_passed",
      sender: { user_id: "BR.1502576394655843" },
      control_passed: { previous_role: "ai_agent", current_role: "escalation_partner" },
    };
    const cases = [
      { ...base, control_passed: undefined, control_taken: { current_role: "x" } },
      { ...base, sender: {} },
      { ...base, metadata: undefined },
      { ...base, type: "control_requested" },
    ];
    for (const value of cases) {
      const read = readMetaWebhook(handover(value));
      expect(read.handovers).toEqual([]);
      expect(read.quarantined).toHaveLength(1);
      expect(read.quarantined[0]?.path).toMatch(/^entry\[0\]\.changes\[0\]\.value/);
    }
  });
});
