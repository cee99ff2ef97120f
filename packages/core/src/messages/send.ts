import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { currentTraceparent } from "@gw/tracing";
import {
  MetaApiError,
  MetaUnavailableError,
  type GraphMessagePayload,
  type GraphSendRoute,
  type MetaSendResult,
} from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import type { Actor } from "../audit/audit.ts";
import { contactKeyOf } from "../contacts/contacts.ts";
import { graphRecipient, isBsuidIdentifier } from "../contacts/recipient.ts";
import type { Outbox } from "../deliveries/attempt/outbox.ts";
import { sendingBlockRefusal } from "../health/blocks.ts";
import {
  fingerprintOf,
  ReservationLostError,
  type FingerprintSource,
  type IdempotencyStore,
} from "../idempotency/idempotency.ts";
import { isSuppressed, suppressContact } from "../suppressions/suppressions.ts";
import type { TemplateCache } from "../templates/cache.ts";
import type { ContactKeyCache } from "../contacts/key-cache.ts";
import { noteProviderRefusal, takeSendTurn, type NumberThroughput, type Pacing } from "../throughput/index.ts";
import { buildTemplateSend, findTemplate, type TemplateParameters } from "../templates/index.ts";
import { contactKeyAndWindow } from "../windows/windows.ts";
import { commitAcceptedSend, type CommitPolicy, type SendJournal, type SendRecorder } from "./accepted.ts";
import { freeFormPayload, type FreeFormContent } from "./free-form.ts";
import { checkMediaReference, referencesMedia } from "./media-target.ts";
import { UNCONFIRMED_SEND, type AcceptedMessage, type SendOutcome, type SettledSend } from "./outcome.ts";
import {
  claimOrder,
  orderAnswer,
  orderStatusComponent,
  orderStatusPayload,
  settleOrderClaim,
  type OrderClaim,
  type OrderClaims,
  type OrderStatusContent,
  type OrderStatusLink,
} from "./order-records.ts";
import { checkReactionTarget } from "./reaction-target.ts";
import { reserveSend } from "./reserve.ts";
import { outboundSummary, type OutboundSummary } from "./summary.ts";

export interface MessageSender {
  sendMessage(phoneNumberId: string, payload: GraphMessagePayload, route?: GraphSendRoute): Promise<MetaSendResult>;
}

export interface SendDeps {
  db: Db;
  meta: MessageSender;
  templates: TemplateCache;
  idempotency: IdempotencyStore<SettledSend>;
  directory: AccountDirectory;
  outbox: Outbox;
  journal: SendJournal | null;
  logger: Logger;
  /** Retry-After answered when the provider throttles (Meta sends none). */
  providerRetryAfterSeconds: number;
  commitPolicy?: CommitPolicy;
  /** Per-number pacing shared by every pod (core/src/throughput); absent, sends are not paced. */
  throughput?: NumberThroughput;
  /**
   * How long a send may take from its reservation to the provider call (catalogue, checks, pacing). Shorter than the
   * reservation's stale bound, so no live call is ever taken for dead: past it the call gives up, nothing sent, its
   * key freed. Absent: no bound (tests that do not care).
   */
  preProviderBudgetMs?: number;
  /** Issue 28: how order claims judge a claim abandoned (the key's owner and stale bound); absent, no owner and 60 s. */
  orderClaims?: OrderClaims;
  /** Group commit of accepted sends (accepted.ts); absent, each send is recorded alone. */
  recorder?: SendRecorder;
  /**
   * The contact keys this process saw its recipients' identifiers name: the number's pacing spaces a recipient out by
   * its person (131056), and the turn is taken before the statement that reads the key. Absent: by the identifier.
   */
  contactKeys?: ContactKeyCache;
}

/**
 * What to send: an approved template with its parameters, or a free-form message — a text, or (issue 27) an
 * interactive message, a media, a reaction or a location —, for which the contact's window must be open.
 */
export type MessageContent =
  | { kind: "text"; body: string }
  | { kind: "template"; name: string; language: string; parameters: TemplateParameters }
  | OrderStatusContent
  | FreeFormContent;

export interface SendInput {
  accountId: string;
  /** Who sends: an API key, or a campaign (`campaign:<id>`); the audit trail's actor. */
  actor: Actor;
  requestId: string;
  /** The recipient: a phone normalized to digits (country code first), or a BSUID as the integrator gave it. */
  to: string;
  /** The business number; absent, the account's default. */
  phoneNumberId?: string | null | undefined;
  content: MessageContent;
  /** The message the send quotes (Graph `context`). */
  replyToMessageId?: string | null | undefined;
  /** The caller's reference, echoed in the message's `message.status` events. */
  clientRef?: string | null | undefined;
  /**
   * The Idempotency-Key, and the fingerprint of what was asked taken with the recipient's contact key (so a repeat
   * naming the same person by another identifier is the same message); null for the gateway's own keys (see
   * ReserveInput).
   */
  idempotency?:
    | {
        key: string;
        fingerprint: FingerprintSource | null;
        /** `until-settled` for the gateway's own campaign keys (ReserveInput.retention). */
        retention?: "ttl" | "until-settled";
      }
    | undefined;
  /** The campaign the send belongs to (messages.campaign_id, `campaign_id` of its message.status events). */
  campaignId?: string | undefined;
  /** A number at its rate: `refuse` refuses with rate_limited (public API, the default), `wait` waits for a turn (campaigns). */
  pacing?: Pacing | undefined;
  /**
   * Meta's `biz_opaque_callback_data`: echoed in every status webhook of the message, so a send whose process died
   * before recording it can still be recognized (campaigns/adopt.ts).
   */
  callbackData?: string | undefined;
  /** Issue 28: the order an `order_status` send updates, with its transition rule (orders/status.ts). */
  order?: OrderStatusLink | undefined;
}

/**
 * POST /public/v1/messages (spec 4.1) and every campaign send. Deterministic refusals come first (they need no
 * reservation: the same input always gets the same refusal); then the Idempotency-Key is reserved before anything
 * that leads to the provider; confirmed refusals release it, unconfirmed provider calls settle it as `unconfirmed`.
 * Once the provider accepted, the send is recorded (retried, else journaled) before it is answered.
 */
const E164_DIGITS = /^[1-9]\d{7,14}$/;

export async function sendMessage(deps: SendDeps, input: SendInput): Promise<SendOutcome> {
  try {
    return await send(deps, input);
  } catch (error) {
    if (error instanceof ApiError) return { kind: "refused", error };
    throw error;
  }
}

async function send(deps: SendDeps, input: SendInput): Promise<SendOutcome> {
  // Normalized at the edge (or when a campaign's rows were validated); only its form is checked here.
  if (!E164_DIGITS.test(input.to) && !isBsuidIdentifier(input.to))
    throw new ApiError("invalid_recipient", { message: `O número ${input.to} não é válido para envio.` });
  // The number comes from the directory's cache; what it refuses is decided once the key is known, as below.
  const number = await deps.directory.resolveNumber(input.accountId, input.phoneNumberId);
  const deadline = deps.preProviderBudgetMs === undefined ? null : Date.now() + deps.preProviderBudgetMs;
  return reservesFirst(input.content)
    ? sendReservingFirst(deps, input, number, deadline)
    : sendReservingLast(deps, input, number, deadline);
}

type ResolvedNumber = Awaited<ReturnType<AccountDirectory["resolveNumber"]>>;

/**
 * The sends whose checks read or claim rows tied to the key before Meta (a reaction's target among the contact's
 * messages, a Pix order's reference, an order's update): their key is reserved first, then checked, then marked. Every
 * other send is checked first and reserved last (`sendReservingLast`).
 */
function reservesFirst(content: MessageContent): boolean {
  return (
    content.kind === "order_status" ||
    content.kind === "reaction" ||
    (content.kind === "template" && Boolean(content.parameters.pix_order))
  );
}

/**
 * The send of every kind without claims (text, templates, interactive, media, location): what needs no database is
 * decided first (the number, its block, the template and its payload, an upload's existence, the number's turn); then
 * one statement reads the recipient's contact key, window and opt-out and, when all pass, reserves the key marked as
 * calling the provider (messages/reserve.ts); then the provider. A refusal decided before the statement still answers a
 * repeat of a settled key with its replay: without a reservation, the key is looked at before refusing.
 */
async function sendReservingLast(
  deps: SendDeps,
  input: SendInput,
  number: ResolvedNumber,
  deadline: number | null,
): Promise<SendOutcome> {
  const { content } = input;
  let refusal: ApiError | null = null;
  let payload: GraphMessagePayload | null = null;
  let summary: OutboundSummary | null = null;
  let marketing = false;
  let route: GraphSendRoute = "messages";
  const paced = deps.throughput ? { throughput: deps.throughput, logger: deps.logger } : null;
  try {
    if (!number) {
      throw new ApiError("no_connected_number", {
        message: input.phoneNumberId ? `O número ${input.phoneNumberId} não está conectado a esta conta.` : undefined,
      });
    }
    // Meta banned or disconnected the number's WABA (core/src/health): refused before the provider.
    const blocked = sendingBlockRefusal(number);
    if (blocked) throw blocked;
    if (content.kind === "template") {
      const built = await templateSend(deps, input, content, number.wabaId, deadline);
      payload = built.payload;
      marketing = built.marketing;
      route = routeOf(number, built.marketing);
    } else if (content.kind === "text") {
      payload = textPayload(input, content);
      summary = { kind: "text", body: content.body };
    } else if (content.kind === "order_status" || content.kind === "reaction") throw new Error("reserved first");
    else {
      const checked = referencesMedia(content)
        ? await checkMediaReference(deps.db.sql, {
            accountId: input.accountId,
            phoneNumberId: number.phoneNumberId,
            content,
          })
        : content;
      payload = freeFormPayload(input, checked);
      summary = outboundSummary(checked);
    }
    if (input.callbackData !== undefined) payload.biz_opaque_callback_data = input.callbackData;
    if (deadline !== null && Date.now() > deadline) throw new ApiError("service_unavailable", { message: TOO_SLOW });
    // The number's turn comes before the reservation: a reservation is made right before the provider call.
    if (paced) {
      const to = deps.contactKeys?.get(input.accountId, input.to) ?? input.to;
      await takeSendTurn(paced, {
        phoneNumberId: number.phoneNumberId,
        ratePerSecond: number.messagingRatePerSecond,
        to,
        pacing: input.pacing ?? "refuse",
      });
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    refusal = error;
  }

  const needsWindow = content.kind !== "template";
  const { sql: keysSql, ...keySettings } = deps.idempotency.settings;
  const reserved = await reserveSend(keysSql, {
    accountId: input.accountId,
    identifier: input.to,
    phoneNumberId: number?.phoneNumberId ?? null,
    proceed: refusal === null,
    needsWindow,
    checkSuppression: marketing,
    key: input.idempotency
      ? {
          key: input.idempotency.key,
          fingerprint: input.idempotency.fingerprint,
          requestId: input.requestId,
          untilSettled: input.idempotency.retention === "until-settled",
          ...keySettings,
        }
      : null,
  });
  const { contactKey } = reserved;
  deps.contactKeys?.remember(input.accountId, input.to, contactKey);
  let reservation = reserved.reservationId;
  const marked = reservation !== null;
  try {
    if (input.idempotency !== undefined && reservation === null) {
      // Nothing reserved although the call has a key: the key is taken (a repeat: replayed, in flight or in
      // conflict), or the send is refused; a settled key answers first, as it did before any check.
      const existing = await reserveKey(deps, input, input.idempotency, contactKey);
      if (existing.kind === "replay") return { ...existing.outcome, replayed: true };
      reservation = existing.id;
    }
    if (refusal) throw refusal;
    // Every free-form kind needs the window open (meta-messages.md §5): refused before Meta.
    if (needsWindow && !reserved.windowOpen) throw new ApiError("outside_24h_window");
    // A contact who stopped marketing messages is refused before Meta (docs/decisions.md, "Opt-outs").
    if (reserved.suppressed) throw new ApiError("recipient_opted_out");
    // A key freed or expired between the statement and now was reserved the long way: marked as the other path does.
    if (reservation !== null && !marked) await deps.idempotency.markProviderCall(reservation);
  } catch (error) {
    return settleFailure(deps, reservation, false, error);
  }
  if (!number || !payload) throw new Error("a send without a refusal has its number and payload");
  return callProvider(deps, input, {
    number,
    payload,
    route,
    summary,
    contactKey,
    reservation,
    orderClaim: null,
    paced,
  });
}

/**
 * The sends with claims (sendReservingLast's doc): the contact key (and window) read, the key reserved, the checks and
 * claims made, the number's turn taken, the key marked as calling the provider, the provider.
 */
async function sendReservingFirst(
  deps: SendDeps,
  input: SendInput,
  number: ResolvedNumber,
  deadline: number | null,
): Promise<SendOutcome> {
  const { content } = input;
  // The person, whichever identifier names them: windows, opt-outs, pacing and the key's fingerprint follow it. A
  // free-form send reads its window in the same statement; the window is checked after the reservation.
  const { contactKey, window } =
    content.kind !== "template" && number
      ? await contactKeyAndWindow(deps.db.sql, {
          accountId: input.accountId,
          identifier: input.to,
          phoneNumberId: number.phoneNumberId,
        })
      : {
          contactKey: await contactKeyOf(deps.db.sql, { accountId: input.accountId, identifier: input.to }),
          window: null,
        };

  let reservation: string | null = null;
  if (input.idempotency !== undefined) {
    const reserved = await reserveKey(deps, input, input.idempotency, contactKey);
    if (reserved.kind === "replay") return { ...reserved.outcome, replayed: true };
    reservation = reserved.id;
  }

  let orderClaim: OrderClaim | null = null;
  let call: ProviderCall;
  try {
    if (!number) {
      throw new ApiError("no_connected_number", {
        message: input.phoneNumberId ? `O número ${input.phoneNumberId} não está conectado a esta conta.` : undefined,
      });
    }
    // Meta banned or disconnected the number's WABA (core/src/health): refused before the provider; the key is freed.
    const blocked = sendingBlockRefusal(number);
    if (blocked) throw blocked;
    let summary: OutboundSummary | null = null;
    let payload: GraphMessagePayload;
    let route: GraphSendRoute = "messages";
    if (content.kind === "template") {
      const built = await templateSend(deps, input, content, number.wabaId, deadline);
      // A contact who stopped marketing messages is refused before Meta (docs/decisions.md, "Opt-outs").
      if (
        built.marketing &&
        (await isSuppressed(deps, { accountId: input.accountId, contact: contactKey, keyed: true }))
      )
        throw new ApiError("recipient_opted_out");
      payload = built.payload;
      route = routeOf(number, built.marketing);
    } else if (content.kind === "order_status" && content.template) {
      // Meta's order-status template (a UTILITY template): in or out of the window.
      const { name, language, variables } = content.template;
      const parameters = { variables: variables ?? null, order_status: orderStatusComponent(content) };
      payload = (await templateSend(deps, input, { name, language, parameters }, number.wabaId, deadline)).payload;
    } else {
      // Every free-form kind needs the window open (meta-messages.md §5): refused before Meta, the key freed. An
      // order's status has a way out, which the refusal names.
      if (!window?.open)
        throw new ApiError(
          "outside_24h_window",
          content.kind === "order_status" ? { message: ORDER_OUTSIDE_WINDOW } : {},
        );
      if (content.kind === "text") {
        payload = textPayload(input, content);
        summary = { kind: "text", body: content.body };
      } else if (content.kind === "order_status") payload = orderStatusPayload(input.to, content);
      else {
        const checked = await checkFreeForm(deps, input, content, number.phoneNumberId, contactKey);
        payload = freeFormPayload(input, checked);
        summary = outboundSummary(checked);
      }
    }
    if (input.callbackData !== undefined) payload.biz_opaque_callback_data = input.callbackData;
    // A Pix send claims its reference, an order_status send its order's update (409/422 here, before Meta).
    orderClaim = await claimOrder(deps, input, content, payload, number.phoneNumberId);

    const markProviderCall = async () => {
      // Past its budget the call gives up before the provider (its key may be about to go stale).
      if (deadline !== null && Date.now() > deadline) throw new ApiError("service_unavailable", { message: TOO_SLOW });
      if (reservation !== null) await deps.idempotency.markProviderCall(reservation);
      await orderClaim?.mark();
    };
    const paced = deps.throughput ? { throughput: deps.throughput, logger: deps.logger } : null;
    // The number's turn (core/src/throughput) comes last; the provider-call mark is made once the turn has come.
    if (paced) {
      const turn = {
        phoneNumberId: number.phoneNumberId,
        ratePerSecond: number.messagingRatePerSecond,
        to: contactKey,
      };
      await takeSendTurn(paced, { ...turn, pacing: input.pacing ?? "refuse" }, markProviderCall);
    } else await markProviderCall();
    call = { number, payload, route, summary, contactKey, reservation, orderClaim, paced };
  } catch (error) {
    // Refused before the provider call.
    await settleOrderClaim(orderClaim, false, error, isConfirmedRefusal(error), deps.logger);
    return settleFailure(deps, reservation, false, error);
  }
  return callProvider(deps, input, call);
}

interface ProviderCall {
  number: NonNullable<ResolvedNumber>;
  payload: GraphMessagePayload;
  /** The Graph endpoint: `/marketing_messages` for a MARKETING template of a number that opted in (routeOf). */
  route: GraphSendRoute;
  summary: OutboundSummary | null;
  contactKey: string;
  /** The key's reservation, marked as calling the provider. */
  reservation: string | null;
  orderClaim: OrderClaim | null;
  paced: { throughput: NumberThroughput; logger: Logger } | null;
}

/**
 * The provider call of a send whose key is marked, and what follows: its refusals settle the key (and a 131050 adds the
 * contact to the suppression list, a throttle slows the number); an acceptance is recorded (retried, else journaled)
 * before it is answered, and the deliveries of statuses that came first are queued.
 */
/** The send's Idempotency-Key reserved the long way, its fingerprint over the request and the recipient's contact key. */
function reserveKey(
  deps: SendDeps,
  input: SendInput,
  idempotency: NonNullable<SendInput["idempotency"]>,
  contactKey: string,
) {
  const { fingerprint } = idempotency;
  return deps.idempotency.reserve({
    accountId: input.accountId,
    key: idempotency.key,
    fingerprint: fingerprint === null ? null : fingerprintOf(fingerprint, contactKey),
    requestId: input.requestId,
    retention: idempotency.retention ?? "ttl",
  });
}

async function callProvider(deps: SendDeps, input: SendInput, call: ProviderCall): Promise<SendOutcome> {
  const { content } = input;
  const { number, payload, contactKey, orderClaim, paced } = call;
  try {
    const result = await deps.meta
      .sendMessage(number.phoneNumberId, payload, call.route)
      .catch(async (error: unknown) => {
        if (paced) await noteProviderRefusal(paced, { phoneNumberId: number.phoneNumberId, to: contactKey, error });
        if (error instanceof MetaApiError && error.reason === "recipient_opted_out")
          await optOut(deps, input.accountId, contactKey);
        throw error;
      });
    const message: AcceptedMessage = {
      messageId: result.wamid,
      to: input.to,
      type: content.kind,
      phoneNumberId: number.phoneNumberId,
      clientRef: input.clientRef ?? null,
      ...orderAnswer(orderClaim?.accepted),
    };
    const committed = await commitAcceptedSend(deps, {
      accountId: input.accountId,
      phoneNumberId: number.phoneNumberId,
      to: input.to,
      contactKey,
      recipientUserId: isBsuidIdentifier(input.to) ? input.to : result.userId,
      wamid: result.wamid,
      kind: content.kind,
      templateName: content.kind === "template" ? content.name : null,
      routedVia: call.route,
      content: call.summary,
      clientRef: message.clientRef,
      campaignId: input.campaignId ?? null,
      requestId: input.requestId,
      actor: input.actor.id,
      reservationId: call.reservation,
      traceparent: currentTraceparent(),
      ...(orderClaim ? { order: orderClaim.accepted } : {}),
      ...(input.order ? orderAudit(input.actor, content) : {}),
    });
    if (committed.kind === "committed") await deps.outbox.dispatch(committed.deliveries);
    // Nowhere to record it: never resent with this key; the caller gets the id to follow its statuses.
    if (committed.kind === "lost") return { kind: "unconfirmed", messageId: result.wamid, replayed: false };
    return { kind: "sent", message, replayed: false };
  } catch (error) {
    await settleOrderClaim(orderClaim, true, error, isConfirmedRefusal(error), deps.logger);
    return settleFailure(deps, call.reservation, true, error);
  }
}

/** A send that did not end `sent`: release or settle its key, and say what it came to (refusals are thrown). */
async function settleFailure(
  deps: SendDeps,
  reservation: string | null,
  providerCalled: boolean,
  error: unknown,
): Promise<SendOutcome> {
  const confirmedRefusal = isConfirmedRefusal(error);
  if (reservation !== null) {
    if (confirmedRefusal || !providerCalled) {
      await deps.idempotency
        .release(reservation)
        .catch((e: unknown) => deps.logger.error("could not release idempotency key", { error: e }));
    } else {
      // The provider may have sent it: keep the key, answer (and replay) send_unconfirmed.
      await deps.idempotency
        .complete(deps.db.sql, reservation, UNCONFIRMED_SEND)
        .catch((e: unknown) => deps.logger.error("could not settle idempotency key", { error: e }));
    }
  }
  if (error instanceof MetaApiError) {
    deps.logger.info("provider refused the send", {
      metaCode: error.code,
      reason: error.reason,
      details: error.details,
    });
    throw new ApiError(error.reason, {
      cause: error,
      ...(error.reason === "rate_limited" ? { retryAfterSeconds: deps.providerRetryAfterSeconds } : {}),
    });
  }
  if (error instanceof MetaUnavailableError) throw new ApiError("provider_unavailable", { cause: error });
  if (error instanceof ApiError) throw error;
  // A repeat with the same key took the reservation over (it had gone stale, or this process's lease had lapsed): that
  // call sends, this one never does. Its progress is unknown here: asking again in a second gets the honest wait.
  if (error instanceof ReservationLostError)
    throw new ApiError("idempotency_in_flight", { cause: error, retryAfterSeconds: 1 });
  if (providerCalled) {
    deps.logger.error("provider call without confirmation", { error });
    return { ...UNCONFIRMED_SEND, replayed: false };
  }
  throw error;
}

function isConfirmedRefusal(error: unknown): boolean {
  return error instanceof ApiError || error instanceof MetaApiError || error instanceof MetaUnavailableError;
}

/** An order_status send's audit entry (`<origin>.order.status`, target `order:<ref>`) instead of `api.messages.send`. */
function orderAudit(actor: Actor, content: MessageContent) {
  if (content.kind !== "order_status") return {};
  return {
    auditAction: `${actor.origin}.order.status`,
    auditTarget: `order:${content.referenceId}`,
    auditDetails: {
      reference_id: content.referenceId,
      order_status: content.orderStatus,
      payment_status: content.paymentStatus ?? null,
      ...(content.template ? { template: content.template.name } : {}),
    },
  };
}

function textPayload(input: SendInput, content: Extract<MessageContent, { kind: "text" }>): GraphMessagePayload {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...graphRecipient(input.to),
    type: "text",
    text: { body: content.body, preview_url: false },
    ...(input.replyToMessageId ? { context: { message_id: input.replyToMessageId } } : {}),
  };
}

/**
 * What only Meta's later statuses would say, checked before Meta (the key is freed on a refusal): a reaction's target
 * must be a message of this contact on this number from the last 30 days; a media sent by id must be an upload of
 * this account on this number, of the type asked. Returns the content to send (a document by id gets the upload's
 * file name).
 */
async function checkFreeForm(
  deps: SendDeps,
  input: SendInput,
  content: FreeFormContent,
  phoneNumberId: string,
  contactKey: string,
): Promise<FreeFormContent> {
  if (content.kind === "reaction")
    await checkReactionTarget(deps.db.sql, {
      accountId: input.accountId,
      phoneNumberId,
      contactKey,
      messageId: content.reaction.messageId,
    });
  return checkMediaReference(deps.db.sql, { accountId: input.accountId, phoneNumberId, content });
}

/** Spec 7, 503 (messages): nothing was sent, so the same request with the same key is safe to repeat. */
const TEMPLATES_UNAVAILABLE_ON_SEND =
  "Não foi possível consultar o catálogo de templates agora; nada foi enviado. Repita a chamada com a mesma Idempotency-Key.";

/** Spec 7, 503: the send ran out of its time before the provider call; nothing was sent, the key is free. */
/**
 * Where a send goes (issue 37, docs/decisions.md "Marketing templates on the Marketing Messages API"): a MARKETING
 * template of a number with `marketing_messages` on goes to Meta's Marketing Messages API, everything else to
 * `/messages`. The category is the catalogue's, which Meta's `template_category_update` refreshes. A refusal there is a
 * refusal: nothing is sent again through `/messages`.
 */
function routeOf(number: { marketingMessages: boolean }, marketing: boolean): GraphSendRoute {
  return marketing && number.marketingMessages ? "marketing_messages" : "messages";
}

/** An order's status refused outside the window: the order-status template is the way out (meta-late-2026 §1). */
const ORDER_OUTSIDE_WINDOW =
  "A janela de 24 horas está fechada para este cliente; envie o status com template (um template aprovado de status de pedido, subcategoria ORDER_STATUS).";

const TOO_SLOW =
  "O envio não chegou ao provedor a tempo (catálogo ou verificações lentos); nada foi enviado. Repita a chamada com a mesma Idempotency-Key.";

/** `promise`, or `templates_unavailable` once the send's deadline passes (the catalogue load itself goes on). */
function beforeDeadline<T>(promise: Promise<T>, deadline: number | null): Promise<T> {
  if (deadline === null) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new ApiError("templates_unavailable", { message: TEMPLATES_UNAVAILABLE_ON_SEND })),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

async function catalogueForSend(deps: SendDeps, wabaId: string, deadline: number | null, options?: { refresh: true }) {
  try {
    return await beforeDeadline(deps.templates.get(wabaId, options), deadline);
  } catch (error) {
    if (error instanceof ApiError && error.code === "templates_unavailable") {
      throw new ApiError("templates_unavailable", { message: TEMPLATES_UNAVAILABLE_ON_SEND, cause: error.cause });
    }
    throw error;
  }
}

/** Meta refused a marketing template with 131050: the contact joins the suppression list (never masks the refusal). */
async function optOut(deps: SendDeps, accountId: string, contact: string): Promise<void> {
  await suppressContact(deps, { accountId, contact, reason: "provider_131050", keyed: true }).catch((error: unknown) =>
    deps.logger.error("could not add the contact to the suppression list", { error }),
  );
}

/** A template send's Graph payload, and whether its template is a marketing one (opt-outs apply). */
async function templateSend(
  deps: SendDeps,
  input: SendInput,
  content: { name: string; language: string; parameters: TemplateParameters },
  wabaId: string,
  deadline: number | null,
): Promise<{ payload: GraphMessagePayload; marketing: boolean }> {
  const { name, language } = content;
  let template = findTemplate(await catalogueForSend(deps, wabaId, deadline), name, language);
  // A miss may be a template approved after the cache was filled: look once more at the provider.
  if (!template)
    template = findTemplate(await catalogueForSend(deps, wabaId, deadline, { refresh: true }), name, language);
  if (!template)
    throw new ApiError("template_not_found", {
      message: `O template ${name} não existe no idioma ${language} para esta conta.`,
    });
  const payload = buildTemplateSend(
    { ...content.parameters, to: input.to, language, reply_to_message_id: input.replyToMessageId ?? null },
    template,
  );
  return { payload, marketing: template.category.toUpperCase() === "MARKETING" };
}
