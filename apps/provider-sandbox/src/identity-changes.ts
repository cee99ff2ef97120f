import { z } from "zod";
import { countryOfPhone } from "./countries.ts";
import { newWamid } from "./ids.ts";
import { contactKey, digitsOf, type SandboxState, type SandboxUser } from "./state.ts";
import { userQuerySchema, type Outcome } from "./user-registry.ts";
import {
  BSUID_PATTERN,
  findByParentUserId,
  findByUserId,
  findUser,
  identityOf,
  knownPortfolios,
  nextSeed,
  numbersOf,
  PARENT_BSUID_PATTERN,
  parentUserIdOf,
  PHONE_PATTERN,
  portfolioOf,
  storeUser,
  userIdOf,
  type Identity,
} from "./users.ts";
import {
  numberChangePayload,
  webhookPayload,
  type UserIdUpdateItem,
  type UserIdUpdatePayload,
  type WebhookPayload,
} from "./webhooks.ts";

/**
 * Body of POST /_sandbox/users/identity-change: the user's BSUID changes (to `user_id`, or a new derived one), and
 * with `phone` its phone number too (Meta regenerates the BSUID when the phone changes; a username change does not,
 * so it goes through POST /_sandbox/users). Each notified number gets the `system` messages and/or the
 * `user_id_update` webhook of meta-2026 §1.7; later webhooks carry the new ids.
 */
export const identityChangeSchema = z
  .object({
    user: userQuerySchema,
    phone: z.string().regex(PHONE_PATTERN, "deve ser um número de telefone").optional(),
    /** The new BSUID in `portfolio_id` (default portfolio); other portfolios get new derived ones. */
    user_id: z.string().regex(BSUID_PATTERN, "deve ser um BSUID").optional(),
    portfolio_id: z.string().min(1).optional(),
    parent_user_id: z.string().regex(PARENT_BSUID_PATTERN, "deve ser um BSUID pai").optional(),
    /** Default: every number the user wrote to or exchanged phone messages with. */
    phone_number_ids: z
      .array(z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"))
      .min(1)
      .optional(),
    /** `messages` webhooks of type `system`: user_changed_number (when the new phone may be shared) and user_changed_user_id. */
    system_messages: z.boolean().default(true),
    /** The `user_id_update` webhook field. */
    user_id_update: z.boolean().default(true),
    /** Unix seconds; default now. */
    timestamp: z.number().int().nonnegative().optional(),
    waba_id: z.string().min(1).optional(),
  })
  .strict();

export type IdentityChangeInput = z.infer<typeof identityChangeSchema>;

/** One webhook an identity change sends to one number. */
export interface IdentityNotice {
  phoneNumberId: string;
  kind: "inbound" | "user_id_update";
  /** `user_changed_number`, `user_changed_user_id` or `user_id_update`. */
  what: string;
  payload: WebhookPayload | UserIdUpdatePayload;
}

function systemMessage(before: Identity, seconds: number, system: Record<string, unknown>): Record<string, unknown> {
  // Meta's syntax: the old phone in `from` (when it could be seen), no `from_user_id`, no `contacts` (§1.7).
  const message: Record<string, unknown> = {};
  if (before.phone !== undefined) message.from = before.phone;
  message.id = newWamid(before.phone ?? before.userId);
  message.timestamp = String(seconds);
  message.type = "system";
  message.system = system;
  return message;
}

function userIdUpdatePayload(
  state: SandboxState,
  phoneNumberId: string,
  input: IdentityChangeInput,
  before: Identity,
  after: Identity,
  seconds: number,
): UserIdUpdatePayload {
  const parent =
    before.parentUserId === undefined || after.parentUserId === undefined
      ? {}
      : { parent_user_id: { previous: before.parentUserId, current: after.parentUserId } };
  const item: UserIdUpdateItem = {
    ...(after.phone === undefined ? {} : { wa_id: after.phone }),
    detail: `User id for ${after.name} has been updated.`,
    user_id: { previous: before.userId, current: after.userId },
    ...parent,
    timestamp: String(seconds),
  };
  return numberChangePayload(state, input.waba_id, {
    field: "user_id_update",
    phoneNumberId,
    // Meta's example: name and (conditional) phone, no BSUID: the ids are in the item.
    contacts: [{ profile: { name: after.name }, ...(after.phone !== undefined ? { wa_id: after.phone } : {}) }],
    items: { user_id_update: [item] },
  });
}

/** Checks that a requested new id is free; undefined when it is. */
function takenId(
  state: SandboxState,
  user: SandboxUser,
  id: string,
  owner: SandboxUser | undefined,
): string | undefined {
  if (state.retiredUserIds.has(id)) return `O BSUID ${id} já foi substituído e não pode ser reusado.`;
  if (owner && owner.key !== user.key) return `O BSUID ${id} é de outro usuário.`;
  if (owner) return `O BSUID ${id} já é o atual deste usuário.`;
  return undefined;
}

/**
 * Applies an identity change and builds, per notified number, its webhooks in order: `user_changed_number` (a phone
 * change whose new phone this number may see), `user_changed_user_id`, `user_id_update`. The user keeps its key, so
 * its window, preferences, phone exchanges and contact-book entries carry over to the new ids.
 */
export function changeIdentity(
  state: SandboxState,
  input: IdentityChangeInput,
): Outcome<{ user: SandboxUser; notices: IdentityNotice[] }> {
  const portfolio = input.portfolio_id ?? state.config.portfolioId;
  const found = findUser(state, input.user, portfolio);
  if (!found) return { status: 404, error: "Usuário desconhecido pelo sandbox (registre-o em POST /_sandbox/users)." };
  const newPhone = input.phone === undefined ? undefined : digitsOf(input.phone);
  if (newPhone !== undefined && found.phone !== undefined && contactKey(newPhone) === contactKey(found.phone))
    return { status: 409, error: "O novo telefone é o atual do usuário." };
  if (newPhone !== undefined) {
    const holder = state.userPhones.get(contactKey(newPhone));
    if (holder !== undefined && holder !== found.key)
      return { status: 409, error: `O telefone ${newPhone} é de outro usuário registrado.` };
  }
  if (input.user_id !== undefined) {
    const problem = takenId(state, found, input.user_id, findByUserId(state, input.user_id, portfolio));
    if (problem) return { status: 409, error: problem };
  }
  if (input.parent_user_id !== undefined) {
    const problem = takenId(state, found, input.parent_user_id, findByParentUserId(state, input.parent_user_id));
    if (problem) return { status: 409, error: problem };
  }

  // A phone user is registered first (same key history, same BSUID), so its new ids can be stored.
  const user = found.registered ? found : storeUser(state, { ...found }, found);
  const numbers = input.phone_number_ids ?? numbersOf(state, user);
  const before = new Map(numbers.map((n) => [n, identityOf(state, user, n)]));
  const portfolios = new Set([...knownPortfolios(state), portfolio, ...numbers.map((n) => portfolioOf(state, n))]);
  for (const p of portfolios) state.retiredUserIds.add(userIdOf(user, p));
  state.retiredUserIds.add(parentUserIdOf(user));

  if (newPhone !== undefined) {
    if (user.phone !== undefined) state.userPhones.delete(contactKey(user.phone));
    user.phone = newPhone;
    user.country = countryOfPhone(contactKey(newPhone));
    state.userPhones.set(contactKey(newPhone), user.key);
  }
  user.seed = nextSeed(state, user);
  user.userIds = input.user_id === undefined ? new Map() : new Map([[portfolio, input.user_id]]);
  user.parentUserId = input.parent_user_id;

  const seconds = input.timestamp ?? Math.floor(state.now() / 1000);
  const notices: IdentityNotice[] = [];
  for (const phoneNumberId of numbers) {
    const old = before.get(phoneNumberId);
    if (!old) continue;
    const now = identityOf(state, user, phoneNumberId);
    const parent = now.parentUserId === undefined ? {} : { parent_user_id: now.parentUserId };
    // Since Aug 2026 both system types carry the ids from before the change (meta-late-2026 §4), so the business no
    // longer has to parse them out of `body`; the parent's only where this number sees parent BSUIDs.
    const previous = {
      previous_user_id: old.userId,
      ...(old.parentUserId === undefined ? {} : { previous_parent_user_id: old.parentUserId }),
    };
    const inbound = (what: string, system: Record<string, unknown>): IdentityNotice => ({
      phoneNumberId,
      kind: "inbound",
      what,
      payload: webhookPayload(state, phoneNumberId, {
        wabaId: input.waba_id,
        messages: [systemMessage(old, seconds, system)],
      }),
    });
    if (input.system_messages && newPhone !== undefined && now.phone !== undefined) {
      // `user_id` here is the sandbox's choice: Meta's example of this type does not show it (meta-2026 §1.7).
      notices.push(
        inbound("user_changed_number", {
          body:
            old.phone === undefined
              ? `User ${now.name} changed their phone number to ${now.phone}`
              : `User ${now.name} changed from ${old.phone} to ${now.phone}`,
          wa_id: now.phone,
          user_id: now.userId,
          ...parent,
          ...previous,
          type: "user_changed_number",
        }),
      );
    }
    if (input.system_messages) {
      notices.push(
        inbound("user_changed_user_id", {
          body: `User ${now.name} changed from ${old.userId} to ${now.userId}`,
          user_id: now.userId,
          ...parent,
          ...previous,
          type: "user_changed_user_id",
        }),
      );
    }
    if (input.user_id_update) {
      notices.push({
        phoneNumberId,
        kind: "user_id_update",
        what: "user_id_update",
        payload: userIdUpdatePayload(state, phoneNumberId, input, old, now, seconds),
      });
    }
  }
  return { ok: { user, notices } };
}
