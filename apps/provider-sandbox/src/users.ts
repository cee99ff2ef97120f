import { createHash } from "node:crypto";
import { countryOfPhone } from "./countries.ts";
import { contactKey, digitsOf, type SandboxState, type SandboxUser, type UserRef } from "./state.ts";
import type { PortfolioSettings } from "./types.ts";
import type { WebhookContact } from "./webhooks.ts";

/** Meta's BSUID: ISO alpha-2 country, a dot, 1–128 alphanumerics (meta-2026 §1.2). */
export const BSUID_PATTERN = /^[A-Z]{2}\.[A-Za-z0-9]{1,128}$/;
/** A parent BSUID: the same with `ENT.` after the country. */
export const PARENT_BSUID_PATTERN = /^[A-Z]{2}\.ENT\.[A-Za-z0-9]{1,128}$/;
/** Usernames: a-z, 0-9, `.` and `_`, 3–35 characters, at least one letter; compared case-insensitively. */
export const USERNAME_PATTERN = /^(?=.*[A-Za-z])[A-Za-z0-9._]{3,35}$/;
export const PHONE_PATTERN = /^\+?[\d\s().-]{8,20}$/;

export const DEFAULT_PROFILE_NAME = "Cliente Sandbox";
/** Meta shares the phone of a user with a username if this business number exchanged messages with it this recently. */
const PHONE_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;

/** What one business number's webhooks show of a user (meta-2026 §1.3–1.5, Appendix A). */
export interface Identity {
  name: string;
  username: string | undefined;
  userId: string;
  /** Only when the number's portfolio has parent BSUIDs enabled. */
  parentUserId: string | undefined;
  /** Only when this number may see it (§1.3); otherwise the phone fields are omitted. */
  phone: string | undefined;
}

const NO_IDS: ReadonlyMap<string, string> = new Map();
const PHONE_WIDTH = 15;
const CHECK_WIDTH = 3;
const HASH_WIDTH = 20;
const ENCODED_PHONE = new RegExp(`^\\d{${PHONE_WIDTH + CHECK_WIDTH}}$`);
/** Parent BSUIDs are shared by every portfolio with parent BSUIDs enabled: one enterprise per sandbox. */
const PARENT_SCOPE = "enterprise";

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function keystream(scope: string): number[] {
  return [...sha256(`sandbox-bsuid-stream:${scope}`).subarray(0, PHONE_WIDTH)].map((byte) => byte % 10);
}

function checkDigits(scope: string, padded: string): string {
  const value = sha256(`sandbox-bsuid-check:${scope}:${padded}`).readUInt32BE(0) % 10 ** CHECK_WIDTH;
  return String(value).padStart(CHECK_WIDTH, "0");
}

/**
 * 18 digits per scope for a phone: digit-wise sum with a keystream plus 3 check digits. Deterministic (a phone user
 * keeps its BSUID across resets and sandboxes) and reversible, so a BSUID the sandbox handed out for a phone user
 * leads back to it without storing every phone the gateway ever wrote to.
 */
function encodePhone(scope: string, phoneKey: string): string {
  const padded = phoneKey.padStart(PHONE_WIDTH, "0");
  const stream = keystream(scope);
  const body = [...padded].map((digit, i) => (Number(digit) + (stream[i] ?? 0)) % 10).join("");
  return body + checkDigits(scope, padded);
}

function decodePhone(scope: string, body: string): string | undefined {
  if (!ENCODED_PHONE.test(body)) return undefined;
  const stream = keystream(scope);
  const padded = [...body.slice(0, PHONE_WIDTH)].map((digit, i) => (Number(digit) - (stream[i] ?? 0) + 10) % 10);
  const phone = padded.join("");
  if (checkDigits(scope, phone) !== body.slice(PHONE_WIDTH)) return undefined;
  const digits = phone.replace(/^0+/, "");
  return /^\d{8,15}$/.test(digits) ? digits : undefined;
}

/** 20 digits for a seed (Meta's examples have 20), never the 18 of a phone encoding. */
function hashDigits(scope: string, seed: string): string {
  const value = sha256(`sandbox-bsuid:${scope}:${seed}`).readBigUInt64BE(0) % 10n ** BigInt(HASH_WIDTH);
  return value.toString().padStart(HASH_WIDTH, "0");
}

function portfolioScope(portfolio: string): string {
  return `portfolio:${portfolio}`;
}

/** The digits the phone encoding of a seedless user starts from (both forms of a Brazilian number give one). */
function phoneKeyOf(user: SandboxUser): string {
  return contactKey(user.phone ?? "");
}

/** The user's BSUID in a portfolio: given explicitly, else derived from its seed or its first phone. */
export function userIdOf(user: SandboxUser, portfolio: string): string {
  const explicit = user.userIds.get(portfolio);
  if (explicit !== undefined) return explicit;
  const scope = portfolioScope(portfolio);
  const body = user.seed === undefined ? encodePhone(scope, phoneKeyOf(user)) : hashDigits(scope, user.seed);
  return `${user.country}.${body}`;
}

/** The user's parent BSUID (`CC.ENT.…`), the same from every portfolio that has them enabled. */
export function parentUserIdOf(user: SandboxUser): string {
  if (user.parentUserId !== undefined) return user.parentUserId;
  const body =
    user.seed === undefined ? encodePhone(PARENT_SCOPE, phoneKeyOf(user)) : hashDigits(PARENT_SCOPE, user.seed);
  return `${user.country}.ENT.${body}`;
}

/** The portfolio a business number belongs to. */
export function portfolioOf(state: SandboxState, phoneNumberId: string): string {
  return state.config.numberPortfolios[phoneNumberId] ?? state.config.portfolioId;
}

export function portfolioSettings(state: SandboxState, portfolio: string): PortfolioSettings {
  return { contactBook: true, parentUserIds: false, ...state.config.portfolios[portfolio] };
}

/** The default portfolio, then every one the configuration names. */
export function knownPortfolios(state: SandboxState): string[] {
  return [
    ...new Set([
      state.config.portfolioId,
      ...Object.values(state.config.numberPortfolios),
      ...Object.keys(state.config.portfolios),
    ]),
  ];
}

/** The user behind a phone number: the registered user with that phone, else a phone user. */
export function userForPhone(state: SandboxState, phone: string): SandboxUser {
  const digits = digitsOf(phone);
  const key = contactKey(digits);
  const registeredKey = state.userPhones.get(key);
  const registered = registeredKey === undefined ? undefined : state.users.get(registeredKey);
  if (registered) return registered;
  return {
    key,
    registered: false,
    name: state.profileNames.get(key) ?? DEFAULT_PROFILE_NAME,
    username: undefined,
    phone: digits,
    country: countryOfPhone(key),
    seed: undefined,
    userIds: NO_IDS,
    parentUserId: undefined,
  };
}

export function refOf(user: SandboxUser): UserRef {
  return user.registered || user.phone === undefined ? { key: user.key } : { phone: user.phone };
}

export function userOf(state: SandboxState, ref: UserRef): SandboxUser | undefined {
  return "key" in ref ? state.users.get(ref.key) : userForPhone(state, ref.phone);
}

/**
 * The user a BSUID names in a portfolio, if it is current: a BSUID of another portfolio, a retired one (after an
 * identity change) or one the sandbox never handed out names nobody.
 */
export function findByUserId(state: SandboxState, userId: string, portfolio: string): SandboxUser | undefined {
  if (state.retiredUserIds.has(userId)) return undefined;
  for (const user of state.users.values()) if (userIdOf(user, portfolio) === userId) return user;
  const phone = decodePhone(portfolioScope(portfolio), userId.slice(userId.indexOf(".") + 1));
  if (phone === undefined) return undefined;
  const user = userForPhone(state, phone);
  return userIdOf(user, portfolio) === userId ? user : undefined;
}

/** The user a parent BSUID names, if it is current. Whether the portfolio accepts parents is the caller's check. */
export function findByParentUserId(state: SandboxState, parentUserId: string): SandboxUser | undefined {
  if (state.retiredUserIds.has(parentUserId)) return undefined;
  for (const user of state.users.values()) if (parentUserIdOf(user) === parentUserId) return user;
  const phone = decodePhone(PARENT_SCOPE, parentUserId.slice(parentUserId.lastIndexOf(".") + 1));
  if (phone === undefined) return undefined;
  const user = userForPhone(state, phone);
  return parentUserIdOf(user) === parentUserId ? user : undefined;
}

export function findByUsername(state: SandboxState, username: string): SandboxUser | undefined {
  const wanted = username.toLowerCase();
  for (const user of state.users.values()) if (user.username?.toLowerCase() === wanted) return user;
  return undefined;
}

/** How the control API names a user: exactly one of its phone, a BSUID (or parent BSUID) or its username. */
export interface UserQuery {
  phone?: string | undefined;
  user_id?: string | undefined;
  username?: string | undefined;
}

/** The user a control call names; a BSUID is looked up in `portfolio` first, then in every known portfolio. */
export function findUser(state: SandboxState, query: UserQuery, portfolio?: string): SandboxUser | undefined {
  if (query.phone !== undefined) return userForPhone(state, query.phone);
  if (query.username !== undefined) return findByUsername(state, query.username);
  const userId = query.user_id;
  if (userId === undefined) return undefined;
  if (PARENT_BSUID_PATTERN.test(userId)) return findByParentUserId(state, userId);
  const portfolios = portfolio === undefined ? knownPortfolios(state) : [portfolio, ...knownPortfolios(state)];
  for (const candidate of portfolios) {
    const user = findByUserId(state, userId, candidate);
    if (user) return user;
  }
  return undefined;
}

/**
 * Whether this business number may see the user's phone (meta-2026 §1.3): always for a user without a username;
 * for a user with one, when this number exchanged messages with the user's phone in the last 30 days or the user is
 * in the portfolio's contact book. A withheld phone is never shared.
 */
export function isPhoneShared(state: SandboxState, user: SandboxUser, phoneNumberId: string): boolean {
  if (user.phone === undefined) return false;
  if (user.username === undefined) return true;
  const last = state.phoneExchanges.get(`${phoneNumberId}:${user.key}`);
  if (last !== undefined && state.now() - last < PHONE_LOOKBACK_MS) return true;
  return state.contactBooks.get(portfolioOf(state, phoneNumberId))?.has(user.key) ?? false;
}

/**
 * A message exchanged with the user's phone (a send addressed to it, or an inbound message that showed it): starts
 * the 30-day lookback for this number and, while the portfolio keeps a contact book, puts the user in it.
 */
export function recordPhoneExchange(state: SandboxState, user: SandboxUser, phoneNumberId: string, atMs: number): void {
  if (user.phone === undefined) return;
  const key = `${phoneNumberId}:${user.key}`;
  state.phoneExchanges.set(key, Math.max(state.phoneExchanges.get(key) ?? 0, atMs));
  const portfolio = portfolioOf(state, phoneNumberId);
  if (portfolioSettings(state, portfolio).contactBook) setInContactBook(state, portfolio, user.key, true);
}

export function setInContactBook(state: SandboxState, portfolio: string, key: string, present: boolean): boolean {
  let book = state.contactBooks.get(portfolio);
  if (!present) return book?.delete(key) ?? false;
  if (!book) state.contactBooks.set(portfolio, (book = new Set()));
  const added = !book.has(key);
  book.add(key);
  return added;
}

export function identityOf(state: SandboxState, user: SandboxUser, phoneNumberId: string): Identity {
  const portfolio = portfolioOf(state, phoneNumberId);
  return {
    name: user.name,
    username: user.username,
    userId: userIdOf(user, portfolio),
    parentUserId: portfolioSettings(state, portfolio).parentUserIds ? parentUserIdOf(user) : undefined,
    phone: isPhoneShared(state, user, phoneNumberId) ? user.phone : undefined,
  };
}

/** A `value.contacts[]` entry: `profile.username` only where Meta puts it (not on `sent` statuses). */
export function webhookContact(identity: Identity, options: { username: boolean }): WebhookContact {
  const profile: WebhookContact["profile"] = { name: identity.name };
  if (options.username && identity.username !== undefined) profile.username = identity.username;
  const contact: WebhookContact = { profile };
  if (identity.phone !== undefined) contact.wa_id = identity.phone;
  contact.user_id = identity.userId;
  if (identity.parentUserId !== undefined) contact.parent_user_id = identity.parentUserId;
  return contact;
}

/** Moves every per-user record from one key to another (a phone user becoming a registered user). */
function rekey(state: SandboxState, from: string, to: string): void {
  const suffix = `:${from}`;
  const move = <V>(map: Map<string, V>): void => {
    const moved = [...map].filter(([key]) => key.endsWith(suffix));
    for (const [key, value] of moved) {
      map.delete(key);
      map.set(`${key.slice(0, -suffix.length)}:${to}`, value);
    }
  };
  move(state.windows);
  move(state.pairs);
  move(state.marketingStopped);
  move(state.phoneExchanges);
  move(state.conversationOwners);
  for (const book of state.contactBooks.values()) if (book.delete(from)) book.add(to);
  state.profileNames.delete(from);
}

/**
 * Stores a user (a new one, or a phone user that keeps its history and BSUID), with a fresh `u<n>` key that does
 * not depend on its phone, so a later phone change leaves the old number to whoever has it next.
 */
export function storeUser(
  state: SandboxState,
  user: Omit<SandboxUser, "key" | "registered">,
  from?: SandboxUser,
): SandboxUser {
  state.userSeq += 1;
  const stored: SandboxUser = { ...user, key: `u${state.userSeq}`, registered: true };
  if (from && !from.registered) rekey(state, from.key, stored.key);
  state.users.set(stored.key, stored);
  if (stored.phone !== undefined) state.userPhones.set(contactKey(stored.phone), stored.key);
  return stored;
}

/** The key of the next regenerated seed: BSUIDs change, the user (its key) stays. */
export function nextSeed(state: SandboxState, user: SandboxUser): string {
  state.userSeq += 1;
  return `${user.key}#${state.userSeq}`;
}

/** Per-number records of a user: numbers it wrote to or exchanged phone messages with. */
export function numbersOf(state: SandboxState, user: SandboxUser): string[] {
  const suffix = `:${user.key}`;
  const numbers = new Set<string>();
  for (const map of [state.windows, state.phoneExchanges]) {
    for (const key of map.keys()) if (key.endsWith(suffix)) numbers.add(key.slice(0, -suffix.length));
  }
  return [...numbers];
}

/** A user as the control API shows it. `phoneNumberId` adds what that number's webhooks show. */
export function userView(state: SandboxState, user: SandboxUser, phoneNumberId?: string): Record<string, unknown> {
  const portfolios = knownPortfolios(state);
  const suffix = `:${user.key}`;
  const exchanges = [...state.phoneExchanges]
    .filter(([key]) => key.endsWith(suffix))
    .map(([key, ms]) => ({ phone_number_id: key.slice(0, -suffix.length), at: new Date(ms).toISOString() }));
  const view: Record<string, unknown> = {
    key: user.key,
    registered: user.registered,
    name: user.name,
    username: user.username ?? null,
    phone: user.phone ?? null,
    country: user.country,
    user_id: userIdOf(user, state.config.portfolioId),
    user_ids: Object.fromEntries(portfolios.map((portfolio) => [portfolio, userIdOf(user, portfolio)])),
    parent_user_id: parentUserIdOf(user),
    contact_books: portfolios.filter((portfolio) => state.contactBooks.get(portfolio)?.has(user.key)),
    phone_exchanges: exchanges,
  };
  if (phoneNumberId !== undefined) {
    const identity = identityOf(state, user, phoneNumberId);
    view.webhook_identity = {
      phone_number_id: phoneNumberId,
      portfolio_id: portfolioOf(state, phoneNumberId),
      wa_id: identity.phone ?? null,
      user_id: identity.userId,
      parent_user_id: identity.parentUserId ?? null,
    };
  }
  return view;
}
