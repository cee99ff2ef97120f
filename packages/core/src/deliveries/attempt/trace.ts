import { parseTraceparent, runInSpan, startSpan } from "@gw/tracing";
import type { WebhookResult } from "@gw/webhook-sender";

/** What an attempt's span says: ids, the event, the attempt, the endpoint's host and the answer; never the body. */
export interface AttemptTrace {
  deliveryId: string;
  attempt: number;
  event: string;
  integrationId: string;
  url: string;
  /** The row's context (deliveries.trace_context), else the job's; neither: the attempt starts a trace. */
  traceparent: string | null | undefined;
}

/**
 * One attempt's POST as a client span, a child of the trace its delivery joined (the send's, for a message's
 * statuses). `send` gets the span's `traceparent` to send along, so the integrator's own spans join the trace.
 */
export async function tracedAttempt(
  trace: AttemptTrace,
  send: (traceparent: string) => Promise<WebhookResult>,
): Promise<WebhookResult> {
  const span = startSpan("POST webhook", {
    kind: "client",
    parent: parseTraceparent(trace.traceparent),
    attributes: {
      "http.request.method": "POST",
      "server.address": hostOf(trace.url),
      "gw.delivery_id": trace.deliveryId,
      "gw.delivery.attempt": trace.attempt,
      "gw.event": trace.event,
      "gw.integration_id": trace.integrationId,
    },
  });
  try {
    // Current while the POST runs: what the sender logs names the attempt's span.
    const result = await runInSpan(span, () => send(span.traceparent));
    if (result.statusCode !== null) span.setAttributes({ "http.response.status_code": result.statusCode });
    if (result.errorKind !== null) {
      span.setAttributes({ "gw.delivery.error_kind": result.errorKind });
      span.fail();
    }
    return result;
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** Only the host: a webhook URL's path or query may carry the integrator's token. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "invalid";
  }
}
