import { randomFillSync } from "node:crypto";

/**
 * A W3C trace context (https://www.w3.org/TR/trace-context/): the trace, the span that is the parent of whatever is
 * done next, and whether the caller recorded it (`sampled`, the flags' bit 0).
 */
export interface TraceContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

// version 00 only as written; a later version is read by its first four fields (the spec's forward compatibility).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const INVALID_TRACE_ID = "0".repeat(32);
const INVALID_SPAN_ID = "0".repeat(16);

/** The context a `traceparent` header (or a stored one) names; null when absent or not valid (a new trace then). */
export function parseTraceparent(value: string | null | undefined): TraceContext | null {
  if (typeof value !== "string") return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return null;
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === INVALID_TRACE_ID || spanId === INVALID_SPAN_ID) return null;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? "01" : "00"}`;
}

// Ids are cut from a pool of random bytes refilled 4 KiB at a time: one call into the CSPRNG per few hundred ids
// rather than one per id (a propagation-only span must cost next to nothing).
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}

/** Random ids for the contexts made without an SDK (propagation only): 16 and 8 random bytes, never all zero. */
export function randomTraceId(): string {
  const id = randomHex(16);
  return id === INVALID_TRACE_ID ? randomTraceId() : id;
}

export function randomSpanId(): string {
  const id = randomHex(8);
  return id === INVALID_SPAN_ID ? randomSpanId() : id;
}
