import { z } from "zod";
import { setMarketingPreference, type SandboxState, type SandboxUser } from "./state.ts";
import { BSUID_PATTERN, findUser, identityOf, PHONE_PATTERN, portfolioOf, userIdOf, webhookContact } from "./users.ts";
import { numberChangePayload, type UserPreferenceItem, type UserPreferencesPayload } from "./webhooks.ts";

/** Meta's `detail` for each marketing preference. */
const DETAILS = {
  stop: "User requested to stop marketing messages",
  resume: "User requested to resume marketing messages",
} as const;

/**
 * Body of POST /_sandbox/user-preferences: a contact stops or resumes marketing messages from a number. The contact
 * is named by `wa_id` (its phone) or `user_id` (its BSUID), one of them.
 */
export const userPreferenceSchema = z
  .object({
    phone_number_id: z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
    wa_id: z.string().regex(PHONE_PATTERN, "deve ser um número de telefone").optional(),
    user_id: z.string().regex(BSUID_PATTERN, "deve ser um BSUID").optional(),
    value: z.enum(["stop", "resume"]),
    name: z.string().min(1).optional(),
    /** Unix seconds; default now. */
    timestamp: z.number().int().nonnegative().optional(),
    waba_id: z.string().min(1).optional(),
    /** false: only record the preference (the gateway misses the webhook and learns it from 131050). */
    webhook: z.boolean().default(true),
  })
  .strict()
  .refine((input) => (input.wa_id === undefined) !== (input.user_id === undefined), {
    path: ["wa_id"],
    message: "informe wa_id ou user_id (um deles)",
  });

export type UserPreferenceInput = z.infer<typeof userPreferenceSchema>;

/** The contact a preference is about; undefined for a BSUID the sandbox does not know. */
export function preferenceUser(state: SandboxState, input: UserPreferenceInput): SandboxUser | undefined {
  return findUser(state, { phone: input.wa_id, user_id: input.user_id }, portfolioOf(state, input.phone_number_id));
}

/**
 * Records the preference (marketing templates to a stopped contact fail with 131050) and builds Meta's
 * `user_preferences` webhook for it: the business number in metadata, the contact, one item, with the BSUID fields
 * of meta-2026 §1.8 (`wa_id` only when the number may see the phone).
 */
export function userPreferenceUpdate(
  state: SandboxState,
  input: UserPreferenceInput,
  user: SandboxUser,
): UserPreferencesPayload {
  setMarketingPreference(state, input.phone_number_id, user.key, input.value);
  const identity = { ...identityOf(state, user, input.phone_number_id), ...(input.name ? { name: input.name } : {}) };
  const item: UserPreferenceItem = {
    ...(identity.phone === undefined ? {} : { wa_id: identity.phone }),
    user_id: identity.userId,
    ...(identity.parentUserId === undefined ? {} : { parent_user_id: identity.parentUserId }),
    detail: DETAILS[input.value],
    category: "marketing_messages",
    value: input.value,
    timestamp: input.timestamp ?? Math.floor(state.now() / 1000),
  };
  return numberChangePayload(state, input.waba_id, {
    field: "user_preferences",
    phoneNumberId: input.phone_number_id,
    contacts: [webhookContact(identity, { username: true })],
    items: { user_preferences: [item] },
  });
}

/**
 * The contacts who stopped marketing messages, per number, as GET /_sandbox/user-preferences lists them. A
 * registered user (who may have no known phone) also carries its BSUID in that number's portfolio.
 */
export function stoppedContacts(
  state: SandboxState,
): { phone_number_id: string; wa_id: string | null; user_id?: string; since: string }[] {
  return [...state.marketingStopped].map(([key, ms]) => {
    const [phoneNumberId = "", contact = ""] = key.split(":");
    const since = new Date(ms).toISOString();
    // A registered user's key is `u<n>`; any other key is a phone user's number.
    const user = state.users.get(contact);
    if (!user) return { phone_number_id: phoneNumberId, wa_id: contact, since };
    const userId = userIdOf(user, portfolioOf(state, phoneNumberId));
    return { phone_number_id: phoneNumberId, wa_id: user.phone ?? null, user_id: userId, since };
  });
}
