import { z } from "zod";
import { countryOfPhone, DEFAULT_COUNTRY } from "./countries.ts";
import { contactKey, digitsOf, type SandboxState, type SandboxUser } from "./state.ts";
import {
  BSUID_PATTERN,
  DEFAULT_PROFILE_NAME,
  findByParentUserId,
  findByUserId,
  findByUsername,
  findUser,
  knownPortfolios,
  PARENT_BSUID_PATTERN,
  parentUserIdOf,
  PHONE_PATTERN,
  portfolioOf,
  portfolioSettings,
  setInContactBook,
  storeUser,
  userForPhone,
  userIdOf,
  USERNAME_PATTERN,
} from "./users.ts";

const digitsId = z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)");
const phone = z.string().regex(PHONE_PATTERN, "deve ser um número de telefone");
const username = z.string().regex(USERNAME_PATTERN, "deve ter de 3 a 35 caracteres: letras, dígitos, . e _");
const anyUserId = z
  .string()
  .refine(
    (id) => BSUID_PATTERN.test(id) || PARENT_BSUID_PATTERN.test(id),
    "deve ser um BSUID (ex.: BR.1502576394655843)",
  );

/** Names one user: exactly one of its phone, its BSUID (or parent BSUID) or its username. */
export const userQuerySchema = z
  .object({ phone: phone.optional(), user_id: anyUserId.optional(), username: username.optional() })
  .strict()
  .refine((query) => [query.phone, query.user_id, query.username].filter((v) => v !== undefined).length === 1, {
    message: "informe exatamente um de phone, user_id ou username",
  });

/** Query of GET /_sandbox/users: one user (any, phone users included) or every registered user. */
export const usersListSchema = z
  .object({
    phone: phone.optional(),
    user_id: anyUserId.optional(),
    username: username.optional(),
    /** Adds what this number's webhooks show of each user (`webhook_identity`). */
    phone_number_id: digitsId.optional(),
  })
  .strict();

/**
 * Body of POST /_sandbox/users: registers a user, or updates the registered user it names. `phone: null` is a user
 * whose phone the sandbox does not know (reachable by BSUID only); a user with a `username` keeps its phone out of
 * webhooks until it is shared (meta-2026 §1.3). `user_id` pins its BSUID in `portfolio_id` (default portfolio),
 * otherwise one is derived; `parent_user_id` likewise.
 */
export const registerUserSchema = z
  .object({
    phone: phone.nullable(),
    user_id: z.string().regex(BSUID_PATTERN, "deve ser um BSUID (ex.: BR.1502576394655843)"),
    parent_user_id: z.string().regex(PARENT_BSUID_PATTERN, "deve ser um BSUID pai (ex.: BR.ENT.1502576394655843)"),
    portfolio_id: z.string().min(1),
    username: username.nullable(),
    name: z.string().min(1),
    country: z.string().regex(/^[A-Z]{2}$/, "deve ser um código ISO de país (ex.: BR)"),
  })
  .partial()
  .strict();

/** Body of POST /_sandbox/users/contact-book: puts a user in (or takes it out of) a portfolio's contact book. */
export const contactBookSchema = z
  .object({
    user: userQuerySchema,
    /** The portfolio, or the number whose portfolio it is; default: the default portfolio. */
    portfolio_id: z.string().min(1).optional(),
    phone_number_id: digitsId.optional(),
    in_contact_book: z.boolean(),
  })
  .strict();

/**
 * Body of POST /_sandbox/users/phone-exchange: when this number last exchanged messages with the user's phone (the
 * 30-day rule of meta-2026 §1.3), without touching the contact book; null forgets it.
 */
export const phoneExchangeSchema = z
  .object({
    user: userQuerySchema,
    phone_number_id: digitsId,
    /** Unix seconds. */
    at: z.number().int().nonnegative().nullable(),
  })
  .strict();

/** Body of POST /_sandbox/portfolios: a portfolio's contact book and parent BSUIDs (disabling the book empties it). */
export const portfolioSchema = z
  .object({
    /** Default: the default portfolio. */
    portfolio_id: z.string().min(1).optional(),
    contact_book: z.boolean().optional(),
    parent_user_ids: z.boolean().optional(),
  })
  .strict();

/** A control call's outcome: the value, or an HTTP status and a Portuguese message. */
export type Outcome<T> = { ok: T } | { status: number; error: string };

function conflict(error: string): { status: number; error: string } {
  return { status: 409, error };
}

const CHANGE_HINT = "use POST /_sandbox/users/identity-change para trocar telefone ou BSUID";

/** Registers a user or updates the registered user the body names (POST /_sandbox/users). */
export function registerUser(state: SandboxState, input: z.infer<typeof registerUserSchema>): Outcome<SandboxUser> {
  const portfolio = input.portfolio_id ?? state.config.portfolioId;
  const byPhone = input.phone ? userForPhone(state, input.phone) : undefined;
  const byUserId = input.user_id === undefined ? undefined : findByUserId(state, input.user_id, portfolio);
  const byUsername = input.username ? findByUsername(state, input.username) : undefined;
  const byParent = input.parent_user_id === undefined ? undefined : findByParentUserId(state, input.parent_user_id);
  const found = [byPhone, byUserId, byUsername, byParent].filter((user): user is SandboxUser => user !== undefined);
  // A registered user named by any of the fields is the one updated (a different phone is then a conflict).
  const registered = new Map(found.filter((user) => user.registered).map((user) => [user.key, user]));
  if (registered.size > 1) return conflict("Os dados informados pertencem a usuários diferentes.");
  const [existing] = registered.values();
  if (existing) return updateUser(existing, input, portfolio);

  if (input.user_id !== undefined && state.retiredUserIds.has(input.user_id))
    return conflict(`O BSUID ${input.user_id} foi substituído numa troca de identidade e não pode ser reusado.`);
  // A phone user becomes a registered user: its history (window, preferences, contact book) and BSUID stay.
  const from = found[0];
  const phoneDigits = input.phone === null ? undefined : input.phone ? digitsOf(input.phone) : from?.phone;
  const country =
    input.country ??
    from?.country ??
    input.user_id?.slice(0, 2) ??
    (phoneDigits === undefined ? DEFAULT_COUNTRY : countryOfPhone(contactKey(phoneDigits)));
  const user = storeUser(
    state,
    {
      name: input.name ?? from?.name ?? DEFAULT_PROFILE_NAME,
      username: input.username ?? undefined,
      phone: phoneDigits,
      country,
      seed: undefined,
      userIds: input.user_id === undefined ? new Map() : new Map([[portfolio, input.user_id]]),
      parentUserId: input.parent_user_id,
    },
    from,
  );
  // Without a phone to derive them from, the BSUIDs come from the user's own key.
  if (user.phone === undefined) user.seed = user.key;
  return { ok: user };
}

function updateUser(
  user: SandboxUser,
  input: z.infer<typeof registerUserSchema>,
  portfolio: string,
): Outcome<SandboxUser> {
  const phoneChanges =
    input.phone !== undefined &&
    (input.phone === null ? user.phone !== undefined : contactKey(input.phone) !== contactKey(user.phone ?? ""));
  if (phoneChanges) return conflict(`O telefone deste usuário é outro: ${CHANGE_HINT}.`);
  if (input.user_id !== undefined && input.user_id !== userIdOf(user, portfolio))
    return conflict(`O BSUID deste usuário é outro: ${CHANGE_HINT}.`);
  if (input.parent_user_id !== undefined && input.parent_user_id !== parentUserIdOf(user))
    return conflict(`O BSUID pai deste usuário é outro: ${CHANGE_HINT}.`);
  if (input.country !== undefined && input.country !== user.country)
    return conflict(`O país (prefixo do BSUID) deste usuário é outro: ${CHANGE_HINT}.`);
  // A username change keeps the BSUID (Meta); null drops the username (the phone is then shared again).
  if (input.username !== undefined) user.username = input.username ?? undefined;
  if (input.name !== undefined) user.name = input.name;
  return { ok: user };
}

/** The user a control call names, or a 404 in Portuguese. */
export function requireUser(
  state: SandboxState,
  query: z.infer<typeof userQuerySchema>,
  portfolio?: string,
): Outcome<SandboxUser> {
  const user = findUser(state, query, portfolio);
  return user
    ? { ok: user }
    : { status: 404, error: "Usuário desconhecido pelo sandbox (registre-o em POST /_sandbox/users)." };
}

/** Puts a user in, or takes it out of, a portfolio's contact book (POST /_sandbox/users/contact-book). */
export function setContactBook(state: SandboxState, input: z.infer<typeof contactBookSchema>): Outcome<SandboxUser> {
  const portfolio =
    input.portfolio_id ??
    (input.phone_number_id === undefined ? state.config.portfolioId : portfolioOf(state, input.phone_number_id));
  const found = requireUser(state, input.user, portfolio);
  if (!("ok" in found)) return found;
  if (input.in_contact_book && !portfolioSettings(state, portfolio).contactBook)
    return conflict(`O portfólio ${portfolio} está sem agenda de contatos (POST /_sandbox/portfolios).`);
  if (input.in_contact_book && found.ok.phone === undefined)
    return conflict("O usuário não tem telefone conhecido: não há o que guardar na agenda de contatos.");
  setInContactBook(state, portfolio, found.ok.key, input.in_contact_book);
  return found;
}

/** Sets or forgets the latest phone exchange of a number with a user (POST /_sandbox/users/phone-exchange). */
export function setPhoneExchange(
  state: SandboxState,
  input: z.infer<typeof phoneExchangeSchema>,
): Outcome<SandboxUser> {
  const found = requireUser(state, input.user, portfolioOf(state, input.phone_number_id));
  if (!("ok" in found)) return found;
  if (found.ok.phone === undefined) return conflict("O usuário não tem telefone conhecido.");
  const key = `${input.phone_number_id}:${found.ok.key}`;
  if (input.at === null) state.phoneExchanges.delete(key);
  else state.phoneExchanges.set(key, input.at * 1000);
  return found;
}

/** Changes a portfolio's settings (POST /_sandbox/portfolios); disabling the contact book deletes it, as Meta does. */
export function setPortfolio(state: SandboxState, input: z.infer<typeof portfolioSchema>): string {
  const id = input.portfolio_id ?? state.config.portfolioId;
  const next = { ...state.config.portfolios[id] };
  if (input.contact_book !== undefined) next.contactBook = input.contact_book;
  if (input.parent_user_ids !== undefined) next.parentUserIds = input.parent_user_ids;
  // A new object: the options the sandbox started with stay as they were, for `reset {"config": true}`.
  state.config.portfolios = { ...state.config.portfolios, [id]: next };
  if (input.contact_book === false) state.contactBooks.delete(id);
  return id;
}

/** A portfolio as GET /_sandbox/portfolios lists it. */
export function portfolioView(state: SandboxState, id: string): Record<string, unknown> {
  const settings = portfolioSettings(state, id);
  return {
    portfolio_id: id,
    default: id === state.config.portfolioId,
    contact_book: settings.contactBook,
    parent_user_ids: settings.parentUserIds,
    messaging_limit: settings.messagingLimit ?? null,
    contact_book_size: state.contactBooks.get(id)?.size ?? 0,
    /** Numbers configured in it (any other number belongs to the default portfolio). */
    numbers: Object.entries(state.config.numberPortfolios)
      .filter(([, portfolio]) => portfolio === id)
      .map(([number]) => number),
  };
}

export function portfolioViews(state: SandboxState): Record<string, unknown>[] {
  return knownPortfolios(state).map((id) => portfolioView(state, id));
}
