import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError } from "@gw/meta";
import type { NumberThroughput, Pacing } from "./throughput.ts";

export interface SendTurnInput {
  phoneNumberId: string;
  ratePerSecond: number;
  /** Recipient, digits only; absent for a call that sends no message to anyone (a read receipt: no pair limit). */
  to?: string | undefined;
  pacing: Pacing;
}

const NUMBER_AT_RATE =
  "O número comercial atingiu a sua vazão de mensagens por segundo; nada foi enviado. Aguarde o tempo indicado em Retry-After e repita.";
const RECIPIENT_SPACED =
  "Este destinatário recebeu mensagens demais deste número em pouco tempo; nada foi enviado. Aguarde o tempo indicado em Retry-After e repita.";

function refusal(reason: "number" | "recipient", retryAfterMs: number): ApiError {
  return new ApiError("rate_limited", {
    message: reason === "number" ? NUMBER_AT_RATE : RECIPIENT_SPACED,
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Pacing is a courtesy to Meta, not a guard of ours: when Redis cannot answer, sends go on (Meta's own 130429 is
// the backstop) and the outage is logged once a minute, not once per send.
let lastOutageLog = 0;
function pacingUnavailable(logger: Logger, error: unknown): void {
  if (Date.now() - lastOutageLog < 60_000) return;
  lastOutageLog = Date.now();
  logger.warn("send pacing unavailable; sending without it", { error: (error as Error).message });
}

/** A metric must never fail a send. */
function observe(tell: () => void): void {
  try {
    tell();
  } catch {
    // ignored: the observer is the process's metrics
  }
}

/** Tries of a send whose turn came while its process was busy, before it goes anyway. */
const MAX_LATE_RETAKES = 3;

/**
 * Wait for the number's turn for one send, right before the provider is called. `refuse` (public API): a turn at
 * most `apiMaxQueueMs` ahead is waited for, a later one is 429 `rate_limited` with the exact Retry-After. `wait`
 * (campaigns): a turn is taken only while less than `campaignMaxQueueMs` is queued, and waited for up to
 * `campaignMaxWaitMs` in all. A recipient being spaced out after Meta's 131056 is refused in both modes.
 *
 * `beforeSend` (the idempotency store's provider-call mark) runs once the turn has come and is still good. A turn is
 * good for `lateTurnMs`: a send that finds itself later than that before the mark (its process was busy) takes a
 * new turn rather than going out bunched with the next ones (up to three times); what comes after (the mark, the
 * request on its way) is absorbed by the headroom. A turn given before a 130429 is void: the sends waiting then take
 * new turns at the slower rate.
 */
export async function takeSendTurn(
  deps: { throughput: NumberThroughput; logger: Logger },
  input: SendTurnInput,
  beforeSend: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const { policy, observer } = deps.throughput;
  const started = Date.now();
  const deadline = started + policy.campaignMaxWaitMs;
  let lateRetakes = 0;
  for (;;) {
    let turn;
    try {
      turn = await deps.throughput.take({
        phoneNumberId: input.phoneNumberId,
        ratePerSecond: input.ratePerSecond,
        to: input.to,
        maxQueueMs: input.pacing === "refuse" ? policy.apiMaxQueueMs : policy.campaignMaxQueueMs,
      });
    } catch (error) {
      pacingUnavailable(deps.logger, error);
      return beforeSend();
    }
    if (turn.granted) {
      const due = Date.now() + turn.waitMs;
      if (turn.waitMs > 0) {
        await sleep(turn.waitMs);
        const valid = await deps.throughput.stillValid(input.phoneNumberId, turn.grantedAt).catch((error: unknown) => {
          pacingUnavailable(deps.logger, error);
          return true;
        });
        if (!valid) continue;
      }
      if (Date.now() - due > policy.lateTurnMs && lateRetakes < MAX_LATE_RETAKES) {
        lateRetakes++;
        continue;
      }
      observe(() => observer?.waited(input.pacing, Date.now() - started));
      // Only now: a process that dies before this point has sent nothing, and its key is freed, not unconfirmed.
      return beforeSend();
    }
    if (input.pacing === "refuse" || turn.reason === "recipient" || Date.now() + turn.retryAfterMs > deadline) {
      const reason = turn.reason;
      observe(() => observer?.refused(input.pacing, reason));
      throw refusal(reason, turn.retryAfterMs);
    }
    // Every waiting send of the number hears the same retry time: spread them, or they all ask again at once.
    await sleep(Math.max(turn.retryAfterMs, 5) + Math.random() * 20);
  }
}

/**
 * Meta's throughput refusals change the pacing: 130429 slows the number down, 131056 spaces the recipient out.
 * Never fails the send's own error handling.
 */
export async function noteProviderRefusal(
  deps: { throughput: NumberThroughput; logger: Logger },
  input: { phoneNumberId: string; to: string; error: unknown },
): Promise<void> {
  if (!(input.error instanceof MetaApiError)) return;
  try {
    if (input.error.code === 130429) {
      const factor = await deps.throughput.noteThrottled(input.phoneNumberId);
      deps.logger.warn("provider throttled the number; backing off", { phoneNumberId: input.phoneNumberId, factor });
    } else if (input.error.code === 131056) {
      const spacingMs = await deps.throughput.notePairLimited(input.phoneNumberId, input.to);
      deps.logger.info("provider pair rate hit; spacing the recipient out", {
        phoneNumberId: input.phoneNumberId,
        spacingMs,
      });
    }
  } catch (error) {
    pacingUnavailable(deps.logger, error);
  }
}
