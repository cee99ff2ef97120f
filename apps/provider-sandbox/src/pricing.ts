import type { SandboxState } from "./state.ts";

/** The `pricing` object of a status under per-message pricing (meta-2026 §2.2). */
export interface Pricing {
  /** Still sent by Meta, to be deprecated: `type` says whether the message is charged. */
  billable: boolean;
  pricing_model: "PMP";
  type: "regular" | "free_customer_service";
  /** `service` for non-template messages, else the template's category (`authentication-international` too). */
  category: string;
}

/**
 * What Meta charges for an accepted send: templates are `regular` (billable) except utility templates inside the
 * customer-service window, which are `free_customer_service` like every non-template (`service`) message.
 * Authentication templates to a country listed in `authenticationInternational` are `authentication-international`
 * (Meta's hyphenated pricing spelling). The sandbox prices as Meta did until 30 Sep 2026; the service free tier and
 * billable in-window utility of 1 Oct 2026 are not modelled.
 */
export function pricingOf(
  state: SandboxState,
  input: { category: string; windowOpen: boolean; country: string },
): Pricing {
  const category =
    input.category === "authentication" && state.config.authenticationInternational.includes(input.country)
      ? "authentication-international"
      : input.category;
  const free = category === "service" || (category === "utility" && input.windowOpen);
  return { billable: !free, pricing_model: "PMP", type: free ? "free_customer_service" : "regular", category };
}
