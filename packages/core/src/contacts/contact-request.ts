import type { InboundMessage, MetaUserRef } from "@gw/meta";
import { normalizePhone } from "../phones/normalize.ts";

/**
 * The sender of an inbound message as the gateway learns them (issue 37; meta-late-2026 §3): a customer known only by
 * username or BSUID who answers the business's `request_contact_info` shares their OWN card, marked
 * `origin: contact_request`; that phone is theirs, so it is learnt with their BSUID, and the identity rules link it
 * (the contact keeps its key; a contact the phone already named merges into one, opt-outs kept). A card shared
 * unprompted (`origin: other`, or none) is anyone's: it links nothing. A sender Meta already names by phone keeps it.
 */
export function senderLearnt(inbound: InboundMessage): MetaUserRef {
  const { sender, message } = inbound;
  if (sender.phone !== null || sender.bsuid === null || message.type !== "contacts") return sender;
  const own = (message.contacts ?? []).find((card) => card.origin === "contact_request");
  const shared = own?.phones?.find((phone) => typeof phone.wa_id === "string" && phone.wa_id !== "")?.wa_id;
  if (shared === undefined) return sender;
  const normalized = normalizePhone(shared);
  return normalized.valid ? { ...sender, phone: normalized.digits } : sender;
}
