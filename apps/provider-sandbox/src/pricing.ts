import type { SandboxState } from "./state.ts";

/** The `pricing` object of a status under per-message pricing (meta-2026 §2.2). */
export interface Pricing {
  /** Still sent by Meta, to be deprecated: `type` says whether the message is charged. */
  billable: boolean;
  pricing_model: "PMP";
  type: "regular" | "free_customer_service";
  /**
   * `service` for non-template messages, else the template's category (`authentication-international` too;
   * `marketing_lite` for a MARKETING template sent through an onboarded WABA's `/marketing_messages`).
   */
  category: string;
}

/**
 * Since 1 Oct 2026 (meta-late-2026 §6, from partners citing Meta's non-template pricing page) service messages and
 * utility templates delivered inside the customer-service window are charged per message: Meta reports them
 * `regular`. The free entry-point window stays free (the sandbox has no click-to-WhatsApp entry point to model it).
 */
export const IN_WINDOW_BILLED_FROM = Date.parse("2026-10-01T00:00:00Z");

/**
 * What Meta charges for an accepted send, by the sandbox's clock: every template is `regular` (billable); until 30 Sep
 * 2026 utility templates inside the customer-service window were `free_customer_service`, like every non-template
 * (`service`) message, and since 1 Oct 2026 those are `regular` too. Authentication templates to a country listed in
 * `authenticationInternational` are `authentication-international` (Meta's hyphenated pricing spelling).
 */
export function pricingOf(
  state: SandboxState,
  input: { category: string; windowOpen: boolean; country: string },
): Pricing {
  const category =
    input.category === "authentication" && state.config.authenticationInternational.includes(input.country)
      ? "authentication-international"
      : input.category;
  const inWindowFree = category === "service" || (category === "utility" && input.windowOpen);
  const free = inWindowFree && state.now() < IN_WINDOW_BILLED_FROM;
  return { billable: !free, pricing_model: "PMP", type: free ? "free_customer_service" : "regular", category };
}
