import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaUnavailableError, type GraphMessagePayload, type MetaSendResult } from "@gw/meta";
import type { PublicSendIn, SendResultOut } from "@gw/contracts";
import type { AccountDirectory } from "../accounts/directory.ts";
import type { Outbox } from "../events/outbox.ts";
import { fingerprint, type IdempotencyStore, type StoredResponse } from "../idempotency/idempotency.ts";
import { normalizePhone } from "../phones/normalize.ts";
import { isSuppressed, suppressContact } from "../suppressions/suppressions.ts";
import type { TemplateCache } from "../templates/cache.ts";
import { noteProviderRefusal, takeSendTurn, type NumberThroughput, type Pacing } from "../throughput/index.ts";
import { buildTemplateSend, findTemplate } from "../templates/index.ts";
import { getWindow } from "../windows/windows.ts";
import { commitAcceptedSend, type CommitPolicy, type SendJournal } from "./accepted.ts";

export interface MessageSender {
  sendMessage(phoneNumberId: string, payload: GraphMessagePayload): Promise<MetaSendResult>;
}

export interface SendDeps {
  db: Db;
  meta: MessageSender;
  templates: TemplateCache;
  idempotency: IdempotencyStore;
  directory: AccountDirectory;
  outbox: Outbox;
  journal: SendJournal | null;
  logger: Logger;
  /** Retry-After answered when the provider throttles (Meta sends none). */
  providerRetryAfterSeconds: number;
  commitPolicy?: CommitPolicy;
  /** Per-number pacing shared by every pod (core/src/throughput); absent, sends are not paced. */
  throughput?: NumberThroughput;
}

export interface SendInput {
  accountId: string;
  /** `api_key:<id>` for the audit trail. */
  actor: string;
  requestId: string;
  idempotencyKey?: string | undefined;
  /** The request body, as validated at the edge. */
  message: PublicSendIn;
  /** The campaign the send belongs to (messages.campaign_id, `campaign_id` of its message.status events). */
  campaignId?: string | undefined;
  /** A number at its rate: `refuse` answers 429 (public API, the default), `wait` waits for a turn (campaigns). */
  pacing?: Pacing | undefined;
}

export interface SendOutcome extends StoredResponse {
  /** True when the stored answer of an earlier call was replayed. */
  replayed: boolean;
  /** Stable code of the outcome, for metrics ("sent" or an error code). */
  outcome: string;
}

function render(status: number, body: unknown): StoredResponse {
  return { status, body: JSON.stringify(body) };
}

/** The answer every repeat of an unconfirmed send gets (the message may have gone out; never resent). */
export function unconfirmedResponse(): StoredResponse {
  return render(503, new ApiError("send_unconfirmed").toBody());
}

/**
 * POST /public/v1/messages (spec 4.1). Deterministic refusals come first (they need no reservation: the same
 * body always gets the same refusal); then the Idempotency-Key is reserved before anything that leads to the
 * provider; confirmed refusals release it, unconfirmed provider calls settle it as `send_unconfirmed`. Once
 * the provider accepted, the send is recorded (retried, else journaled) before it is answered.
 */
export async function sendMessage(deps: SendDeps, input: SendInput): Promise<SendOutcome> {
  const { message } = input;
  const hasText = typeof message.text === "string" && message.text.length > 0;
  const hasTemplate = typeof message.template === "string" && message.template.length > 0;
  if (message.pix_order && !hasTemplate) throw new ApiError("pix_needs_template");
  if (!hasText && !hasTemplate) throw new ApiError("empty_message");
  const phone = normalizePhone(message.to);
  if (!phone.valid)
    throw new ApiError("invalid_recipient", { message: `O número ${message.to} não é válido para envio.` });

  const normalized = { ...message, to: phone.digits };
  let reservation: string | null = null;
  if (input.idempotencyKey !== undefined) {
    const reserved = await deps.idempotency.reserve({
      accountId: input.accountId,
      key: input.idempotencyKey,
      fingerprint: fingerprint(normalized),
      requestId: input.requestId,
    });
    if (reserved.kind === "replay") return { ...reserved.response, replayed: true, outcome: "replayed" };
    reservation = reserved.id;
  }

  let providerCalled = false;
  try {
    const number = await deps.directory.resolveNumber(input.accountId, message.phone_number_id);
    if (!number) {
      throw new ApiError("no_connected_number", {
        message: message.phone_number_id
          ? `O número ${message.phone_number_id} não está conectado a esta conta.`
          : undefined,
      });
    }
    const payload = hasTemplate
      ? await templatePayload(deps, normalized, number.wabaId, input.accountId)
      : await textPayload(deps, normalized, number.phoneNumberId);

    const markProviderCall = async () => {
      if (reservation !== null) await deps.idempotency.markProviderCall(reservation);
    };
    const paced = deps.throughput ? { throughput: deps.throughput, logger: deps.logger } : null;
    // The number's turn (core/src/throughput) comes last; the provider-call mark is made once the turn has come.
    if (paced) {
      const turn = {
        phoneNumberId: number.phoneNumberId,
        ratePerSecond: number.messagingRatePerSecond,
        to: phone.digits,
      };
      await takeSendTurn(paced, { ...turn, pacing: input.pacing ?? "refuse" }, markProviderCall);
    } else await markProviderCall();
    providerCalled = true;
    const result = await deps.meta.sendMessage(number.phoneNumberId, payload).catch(async (error: unknown) => {
      if (paced) await noteProviderRefusal(paced, { phoneNumberId: number.phoneNumberId, to: phone.digits, error });
      if (error instanceof MetaApiError && error.reason === "recipient_opted_out")
        await optOut(deps, input.accountId, phone.digits);
      throw error;
    });
    const kind = hasTemplate ? "template" : "text";
    const data = {
      message_id: result.wamid,
      to: phone.digits,
      status: "sent",
      type: kind,
      phone_number_id: number.phoneNumberId,
      client_ref: message.client_ref ?? null,
    } satisfies SendResultOut["data"];
    const response = render(200, { success: true, data } satisfies SendResultOut);
    const committed = await commitAcceptedSend(deps, {
      accountId: input.accountId,
      phoneNumberId: number.phoneNumberId,
      to: phone.digits,
      wamid: result.wamid,
      kind,
      templateName: hasTemplate ? (message.template ?? null) : null,
      clientRef: message.client_ref ?? null,
      campaignId: input.campaignId ?? null,
      requestId: input.requestId,
      actor: input.actor,
      reservationId: reservation,
      response,
    });
    if (committed.kind === "committed") await deps.outbox.dispatch(committed.deliveries);
    if (committed.kind === "lost") {
      // Nowhere to record it: never resent with this key; the integrator gets the id to follow its statuses.
      const error = new ApiError("send_unconfirmed", { cause: committed.error });
      return {
        ...render(503, { ...error.toBody(), error: { ...error.toBody().error, message_id: result.wamid } }),
        replayed: false,
        outcome: "send_unconfirmed",
      };
    }
    return { ...response, replayed: false, outcome: "sent" };
  } catch (error) {
    return settleFailure(deps, reservation, providerCalled, error);
  }
}

async function settleFailure(
  deps: SendDeps,
  reservation: string | null,
  providerCalled: boolean,
  error: unknown,
): Promise<never> {
  const confirmedRefusal =
    error instanceof ApiError || error instanceof MetaApiError || error instanceof MetaUnavailableError;
  if (reservation !== null) {
    if (confirmedRefusal || !providerCalled) {
      await deps.idempotency
        .release(reservation)
        .catch((e: unknown) => deps.logger.error("could not release idempotency key", { error: e }));
    } else {
      // The provider may have sent it: keep the key, answer (and replay) send_unconfirmed.
      await deps.idempotency
        .complete(deps.db.sql, reservation, unconfirmedResponse())
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
  if (providerCalled) {
    deps.logger.error("provider call without confirmation", { error });
    throw new ApiError("send_unconfirmed", { cause: error });
  }
  throw error;
}

async function textPayload(deps: SendDeps, input: PublicSendIn, phoneNumberId: string): Promise<GraphMessagePayload> {
  const window = await getWindow(deps, { phoneNumberId, contact: input.to });
  if (!window.open) throw new ApiError("outside_24h_window");
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: input.to,
    type: "text",
    text: { body: input.text ?? "", preview_url: false },
    ...(input.reply_to_message_id ? { context: { message_id: input.reply_to_message_id } } : {}),
  };
}

/** Spec 7, 503 (messages): nothing was sent, so the same request with the same key is safe to repeat. */
const TEMPLATES_UNAVAILABLE_ON_SEND =
  "Não foi possível consultar o catálogo de templates agora; nada foi enviado. Repita a chamada com a mesma Idempotency-Key.";

async function catalogueForSend(deps: SendDeps, wabaId: string, options?: { refresh: true }) {
  try {
    return await deps.templates.get(wabaId, options);
  } catch (error) {
    if (error instanceof ApiError && error.code === "templates_unavailable") {
      throw new ApiError("templates_unavailable", { message: TEMPLATES_UNAVAILABLE_ON_SEND, cause: error.cause });
    }
    throw error;
  }
}

/** Meta refused a marketing template with 131050: the contact joins the suppression list (never masks the refusal). */
async function optOut(deps: SendDeps, accountId: string, contact: string): Promise<void> {
  await suppressContact(deps, { accountId, contact, reason: "provider_131050" }).catch((error: unknown) =>
    deps.logger.error("could not add the contact to the suppression list", { error }),
  );
}

async function templatePayload(
  deps: SendDeps,
  input: PublicSendIn,
  wabaId: string,
  accountId: string,
): Promise<GraphMessagePayload> {
  const name = input.template ?? "";
  let template = findTemplate(await catalogueForSend(deps, wabaId), name, input.language);
  // A miss may be a template approved after the cache was filled: look once more at the provider.
  if (!template) template = findTemplate(await catalogueForSend(deps, wabaId, { refresh: true }), name, input.language);
  if (!template)
    throw new ApiError("template_not_found", {
      message: `O template ${name} não existe no idioma ${input.language} para esta conta.`,
    });
  const payload = buildTemplateSend(input, template);
  // A contact who stopped marketing messages is refused before Meta (docs/decisions.md, "Opt-outs").
  if (template.category.toUpperCase() === "MARKETING" && (await isSuppressed(deps, { accountId, contact: input.to })))
    throw new ApiError("recipient_opted_out");
  return payload;
}
