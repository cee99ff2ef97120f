import type { MetaCode } from "./graph/errors.ts";
import type { Logger } from "@gw/logger";
import type { OrderPlan, SandboxOrder } from "./orders.ts";
import { FIXTURE_TEMPLATES } from "./fixtures/templates.ts";
import { WebhookTransport } from "./transport.ts";
import type { RuntimeConfig, SandboxOptions } from "./types.ts";
import type { AnyWebhookPayload, WebhookContact } from "./webhooks.ts";

export const DEFAULT_STATUS_DELAYS = { sent: 50, delivered: 150, read: 300 } as const;
export const DEFAULT_WABA_ID = "102290129340398";
export const DEFAULT_PORTFOLIO_ID = "102290129340300";
export const DEFAULT_HISTORY_LIMIT = 10_000;
const WINDOW_MS = 24 * 60 * 60 * 1000;
const PAIRS_SWEEP_MIN = 10_000;

/** The Graph edge a send came through: Cloud API's `/messages` or the Marketing Messages API's `/marketing_messages`. */
export type SendEndpoint = "messages" | "marketing_messages";

/** An accepted send, as GET /_sandbox/sent lists it. */
export interface SentMessage {
  phone_number_id: string;
  wamid: string;
  /** Meta's status webhooks do not say which edge a send took (meta-2026 §7.4): the sandbox records it here. */
  endpoint: SendEndpoint;
  /** The request's `to` (a phone number); null for a send addressed by `recipient` alone (a BSUID). */
  to: string | null;
  /** The digits of `to`, as Meta answers them in `contacts[].wa_id`; null for a BSUID send. */
  wa_id: string | null;
  /** The request's `recipient` when it addressed the send (no `to`); null otherwise (`to` wins when both are set). */
  recipient: string | null;
  /** The recipient's BSUID in the number's portfolio when the send was accepted. */
  user_id: string;
  type: string;
  /** The exact JSON received, parsed. */
  body: unknown;
  /** The exact request body received. */
  raw: string;
  /** ISO 8601. */
  at: string;
  /** The same instant as `at`, in Unix milliseconds: to count sends per second without parsing dates. */
  at_ms: number;
  /** Set when the send went out but its answer was replaced by a fault (`deliver: true`). */
  fault: FaultMode | null;
}

/** Every Graph request received, answered or not. */
export interface GraphRequestRecord {
  method: string;
  path: string;
  url: string;
  /** HTTP status answered; null when a fault dropped the connection. */
  status: number | null;
  fault: FaultMode | null;
  at: string;
}

export interface WebhookRecord {
  url: string;
  /**
   * `templates`: message_template_status_update / message_template_quality_update (POST /_sandbox/templates/…);
   * `user_preferences`: a contact stopped or resumed marketing messages (POST /_sandbox/user-preferences);
   * `user_id_update`: a user's BSUID changed (POST /_sandbox/users/identity-change; its system messages are
   * `inbound`); `account`: account_update, phone_number_quality_update, business_capability_update;
   * `messaging_handovers`: another app passed a thread to this one or took it from it (POST /_sandbox/thread-control).
   */
  kind:
    "statuses" | "inbound" | "templates" | "user_preferences" | "user_id_update" | "account" | "messaging_handovers";
  payload: unknown;
  raw: string;
  signature: string;
  /** The gateway's HTTP status, or null when it could not be reached. */
  status: number | null;
  error: string | null;
  at: string;
  /** Which POST of this payload: 1, then 2, 3… for redeliveries (same raw bytes, same signature). */
  attempt: number;
  /** Shared by every attempt of one payload; the id GET /_sandbox/webhooks/pending shows. */
  delivery_id: number;
}

export type FaultMode = "500" | "timeout" | "reset" | "error" | "slow";
/**
 * `messages`: POST /{phone-number-id}/messages only; `marketing_messages`: POST /{phone-number-id}/marketing_messages
 * only (Meta's two send edges fail separately); `thread_control`: POST /{phone-number-id}/thread_control; `media`:
 * GET /{media-id} and the download URL; `numbers`: GET /{phone-number-id}; `any`: every Graph call.
 */
export type FaultRoute =
  "messages" | "marketing_messages" | "thread_control" | "templates" | "media" | "numbers" | "any";

/**
 * A media the sandbox holds: of an inbound message it posted (`received`) or uploaded by the gateway (`uploaded`);
 * what GET /{media-id} and its download URL serve until it expires (7 and 30 days on the sandbox clock, or at once
 * through POST /_sandbox/media/{id}/expire).
 */
export interface SandboxMedia {
  id: string;
  phone_number_id: string;
  mime_type: string;
  /** Hex SHA-256 of `bytes`, as GET /{media-id} reports it. */
  sha256: string;
  file_size: number;
  bytes: Buffer;
  /** ISO 8601. */
  at: string;
  origin: "received" | "uploaded";
  /** The upload's file part name (documents keep it). */
  filename: string | null;
  /** Sandbox clock (ms) past which Meta no longer has it. */
  expires_at_ms: number;
  /** Expired through the control API. */
  expired: boolean;
}

/** A media upload as it arrives (GET /_sandbox/media/uploads): the streaming tests read `bytes_received`. */
export interface SandboxUpload {
  /** The media id it gets once stored (handed out when the upload started). */
  id: string;
  phone_number_id: string;
  /** The file part's declared type. */
  mime_type: string | null;
  filename: string | null;
  bytes_received: number;
  status: "receiving" | "stored" | "refused" | "aborted";
  /** ISO 8601. */
  at: string;
}

export interface FaultRule {
  mode: FaultMode;
  /** Matching calls still to fault. */
  count: number;
  route: FaultRoute;
  /** Matching calls still to let through before faulting. */
  after: number;
  delayMs: number;
  /** The send is processed (accepted, statuses sent) though its answer is lost. */
  deliver: boolean;
  /** For mode `error`: the Meta error code and details to answer with. */
  error?: { code: MetaCode; details: string };
}

/**
 * A WhatsApp user as the sandbox knows it. Phone users (every phone number the gateway sends to or the control
 * API writes from) are derived on the fly and never stored; a user is stored ("registered") once the control API
 * gives it a username, a withheld phone, explicit ids or an identity change.
 */
export interface SandboxUser {
  /**
   * Stable across phone and BSUID changes: keys the user's window, pair rate, marketing preference, phone exchanges
   * and contact-book entries. A phone user's is contactKey(phone) (as before BSUIDs); a registered user's `u1`, `u2`…
   */
  readonly key: string;
  readonly registered: boolean;
  name: string;
  /** `profile.username`; undefined when the user has not adopted one (then the phone is always shared). */
  username: string | undefined;
  /** Digits; undefined when withheld (the sandbox does not know it: the user is reachable by BSUID only). */
  phone: string | undefined;
  /** The BSUIDs' prefix. */
  country: string;
  /**
   * Derives the user's BSUIDs. Undefined for a user still identified by its first phone: its BSUID is then an
   * encoding of that phone per portfolio, so a phone user gets the same BSUID before and after being registered.
   */
  seed: string | undefined;
  /** BSUIDs given explicitly through the control API, per portfolio id (else derived). */
  userIds: ReadonlyMap<string, string>;
  /** Parent BSUID given explicitly (else derived). */
  parentUserId: string | undefined;
}

/** How something scheduled finds its user again later (a phone user may be registered meanwhile). */
export type UserRef = { key: string } | { phone: string };

/** An inbound message the sandbox posted: what mark-as-read and typing indicators may name. */
export interface InboundRecord {
  phoneNumberId: string;
  user: UserRef;
  atMs: number;
}

/** One accepted mark-as-read (with or without a typing indicator), as GET /_sandbox/read-marks lists it. */
export interface ReadMark {
  phone_number_id: string;
  message_id: string;
  /** The sender's BSUID (in the number's portfolio) when it was marked. */
  user_id: string;
  /** `text` when the call also showed the typing indicator. */
  typing_indicator: "text" | null;
  /** ISO 8601. */
  at: string;
}

/**
 * One thread-control action of this app, as GET /_sandbox/thread-control lists it: a call to
 * POST /{phone-number-id}/thread_control (accepted or refused), or the implicit take of a non-template send.
 */
export interface ThreadControlRecord {
  /** `graph`: POST /{phone-number-id}/thread_control; `send`: a non-template send through /messages took the thread. */
  source: "graph" | "send";
  phone_number_id: string;
  /** The request's `action` as given (`take` for an implicit take); null when absent or not a string. */
  action: string | null;
  /** The user's BSUID in the number's portfolio; null when the call named no user the sandbox knows. */
  user_id: string | null;
  /** The request body, parsed (null when it was not JSON); null for an implicit take. */
  body: unknown;
  /** The owner before and after; equal when refused, null when no user was named. */
  previous_owner: string | null;
  owner: string | null;
  /** HTTP status answered (200 for an implicit take). */
  status: number;
  /** Meta code of a refusal (100, 131009, 2494191), else null. */
  code: number | null;
  /** ISO 8601. */
  at: string;
}

/** One status of one message, due now. */
export interface DueStatus {
  wamid: string;
  phoneNumberId: string;
  entry: Record<string, unknown>;
  /** Its recipient in the payload's sibling `contacts` array (none for `failed`). */
  contact: WebhookContact | undefined;
}

/** A status payload for one business number: open while it collects, then delivered (and maybe redelivered). */
export interface StatusBatch {
  phoneNumberId: string;
  entries: Record<string, unknown>[];
  /** The recipients of its non-failed statuses, by BSUID: the value's `contacts`. */
  contacts: Map<string, WebhookContact>;
  /** Distinct messages in it, in order of first appearance. */
  wamids: string[];
  open: boolean;
}

/**
 * Per message: the payload holding its latest status while that payload is unsettled (collecting, in flight or
 * waiting for a redelivery), and the statuses that fell due meanwhile, which wait behind it.
 */
export interface MessageLane {
  batch: StatusBatch;
  waiting: DueStatus[];
}

/** One payload being delivered: every attempt sends the same bytes with the same signature. */
export interface Redelivery {
  id: number;
  kind: WebhookRecord["kind"];
  payload: AnyWebhookPayload;
  raw: string;
  signature: string;
  attempts: number;
  /** ms (wall clock) of the first POST. */
  firstAttemptAt: number;
  /** Sum of the waits scheduled so far. */
  plannedMs: number;
  /** ms of the next POST; null while a POST is in flight. */
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  /** `auto`: the sandbox's own statuses after a send, kept in order per message; `control`: POST /_sandbox/…. */
  source: "auto" | "control";
  /** The state generation it belongs to: a reset drops it. */
  generation: number;
  /** Called once, when the payload got a 2xx or was given up (not on reset or shutdown). */
  onSettled: (() => void) | undefined;
}

export interface SandboxState {
  readonly appSecret: string;
  readonly accessToken: string | undefined;
  readonly wabaId: string;
  readonly logger: Logger;
  readonly now: () => number;
  config: RuntimeConfig;
  sent: SentMessage[];
  requests: GraphRequestRecord[];
  webhooks: WebhookRecord[];
  faults: FaultRule[];
  /** `${phone_number_id}:${user key}` -> ms of the contact's latest message. */
  windows: Map<string, number>;
  /** phone_number_id -> ms of accepted sends within the last second, oldest first. */
  rate: Map<string, number[]>;
  /** `${phone_number_id}:${user key}` -> ms of accepted sends within the pair-rate window, oldest first. */
  pairs: Map<string, number[]>;
  /** `pairs` is swept of expired entries when it reaches this size (amortized: doubles after each sweep). */
  pairsSweepAt: number;
  /** phone_number_id -> Meta code -> sends refused with it (130429, 131056...), for GET /_sandbox/sent/stats. */
  refusals: Map<string, Map<number, number>>;
  /**
   * `${phone_number_id}:${user key}` -> ms when the contact stopped marketing messages from that number: marketing
   * templates to them are accepted, then fail with 131050 (POST /_sandbox/user-preferences).
   */
  marketingStopped: Map<string, number>;
  /**
   * Users registered through the control API (usernames, withheld phones, identity changes), by key. Every other
   * phone number is a plain phone user the sandbox derives on the fly (`users.ts`), as before BSUIDs.
   */
  users: Map<string, SandboxUser>;
  /** contactKey(phone) -> key of the registered user with that phone. */
  userPhones: Map<string, string>;
  userSeq: number;
  /** BSUIDs and parent BSUIDs replaced by an identity change: sends to them fail like unknown ones. */
  retiredUserIds: Set<string>;
  /** `${phone_number_id}:${user key}` -> ms of the latest message exchanged with the user's phone (30-day rule). */
  phoneExchanges: Map<string, number>;
  /** portfolio id -> user keys in its contact book. */
  contactBooks: Map<string, Set<string>>;
  /** Phone user key -> the profile name its latest inbound message gave (registered users hold their own). */
  profileNames: Map<string, string>;
  /**
   * `${phone_number_id}:${user key}` -> the app owning the conversation when it is not this one (Conversation
   * Routing, meta-late-2026 §5): its user messages go on the `standby` field. Absent = `this_app`.
   */
  conversationOwners: Map<string, string>;
  /** This app's thread-control actions (Graph calls, implicit takes), oldest first: GET /_sandbox/thread-control. */
  threadControls: ThreadControlRecord[];
  /** Inbound messages the sandbox posted, by wamid (at most historyLimit): what mark-as-read may name. */
  inboundMessages: Map<string, InboundRecord>;
  /** Mark-as-read and typing-indicator calls accepted, oldest first (GET /_sandbox/read-marks). */
  readMarks: ReadMark[];
  /** Media of inbound messages and uploads by media id, oldest first (at most historyLimit). */
  media: Map<string, SandboxMedia>;
  /** Media uploads, oldest first (at most historyLimit), finished or not. */
  uploads: SandboxUpload[];
  /**
   * Every media id handed out (kept across resets, the newest 100000): once its media is dropped, GET /{id} is still
   * known to name media (Meta's "does not exist" answer) rather than a phone number.
   */
  readonly mediaIds: Set<string>;
  /** Orders by `${portfolio id} ${reference_id}`: what each customer's order card shows (`orders.ts`). */
  readonly orders: Map<string, SandboxOrder>;
  /** What the send being checked does to an order, applied only if Meta's answer is an acceptance (`orders.ts`). */
  orderPlan: OrderPlan | undefined;
  /** Bumped by reset and shutdown so scheduled status sequences stop. */
  generation: number;
  closed: boolean;
  readonly timers: Set<{ timer: NodeJS.Timeout; cancel: () => void }>;
  /** node:http with keep-alive; closed at shutdown, which ends in-flight webhook POSTs. */
  readonly transport: WebhookTransport;
  /** Payloads refused at least once and not yet delivered or given up, by delivery id. */
  readonly redeliveries: Map<number, Redelivery>;
  /** wamid -> the unsettled payload holding its latest status, and its later statuses waiting behind it. */
  readonly lanes: Map<string, MessageLane>;
  /** phone_number_id -> the status payload still collecting (SANDBOX_STATUS_BATCH_MS). */
  readonly batches: Map<string, StatusBatch>;
  deliverySeq: number;
}

/** Phone numbers compared as digits only, as Meta's wa_id. */
export function digitsOf(phone: string): string {
  return phone.replace(/[\s+().-]/g, "");
}

/** An entry of the `unreachable` and `failAfterSend` lists: a phone number as digits, a BSUID as it is. */
export function normalizeRecipient(value: string): string {
  return /^[A-Z]{2}\./.test(value) ? value : digitsOf(value);
}

export function runtimeConfigFrom(options: SandboxOptions): RuntimeConfig {
  return {
    webhookUrl: options.webhookUrl,
    statusDelaysMs: { ...(options.statusDelaysMs ?? DEFAULT_STATUS_DELAYS) },
    autoStatuses: options.autoStatuses ?? true,
    unreachable: (options.unreachable ?? []).map(normalizeRecipient),
    failAfterSend: (options.failAfterSend ?? []).map(normalizeRecipient),
    enforceWindow: options.enforceWindow ?? true,
    paymentsUnsupported: (options.paymentsUnsupported ?? []).map(normalizeRecipient),
    rateLimitPerSecond: options.rateLimitPerSecond,
    numberRates: { ...options.numberRates },
    pairRate: options.pairRate ? { ...options.pairRate } : undefined,
    templates: options.templates ?? FIXTURE_TEMPLATES,
    pageSize: options.pageSize ?? 25,
    numbers: { ...options.numbers },
    portfolioId: options.portfolioId ?? DEFAULT_PORTFOLIO_ID,
    portfolios: { ...options.portfolios },
    numberPortfolios: { ...options.numberPortfolios },
    authenticationInternational: [...(options.authenticationInternational ?? [])],
    escalationPartners: { ...options.escalationPartners },
    marketingMessagesNotOnboarded: [...(options.marketingMessagesNotOnboarded ?? [])],
    webhookRetries: options.webhookRetries ?? true,
    webhookRetryScale: options.webhookRetryScale ?? 1,
    statusBatchMs: options.statusBatchMs ?? 0,
    historyLimit: options.historyLimit ?? DEFAULT_HISTORY_LIMIT,
  };
}

export function createState(options: SandboxOptions, logger: Logger): SandboxState {
  return {
    appSecret: options.appSecret,
    accessToken: options.accessToken,
    wabaId: options.wabaId ?? DEFAULT_WABA_ID,
    logger,
    now: options.now ?? Date.now,
    config: runtimeConfigFrom(options),
    sent: [],
    requests: [],
    webhooks: [],
    faults: [],
    windows: new Map(),
    rate: new Map(),
    pairs: new Map(),
    pairsSweepAt: PAIRS_SWEEP_MIN,
    refusals: new Map(),
    marketingStopped: new Map(),
    users: new Map(),
    userPhones: new Map(),
    userSeq: 0,
    retiredUserIds: new Set(),
    phoneExchanges: new Map(),
    contactBooks: new Map(),
    profileNames: new Map(),
    conversationOwners: new Map(),
    threadControls: [],
    inboundMessages: new Map(),
    readMarks: [],
    media: new Map(),
    uploads: [],
    mediaIds: new Set(),
    orders: new Map(),
    orderPlan: undefined,
    generation: 0,
    closed: false,
    timers: new Set(),
    transport: new WebhookTransport(options.webhookTimeoutMs),
    redeliveries: new Map(),
    lanes: new Map(),
    batches: new Map(),
    deliverySeq: 0,
  };
}

/** Clears what a test accumulates; the run-time configuration is kept. */
export function clearState(state: SandboxState): void {
  cancelTimers(state);
  state.generation += 1;
  state.sent = [];
  state.requests = [];
  state.webhooks = [];
  state.faults = [];
  state.windows.clear();
  state.rate.clear();
  state.pairs.clear();
  state.pairsSweepAt = PAIRS_SWEEP_MIN;
  state.refusals.clear();
  state.marketingStopped.clear();
  state.users.clear();
  state.userPhones.clear();
  state.userSeq = 0;
  state.retiredUserIds.clear();
  state.phoneExchanges.clear();
  state.contactBooks.clear();
  state.profileNames.clear();
  state.conversationOwners.clear();
  state.threadControls = [];
  state.inboundMessages.clear();
  state.readMarks = [];
  state.media.clear();
  state.uploads = [];
  state.orders.clear();
  state.orderPlan = undefined;
  state.redeliveries.clear();
  state.lanes.clear();
  state.batches.clear();
}

export function cancelTimers(state: SandboxState): void {
  for (const entry of state.timers) {
    clearTimeout(entry.timer);
    entry.cancel();
  }
  state.timers.clear();
}

/** A tracked timer: runs `fn` after `ms` unless the sandbox is reset or shut down first. */
export function later(state: SandboxState, ms: number, fn: () => void): void {
  const entry = {
    timer: setTimeout(
      () => {
        state.timers.delete(entry);
        fn();
      },
      Math.max(0, ms),
    ),
    cancel: noop,
  };
  state.timers.add(entry);
}

function noop(): void {}

/**
 * Appends to a history list (`sent`, `requests`, `webhooks`). The oldest entries are dropped in chunks, so the list
 * holds at most `limit` + min(1024, limit / 8) entries and a push stays O(1); `recent` trims to exactly `limit`.
 */
export function remember<T>(list: T[], item: T, limit: number): void {
  list.push(item);
  if (list.length > limit + Math.min(1024, Math.ceil(limit / 8))) list.splice(0, list.length - limit);
}

/** The newest `limit` entries, in order (the list itself, trimmed). */
export function recent<T>(list: T[], limit: number): T[] {
  if (list.length > limit) list.splice(0, list.length - limit);
  return list;
}

/** winston formats every entry before its transports filter by level: ask first on hot paths. */
export function logs(state: SandboxState, level: "info" | "http" | "debug"): boolean {
  return state.logger.isLevelEnabled(level);
}

/** A tracked sleep: resolves true after `ms`, or false at once when the sandbox is reset or shut down. */
export function sleep(state: SandboxState, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const entry = {
      timer: setTimeout(
        () => {
          state.timers.delete(entry);
          resolve(true);
        },
        Math.max(0, ms),
      ),
      cancel: () => resolve(false),
    };
    state.timers.add(entry);
  });
}

/**
 * One contact, whichever form names it: Meta keeps 12-digit ids (55 + area code + 8 digits) for Brazilian
 * accounts older than the 9th mobile digit, and delivers sends addressed to the 13-digit number to them.
 */
export function contactKey(waId: string): string {
  const digits = digitsOf(waId);
  const old = /^55([1-9]{2})([6-9]\d{7})$/.exec(digits);
  return old ? `55${old[1]}9${old[2]}` : digits;
}

/**
 * The contact's latest message opens the 24 h window. `contact` is the user's key (`users.ts`: a phone user's is
 * contactKey(phone), so both forms of a Brazilian number share one window).
 */
export function recordContactMessage(state: SandboxState, phoneNumberId: string, contact: string, atMs: number): void {
  const key = `${phoneNumberId}:${contact}`;
  // Out-of-order arrivals must not shorten the window.
  state.windows.set(key, Math.max(state.windows.get(key) ?? 0, atMs));
}

export function windowOpen(state: SandboxState, phoneNumberId: string, contact: string): boolean {
  const last = state.windows.get(`${phoneNumberId}:${contact}`);
  return last !== undefined && state.now() - last < WINDOW_MS;
}

/** The messaging rate of a number: its own (`numberRates`), else the default (`rateLimitPerSecond`), else none. */
export function rateOf(state: SandboxState, phoneNumberId: string): number | undefined {
  return state.config.numberRates[phoneNumberId] ?? state.config.rateLimitPerSecond;
}

/** Drops the times older than `windowMs` from the front of a list kept in time order. */
function expire(list: number[], now: number, windowMs: number): void {
  let drop = 0;
  while (drop < list.length && now - (list[drop] ?? now) >= windowMs) drop += 1;
  if (drop > 0) list.splice(0, drop);
}

/** True when one more send from this number stays within its per-second rate (sliding one-second window). */
export function withinRate(state: SandboxState, phoneNumberId: string): boolean {
  const limit = rateOf(state, phoneNumberId);
  if (limit === undefined) return true;
  const list = state.rate.get(phoneNumberId);
  if (!list) return true;
  expire(list, state.now(), 1000);
  return list.length < limit;
}

function pairKey(phoneNumberId: string, contact: string): string {
  return `${phoneNumberId}:${contact}`;
}

/** True when one more send from this number to this contact (user key) stays within the pair rate (when one is set). */
export function withinPairRate(state: SandboxState, phoneNumberId: string, contact: string): boolean {
  const pair = state.config.pairRate;
  if (!pair) return true;
  const list = state.pairs.get(pairKey(phoneNumberId, contact));
  if (!list) return true;
  expire(list, state.now(), pair.windowMs);
  return list.length < pair.max;
}

/** Counted only while a limit applies, so the counters do not grow without one. */
export function countSend(state: SandboxState, phoneNumberId: string, contact: string): void {
  const now = state.now();
  if (rateOf(state, phoneNumberId) !== undefined) {
    const list = state.rate.get(phoneNumberId);
    if (list) list.push(now);
    else state.rate.set(phoneNumberId, [now]);
  }
  const pair = state.config.pairRate;
  if (!pair) return;
  const key = pairKey(phoneNumberId, contact);
  const list = state.pairs.get(key);
  if (list) list.push(now);
  else state.pairs.set(key, [now]);
  if (state.pairs.size >= state.pairsSweepAt) {
    // Contacts not written to within the window are forgotten, so a long campaign does not keep them all.
    for (const [k, times] of state.pairs) {
      expire(times, now, pair.windowMs);
      if (times.length === 0) state.pairs.delete(k);
    }
    state.pairsSweepAt = Math.max(PAIRS_SWEEP_MIN, state.pairs.size * 2);
  }
}

/** A send refused with a Meta code, counted per number for GET /_sandbox/sent/stats. */
export function countRefusal(state: SandboxState, phoneNumberId: string, code: number): void {
  let codes = state.refusals.get(phoneNumberId);
  if (!codes) state.refusals.set(phoneNumberId, (codes = new Map<number, number>()));
  codes.set(code, (codes.get(code) ?? 0) + 1);
}

/** Whether the contact (user key) stopped marketing messages from this number (and has not resumed them). */
export function marketingStopped(state: SandboxState, phoneNumberId: string, contact: string): boolean {
  return state.marketingStopped.has(pairKey(phoneNumberId, contact));
}

/** Records a contact's (user key) marketing preference for a number, as the user_preferences webhook reports it. */
export function setMarketingPreference(
  state: SandboxState,
  phoneNumberId: string,
  contact: string,
  value: "stop" | "resume",
): void {
  const key = pairKey(phoneNumberId, contact);
  if (value === "stop") state.marketingStopped.set(key, state.now());
  else state.marketingStopped.delete(key);
}
