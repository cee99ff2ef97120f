import { signMetaPayload } from "@gw/signer";
import { later, logs, remember, type Redelivery, type SandboxState, type WebhookRecord } from "./state.ts";
import type { AnyWebhookPayload } from "./webhooks.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Waits before the 2nd, 3rd… POST of a payload that got no 2xx: Meta's "decreasing frequency, up to 7 days" as a
 * concrete schedule. 16 redeliveries; nominally the last one 6 d 22 h 21 min 21 s after the first POST.
 */
export const RETRY_WAITS_MS: readonly number[] = [
  1 * SECOND,
  5 * SECOND,
  15 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  1 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  ...Array<number>(6).fill(DAY),
];
/** Nothing is sent more than this long (scaled) after the first POST. */
export const RETRY_WINDOW_MS = 7 * DAY;
/** Each wait is drawn uniformly within ±10 % of its nominal value. */
const JITTER = 0.1;

/**
 * The wait before the next POST once `attempts` POSTs failed and the waits so far added up to `plannedMs`; null when
 * the schedule is over. The schedule is planned from the first POST (time spent in the POSTs themselves does not
 * count), so a payload always gets 1 + 16 POSTs, the last one at most 7 days (scaled) after the first is planned.
 * `random` in [0, 1) picks the jitter (0.5 = none).
 */
export function retryWaitMs(attempts: number, plannedMs: number, scale: number, random: number): number | null {
  const nominal = RETRY_WAITS_MS[attempts - 1];
  if (nominal === undefined) return null;
  const left = RETRY_WINDOW_MS * scale - plannedMs;
  if (left <= 0) return null;
  return Math.min(nominal * scale * (1 - JITTER + 2 * JITTER * random), left);
}

/**
 * Signs and POSTs a payload to the configured webhook; answers the first POST's HTTP status (null when there is no
 * webhook URL or no answer) and never throws. A non-2xx answer or no answer schedules redeliveries on
 * RETRY_WAITS_MS × webhookRetryScale, each to the webhook URL configured at that moment; `webhookRetries: false`
 * gives up at once, as the sandbox used to.
 */
export function deliver(
  state: SandboxState,
  kind: WebhookRecord["kind"],
  payload: AnyWebhookPayload,
  options: { source: Redelivery["source"]; onSettled?: () => void },
): Promise<number | null> {
  const { source, onSettled } = options;
  const url = state.config.webhookUrl;
  if (!url) {
    onSettled?.();
    return Promise.resolve(null);
  }
  const raw = JSON.stringify(payload);
  state.deliverySeq += 1;
  const delivery: Redelivery = {
    id: state.deliverySeq,
    kind,
    payload,
    raw,
    signature: signMetaPayload(state.appSecret, raw),
    attempts: 0,
    firstAttemptAt: Date.now(),
    plannedMs: 0,
    nextAttemptAt: null,
    lastStatus: null,
    lastError: null,
    source,
    generation: state.generation,
    onSettled,
  };
  return attempt(state, delivery, url);
}

async function attempt(state: SandboxState, delivery: Redelivery, url: string): Promise<number | null> {
  delivery.attempts += 1;
  delivery.nextAttemptAt = null;
  const record: WebhookRecord = {
    url,
    kind: delivery.kind,
    payload: delivery.payload,
    raw: delivery.raw,
    signature: delivery.signature,
    status: null,
    error: null,
    at: new Date().toISOString(),
    attempt: delivery.attempts,
    delivery_id: delivery.id,
  };
  remember(state.webhooks, record, state.config.historyLimit);
  const { status, error } = await state.transport.post(url, delivery.raw, delivery.signature);
  record.status = status;
  record.error = error;
  delivery.lastStatus = status;
  delivery.lastError = error;
  // Reset or shutdown while in flight: the payload is forgotten, whatever the answer.
  if (delivery.generation !== state.generation || state.closed) return status;
  if (status !== null && status >= 200 && status <= 299) {
    if (delivery.attempts > 1 && logs(state, "info"))
      state.logger.info("sandbox webhook redelivered", { url, kind: delivery.kind, attempts: delivery.attempts });
    settle(state, delivery);
    return status;
  }
  const wait = state.config.webhookRetries
    ? retryWaitMs(delivery.attempts, delivery.plannedMs, state.config.webhookRetryScale, Math.random())
    : null;
  // warn for the first failure and the last; the ones in between (an outage) only when info is logged.
  const level = delivery.attempts === 1 || wait === null ? "warn" : "info";
  if (level === "warn" || logs(state, "info"))
    state.logger.log(level, status === null ? "sandbox webhook failed" : "sandbox webhook refused", {
      url,
      kind: delivery.kind,
      status,
      error,
      attempts: delivery.attempts,
      retryInMs: wait === null ? null : Math.round(wait),
    });
  if (wait === null) {
    settle(state, delivery);
    return status;
  }
  delivery.plannedMs += wait;
  delivery.nextAttemptAt = Date.now() + wait;
  state.redeliveries.set(delivery.id, delivery);
  later(state, wait, () => {
    const current = state.config.webhookUrl;
    if (current) {
      void attempt(state, delivery, current);
      return;
    }
    delivery.lastError = "webhook URL unset: redelivery given up";
    state.logger.warn("sandbox webhook given up: no webhook URL", { kind: delivery.kind, attempts: delivery.attempts });
    settle(state, delivery);
  });
  return status;
}

function settle(state: SandboxState, delivery: Redelivery): void {
  state.redeliveries.delete(delivery.id);
  delivery.onSettled?.();
}
