import { AsyncLocalStorage } from "node:async_hooks";
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import { formatTraceparent, randomSpanId, randomTraceId, type TraceContext } from "./traceparent.ts";

/** What a span may say about itself: ids, route templates, codes and counts; never a secret or a message's text. */
export type SpanAttributes = Record<string, string | number | boolean>;

export type SpanKindName = "server" | "client" | "producer" | "consumer" | "internal";

/** One unit of work in a trace: exported when tracing is on, only a context to propagate otherwise. */
export interface TraceSpan {
  readonly context: TraceContext;
  /** This span as a `traceparent` header value: what a request made inside it sends on. */
  readonly traceparent: string;
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
  /** Marks the span failed; only the error's class is kept (its message may carry data). */
  fail(error?: unknown): void;
  end(): void;
}

export interface StartSpanOptions {
  kind?: SpanKindName;
  /** The span's parent: a context (or null for a new trace); absent, the span running in this async context. */
  parent?: TraceContext | null;
  /**
   * Contexts the span is related to without being their child: a caller not trusted as a parent, the batch a
   * payload was committed with. Recorded only with an SDK (a propagated context carries no links).
   */
  links?: readonly TraceContext[];
  attributes?: SpanAttributes;
  /** When the work began (epoch milliseconds), if before the span is started; absent, now. */
  startTime?: number;
}

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

let tracer: Tracer | null = null;

/** Set by `startTracing` (exporter.ts): from then on spans are recorded and exported. */
export function useTracer(next: Tracer | null): void {
  tracer = next;
}

const running = new AsyncLocalStorage<TraceSpan>();

/** Starts a span; it becomes the current one only inside `runInSpan` / `withSpan`. */
export function startSpan(name: string, options: StartSpanOptions = {}): TraceSpan {
  const parent = options.parent === undefined ? (running.getStore()?.context ?? null) : options.parent;
  return tracer === null ? propagationSpan(parent) : recordedSpan(tracer, name, parent, options);
}

/** Runs `fn` with `span` as the current span (what `currentTraceparent` and child spans see). */
export function runInSpan<T>(span: TraceSpan, fn: () => T): T {
  return running.run(span, fn);
}

/** `fn` inside a new span, ended when `fn` settles (failed when it throws). */
export async function withSpan<T>(
  name: string,
  options: StartSpanOptions,
  fn: (span: TraceSpan) => Promise<T>,
): Promise<T> {
  const span = startSpan(name, options);
  try {
    return await running.run(span, () => fn(span));
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** The current span as a `traceparent` value; null outside any span. */
export function currentTraceparent(): string | null {
  return running.getStore()?.traceparent ?? null;
}

/** The current span's context; null outside any span. */
export function currentTraceContext(): TraceContext | null {
  return running.getStore()?.context ?? null;
}

/** Without an SDK: a context with a new span id in the parent's trace (or a new trace, not sampled), nothing kept. */
function propagationSpan(parent: TraceContext | null): TraceSpan {
  const context: TraceContext = {
    traceId: parent?.traceId ?? randomTraceId(),
    spanId: randomSpanId(),
    sampled: parent?.sampled ?? false,
  };
  const traceparent = formatTraceparent(context);
  return { context, traceparent, setAttributes() {}, updateName() {}, fail() {}, end() {} };
}

function recordedSpan(tracer: Tracer, name: string, parent: TraceContext | null, options: StartSpanOptions): TraceSpan {
  const parentContext = parent === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, spanContextOf(parent));
  const links: Link[] = (options.links ?? []).map((linked) => ({ context: spanContextOf(linked) }));
  const span: Span = tracer.startSpan(
    name,
    {
      kind: KINDS[options.kind ?? "internal"],
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(links.length > 0 ? { links } : {}),
      ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    },
    parentContext,
  );
  // A span given its start ends on the same clock (the SDK would otherwise take Date.now()'s whole milliseconds).
  const endTime = options.startTime === undefined ? () => undefined : () => performance.timeOrigin + performance.now();
  const spanContext = span.spanContext();
  const context: TraceContext = {
    traceId: spanContext.traceId,
    spanId: spanContext.spanId,
    sampled: (spanContext.traceFlags & 1) === 1,
  };
  return {
    context,
    traceparent: formatTraceparent(context),
    setAttributes: (attributes) => void span.setAttributes(attributes),
    updateName: (next) => void span.updateName(next),
    fail(error) {
      const kind = error instanceof Error ? error.name : "error";
      span.setAttributes({ "error.type": kind });
      span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
    },
    end: () => span.end(endTime()),
  };
}

function spanContextOf(context: TraceContext): SpanContext {
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.sampled ? 1 : 0,
    isRemote: true,
  };
}
