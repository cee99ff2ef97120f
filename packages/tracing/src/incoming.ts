import { startSpan, type SpanAttributes, type TraceSpan } from "./spans.ts";
import type { TraceContext } from "./traceparent.ts";

/** A request's server span whose parent is decided once the request is known to be authenticated, or not. */
export interface IncomingSpan extends TraceSpan {
  /**
   * The request authenticated: the span continues the caller's trace, a child of its span (sampled as its flag says).
   * Only before the span's first use (a log line, a child span, its context read): from then on it stays a trace of
   * its own, the safe side.
   */
  continueCaller(): void;
}

export interface IncomingSpanOptions {
  /** The request's `traceparent`, parsed; null when absent or invalid. */
  caller: TraceContext | null;
  attributes?: SpanAttributes;
}

/**
 * A server span started when first used, backdated to the request's arrival: until then whether the caller's context
 * is its parent or only a link is open, and no span is ever started twice or abandoned (one server span per request).
 * Without `continueCaller` it is a new trace whose sampling is the gateway's own, linked to the caller's context.
 */
export function startIncomingSpan(name: string, options: IncomingSpanOptions): IncomingSpan {
  const startTime = performance.timeOrigin + performance.now();
  const { caller } = options;
  let trusted = false;
  let span: TraceSpan | null = null;
  const started = (): TraceSpan =>
    (span ??= startSpan(name, {
      kind: "server",
      parent: trusted ? caller : null,
      links: !trusted && caller !== null ? [caller] : [],
      ...(options.attributes ? { attributes: options.attributes } : {}),
      startTime,
    }));
  return {
    get context() {
      return started().context;
    },
    get traceparent() {
      return started().traceparent;
    },
    setAttributes: (attributes) => started().setAttributes(attributes),
    updateName: (next) => started().updateName(next),
    fail: (error) => started().fail(error),
    end: () => started().end(),
    continueCaller() {
      if (span === null) trusted = true;
      started();
    },
  };
}
