// W3C trace context across the API request, its jobs and the dispatcher's attempts, exported over OTLP when an
// endpoint is configured (docs/decisions.md, "Traces"). The exporter is its own entry, `@gw/tracing/exporter`: only
// a process's start (@gw/process) turns it on, and the OpenTelemetry SDK it loads is not loaded by every importer.
export { formatTraceparent, parseTraceparent } from "./traceparent.ts";
export type { TraceContext } from "./traceparent.ts";
export { currentTraceContext, currentTraceparent, runInSpan, startSpan, withSpan } from "./spans.ts";
export type { SpanAttributes, SpanKindName, StartSpanOptions, TraceSpan } from "./spans.ts";
export { startIncomingSpan } from "./incoming.ts";
export type { IncomingSpan, IncomingSpanOptions } from "./incoming.ts";
