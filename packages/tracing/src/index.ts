// W3C trace context across the API request, its jobs and the dispatcher's attempts, exported over OTLP when an
// endpoint is configured (docs/decisions.md, "Traces").
export { formatTraceparent, parseTraceparent } from "./traceparent.ts";
export type { TraceContext } from "./traceparent.ts";
export { currentTraceContext, currentTraceparent, runInSpan, startSpan, withSpan } from "./spans.ts";
export type { SpanAttributes, SpanKindName, StartSpanOptions, TraceSpan } from "./spans.ts";
export { startIncomingSpan } from "./incoming.ts";
export type { IncomingSpan, IncomingSpanOptions } from "./incoming.ts";
export { startTracing, tracesEndpoint } from "./exporter.ts";
export type { Tracing, TracingOptions } from "./exporter.ts";
