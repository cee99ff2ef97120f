// An integrator sending through the public API as the spec tells it to: one Idempotency-Key per message, and after
// a connection error, a 503 `service_unavailable` or a 409 `idempotency_in_flight`, the same request again with the
// same key. Waits are time-scaled (a short pause instead of Retry-After's seconds).

export interface SendOutcome {
  key: string;
  text: string;
  /** The final answer's HTTP status; null when the deadline passed without one. */
  status: number | null;
  /** `error.code` of a final refusal. */
  code: string | null;
  messageId: string | null;
  /** Requests made for this message, the first included. */
  tries: number;
  /** Why it was repeated: `connection`, `service_unavailable`, `idempotency_in_flight`... one entry per repeat. */
  repeats: string[];
}

interface Answer {
  success?: boolean;
  data?: { message_id?: string };
  error?: { code?: string };
}

const REPEATABLE = new Set(["service_unavailable", "idempotency_in_flight"]);

export async function sendWithRetries(
  apiUrl: string,
  auth: { authorization: string },
  message: { key: string; body: Record<string, unknown> },
  options: {
    deadlineMs: number;
    pauseMs: number;
    requestTimeoutMs: number;
    onRepeat?: (why: string) => void;
    /** Stop repeating (the test is over). */
    isCancelled?: () => boolean;
  },
): Promise<SendOutcome> {
  const outcome: SendOutcome = {
    key: message.key,
    text: typeof message.body.text === "string" ? message.body.text : "",
    status: null,
    code: null,
    messageId: null,
    tries: 0,
    repeats: [],
  };
  const deadline = Date.now() + options.deadlineMs;
  for (;;) {
    outcome.tries++;
    let why: string;
    try {
      const res = await fetch(`${apiUrl}/public/v1/messages`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "idempotency-key": message.key },
        body: JSON.stringify(message.body),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
      const answer = (await res.json()) as Answer;
      const code = answer.error?.code ?? null;
      if (res.status === 200 || code === null || !REPEATABLE.has(code)) {
        outcome.status = res.status;
        outcome.code = code;
        outcome.messageId = answer.data?.message_id ?? null;
        return outcome;
      }
      why = code;
    } catch (error) {
      why = `connection: ${(error as Error).message}`;
    }
    if (Date.now() + options.pauseMs > deadline || options.isCancelled?.()) return outcome;
    outcome.repeats.push(why);
    options.onRepeat?.(why);
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}
