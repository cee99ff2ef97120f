import { AsyncLocalStorage } from "node:async_hooks";
import winston from "winston";

export type Logger = winston.Logger;

interface LogContext {
  requestId?: string;
  [key: string]: unknown;
}

const context = new AsyncLocalStorage<LogContext>();

/** Run `fn` with fields (such as the request id) attached to every log line written inside it. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, fn);
}

export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}

// Field names whose values are never written, wherever they appear in a log entry.
const SECRET_KEYS =
  /^(authorization|api[_-]?key|key|token|access[_-]?token|secret|signing[_-]?secret|password|cookie|x-hub-signature-256|x-pt-signature)$/i;
const REDACTED = "[redacted]";

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.test(k) ? REDACTED : redact(v, depth + 1);
  return out;
}

// Bearer tokens and our live keys, should one end up inside a message string.
const SECRET_PATTERNS = [/Bearer\s+[A-Za-z0-9._~+/=-]+/g, /\bpt_live_[A-Za-z0-9_-]+/g];
function scrub(text: string): string {
  return SECRET_PATTERNS.reduce((acc, re) => acc.replace(re, REDACTED), text);
}

/** The ids of the span current where a line is written; null outside any span. */
export type TraceIdsProvider = () => { traceId: string; spanId: string } | null;

let traceIds: TraceIdsProvider | null = null;

/**
 * Registered by @gw/tracing when a process starts tracing (with or without an exporter): from then on every line
 * written inside a span carries its `trace_id` and `span_id`, so logs and traces find each other. The logger asks
 * through this function rather than importing the tracing package, which depends on it.
 */
export function useTraceIds(provider: TraceIdsProvider | null): void {
  traceIds = provider;
}

const addContext = winston.format((info) => {
  const store = context.getStore();
  if (store) for (const [k, v] of Object.entries(store)) if (info[k] === undefined) info[k] = v;
  const ids = traceIds?.();
  if (ids) {
    info.trace_id ??= ids.traceId;
    info.span_id ??= ids.spanId;
  }
  for (const key of Object.keys(info)) {
    if (key === "level" || key === "message") continue;
    info[key] = SECRET_KEYS.test(key) ? REDACTED : redact(info[key]);
  }
  if (typeof info.message === "string") info.message = scrub(info.message);
  return info;
});

export function createLogger(options: { service: string; level?: string; silent?: boolean }): Logger {
  return winston.createLogger({
    level: options.level ?? "info",
    silent: options.silent ?? false,
    defaultMeta: { service: options.service },
    format: winston.format.combine(addContext(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
