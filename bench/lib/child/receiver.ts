// A fast integrator endpoint in its own process (plain node:http). Verifies every webhook as spec 5.6 tells
// receivers to (timestamp of 1–12 digits within 300 s, `sha256=` + 64 lowercase hex, HMAC-SHA256 over
// `${timestamp}.${raw body}` compared in constant time; 401 otherwise), checks that X-PT-Delivery-Id and
// X-PT-Event match the signed body, and counts deliveries by X-PT-Delivery-Id. GET /_report answers the tallies.
//   RECEIVER_PORT, RECEIVER_SECRET (the integration's signing secret), RECEIVER_TOLERANCE_S (300)
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

const port = Number(process.env.RECEIVER_PORT);
const secret = process.env.RECEIVER_SECRET ?? "";
const toleranceS = Number(process.env.RECEIVER_TOLERANCE_S ?? 300);
if (!Number.isInteger(port) || port <= 0 || !secret) {
  process.stderr.write("RECEIVER_PORT and RECEIVER_SECRET are required\n");
  process.exit(2);
}

/** Valid deliveries per X-PT-Delivery-Id. */
const counts = new Map<string, number>();
const invalid = { signature: 0, timestamp: 0, headers: 0, mismatch: 0, body: 0 };
const invalidIds = new Set<string>();
const byStatus: Record<string, number> = {};
const byAttempt: Record<string, number> = {};
const lagsMs: number[] = [];
const MAX_LAGS = 2_000_000;
const perSecond: number[] = [];
let received = 0;
let valid = 0;
let firstAt: number | null = null;
let lastAt: number | null = null;

function verify(req: IncomingMessage, raw: Buffer): keyof typeof invalid | null {
  const timestamp = req.headers["x-pt-timestamp"];
  const signature = req.headers["x-pt-signature"];
  if (typeof timestamp !== "string" || typeof signature !== "string" || raw.length === 0) return "headers";
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceS) return "timestamp";
  if (!/^sha256=[0-9a-f]{64}$/.test(signature)) return "signature";
  const expected = Buffer.from(
    `sha256=${createHmac("sha256", secret).update(`${timestamp}.`).update(raw).digest("hex")}`,
  );
  return timingSafeEqual(expected, Buffer.from(signature)) ? null : "signature";
}

interface Envelope {
  event?: unknown;
  occurred_at?: unknown;
  delivery_id?: unknown;
  data?: { status?: unknown };
}

function onWebhook(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  const now = Date.now();
  received++;
  const id = req.headers["x-pt-delivery-id"];
  const problem = verify(req, raw);
  if (problem) {
    invalid[problem]++;
    if (typeof id === "string") invalidIds.add(id);
    res.writeHead(401, { "content-type": "text/plain" }).end("invalid signature");
    return;
  }
  let envelope: Envelope;
  try {
    envelope = JSON.parse(raw.toString("utf8")) as Envelope;
  } catch {
    invalid.body++;
    res.writeHead(400).end("bad json");
    return;
  }
  if (typeof id !== "string" || envelope.delivery_id !== id || envelope.event !== req.headers["x-pt-event"]) {
    invalid.mismatch++;
    if (typeof id === "string") invalidIds.add(id);
    res.writeHead(400).end("headers do not match the body");
    return;
  }
  valid++;
  counts.set(id, (counts.get(id) ?? 0) + 1);
  const status = typeof envelope.data?.status === "string" ? envelope.data.status : String(envelope.event);
  byStatus[status] = (byStatus[status] ?? 0) + 1;
  const attempt = String(req.headers["x-pt-attempt"] ?? "?");
  byAttempt[attempt] = (byAttempt[attempt] ?? 0) + 1;
  // occurred_at is when the event entered the queue (spec 2.7): this is the queue-to-receiver lag.
  if (typeof envelope.occurred_at === "string" && lagsMs.length < MAX_LAGS)
    lagsMs.push(now - Date.parse(envelope.occurred_at));
  firstAt ??= now;
  lastAt = now;
  const second = Math.floor((now - firstAt) / 1000);
  perSecond[second] = (perSecond[second] ?? 0) + 1;
  res.writeHead(200, { "content-type": "text/plain" }).end("ok");
}

function report(url: URL): string {
  let duplicates = 0;
  const duplicateIds: [string, number][] = [];
  for (const [id, n] of counts) {
    if (n > 1) {
      duplicates += n - 1;
      if (duplicateIds.length < 1000) duplicateIds.push([id, n]);
    }
  }
  return JSON.stringify({
    received,
    valid,
    unique: counts.size,
    duplicates,
    duplicateIds,
    invalid,
    invalidIds: [...invalidIds].slice(0, 1000),
    byStatus,
    byAttempt,
    firstAt,
    lastAt,
    perSecond: url.searchParams.has("series") ? Array.from(perSecond, (n) => n ?? 0) : undefined,
    lagsMs: url.searchParams.has("lags") ? lagsMs : undefined,
    ids: url.searchParams.has("ids") ? [...counts.keys()] : undefined,
  });
}

const server = createServer((req, res) => {
  if (req.method === "GET") {
    const url = new URL(req.url ?? "/", "http://receiver");
    if (url.pathname === "/_health") return void res.writeHead(200).end("ok");
    if (url.pathname === "/_report")
      return void res.writeHead(200, { "content-type": "application/json" }).end(report(url));
    return void res.writeHead(404).end();
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => onWebhook(req, res, Buffer.concat(chunks)));
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
