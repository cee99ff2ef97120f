import { z } from "zod";
import { displayPhoneNumber } from "./ids.ts";
import { digitsOf, setMarketingPreference, type SandboxState } from "./state.ts";
import type { UserPreferencesPayload } from "./webhooks.ts";

/** Meta's `detail` for each marketing preference. */
const DETAILS = {
  stop: "User requested to stop marketing messages",
  resume: "User requested to resume marketing messages",
} as const;

/** Body of POST /_sandbox/user-preferences: a contact stops or resumes marketing messages from a number. */
export const userPreferenceSchema = z
  .object({
    phone_number_id: z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
    wa_id: z.string().regex(/^\+?[\d\s().-]{8,20}$/, "deve ser um número de telefone"),
    value: z.enum(["stop", "resume"]),
    name: z.string().min(1).optional(),
    /** Unix seconds; default now. */
    timestamp: z.number().int().nonnegative().optional(),
    waba_id: z.string().min(1).optional(),
    /** false: only record the preference (the gateway misses the webhook and learns it from 131050). */
    webhook: z.boolean().default(true),
  })
  .strict();

export type UserPreferenceInput = z.infer<typeof userPreferenceSchema>;

/**
 * Records the preference (marketing templates to a stopped contact fail with 131050) and builds Meta's
 * `user_preferences` webhook for it: the business number in metadata, the contact, one item.
 */
export function userPreferenceUpdate(state: SandboxState, input: UserPreferenceInput): UserPreferencesPayload {
  const waId = digitsOf(input.wa_id);
  setMarketingPreference(state, input.phone_number_id, waId, input.value);
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: input.waba_id ?? state.wabaId,
        changes: [
          {
            field: "user_preferences",
            value: {
              messaging_product: "whatsapp",
              metadata: {
                display_phone_number: displayPhoneNumber(input.phone_number_id),
                phone_number_id: input.phone_number_id,
              },
              contacts: [{ profile: { name: input.name ?? "Cliente Sandbox" }, wa_id: waId }],
              user_preferences: [
                {
                  wa_id: waId,
                  detail: DETAILS[input.value],
                  category: "marketing_messages",
                  value: input.value,
                  timestamp: input.timestamp ?? Math.floor(state.now() / 1000),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** The contacts who stopped marketing messages, per number, as GET /_sandbox/user-preferences lists them. */
export function stoppedContacts(state: SandboxState): { phone_number_id: string; wa_id: string; since: string }[] {
  return [...state.marketingStopped].map(([key, ms]) => {
    const [phoneNumberId = "", waId = ""] = key.split(":");
    return { phone_number_id: phoneNumberId, wa_id: waId, since: new Date(ms).toISOString() };
  });
}
