import { describe, expect, it } from "@jest/globals";
import { IN_WINDOW_BILLED_FROM, pricingOf } from "../src/pricing.ts";
import type { SandboxState } from "../src/state.ts";

// Meta's pricing change of 1 Oct 2026 (meta-late-2026 §6): service messages and utility templates inside the
// customer-service window went from `free_customer_service` to `regular`. The sandbox prices by its own clock, so a
// test can put it on either side of the change.

function stateAt(iso: string, authenticationInternational: string[] = []): SandboxState {
  const at = Date.parse(iso);
  return { now: () => at, config: { authenticationInternational } } as unknown as SandboxState;
}

const charged = (category: string) => ({ billable: true, pricing_model: "PMP", type: "regular", category });
const freeInWindow = (category: string) => ({
  billable: false,
  pricing_model: "PMP",
  type: "free_customer_service",
  category,
});

describe("the sandbox's pricing blocks before and after 1 Oct 2026", () => {
  it("until 30 Sep: in-window service and utility are free_customer_service, everything else regular", () => {
    const september = stateAt("2026-09-30T23:59:59Z");
    expect(pricingOf(september, { category: "service", windowOpen: true, country: "BR" })).toEqual(
      freeInWindow("service"),
    );
    expect(pricingOf(september, { category: "utility", windowOpen: true, country: "BR" })).toEqual(
      freeInWindow("utility"),
    );
    expect(pricingOf(september, { category: "utility", windowOpen: false, country: "BR" })).toEqual(charged("utility"));
    expect(pricingOf(september, { category: "marketing", windowOpen: true, country: "BR" })).toEqual(
      charged("marketing"),
    );
  });

  it("from 1 Oct: in-window service and utility are regular, at their own category", () => {
    const october = stateAt(new Date(IN_WINDOW_BILLED_FROM).toISOString());
    expect(pricingOf(october, { category: "service", windowOpen: true, country: "BR" })).toEqual(charged("service"));
    expect(pricingOf(october, { category: "utility", windowOpen: true, country: "BR" })).toEqual(charged("utility"));
    expect(pricingOf(october, { category: "marketing", windowOpen: false, country: "BR" })).toEqual(
      charged("marketing"),
    );
  });

  it("an authentication template to a listed country is authentication-international, on either side", () => {
    for (const at of ["2026-09-01T12:00:00Z", "2026-12-01T12:00:00Z"])
      expect(pricingOf(stateAt(at, ["IN"]), { category: "authentication", windowOpen: true, country: "IN" })).toEqual(
        charged("authentication-international"),
      );
  });
});
