// What POST /{phone-number-id}/marketing_messages (the Marketing Messages API, meta-2026 §7) adds to the checks of
// `/messages`, whose code path it shares (`messages.ts`): templates only, of the MARKETING category, two optional
// members, and the WABA's onboarding deciding the pricing category.
import { shown, type JsonRecord } from "../json.ts";
import type { SandboxState } from "../state.ts";
import type { SandboxTemplate } from "../types.ts";
import { MetaError } from "./errors.ts";

/** `product_policy`: fall back to Cloud API when MM onboarding is incomplete (Meta's default), or never (`STRICT`). */
export const PRODUCT_POLICIES = ["CLOUD_API_FALLBACK", "STRICT"] as const;
export type ProductPolicy = (typeof PRODUCT_POLICIES)[number];

/**
 * The members only this edge reads, checked before the rest of the body: a template (anything else, a body without
 * `type` included since Meta defaults it to text, is Meta's 100 "Message must be a template message."),
 * `product_policy` and `message_activity_sharing` (a boolean, the per-message override of the WABA's setting); a bad
 * value of either → 131009. Returns the product policy.
 */
export function checkMarketingMessage(body: JsonRecord): ProductPolicy {
  if ((body.type ?? "text") !== "template") throw new MetaError(100, "Message must be a template message.");
  const policy = PRODUCT_POLICIES.find((p) => p === (body.product_policy ?? "CLOUD_API_FALLBACK"));
  if (!policy) {
    throw new MetaError(
      131009,
      `Param product_policy must be one of {${PRODUCT_POLICIES.join(", ")}} - got "${shown(body.product_policy)}".`,
    );
  }
  const sharing = body.message_activity_sharing;
  if (sharing !== undefined && typeof sharing !== "boolean") {
    throw new MetaError(131009, `Param message_activity_sharing must be a boolean - got "${shown(sharing)}".`);
  }
  return policy;
}

/**
 * A utility or authentication template → 134100, by the catalogue's category (what Meta stores, whatever the gateway
 * believes). Checked once the template is found and approved, before its parameters.
 */
export function requireMarketingTemplate(template: SandboxTemplate): void {
  if (template.category === "MARKETING") return;
  throw new MetaError(
    134100,
    `Only marketing templates can be sent with the Marketing Messages API: ${template.name} (${template.language}) is a ${template.category} template.`,
  );
}

/**
 * The pricing category of an accepted send on this edge (meta-2026 §7.4): `marketing_lite` when the sender's WABA is
 * onboarded; otherwise Meta falls back to Cloud API (`marketing`), unless the send says `STRICT`. The sandbox has one
 * WABA (`wabaId`) for all its numbers.
 */
export function marketingPricingCategory(state: SandboxState, policy: ProductPolicy): "marketing_lite" | "marketing" {
  if (!state.config.marketingMessagesNotOnboarded.includes(state.wabaId)) return "marketing_lite";
  if (policy === "STRICT") {
    // Meta's code for a STRICT send of a WABA not onboarded is unverified: 131055 ("Method not allowed", one of the
    // MM API's refusals in meta-2026 §7.2) is the sandbox's choice.
    throw new MetaError(131055, "the business is not onboarded to the Marketing Messages API");
  }
  return "marketing";
}
